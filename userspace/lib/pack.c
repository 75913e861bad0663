// SPDX-License-Identifier: GPL-2.0
/*
 * pack.c: the pack: reading it, appending bytes once (dedup through the
 * index), entries between disk and host order, symlink targets.  Trees
 * are tree.c's.
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
