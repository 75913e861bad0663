// SPDX-License-Identifier: GPL-2.0
/*
 * pack.c: the pack: appending bytes once (dedup through the index),
 * entries between disk and host order, trees: serializing, reading and
 * looking a path up.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "store_int.h"

/**
 * mvfs_pack_read - read @len bytes of the pack at @off
 * @s: the store
 * @buf: where to put them
 * @len: how many
 * @off: the pack offset
 *
 * Return: 0, or -EIO for a short pack, or -errno.
 */
int mvfs_pack_read(struct mvfs_store *s, void *buf, size_t len, __u64 off)
{
	int err = mvfs_pread(s->pack_fd, buf, len, off);

	if (err)
		return mvfs_err(err == -ENODATA ? -EIO : err,
				"store %s: %s: read %zu bytes at %llu: %s",
				s->dir, MVFS_PACK_FILE, len, off,
				strerror(err == -ENODATA ? EIO : -err));
	return 0;
}

/* Entries between disk and host order. */

/**
 * mvfs_entry_decode - an entry of a tree or a revision in host order
 * @d: the entry on disk
 * @e: filled in, without a name
 */
void mvfs_entry_decode(const struct mvfs_entry_disk *d,
		       struct mvfs_entry_info *e)
{
	e->name = NULL;
	e->mode = le32toh(d->mode);
	e->uid = le32toh(d->uid);
	e->gid = le32toh(d->gid);
	e->mtime_nsec = le32toh(d->mtime_nsec);
	e->mtime = (__s64)le64toh(d->mtime);
	e->size = le64toh(d->size);
	e->ref = le64toh(d->ref);
}

/**
 * mvfs_entry_encode - an entry in disk order
 * @e: the entry
 * @name_off: where its name is in the tree's names
 * @name_len: the name's length
 * @d: filled in
 */
void mvfs_entry_encode(const struct mvfs_entry_info *e, __u32 name_off,
		       __u16 name_len, struct mvfs_entry_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->name_off = htole32(name_off);
	d->name_len = htole16(name_len);
	d->mode = htole32(e->mode);
	d->uid = htole32(e->uid);
	d->gid = htole32(e->gid);
	d->mtime_nsec = htole32(e->mtime_nsec);
	d->mtime = htole64((__u64)e->mtime);
	d->size = htole64(e->size);
	d->ref = htole64(e->ref);
}

/* The pack. */

/**
 * mvfs_pack_append - append bytes to the pack, past what is committed
 * @s: a store, building a revision
 * @buf: the bytes
 * @len: how many
 * @off: set to where they are
 *
 * Return: 0 or -errno.
 */
int mvfs_pack_append(struct mvfs_store *s, const void *buf, size_t len,
		     __u64 *off)
{
	int err = mvfs_pwrite(s->pack_fd, buf, len, s->pack_end);

	if (err)
		return mvfs_err(err, "store %s: %s: %s", s->dir,
				MVFS_PACK_FILE, strerror(-err));
	*off = s->pack_end;
	s->pack_end += len;
	return 0;
}

/* Does the pack hold LEN bytes equal to BUF at OFF?  1, 0 or -errno. */
static int mvfs_pack_equal(struct mvfs_store *s, __u64 off, const char *buf,
			   size_t len)
{
	size_t done, n;
	int err;

	if (off + len > s->pack_end)
		return 0;
	for (done = 0; done < len; done += n) {
		n = len - done < MVFS_IO_BUF ? len - done : MVFS_IO_BUF;
		err = mvfs_pack_read(s, s->buf, n, off + done);
		if (err)
			return err;
		if (memcmp(s->buf, buf + done, n))
			return 0;
	}
	return 1;
}

