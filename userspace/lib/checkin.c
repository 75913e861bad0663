// SPDX-License-Identifier: GPL-2.0
/*
 * checkin.c: the next revision from the revision a view selects plus the
 * view's element changes.
 *
 * Under the store's lock (the store open for writing): choose the changes
 * (mvfs_checkin_select), refuse what is out of date or reserved by
 * another view (mvfs_checkin_check), ask the module for the generation of
 * each entry, then read them and write only the trees on their paths
 * (mvfs_checkin_commit): every other subtree keeps its reference in the
 * new revision.  The state commit makes the revision, atomically.  Only
 * then are the entries retired (mvfs_checkin_retire), children before
 * their directories; one written since its generation was read stays
 * private.  A crash before the commit leaves the old revision and every
 * change private; after it, the new revision and private entries that
 * the next check-in finds equal to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "checkin.h"
#include "err.h"
#include "reload.h"

/* The entries of a directory being built. */
struct mvfs_ents {
	struct mvfs_entry_info	*v;
	size_t			n;
	size_t			cap;
};

static bool mvfs_is_change(const struct mvfs_change *ch)
{
	return ch->kind != MVFS_CH_DIR && ch->kind != MVFS_CH_PRIV;
}

/* Select the renames and removals that share FROM with change I. */
static void mvfs_select_pairs(struct mvfs_priv *p, size_t i)
{
	size_t j;

	if (!p->v[i].from)
		return;
	for (j = 0; j < p->n; j++)
		if ((p->v[j].kind == MVFS_CH_REN ||
		     p->v[j].kind == MVFS_CH_DEL) && p->v[j].from &&
		    !strcmp(p->v[j].from, p->v[i].from))
			p->v[j].selected = true;
}

/* Select the directories above change I: the tree needs them. */
static void mvfs_select_parents(struct mvfs_priv *p, size_t i)
{
	size_t k;

	for (k = i; k-- > 0;)
		if (mvfs_path_under(p->v[i].path, p->v[k].path))
			p->v[k].selected = true;
}

static bool mvfs_wanted(const struct mvfs_change *ch, char **paths,
			int npaths)
{
	int i;

	if (!npaths)
		return true;
	for (i = 0; i < npaths; i++)
		if (mvfs_path_under(ch->path, paths[i]) ||
		    (ch->from && mvfs_path_under(ch->from, paths[i])))
			return true;
	return false;
}

/**
 * mvfs_checkin_select - choose the changes to check in
 * @ci: the check-in, its private area read
 * @paths: element paths: the changes at or under them, or at or under
 *	where they came from; with a rename, its other half; and the
 *	directories above them
 * @npaths: how many; 0 for every change
 *
 * Return: 0, or -ENOENT when that is no change.
 */
int mvfs_checkin_select(struct mvfs_checkin *ci, char **paths, int npaths)
{
	struct mvfs_priv *p = &ci->p;
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		p->v[i].selected = mvfs_is_change(&p->v[i]) &&
				   mvfs_wanted(&p->v[i], paths, npaths);
	for (i = 0; i < p->n; i++)
		if (p->v[i].selected)
			mvfs_select_pairs(p, i);
	for (i = p->n; i-- > 0;)
		if (p->v[i].selected)
			mvfs_select_parents(p, i);
	for (i = 0; i < p->n; i++)
		n += p->v[i].selected && mvfs_is_change(&p->v[i]);
	if (!n)
		return mvfs_err(-ENOENT, "no changes to check in");
	return 0;
}

/* Do A (if HA) and B (if HB) differ, whole or (META) owner and mode? */
static bool mvfs_entry_differ(const struct mvfs_entry_info *a, bool ha,
			      const struct mvfs_entry_info *b, bool hb,
			      bool meta)
{
	if (ha != hb)
		return true;
	if (!ha)
		return false;
	if (a->mode != b->mode || a->uid != b->uid || a->gid != b->gid)
		return true;
	return !meta && (a->size != b->size || a->ref != b->ref ||
			 a->mtime != b->mtime ||
			 a->mtime_nsec != b->mtime_nsec);
}

/* Look PATH up in REV: 1 found, 0 not, or -errno. */
static int mvfs_ci_lookup(struct mvfs_store *s, __u64 rev, const char *path,
			  struct mvfs_entry_info *e)
{
	int err;

	if (!rev)
		return 0;
	err = mvfs_store_lookup(s, rev, path, e);
	if (err == -ENOENT || err == -ENOTDIR)
		return 0;
	return err ? err : 1;
}

/*
 * The first revision after REV in which PATH changed, in *WHEN; 0 when
 * it is the same in the newest revision as in REV.
 */
