// SPDX-License-Identifier: GPL-2.0
/*
 * priv.c: read a view's private area into a list of changes.
 *
 * The private area lies over the tree the view selects as overlayfs's
 * upper layer lies over its lower one (docs/FORMAT.md, "Format 2").  What
 * each entry is follows from its xattrs and from the tree beneath it: a
 * whiteout over an element is a removal, a copy with an origin is a
 * change (a move when it is not where its origin says), an entry marked
 * by mkelem is a new element, and anything else is view-private, unless
 * it stands in for an element of the same name.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include "bound.h"
#include "err.h"
#include "priv.h"

/* What the walk knows of the private directory at hand. */
struct mvfs_pdir {
	const char		*path;	/* its element path */
	const char		*upath;	/* on the store */
	const char		*src;	/* what shows through it, or NULL */
	__u64			rev;	/* its origin's; 0 the top */
	__u64			srev;	/* src was looked up in srev: */
	int			found;	/* 1 there, as sdir; 0 not */
	struct mvfs_entry_info	sdir;
};

struct mvfs_origin {
	__u64	rev;
	char	*path;
};

/**
 * mvfs_change_letter - how lsco shows a change
 * @ch: the change
 *
 * Return: "M", "D", "R", "A", or "" for what is not a change.
 */
const char *mvfs_change_letter(const struct mvfs_change *ch)
{
	static const char * const letter[] = {
		/* the old name of a moved element shows as its R */
		[MVFS_CH_MOD] = "M", [MVFS_CH_DEL] = "D",
		[MVFS_CH_REN] = "R", [MVFS_CH_ADD] = "A",
		[MVFS_CH_DIR] = "", [MVFS_CH_PRIV] = "",
	};

	return ch->moved ? "" : letter[ch->kind];
}

static int mvfs_priv_oom(void)
{
	return mvfs_err(-ENOMEM, "out of memory");
}

/* Append a change; it owns PATH, UPATH and FROM from now on. */
static int mvfs_priv_add(struct mvfs_priv *p, enum mvfs_change_kind kind,
			 char *path, char *upath, char *from, __u64 rev,
			 mode_t mode)
{
	struct mvfs_change *v, *ch;

	if (p->n == p->cap) {
		v = realloc(p->v, (p->cap * 2 + 32) * sizeof(*v));
		if (!v) {
			free(path);
			free(upath);
			free(from);
			return mvfs_priv_oom();
		}
		p->v = v;
		p->cap = p->cap * 2 + 32;
	}
	ch = &p->v[p->n++];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->path = path;
	ch->upath = upath;
	ch->from = from;
	ch->rev = rev;
	ch->mode = mode;
	return 0;
}

/*
 * UPATH's record XNAME (trusted.mvfs.origin, or .base: one layout): 0,
 * -ENODATA for none, or -EIO; QUIET: no message for a bad one.
 */
static int mvfs_record_read(const char *upath, const char *xname,
			    struct mvfs_origin *o, bool quiet)
{
	char buf[MVFS_ORIGIN_MAX];
	struct mvfs_origin_disk *od = (void *)buf;
	ssize_t n;
	__u32 len;

	n = lgetxattr(upath, xname, buf, sizeof(buf));
	if (n < 0 && (errno == ENODATA || errno == ENOTSUP))
		return -ENODATA;
	if (n < 0 && quiet)
		return -EIO;
	if (n < 0)
		return mvfs_err(-errno, "%s: %s", upath, strerror(errno));
	len = n >= (ssize_t)sizeof(*od) ? le32toh(od->path_len) : 0;
	if (n < (ssize_t)sizeof(*od) || len != n - sizeof(*od) ||
	    od->reserved || memchr(od + 1, '\0', len))
		return quiet ? -EIO :
		       mvfs_err(-EIO, "%s: bad %s", upath, xname);
	o->rev = le64toh(od->rev);
	o->path = strndup((char *)(od + 1), len);
	return o->path ? 0 : mvfs_priv_oom();
}

static int mvfs_origin_read(const char *upath, struct mvfs_origin *o)
{
	return mvfs_record_read(upath, MVFS_XATTR_ORIGIN, o, false);
}

static bool mvfs_has_elem(const char *upath)
{
	return lgetxattr(upath, MVFS_XATTR_ELEM, NULL, 0) >= 0;
}

/*
 * Does the view show an element NAME in what shows through directory D?
 * 1 yes, 0 no, or -errno.  The spec's rule for D/NAME says in which
 * revision; SRC is looked up there once for all the names of D that the
 * same revision shows, and NAME in its tree, so that a large directory
 * costs a lookup per private entry, not a listing.
 */