static int mvfs_pack_find_same(struct mvfs_store *s, const char *buf,
			       size_t len, __u64 hash, __u64 *ref)
{
	const struct mvfs_index_ent *r;
	struct mvfs_index_pos pos;
	__u64 off;
	int ret;

	ret = mvfs_index_start(s, hash, &pos);
	if (ret)
		return ret;
	while ((r = mvfs_index_next(&s->index, hash, &pos))) {
		if (!(r->ref & MVFS_INDEX_TREE))
			continue;
		off = r->ref & ~MVFS_INDEX_TREE;
		ret = mvfs_pack_equal(s, off, buf, len);
		if (ret < 0)
			return ret;
		if (ret) {
			*ref = off;
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * mvfs_pack_put - put bytes in the pack unless they are there already
 * @s: a store, building a revision
 * @buf: the bytes
 * @len: how many
 * @ref: set to where they are
 *
 * Index records marked MVFS_INDEX_TREE name bytes in the pack: trees,
 * symlink targets and config specs.  Reuse needs equal bytes, so whatever
 * a record was made for, reusing it is exact.
 *
 * Return: 0 or -errno.
 */
int mvfs_pack_put(struct mvfs_store *s, const char *buf, size_t len,
		  __u64 *ref)
{
	__u64 hash = mvfs_fnv64(MVFS_FNV64_INIT, buf, len);
	int err;

	err = mvfs_pack_find_same(s, buf, len, hash, ref);
	if (err != -ENOENT)
		return err;
	err = mvfs_pack_append(s, buf, len, ref);
	if (!err)
		err = mvfs_index_add(&s->index, hash, *ref | MVFS_INDEX_TREE);
	return err;
}

/**
 * mvfs_store_put_symlink - store a symlink's target
 * @s: the store, between mvfs_store_begin() and the commit
 * @target: the target, not NUL-terminated
 * @len: its length, at least 1
 * @ref: set to where the target is
 *
 * A target already in the pack is not stored again.
 *
 * Return: 0 or -errno.
 */
int mvfs_store_put_symlink(struct mvfs_store *s, const char *target,
			   size_t len, __u64 *ref)
{
	return mvfs_pack_put(s, target, len, ref);
}

static int mvfs_name_cmp(const void *a, const void *b)
{
	const struct mvfs_entry_info *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	int c = memcmp(x->name, y->name, lx < ly ? lx : ly);

	if (c)
		return c;
	return lx < ly ? -1 : lx > ly;
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

/* Read the whole tree of directory entry DIR into *TREE (free it). */
static int mvfs_tree_read(struct mvfs_store *s,
			  const struct mvfs_entry_info *dir, char **tree)
{
	struct mvfs_tree_hdr h;
	__u64 len;
	int err;

	if (dir->ref < sizeof(struct mvfs_pack_hdr) ||
	    dir->ref + sizeof(h) > s->pack_len)
		return mvfs_corrupt(s, "tree", dir->ref);
	err = mvfs_pack_read(s, &h, sizeof(h), dir->ref);
	if (err)
		return err;
	len = sizeof(h) + (__u64)le32toh(h.count) *
	      sizeof(struct mvfs_entry_disk) + le32toh(h.names_len);
	if (le32toh(h.magic) != MVFS_TREE_MAGIC ||
	    le32toh(h.count) != dir->size || dir->ref + len > s->pack_len)
		return mvfs_corrupt(s, "tree", dir->ref);
	*tree = malloc(len);
	if (!*tree)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_pack_read(s, *tree, len, dir->ref);
	if (err)
		goto out_free;
	return 0;

out_free:
	free(*tree);
	*tree = NULL;
	return err;
}

/* Compare entry D's name with NAME; -EIO in *ERR if it is out of range. */
static int mvfs_tree_name_cmp(const char *tree, const struct mvfs_entry_disk *d,
			      const char *name, int *err)
{
	const struct mvfs_tree_hdr *h = (const void *)tree;
	const char *names = (const char *)((const struct mvfs_entry_disk *)
					   (h + 1) + le32toh(h->count));
	__u32 off = le32toh(d->name_off), nl = le16toh(d->name_len);
	size_t len = strlen(name);
	int c;

	if ((__u64)off + nl > le32toh(h->names_len)) {
		*err = -EIO;
		return 0;
	}
	c = memcmp(names + off, name, nl < len ? nl : len);
	if (c)
		return c;
	return nl < len ? -1 : nl > len;
}

/* Look NAME up in directory entry DIR; replace *DIR with what is found. */
static int mvfs_tree_lookup(struct mvfs_store *s, struct mvfs_entry_info *dir,
			    const char *name)
{
	const struct mvfs_entry_disk *d;
	__u32 lo = 0, hi = dir->size, mid;
	char *tree;
	int err, c;

	if (!S_ISDIR(dir->mode))
		return -ENOENT;
	err = mvfs_tree_read(s, dir, &tree);
	if (err)
		return err;
	d = (const void *)(tree + sizeof(struct mvfs_tree_hdr));
	err = -ENOENT;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = mvfs_tree_name_cmp(tree, &d[mid], name, &err);
		if (err == -EIO)
			break;
		if (!c) {
			mvfs_entry_decode(&d[mid], dir);
			err = 0;
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	free(tree);
	if (err == -EIO)
		return mvfs_corrupt(s, "tree", dir->ref);
	return err;
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
 * mvfs_store_readlink - a symlink's target
 * @s: the store
 * @e: the symlink's entry
 * @buf: @e->size + 1 bytes; set to the target, NUL-terminated
 *
 * Return: 0, -EINVAL for no symlink, or -EIO.
 */
int mvfs_store_readlink(struct mvfs_store *s, const struct mvfs_entry_info *e,
			char *buf)
{
	int err;

	if (!S_ISLNK(e->mode))
		return mvfs_err(-EINVAL, "not a symlink");
	err = mvfs_pack_read(s, buf, e->size, e->ref);
	buf[err ? 0 : e->size] = '\0';
	return err;
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
	const struct mvfs_tree_hdr *h;
	const struct mvfs_entry_disk *d;
	const char *names;
	__u32 i, off, nl;
	char *tree;
	int err;

	*ents = NULL;
	if (!S_ISDIR(dir->mode))
		return mvfs_err(-ENOTDIR, "not a directory");
	err = mvfs_tree_read(s, dir, &tree);
	if (err)
		return err;
	h = (const void *)tree;
	d = (const void *)(h + 1);
	names = (const char *)(d + dir->size);
	*ents = calloc(dir->size ? dir->size : 1, sizeof(**ents));
	err = *ents ? 0 : mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; !err && i < dir->size; i++) {
		off = le32toh(d[i].name_off);
		nl = le16toh(d[i].name_len);
		if ((__u64)off + nl > le32toh(h->names_len)) {
			err = mvfs_corrupt(s, "tree", dir->ref);
			break;
		}
		mvfs_entry_decode(&d[i], &(*ents)[i]);
		(*ents)[i].name = strndup(names + off, nl);
		if (!(*ents)[i].name)
			err = mvfs_err(-ENOMEM, "out of memory");
	}
	free(tree);
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