static int mvfs_changed_since(struct mvfs_store *s, const char *path,
			      __u64 rev, bool meta, __u64 *when)
{
	struct mvfs_entry_info prev, cur;
	__u64 last = mvfs_store_nrevs(s), r;
	int had, has;

	*when = 0;
	had = mvfs_ci_lookup(s, rev, path, &prev);
	has = mvfs_ci_lookup(s, last, path, &cur);
	if (had < 0 || has < 0)
		return had < 0 ? had : has;
	if (!mvfs_entry_differ(&prev, had, &cur, has, meta))
		return 0;
	for (r = rev + 1; r <= last && !*when; r++) {
		has = mvfs_ci_lookup(s, r, path, &cur);
		if (has < 0)
			return has;
		if (mvfs_entry_differ(&prev, had, &cur, has, meta))
			*when = r;
		had = has;
		prev = cur;
	}
	return 0;
}

/* The revision that made PATH, new in this view, exist; 0 if none. */
static int mvfs_added_in(struct mvfs_store *s, const char *path,
			 __u64 *when)
{
	struct mvfs_entry_info e;
	__u64 r = mvfs_store_nrevs(s);
	int has;

	*when = 0;
	while (r > 0) {
		has = mvfs_ci_lookup(s, r, path, &e);
		if (has <= 0)
			return has;
		*when = r--;
	}
	return 0;
}

/* Do files A and B hold the same SIZE bytes? */
static bool mvfs_same_bytes(const char *a, const char *b, __u64 size)
{
	char x[16384], y[16384];
	int fa, fb;
	ssize_t n = 1, m;
	bool same = false;

	fa = open(a, O_RDONLY | O_CLOEXEC);
	fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	while (fa >= 0 && fb >= 0 && size && n > 0) {
		n = read(fa, x, sizeof(x));
		m = n > 0 ? read(fb, y, n) : -1;
		if (m != n || memcmp(x, y, n))
			break;
		size -= n;
	}
	same = fa >= 0 && fb >= 0 && !size;
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/*
 * Does the newest revision hold at CH's path what its private file
 * holds?  Then it is no conflict: what a check-in interrupted between
 * its commit and its retiring leaves.
 */
static bool mvfs_in_newest(struct mvfs_checkin *ci,
			   const struct mvfs_change *ch)
{
	char obj[MVFS_OBJ_PATH_LEN], *path;
	struct mvfs_entry_info e;
	struct stat st;
	bool same;

	if (!S_ISREG(ch->mode) || lstat(ch->upath, &st) ||
	    mvfs_ci_lookup(ci->s, mvfs_store_nrevs(ci->s), ch->path, &e) != 1 ||
	    e.mode != st.st_mode || e.size != (__u64)st.st_size)
		return false;
	if (!e.ref)
		return true;
	mvfs_object_path(obj, e.ref);
	if (asprintf(&path, "%s/%s", ci->store_dir, obj) < 0)
		return false;
	same = mvfs_same_bytes(path, ch->upath, e.size);
	free(path);
	return same;
}

static int mvfs_check_one(struct mvfs_checkin *ci,
			  const struct mvfs_change *ch)
{
	const char *holder;
	__u64 when;
	int err;

	holder = mvfs_resv_holder(ci->s, &ci->resv, ch->path);
	if (!holder && ch->from)
		holder = mvfs_resv_holder(ci->s, &ci->resv, ch->from);
	if (holder && strcmp(holder, ci->tag))
		return mvfs_err(-EBUSY, "%s: reserved by view %s", ch->path,
				holder);
	if (mvfs_in_newest(ci, ch))
		return 0;
	if (ch->kind == MVFS_CH_ADD)
		err = mvfs_added_in(ci->s, ch->path, &when);
	else
		err = mvfs_changed_since(ci->s, ch->from, ch->rev,
					 S_ISDIR(ch->mode) &&
					 ch->kind != MVFS_CH_DEL, &when);
	if (!err && when)
		err = mvfs_err(-EAGAIN, "out of date: %s changed in revision %llu",
			       ch->kind == MVFS_CH_ADD ? ch->path : ch->from,
			       when);
	return err;
}

/**
 * mvfs_checkin_check - refuse what is out of date or reserved
 * @ci: the check-in, its changes selected
 *
 * An element is out of date when its entry at the path it was copied
 * from differs between the revision it was copied from and the newest
 * (a directory: its owner and mode); a new element, when the newest
 * revision has something at its path.
 *
 * Return: 0; -EAGAIN out of date; -EBUSY reserved by another view.
 */
int mvfs_checkin_check(struct mvfs_checkin *ci)
{
	size_t i;
	int err;

	err = mvfs_resv_read(ci->store_dir, &ci->resv);
	for (i = 0; !err && i < ci->p.n; i++)
		if (ci->p.v[i].selected && mvfs_is_change(&ci->p.v[i]))
			err = mvfs_check_one(ci, &ci->p.v[i]);
	return err;
}

/* The entries of SRC in the newest revision, into ES (none if NULL). */
static int mvfs_ents_base(struct mvfs_checkin *ci, const char *src,
			  struct mvfs_ents *es)
{
	struct mvfs_entry_info d;
	int err;

	memset(es, 0, sizeof(*es));
	err = src ? mvfs_ci_lookup(ci->s, mvfs_store_nrevs(ci->s), src, &d) :
		    0;
	if (err <= 0 || !S_ISDIR(d.mode))
		return err < 0 ? err : 0;
	err = mvfs_store_list(ci->s, &d, &es->v);
	if (!err)
		es->n = d.size;
	es->cap = es->n;
	return err;
}

static ssize_t mvfs_ents_find(const struct mvfs_ents *es, const char *name)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		if (!strcmp(es->v[i].name, name))
			return i;
	return -1;
}

