// SPDX-License-Identifier: GPL-2.0
/*
 * tree.c: trees, the directories of a revision in the pack: serializing
 * them (whole, or as another tree with a few entries changed), reading
 * them, looking a path up, listing them.
 *
 * Committed bytes never change, so the trees a command reads are kept
 * (a few, by their pack offset): the lookups of a check-in read the trees
 * along its paths once, not once per lookup.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "store_int.h"

/* The tree order of two names: bytewise, a prefix first (as strcmp). */
static int mvfs_name_cmp(const void *a, const void *b)
{
	const struct mvfs_entry_info *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* NAME of LEN bytes (not NUL-terminated) against STR, in tree order. */
static int mvfs_name_cmp_len(const char *name, size_t len, const char *str)
{
	size_t n = strlen(str);
	int c = memcmp(name, str, len < n ? len : n);

	if (c)
		return c;
	return len < n ? -1 : len > n;
}

/* Serialize a tree of sorted entries; NULL without memory or room. */
static char *mvfs_tree_image(const struct mvfs_entry_info *ents,
			     __u32 count, size_t *lenp)
{
	struct mvfs_tree_hdr *h;
	struct mvfs_entry_disk *d;
	size_t names_len = 0, len, nl;
	char *buf, *names;
	__u32 i;

	for (i = 0; i < count; i++)
		names_len += strlen(ents[i].name);
	if (names_len > UINT32_MAX)
		return NULL;
	len = sizeof(*h) + (size_t)count * sizeof(*d) + names_len;
	buf = calloc(1, len);
	if (!buf)
		return NULL;
	h = (struct mvfs_tree_hdr *)buf;
	h->magic = htole32(MVFS_TREE_MAGIC);
	h->count = htole32(count);
	h->names_len = htole32(names_len);
	d = (struct mvfs_entry_disk *)(h + 1);
	names = (char *)(d + count);
	for (i = 0, names_len = 0; i < count; i++) {
		nl = strlen(ents[i].name);
		mvfs_entry_encode(&ents[i], names_len, nl, &d[i]);
		memcpy(names + names_len, ents[i].name, nl);
		names_len += nl;
	}
	*lenp = len;
	return buf;
}

/**
 * mvfs_store_put_tree - store a directory
 * @s: the store, between mvfs_store_begin() and the commit
 * @ents: its entries, with valid names; sorted here into the tree's order
 * @count: how many
 * @ref: set to where the tree is
 *
 * A tree equal to one already stored is not stored again.
 *
 * Return: 0 or -errno.
 */
int mvfs_store_put_tree(struct mvfs_store *s, struct mvfs_entry_info *ents,
			__u32 count, __u64 *ref)
{
	size_t len;
	char *buf;
	int err;

	qsort(ents, count, sizeof(*ents), mvfs_name_cmp);
	buf = mvfs_tree_image(ents, count, &len);
	if (!buf)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_pack_put(s, buf, len, ref);
	free(buf);
	return err;
}

/* The trees read lately. */

static void mvfs_tree_drop(struct mvfs_store *s, unsigned int i)
{
	struct mvfs_tree_slot *t = &s->trees[i];

	s->tree_bytes -= t->len;
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/**
 * mvfs_tree_cache_free - forget the trees read
 * @s: the store
 */
void mvfs_tree_cache_free(struct mvfs_store *s)
{
	unsigned int i;

	for (i = 0; i < MVFS_TREE_CACHE; i++)
		mvfs_tree_drop(s, i);
}

/* Keep tree BUF of LEN bytes, at REF, in place of older ones. */
static void mvfs_tree_keep(struct mvfs_store *s, __u64 ref, char *buf,
			   size_t len)
{
	unsigned int i = s->tree_next++ % MVFS_TREE_CACHE, j;

	mvfs_tree_drop(s, i);
	for (j = 0; j < MVFS_TREE_CACHE &&
	     s->tree_bytes + len > MVFS_TREE_CACHE_MAX; j++)
		mvfs_tree_drop(s, j);
	s->trees[i].ref = ref;
	s->trees[i].buf = buf;
	s->trees[i].len = len;
	s->tree_bytes += len;
}

/* The tree at DIR->ref if it was read, checked against DIR, or NULL. */
static const char *mvfs_tree_kept(struct mvfs_store *s,
				  const struct mvfs_entry_info *dir, int *err)
{
	const struct mvfs_tree_hdr *h;
	unsigned int i;

	for (i = 0; i < MVFS_TREE_CACHE; i++) {
		h = (const void *)s->trees[i].buf;
		if (!h || s->trees[i].ref != dir->ref)
			continue;
		if (le32toh(h->count) != dir->size)
			*err = mvfs_corrupt(s, "tree", dir->ref);
		return (const char *)h;
	}
	return NULL;
}

/*
 * The whole tree of directory entry DIR, checked, into *TREE: kept by
 * the store, valid until the next mvfs_tree_read().
 */
static int mvfs_tree_read(struct mvfs_store *s,
			  const struct mvfs_entry_info *dir, const char **tree)
{
	struct mvfs_tree_hdr h;
	char *buf;
	__u64 len;
	int err = 0;

	*tree = mvfs_tree_kept(s, dir, &err);
	if (*tree || err)
		return err;
	if (dir->ref < sizeof(struct mvfs_pack_hdr) ||
	    !mvfs_range_ok(dir->ref, sizeof(h), s->pack_len))
		return mvfs_corrupt(s, "tree", dir->ref);
	err = mvfs_pack_read(s, &h, sizeof(h), dir->ref);
	if (err)
		return err;
	len = sizeof(h) + (__u64)le32toh(h.count) *
	      sizeof(struct mvfs_entry_disk) + le32toh(h.names_len);
	if (le32toh(h.magic) != MVFS_TREE_MAGIC ||
	    le32toh(h.count) != dir->size ||
	    !mvfs_range_ok(dir->ref, len, s->pack_len))
		return mvfs_corrupt(s, "tree", dir->ref);
	buf = malloc(len);
	if (!buf)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_pack_read(s, buf, len, dir->ref);
	if (err) {
		free(buf);
		return err;
	}
	mvfs_tree_keep(s, dir->ref, buf, len);
	*tree = buf;
	return 0;
}

/*
 * FORMAT.md: what a tree refers to lies below it in the pack, so that no
 * chain of directories can loop.  Is E, an entry of the tree at TREE, so?
 */
static bool mvfs_child_ref_ok(const struct mvfs_entry_info *e, __u64 tree)
{
	return !(S_ISDIR(e->mode) || S_ISLNK(e->mode)) || e->ref < tree;
}

/* The name of entry D of TREE, of *LEN bytes; NULL if out of range. */
static const char *mvfs_tree_name(const char *tree,
				  const struct mvfs_entry_disk *d, size_t *len)
{
	const struct mvfs_tree_hdr *h = (const void *)tree;
	const char *names = (const char *)((const struct mvfs_entry_disk *)
					   (h + 1) + le32toh(h->count));
	__u32 off = le32toh(d->name_off);

	*len = le16toh(d->name_len);
	if ((__u64)off + *len > le32toh(h->names_len))
		return NULL;
	return names + off;
}

/* Look NAME up in directory entry DIR; replace *DIR with what is found. */
static int mvfs_tree_lookup(struct mvfs_store *s, struct mvfs_entry_info *dir,
			    const char *name)
{
	const struct mvfs_entry_disk *d;
	__u32 lo = 0, hi = dir->size, mid;
	const char *tree, *nm;
	__u64 tref;
	size_t nl;
	int err, c;

	if (!S_ISDIR(dir->mode))
		return -ENOENT;
	err = mvfs_tree_read(s, dir, &tree);
	if (err)
		return err;
	d = (const void *)(tree + sizeof(struct mvfs_tree_hdr));
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		nm = mvfs_tree_name(tree, &d[mid], &nl);
		if (!nm)
			return mvfs_corrupt(s, "tree", dir->ref);
		c = mvfs_name_cmp_len(nm, nl, name);
		if (!c) {
			tref = dir->ref;
			mvfs_entry_decode(&d[mid], dir);
			return mvfs_child_ref_ok(dir, tref) ? 0 :
			       mvfs_corrupt(s, "tree", tref);
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/**
 * mvfs_store_lookup - find the element at a path in a revision
 * @s: the store
 * @rev: 1..mvfs_store_nrevs()
 * @path: relative to the top of the tree, '/'-separated; "" or "." is the
 *	top itself
 * @e: filled in when found (e->name is NULL)
 *
 * Return: 0; -ENOENT when there is no such element (no message); -EINVAL
 * for a path with ".."; -EIO when the store is corrupt.
 */
int mvfs_store_lookup(struct mvfs_store *s, __u64 rev, const char *path,
		      struct mvfs_entry_info *e)
{
	struct mvfs_rev_info ri;
	char *copy, *name, *save = NULL;
	int err = 0;

	/* A revision from outside the state (an origin, a record). */
	if (!rev || rev > mvfs_store_nrevs(s))
		return mvfs_err(-EIO, "store %s: no revision %llu (the newest is %llu)",
				s->dir, (unsigned long long)rev,
				(unsigned long long)mvfs_store_nrevs(s));
	copy = strdup(path);
	if (!copy)
		return mvfs_err(-ENOMEM, "out of memory");
	mvfs_store_rev(s, rev, &ri);
	*e = ri.root;
	for (name = strtok_r(copy, "/", &save); name && !err;
	     name = strtok_r(NULL, "/", &save)) {
		if (!strcmp(name, ".."))
			err = mvfs_err(-EINVAL, "%s: \"..\" is not allowed",
				       path);
		else if (strcmp(name, "."))
			err = mvfs_tree_lookup(s, e, name);
	}
	free(copy);
	return err;
}

/**
 * mvfs_store_lookup_child - find the entry @name of directory @dir
 * @s: the store
 * @dir: a directory, from mvfs_store_lookup() or a revision's root
 * @name: an entry name
 * @e: filled in when found (e->name is NULL)
 *
 * Return: 0; -ENOENT when @dir has no such entry or is no directory (no
 * message); -EIO when the store is corrupt.
 */
int mvfs_store_lookup_child(struct mvfs_store *s,
			    const struct mvfs_entry_info *dir,
			    const char *name, struct mvfs_entry_info *e)
{
	*e = *dir;
	return mvfs_tree_lookup(s, e, name);
}

/**
 * mvfs_store_find - look @path up in @rev, absence being no error
 * @s: the store
 * @rev: a revision; 0 holds nothing
 * @path: an element path
 * @e: filled in when found
 *
 * Return: 1 found, 0 not there, or -errno.
 */
int mvfs_store_find(struct mvfs_store *s, __u64 rev, const char *path,
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

/**
 * mvfs_store_list - the entries of a directory of a revision
 * @s: the store
 * @dir: a directory, from mvfs_store_lookup() or a revision's root
 * @ents: set to its @dir->size entries, sorted by name, each with its
 *	name; free them with mvfs_store_list_free()
 *
 * Return: 0; -ENOTDIR when @dir is not a directory; -ENOMEM; -EIO when
 * the store is corrupt.
 */
int mvfs_store_list(struct mvfs_store *s, const struct mvfs_entry_info *dir,
		    struct mvfs_entry_info **ents)
{
	const struct mvfs_entry_disk *d;
	const char *tree, *name;
	size_t nl;
	__u32 i;
	int err;

	*ents = NULL;
	if (!S_ISDIR(dir->mode))
		return mvfs_err(-ENOTDIR, "not a directory");
	err = mvfs_tree_read(s, dir, &tree);
	if (err)
		return err;
	d = (const void *)(tree + sizeof(struct mvfs_tree_hdr));
	*ents = calloc(dir->size ? dir->size : 1, sizeof(**ents));
	err = *ents ? 0 : mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; !err && i < dir->size; i++) {
		name = mvfs_tree_name(tree, &d[i], &nl);
		if (!name) {
			err = mvfs_corrupt(s, "tree", dir->ref);
			break;
		}
		mvfs_entry_decode(&d[i], &(*ents)[i]);
		if (!mvfs_child_ref_ok(&(*ents)[i], dir->ref)) {
			err = mvfs_corrupt(s, "tree", dir->ref);
			break;
		}
		(*ents)[i].name = strndup(name, nl);
		if (!(*ents)[i].name)
			err = mvfs_err(-ENOMEM, "out of memory");
	}
	if (err) {
		mvfs_store_list_free(*ents, dir->size);
		*ents = NULL;
	}
	return err;
}

/**
 * mvfs_store_list_free - free what mvfs_store_list() gave
 * @ents: the entries, or NULL
 * @count: how many
 */
void mvfs_store_list_free(struct mvfs_entry_info *ents, __u64 count)
{
	__u64 i;

	if (!ents)
		return;
	for (i = 0; i < count; i++)
		free(ents[i].name);
	free(ents);
}

/* A tree being made from another: its image, and its names apart. */
struct mvfs_tree_edit {
	char	*img;		/* header, then the entries */
	char	*names;
	__u32	count;
	size_t	names_len;
};

/* Append an entry named NAME (LEN bytes), only its name fields set. */
static struct mvfs_entry_disk *mvfs_edit_add(struct mvfs_tree_edit *t,
					     const char *name, size_t len)
{
	struct mvfs_entry_disk *d = (struct mvfs_entry_disk *)
		(t->img + sizeof(struct mvfs_tree_hdr)) + t->count++;

	memcpy(t->names + t->names_len, name, len);
	d->name_off = htole32(t->names_len);
	d->name_len = htole16(len);
	t->names_len += len;
	return d;
}

/* Merge BASE's entries (N of them) with changes CH, sorted, into T. */
static int mvfs_edit_merge(struct mvfs_store *s, struct mvfs_tree_edit *t,
			   const struct mvfs_entry_info *base, const char *tree,
			   const struct mvfs_entry_info *ch, __u32 nch)
{
	const struct mvfs_entry_disk *d = (const void *)
		(tree + sizeof(struct mvfs_tree_hdr));
	__u32 n = base ? base->size : 0, i = 0, j = 0;
	struct mvfs_entry_disk *o;
	const char *name = NULL;
	size_t nl = 0, off;
	int c;

	while (i < n || j < nch) {
		if (i < n) {
			name = mvfs_tree_name(tree, &d[i], &nl);
			if (!name)
				return mvfs_corrupt(s, "tree", base->ref);
		}
		c = i == n ? 1 : j == nch ? -1 :
		    mvfs_name_cmp_len(name, nl, ch[j].name);
		if (c < 0) {	/* unchanged: its bytes as they are */
			o = mvfs_edit_add(t, name, nl);
			memcpy(&o->mode, &d[i].mode, sizeof(*o) -
			       offsetof(struct mvfs_entry_disk, mode));
			i++;
			continue;
		}
		if (ch[j].mode) {	/* set, or added; mode 0 removes it */
			off = t->names_len;
			nl = strlen(ch[j].name);
			o = mvfs_edit_add(t, ch[j].name, nl);
			mvfs_entry_encode(&ch[j], off, nl, o);
		}
		i += !c;
		j++;
	}
	return 0;
}

/**
 * mvfs_store_put_tree_edit - store a directory made from another's tree
 * @s: the store, between mvfs_store_begin() and the commit
 * @base: the directory whose entries it starts from (a directory of a
 *	committed revision), or NULL to start from none
 * @ch: the changes, at most one per name: an entry to set or add, with
 *	its valid name, or one of mode 0 to remove that name; sorted here
 * @nch: how many
 * @dir: its ref (the tree) and size (the number of entries) are set
 *
 * The tree is the one mvfs_store_put_tree() would store for @base's
 * entries with the changes made, byte for byte, and is not stored again
 * if it is there already; @base's entries are copied as they are, not
 * read one by one, so that a large directory costs little more than its
 * bytes.
 *
 * Return: 0 or -errno.
 */
int mvfs_store_put_tree_edit(struct mvfs_store *s,
			     const struct mvfs_entry_info *base,
			     struct mvfs_entry_info *ch, __u32 nch,
			     struct mvfs_entry_info *dir)
{
	struct mvfs_tree_edit t = { 0 };
	const struct mvfs_tree_hdr *bh = NULL;
	struct mvfs_tree_hdr *h;
	size_t names = 0, ents;
	const char *tree = NULL;
	__u32 j;
	int err = 0;

	qsort(ch, nch, sizeof(*ch), mvfs_name_cmp);
	if (base)
		err = mvfs_tree_read(s, base, &tree);
	if (err)
		return err;
	bh = (const void *)tree;
	for (j = 0; j < nch; j++)
		names += strlen(ch[j].name);
	names += bh ? le32toh(bh->names_len) : 0;
	ents = (size_t)(base ? base->size : 0) + nch;
	if (ents > UINT32_MAX)
		return mvfs_err(-E2BIG, "too many entries");
	t.img = calloc(1, sizeof(*h) + ents * sizeof(struct mvfs_entry_disk) +
		       names);
	t.names = malloc(names + 1);
	err = t.img && t.names ? 0 : mvfs_err(-ENOMEM, "out of memory");
	if (!err)
		err = mvfs_edit_merge(s, &t, base, tree, ch, nch);
	if (!err && t.names_len > UINT32_MAX)
		err = mvfs_err(-E2BIG, "too many entries");
	if (!err) {
		h = (struct mvfs_tree_hdr *)t.img;
		h->magic = htole32(MVFS_TREE_MAGIC);
		h->count = htole32(t.count);
		h->names_len = htole32(t.names_len);
		ents = sizeof(*h) + (size_t)t.count *
		       sizeof(struct mvfs_entry_disk);
		memcpy(t.img + ents, t.names, t.names_len);
		dir->size = t.count;
		err = mvfs_pack_put(s, t.img, ents + t.names_len, &dir->ref);
	}
	free(t.img);
	free(t.names);
	return err;
}