static int mvfs_base_has(struct mvfs_priv *p, struct mvfs_pdir *d,
			 const char *from, const char *name)
{
	struct mvfs_entry_info e;
	__u64 rev;
	int err;

	if (!d->src)
		return 0;
	rev = mvfs_sel_rev(p->sel, from);
	if (!rev)
		return 0;
	if (rev != d->srev) {
		d->found = mvfs_store_find(p->s, rev, d->src, &d->sdir);
		d->srev = d->found < 0 ? 0 : rev;
		if (d->found < 0)
			return d->found;
	}
	if (!d->found)
		return 0;
	err = mvfs_store_lookup_child(p->s, &d->sdir, name, &e);
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

/* The revision a change in D at FROM was copied from. */
static __u64 mvfs_pdir_rev(struct mvfs_priv *p, const struct mvfs_pdir *d,
			   const char *from)
{
	return d->rev ? d->rev : mvfs_sel_rev(p->sel, from);
}

/*
 * The revision UPATH's base record (docs/FORMAT.md) gives the element
 * PATH it stands over, or 0 when it has none for PATH.
 */
static __u64 mvfs_base_rev(struct mvfs_priv *p, const char *upath,
			   const char *path)
{
	struct mvfs_origin b = { 0 };
	__u64 rev = 0;

	if (!mvfs_record_read(upath, MVFS_XATTR_BASE, &b, true) &&
	    b.rev && b.rev <= mvfs_store_nrevs(p->s) && !strcmp(b.path, path))
		rev = b.rev;
	free(b.path);
	return rev;
}

/*
 * The revision the removal or replacement UPATH of the element FROM in D
 * stands on: the one its base record names (docs/FORMAT.md), if it names
 * FROM; else, as before the record, D's.
 */
static __u64 mvfs_change_rev(struct mvfs_priv *p, const struct mvfs_pdir *d,
			     const char *upath, const char *from)
{
	__u64 rev = mvfs_base_rev(p, upath, from);

	return rev ? rev : mvfs_pdir_rev(p, d, from);
}

/* Has a directory changed itself (owner or mode) since its origin? */
static bool mvfs_dir_changed(struct mvfs_priv *p, const struct stat *st,
			     const struct mvfs_origin *o)
{
	struct mvfs_entry_info e;

	if (!o->rev || o->rev > mvfs_store_nrevs(p->s) ||
	    mvfs_store_lookup(p->s, o->rev, o->path, &e))
		return true;
	return e.mode != st->st_mode || e.uid != st->st_uid ||
	       e.gid != st->st_gid;
}

static int mvfs_walk(struct mvfs_priv *p, struct mvfs_pdir *d);

/* Recurse into the private directory of change I, showing SRC. */
static int mvfs_walk_child(struct mvfs_priv *p, size_t i, const char *src,
			   __u64 rev)
{
	struct mvfs_pdir sub = { .src = src, .rev = rev };

	sub.path = p->v[i].path;
	sub.upath = p->v[i].upath;
	return mvfs_walk(p, &sub);
}

/* A view-private directory holding elements must become one too. */
static void mvfs_priv_promote(struct mvfs_priv *p, size_t i)
{
	size_t j;

	for (j = i + 1; j < p->n; j++)
		if (p->v[j].kind != MVFS_CH_PRIV) {
			p->v[i].kind = MVFS_CH_ADD;
			return;
		}
}

/* Classify one entry with an origin. */
static int mvfs_walk_origin(struct mvfs_priv *p, struct mvfs_pdir *d,
			    char *path, char *upath, const struct stat *st,
			    struct mvfs_origin *o)
{
	enum mvfs_change_kind kind = MVFS_CH_REN;
	char *expect = d->src ? mvfs_path_join(d->src, strrchr(upath, '/') + 1)
			      : NULL;
	size_t i = p->n;
	int err;

	if (expect && !strcmp(expect, o->path))
		kind = MVFS_CH_MOD;
	free(expect);
	if (kind == MVFS_CH_MOD && S_ISDIR(st->st_mode) &&
	    !mvfs_dir_changed(p, st, o))
		kind = MVFS_CH_DIR;
	err = mvfs_priv_add(p, kind, path, upath, o->path, o->rev,
			    st->st_mode);
	if (!err && kind == MVFS_CH_REN && d->src) {
		p->v[i].over = mvfs_path_join(d->src,
					      strrchr(upath, '/') + 1);
		if (!p->v[i].over)
			return mvfs_priv_oom();
		/*
		 * What the view showed there: as the module recorded when the
		 * move landed there (its base record, docs/FORMAT.md); else,
		 * as of the element's copy, or of its new directory's copy
		 * (which a check-in that retires it moves on), the later.  Not
		 * the view's selection now, which would hide a change made
		 * since the move.
		 */
		p->v[i].over_rev = mvfs_base_rev(p, upath, p->v[i].over);
		if (!p->v[i].over_rev)
			p->v[i].over_rev = d->rev > o->rev ? d->rev : o->rev;
	}
	if (err || !S_ISDIR(st->st_mode))
		return err;
	p->v[i].src = strdup(o->path);
	if (!p->v[i].src)
		return mvfs_priv_oom();
	return mvfs_walk_child(p, i, p->v[i].src, o->rev);
}

/* Classify the entry NAME of private directory D. */
static int mvfs_walk_one(struct mvfs_priv *p, struct mvfs_pdir *d,
			 const char *name)
{
	struct mvfs_origin o = { 0 };
	enum mvfs_change_kind kind;
	struct stat st;
	char *path, *upath, *from;
	size_t i = p->n;
	int err = 0;

	path = mvfs_path_join(d->path, name);
	upath = mvfs_path_join(d->upath, name);
	from = d->src ? mvfs_path_join(d->src, name) : NULL;
	if (!path || !upath || (d->src && !from)) {
		err = mvfs_priv_oom();
		goto out_free;
	}
	if (lstat(upath, &st)) {
		err = mvfs_err(-errno, "%s: %s", upath, strerror(errno));
		goto out_free;
	}
	if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
		err = mvfs_base_has(p, d, from, name);
		if (err <= 0)
			goto out_free;	/* over nothing now, or failed */
		return mvfs_priv_add(p, MVFS_CH_DEL, path, upath, from,
				     mvfs_change_rev(p, d, upath, from),
				     st.st_mode);
	}
	err = mvfs_origin_read(upath, &o);
	if (!err) {
		free(from);
		return mvfs_walk_origin(p, d, path, upath, &st, &o);
	}
	if (err != -ENODATA)
		goto out_free;
	err = mvfs_base_has(p, d, from, name);
	if (err < 0)
		goto out_free;
	if (err) {
		kind = MVFS_CH_MOD;	/* in place of the element */
	} else {
		kind = mvfs_has_elem(upath) ? MVFS_CH_ADD : MVFS_CH_PRIV;
		free(from);
		from = NULL;
	}
	err = mvfs_priv_add(p, kind, path, upath, from,
			    from ? mvfs_change_rev(p, d, upath, from) : 0,
			    st.st_mode);
	if (err || !S_ISDIR(st.st_mode))
		return err;
	err = mvfs_walk_child(p, i, NULL, 0);
	if (!err && p->v[i].kind == MVFS_CH_PRIV)
		mvfs_priv_promote(p, i);
	return err;

out_free:
	free(path);
	free(upath);
	free(from);
	return err;
}