static void mvfs_ents_remove(struct mvfs_ents *es, const char *name)
{
	ssize_t i = mvfs_ents_find(es, name);

	if (i < 0)
		return;
	free(es->v[i].name);
	es->v[i] = es->v[--es->n];
}

/* Set entry NAME to E (its name is set here). */
static int mvfs_ents_set(struct mvfs_ents *es, const char *name,
			 struct mvfs_entry_info *e)
{
	struct mvfs_entry_info *v;

	mvfs_ents_remove(es, name);
	if (es->n == es->cap) {
		v = realloc(es->v, (es->cap * 2 + 8) * sizeof(*v));
		if (!v)
			return mvfs_err(-ENOMEM, "out of memory");
		es->v = v;
		es->cap = es->cap * 2 + 8;
	}
	e->name = strdup(name);
	if (!e->name)
		return mvfs_err(-ENOMEM, "out of memory");
	es->v[es->n++] = *e;
	return 0;
}

static void mvfs_entry_stat(struct mvfs_entry_info *e, const struct stat *st)
{
	memset(e, 0, sizeof(*e));
	e->mode = st->st_mode;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->mtime = st->st_mtim.tv_sec;
	e->mtime_nsec = st->st_mtim.tv_nsec;
}

static int mvfs_ci_file(struct mvfs_checkin *ci, const struct mvfs_change *ch,
			struct mvfs_entry_info *e)
{
	struct stat st;
	int fd, err;

	fd = open(ch->upath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		err = mvfs_err(-errno, "%s: %s", ch->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = mvfs_err(-ESTALE, "%s: changed while it was read",
			       ch->path);
	else
		err = 0;
	if (!err) {
		mvfs_entry_stat(e, &st);
		e->size = st.st_size;
		err = mvfs_store_put_file(ci->s, fd, e->size, &e->ref);
	}
	if (fd >= 0)
		close(fd);
	return err;
}

static int mvfs_ci_symlink(struct mvfs_checkin *ci,
			   const struct mvfs_change *ch,
			   const struct stat *st, struct mvfs_entry_info *e)
{
	char target[PATH_MAX];
	ssize_t len;

	len = readlink(ch->upath, target, sizeof(target));
	if (len <= 0 || (size_t)len >= sizeof(target))
		return mvfs_err(len < 0 ? -errno : -ENAMETOOLONG,
				"%s: cannot read the symlink", ch->path);
	mvfs_entry_stat(e, st);
	e->size = len;
	return mvfs_store_put_symlink(ci->s, target, len, &e->ref);
}

static int mvfs_ci_dir(struct mvfs_checkin *ci, size_t first, size_t end,
		       const char *src, struct mvfs_entry_info *e);

/* The new entry of change I, whose descendants end at END. */
static int mvfs_ci_entry(struct mvfs_checkin *ci, size_t i, size_t end,
			 struct mvfs_entry_info *e)
{
	const struct mvfs_change *ch = &ci->p.v[i];
	struct stat st;

	if (lstat(ch->upath, &st))
		return mvfs_err(-errno, "%s: %s", ch->path, strerror(errno));
	if (S_ISREG(st.st_mode))
		return mvfs_ci_file(ci, ch, e);
	if (S_ISLNK(st.st_mode))
		return mvfs_ci_symlink(ci, ch, &st, e);
	if (!S_ISDIR(st.st_mode))
		return mvfs_err(-EINVAL, "%s: %s", ch->path,
				"only files, directories and symlinks can be elements");
	mvfs_entry_stat(e, &st);
	return mvfs_ci_dir(ci, i + 1, end, ch->src, e);
}

/* Apply the selected changes among FIRST..END (one directory's) to ES. */
static int mvfs_ci_apply(struct mvfs_checkin *ci, size_t first, size_t end,
			 struct mvfs_ents *es)
{
	struct mvfs_change *ch;
	struct mvfs_entry_info e;
	size_t i, sub;
	int err = 0;

	for (i = first; !err && i < end; i = sub) {
		ch = &ci->p.v[i];
		for (sub = i + 1; sub < end &&
		     mvfs_path_under(ci->p.v[sub].path, ch->path); sub++)
			;
		if (!ch->selected)
			continue;
		if (ch->kind == MVFS_CH_DEL) {
			mvfs_ents_remove(es, strrchr(ch->upath, '/') + 1);
			continue;
		}
		err = mvfs_ci_entry(ci, i, sub, &e);
		if (!err)
			err = mvfs_ents_set(es, strrchr(ch->upath, '/') + 1, &e);
	}
	return err;
}

/*
 * Store the directory whose private entries are FIRST..END, over the
 * entries of SRC in the newest revision; E holds its metadata.
 */
static int mvfs_ci_dir(struct mvfs_checkin *ci, size_t first, size_t end,
		       const char *src, struct mvfs_entry_info *e)
{
	struct mvfs_ents es;
	int err;

	err = mvfs_ents_base(ci, src, &es);
	if (!err)
		err = mvfs_ci_apply(ci, first, end, &es);
	if (!err && es.n > UINT32_MAX)
		err = mvfs_err(-E2BIG, "too many entries");
	if (!err) {
		e->size = es.n;
		err = mvfs_store_put_tree(ci->s, es.v, es.n, &e->ref);
	}
	mvfs_store_list_free(es.v, es.n);
	return err;
}

/* Ask the module for the generation of each selected entry. */
static int mvfs_ci_gens(struct mvfs_checkin *ci)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < ci->p.n; i++)
		if (ci->p.v[i].selected)
			err = mvfs_priv_gen(ci->vmnt, ci->tag, ci->p.v[i].path,
					    &ci->p.v[i].gen);
	return err;
}

