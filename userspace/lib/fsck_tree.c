// SPDX-License-Identifier: GPL-2.0
/*
 * fsck_tree.c: the trees of every revision, and what their entries refer
 * to.  Every tree is checked once, however many revisions share it:
 * header, entries sorted strictly by name (so names are unique), names
 * valid and in range, reserved fields 0, only files, symlinks and
 * directories, and references in range and pointing backwards in the pack
 * (a tree or symlink target lies below the tree that refers to it, so the
 * walk always ends).  Objects must exist with their entry's size.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "err.h"
#include "fsck.h"

#define MVFS_PERM_BITS		07777
#define MVFS_LINK_MAX		4095

static int mvfs_fsck_tree(struct mvfs_fsck *f, const char *path, __u64 ref,
			  __u64 count, __u64 limit);

/* "PATH/NAME" in a new buffer; NULL without memory. */
static char *mvfs_fsck_path(const char *path, const char *name, size_t len)
{
	size_t pl = strlen(path);
	char *p = malloc(pl + len + 2);

	if (p)
		snprintf(p, pl + len + 2, "%s/%.*s", path, (int)len, name);
	return p;
}

static void mvfs_fsck_object(struct mvfs_fsck *f, const char *path,
			     const struct mvfs_entry_info *e)
{
	char obj[MVFS_OBJ_PATH_LEN];
	struct stat st;
	__u64 size;

	if (!e->ref != !e->size) {
		mvfs_fsck_problem(f, "%s: object %#llx for %llu bytes", path,
				  e->ref, e->size);
		mvfs_map_put(&f->objects, e->ref, e->size);
		return;
	}
	if (!e->ref)
		return;
	if (e->ref >= f->s->next_object) {
		mvfs_fsck_problem(f, "%s: object %#llx past next_object %#llx",
				  path, e->ref, f->s->next_object);
		return;
	}
	if (mvfs_map_get(&f->objects, e->ref, &size)) {
		if (size != e->size)
			mvfs_fsck_problem(f, "%s: object %#llx of %llu bytes, %s %llu",
					  path, e->ref, e->size,
					  "another entry says", size);
		return;
	}
	mvfs_map_put(&f->objects, e->ref, e->size);
	mvfs_object_path(obj, e->ref);
	if (fstatat(f->s->dfd, obj, &st, AT_SYMLINK_NOFOLLOW))
		mvfs_fsck_problem(f, "%s: %s: %s", path, obj, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		mvfs_fsck_problem(f, "%s: %s is not a regular file", path, obj);
	else if ((__u64)st.st_size != e->size)
		mvfs_fsck_problem(f, "%s: %s has %lld bytes, the entry says %llu",
				  path, obj, (long long)st.st_size, e->size);
}

static void mvfs_fsck_link(struct mvfs_fsck *f, const char *path,
			   const struct mvfs_entry_info *e, __u64 limit)
{
	char buf[MVFS_LINK_MAX];

	if (!e->size || e->size > MVFS_LINK_MAX) {
		mvfs_fsck_problem(f, "%s: symlink target of %llu bytes", path,
				  e->size);
		return;
	}
	if (e->ref < sizeof(struct mvfs_pack_hdr) || e->ref >= limit ||
	    e->size > f->s->pack_len - e->ref) {
		mvfs_fsck_problem(f, "%s: symlink target at %llu: %s", path,
				  e->ref, e->ref >= limit &&
				  e->ref < f->s->pack_len ?
				  "does not point backwards" : "out of range");
		return;
	}
	if (mvfs_map_get(&f->links, e->ref, NULL))
		return;
	mvfs_map_put(&f->links, e->ref, e->size);
	if (mvfs_pack_read(f->s, buf, e->size, e->ref))
		mvfs_fsck_problem(f, "%s: %s", path, mvfs_errmsg(-EIO));
	else if (memchr(buf, '\0', e->size))
		mvfs_fsck_problem(f, "%s: symlink target holds a NUL", path);
}

/* One entry of the tree at LIMIT; the trees below it are checked too. */
static int mvfs_fsck_entry(struct mvfs_fsck *f, const char *path,
			   const struct mvfs_entry_disk *d, __u64 limit)
{
	struct mvfs_entry_info e;
	__u32 type;

	mvfs_entry_decode(d, &e);
	type = e.mode & S_IFMT;
	if (d->reserved || (e.mode & ~(S_IFMT | MVFS_PERM_BITS)))
		mvfs_fsck_problem(f, "%s: reserved bits set", path);
	if (e.mtime_nsec >= 1000000000)
		mvfs_fsck_problem(f, "%s: mtime_nsec %u", path, e.mtime_nsec);
	switch (type) {
	case S_IFREG:
		mvfs_fsck_object(f, path, &e);
		break;
	case S_IFLNK:
		mvfs_fsck_link(f, path, &e, limit);
		break;
	case S_IFDIR:
		return mvfs_fsck_tree(f, path, e.ref, e.size, limit);
	default:
		mvfs_fsck_problem(f, "%s: type %#o is not stored", path, type);
	}
	return 0;
}

/* Is entry I's name in range, valid and after entry I - 1's? */
static bool mvfs_fsck_name(struct mvfs_fsck *f, const char *path,
			   const char *tree, __u32 i)
{
	const struct mvfs_tree_hdr *h = (const void *)tree;
	const struct mvfs_entry_disk *d = (const void *)(h + 1);
	const char *names = (const char *)(d + le32toh(h->count));
	__u32 off = le32toh(d[i].name_off), len = le16toh(d[i].name_len);
	__u32 poff, plen;
	int c;

	if ((__u64)off + len > le32toh(h->names_len) ||
	    !mvfs_entry_name_ok(names + off, len)) {
		mvfs_fsck_problem(f, "%s: entry %u: bad name", path, i);
		f->trees_bad = true;	/* what it refers to is not walked */
		return false;
	}
	if (!i)
		return true;
	poff = le32toh(d[i - 1].name_off);
	plen = le16toh(d[i - 1].name_len);
	if ((__u64)poff + plen > le32toh(h->names_len))
		return true;	/* reported with entry i - 1 */
	c = memcmp(names + poff, names + off, plen < len ? plen : len);
	if (c > 0 || (!c && plen >= len))
		mvfs_fsck_problem(f, "%s: \"%.*s\" %s \"%.*s\"", path,
				  (int)plen, names + poff, c || plen != len ?
				  "sorted before" : "twice, as", (int)len,
				  names + off);
	return true;
}

static int mvfs_fsck_entries(struct mvfs_fsck *f, const char *path,
			     const char *tree, __u64 ref)
{
	const struct mvfs_tree_hdr *h = (const void *)tree;
	const struct mvfs_entry_disk *d = (const void *)(h + 1);
	const char *names = (const char *)(d + le32toh(h->count));
	char *sub;
	int err = 0;
	__u32 i;

	for (i = 0; !err && i < le32toh(h->count); i++) {
		if (!mvfs_fsck_name(f, path, tree, i))
			continue;
		sub = mvfs_fsck_path(path, names + le32toh(d[i].name_off),
				     le16toh(d[i].name_len));
		if (!sub)
			return mvfs_err(-ENOMEM, "out of memory");
		err = mvfs_fsck_entry(f, sub, &d[i], ref);
		free(sub);
	}
	return err;
}

/* The tree's header; its length in *LEN, 0 if it is bad (reported). */
static void mvfs_fsck_tree_hdr(struct mvfs_fsck *f, const char *path,
			       __u64 ref, __u64 count, __u64 *len)
{
	struct mvfs_tree_hdr h;

	*len = 0;
	if (mvfs_pack_read(f->s, &h, sizeof(h), ref)) {
		mvfs_fsck_problem(f, "%s: tree at %llu: %s", path, ref,
				  mvfs_errmsg(-EIO));
		return;
	}
	*len = sizeof(h) + (__u64)le32toh(h.count) *
	       sizeof(struct mvfs_entry_disk) + le32toh(h.names_len);
	if (le32toh(h.magic) != MVFS_TREE_MAGIC || h.reserved ||
	    le32toh(h.count) != count || *len > f->s->pack_len - ref) {
		mvfs_fsck_problem(f, "%s: tree at %llu: bad header", path, ref);
		*len = 0;
	}
}

static int mvfs_fsck_tree(struct mvfs_fsck *f, const char *path, __u64 ref,
			  __u64 count, __u64 limit)
{
	char *tree;
	__u64 len;
	int err;

	if (ref < sizeof(struct mvfs_pack_hdr) || ref >= limit ||
	    ref > f->s->pack_len - sizeof(struct mvfs_tree_hdr)) {
		mvfs_fsck_problem(f, "%s: tree at %llu: %s", path, ref,
				  ref >= limit && ref < f->s->pack_len ?
				  "does not point backwards" : "out of range");
		f->trees_bad = true;
		return 0;
	}
	if (mvfs_map_get(&f->trees, ref, NULL))
		return 0;
	mvfs_fsck_tree_hdr(f, path, ref, count, &len);
	if (!len) {
		f->trees_bad = true;
		return 0;
	}
	err = mvfs_map_put(&f->trees, ref, len);
	tree = err ? NULL : malloc(len);
	if (!tree)
		return mvfs_err(-ENOMEM, "out of memory");
	if (mvfs_pack_read(f->s, tree, len, ref)) {
		mvfs_fsck_problem(f, "%s: tree at %llu: %s", path, ref,
				  mvfs_errmsg(-EIO));
		f->trees_bad = true;
	} else {
		err = mvfs_fsck_entries(f, path, tree, ref);
	}
	free(tree);
	return err;
}

/**
 * mvfs_fsck_trees - check the tree of every revision, and its objects
 * @f: the check; the pack is readable
 *
 * Return: 0, or -ENOMEM: problems are reported, not returned.
 */
int mvfs_fsck_trees(struct mvfs_fsck *f)
{
	struct mvfs_rev_info ri;
	char name[32];
	int err = 0;
	__u64 rev;

	if (f->s->pack_fd < 0) {
		f->trees_bad = true;	/* reported with the pack */
		return 0;
	}
	for (rev = 1; !err && rev <= f->s->nrevs; rev++) {
		mvfs_store_rev(f->s, rev, &ri);
		snprintf(name, sizeof(name), "revision %llu", rev);
		if (S_ISDIR(ri.root.mode))
			err = mvfs_fsck_tree(f, name, ri.root.ref,
					     ri.root.size, f->s->pack_len);
	}
	return err;
}