static int mvfs_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The names in directory UPATH, sorted. */
static int mvfs_read_names(const char *upath, char ***names, size_t *n)
{
	struct dirent *de;
	size_t cap = 0;
	char **v = NULL, **nv;
	DIR *dir;
	int err = 0;

	*n = 0;
	*names = NULL;
	dir = opendir(upath);
	if (!dir)
		return mvfs_err(-errno, "%s: %s", upath, strerror(errno));
	while (!err && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n == cap) {
			nv = realloc(v, (cap * 2 + 16) * sizeof(*v));
			if (!nv) {
				err = mvfs_priv_oom();
				break;
			}
			v = nv;
			cap = cap * 2 + 16;
		}
		v[*n] = strdup(de->d_name);
		err = v[*n] ? 0 : mvfs_priv_oom();
		*n += !err;
	}
	closedir(dir);
	if (*n)
		qsort(v, *n, sizeof(*v), mvfs_name_cmp);
	*names = v;
	return err;
}

static int mvfs_walk(struct mvfs_priv *p, struct mvfs_pdir *d)
{
	char **names = NULL;
	size_t n = 0, i;
	int err;

	err = mvfs_read_names(d->upath, &names, &n);
	for (i = 0; !err && i < n; i++)
		err = mvfs_walk_one(p, d, names[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

static int mvfs_from_cmp(const void *a, const void *b)
{
	const struct mvfs_change *x = *(struct mvfs_change * const *)a;
	const struct mvfs_change *y = *(struct mvfs_change * const *)b;
	int c = strcmp(x->from, y->from);

	return c ? c : (x > y) - (x < y);	/* then in the list's order */
}

struct mvfs_from_key {
	const struct mvfs_priv	*p;
	const char		*from;
};

static bool mvfs_from_below(const void *arg, size_t i)
{
	const struct mvfs_from_key *k = arg;

	return strcmp(k->p->byfrom[i]->from, k->from) < 0;
}

/**
 * mvfs_priv_from - the changes to the element at @from
 * @p: the list
 * @from: an element path, as changes' ->from
 * @n: set to how many
 *
 * A move and the removal at its old name, a change and a move of the
 * same element: found by search, where a search of every change for each
 * took time in their product.
 *
 * Return: the first of them (@n of them, in the list's order), in
 * p->byfrom.
 */
struct mvfs_change **mvfs_priv_from(const struct mvfs_priv *p,
				    const char *from, size_t *n)
{
	struct mvfs_from_key k = { .p = p, .from = from };
	size_t i = mvfs_bound(p->nfrom, mvfs_from_below, &k), j = i;

	while (j < p->nfrom && !strcmp(p->byfrom[j]->from, from))
		j++;
	*n = j - i;
	return p->byfrom + i;
}

/*
 * Sort the changes by the element they were (p->byfrom), and mark the
 * removals that are the old names of moved elements.
 */
static int mvfs_priv_pair(struct mvfs_priv *p)
{
	struct mvfs_change **same;
	size_t i, j, n;

	p->byfrom = calloc(p->n + 1, sizeof(*p->byfrom));
	if (!p->byfrom)
		return mvfs_priv_oom();
	for (i = 0; i < p->n; i++)
		if (p->v[i].from)
			p->byfrom[p->nfrom++] = &p->v[i];
	qsort(p->byfrom, p->nfrom, sizeof(*p->byfrom), mvfs_from_cmp);
	for (i = 0; i < p->n; i++) {
		if (p->v[i].kind != MVFS_CH_REN || !p->v[i].from)
			continue;
		same = mvfs_priv_from(p, p->v[i].from, &n);
		for (j = 0; j < n; j++)
			if (same[j]->kind == MVFS_CH_DEL)
				same[j]->moved = true;
	}
	return 0;
}

/**
 * mvfs_priv_read - read view @tag's private area
 * @s: the store, open
 * @store_dir: its directory
 * @tag: the view
 * @sel: what the view's spec selects now
 * @p: filled in: the changes, parents before children, by name
 *
 * Return: 0; -EPERM when not root; -ENOENT when the view has no
 * private area; -errno.
 */
int mvfs_priv_read(struct mvfs_store *s, const char *store_dir,
		   const char *tag, const struct mvfs_sel *sel,
		   struct mvfs_priv *p)
{
	struct mvfs_pdir top = { .path = "", .src = "" };
	struct stat st;
	size_t i;
	int err;

	memset(p, 0, sizeof(*p));
	/*
	 * trusted.* xattrs are invisible to others: every entry would
	 * look view-private.
	 */
	if (geteuid())
		return mvfs_err(-EPERM, "reading view %s's private area needs root",
				tag);
	p->s = s;
	p->sel = sel;
	if (asprintf(&p->upper, "%s/%s/%s/%s", store_dir, MVFS_VIEWS_DIR, tag,
		     MVFS_UPPER_DIR) < 0) {
		p->upper = NULL;
		return mvfs_priv_oom();
	}
	if (stat(p->upper, &st) || !S_ISDIR(st.st_mode))
		return mvfs_err(-ENOENT, "view %s has no private area (%s)",
				tag, p->upper);
	top.upath = p->upper;
	err = mvfs_walk(p, &top);
	p->ordered = true;
	for (i = 1; i < p->n; i++)
		p->ordered &= mvfs_path_order(p->v[i - 1].path,
					      p->v[i].path) < 0;
	if (!err)
		err = mvfs_priv_pair(p);
	if (err)
		mvfs_priv_free(p);
	return err;
}

/**
 * mvfs_priv_free - free what mvfs_priv_read() gave
 * @p: the list
 */
void mvfs_priv_free(struct mvfs_priv *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].path);
		free(p->v[i].upath);
		free(p->v[i].from);
		free(p->v[i].over);
		free(p->v[i].src);
	}
	free(p->v);
	free(p->byfrom);
	free(p->upper);
	memset(p, 0, sizeof(*p));
}

struct mvfs_find_key {
	const struct mvfs_priv	*p;
	const char		*path;
};

static bool mvfs_find_below(const void *arg, size_t i)
{
	const struct mvfs_find_key *k = arg;

	return mvfs_path_order(k->p->v[i].path, k->path) < 0;
}

/**
 * mvfs_priv_find - the change at element path @path
 * @p: the list
 * @path: an element path
 *
 * A binary search of the list, in the order mvfs_priv_read() makes:
 * commands that look up each of thousands of paths (mkelem $(find ...))
 * searched it whole for each.
 *
 * Return: the change, or NULL when the view has none there.
 */
struct mvfs_change *mvfs_priv_find(struct mvfs_priv *p, const char *path)
{
	struct mvfs_find_key k = { .p = p, .path = path };
	size_t i;

	if (!p->ordered) {
		for (i = 0; i < p->n; i++)
			if (!strcmp(p->v[i].path, path))
				return &p->v[i];
		return NULL;
	}
	i = mvfs_bound(p->n, mvfs_find_below, &k);
	return i < p->n && !strcmp(p->v[i].path, path) ? &p->v[i] : NULL;
}