/**
 * mvfs_checkin_commit - write and commit the new revision
 * @ci: the check-in, checked
 * @msg: the revision's message
 *
 * Return: 0 (ci->rev set) or -errno, and then nothing is committed.
 */
int mvfs_checkin_commit(struct mvfs_checkin *ci, const char *msg)
{
	__u64 last = mvfs_store_nrevs(ci->s);
	struct mvfs_rev_info ri;
	struct mvfs_entry_info root;
	struct stat st;
	int err;

	err = mvfs_ci_gens(ci);
	if (err)
		return err;
	if (last) {
		mvfs_store_rev(ci->s, last, &ri);
		root = ri.root;
	} else if (stat(ci->p.upper, &st)) {
		return mvfs_err(-errno, "%s: %s", ci->p.upper,
				strerror(errno));
	} else {
		mvfs_entry_stat(&root, &st);
	}
	err = mvfs_store_begin(ci->s);
	if (err)
		return err;
	err = mvfs_ci_dir(ci, 0, ci->p.n, last ? "" : NULL, &root);
	if (err) {
		mvfs_store_abort(ci->s);
		return err;
	}
	root.name = NULL;
	return mvfs_store_commit_rev(ci->s, &root, msg, &ci->rev);
}

/* This view's reservations of what it checked in end with it. */
static int mvfs_ci_unreserve(struct mvfs_checkin *ci)
{
	bool any = false;
	size_t i;

	for (i = 0; i < ci->p.n; i++)
		if (ci->p.v[i].selected)
			any |= mvfs_resv_drop(&ci->resv, ci->tag,
					      ci->p.v[i].path);
	return any ? mvfs_resv_write(ci->store_dir, &ci->resv) : 0;
}

/**
 * mvfs_checkin_retire - after the commit: reload, let the entries go
 * @ci: the check-in, committed
 *
 * Children before their directories.  An entry written since it was
 * read stays private (counted in ci->stale), as view-private files do.
 *
 * Return: 0, or the first failure (the others are still tried).
 */
int mvfs_checkin_retire(struct mvfs_checkin *ci)
{
	struct mvfs_change *ch;
	size_t i;
	int err, first;

	first = mvfs_reload(ci->vmnt);
	if (first)
		return mvfs_err(first, "%s did not take revision %llu: %s",
				ci->vmnt, ci->rev, strerror(-first));
	first = mvfs_ci_unreserve(ci);
	for (i = ci->p.n; i-- > 0;) {
		ch = &ci->p.v[i];
		if (!ch->selected)
			continue;
		err = mvfs_priv_retire(ci->vmnt, ci->tag, ch->path, ch->gen,
				       ci->rev, 0);
		if (err == -ESTALE)
			ci->stale += !S_ISDIR(ch->mode);
		else if (err && !first)
			first = mvfs_err_prefix(err, "retiring");
	}
	return first;
}
