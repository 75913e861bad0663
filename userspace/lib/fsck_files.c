// SPDX-License-Identifier: GPL-2.0
/*
 * fsck_files.c: the files of a store besides the state: the pack's header
 * and length, the index's length (and, with --full, its hashes: of
 * objects, trees, symlink targets and config specs), and
 * objects/: every object a revision refers to and nothing else, no
 * temporary file, no object at or past next_object.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "err.h"
#include "fsck.h"

static bool mvfs_fsck_repair(const struct mvfs_fsck *f)
{
	return f->flags & MVFS_FSCK_REPAIR;
}

/* FILE (open as FD) holds at least LEN bytes; more is garbage. */
static void mvfs_fsck_length(struct mvfs_fsck *f, const char *file, int fd,
			     __u64 len)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		mvfs_fsck_problem(f, "%s: missing or not a regular file",
				  file);
		return;
	}
	if ((__u64)st.st_size < len) {
		mvfs_fsck_problem(f, "%s: %lld bytes, %llu committed", file,
				  (long long)st.st_size, len);
		return;
	}
	if ((__u64)st.st_size == len)
		return;
	mvfs_fsck_problem(f, "%s: %llu bytes past the committed %llu (garbage)",
			  file, st.st_size - len, len);
	if (mvfs_fsck_repair(f))
		mvfs_fsck_repaired(f, ftruncate(fd, len) ? -errno : 0,
				   "cut to the committed length");
}

/* NAME, a temporary file, is garbage if it is there. */
static void mvfs_fsck_tmp(struct mvfs_fsck *f, const char *name)
{
	if (faccessat(f->s->dfd, name, F_OK, AT_SYMLINK_NOFOLLOW))
		return;
	mvfs_fsck_problem(f, "%s: left by an interrupted change (garbage)",
			  name);
	if (mvfs_fsck_repair(f))
		mvfs_fsck_repaired(f, unlinkat(f->s->dfd, name, 0) ?
				   -errno : 0, "removed");
}

/**
 * mvfs_fsck_pack - check the pack's header and length, and what an
 *	interrupted replace of state or index.sorted leaves
 * @f: the check
 *
 * Return: 0.
 */
int mvfs_fsck_pack(struct mvfs_fsck *f)
{
	struct mvfs_pack_hdr h;

	mvfs_fsck_length(f, MVFS_PACK_FILE, f->s->pack_fd, f->s->pack_len);
	if (f->s->pack_fd >= 0 &&
	    (mvfs_pack_read(f->s, &h, sizeof(h), 0) ||
	     le32toh(h.magic) != MVFS_PACK_MAGIC ||
	     le32toh(h.format) != MVFS_PACK_FORMAT || h.reserved))
		mvfs_fsck_problem(f, "%s: bad header", MVFS_PACK_FILE);
	mvfs_fsck_length(f, MVFS_INDEX_FILE, f->s->index_fd,
			 f->s->index_len);
	mvfs_fsck_tmp(f, MVFS_STATE_TMP);
	mvfs_fsck_tmp(f, MVFS_STATE_OLD);
	mvfs_fsck_tmp(f, MVFS_ISORT_TMP);
	mvfs_fsck_tmp(f, MVFS_ISORT_OLD);
	return 0;
}

/* The content hash of object N, or of LEN bytes of the pack at OFF. */
static int mvfs_fsck_hash(struct mvfs_fsck *f, __u64 n, __u64 off,
			  __u64 len, __u64 *hash)
{
	char path[MVFS_OBJ_PATH_LEN], *buf;
	int fd = f->s->pack_fd, err = 0;
	ssize_t got = 1;

	buf = malloc(MVFS_IO_BUF);
	if (!buf)
		return mvfs_err(-ENOMEM, "out of memory");
	if (n) {
		mvfs_object_path(path, n);
		fd = mvfs_open_file(f->s->dfd, path, O_RDONLY);
		len = (__u64)-1;
	}
	*hash = MVFS_FNV64_INIT;
	while (fd >= 0 && len && got > 0) {
		got = mvfs_pread_upto(fd, buf, len < MVFS_IO_BUF ? len :
				      MVFS_IO_BUF, off);
		*hash = mvfs_fnv64(*hash, buf, got > 0 ? got : 0);
		off += got > 0 ? got : 0;
		len -= got > 0 ? got : 0;
	}
	if (fd < 0 || got < 0 || (!n && len))
		err = -EIO;
	if (n && fd >= 0)
		close(fd);
	free(buf);
	return err;
}

/* The length of a view's config spec at pack offset OFF (format 3). */
static bool mvfs_fsck_spec_at(const struct mvfs_store *s, __u64 off,
			      __u64 *len)
{
	__u32 i;

	for (i = 0; s->format >= 3 && i < s->nviews; i++) {
		if (le64toh(s->views[i].cs_off) == off) {
			*len = le32toh(s->views[i].cs_len);
			return true;
		}
	}
	return false;
}

/* --full: does index record R hold the hash of what it names? */
static void mvfs_fsck_index_rec(struct mvfs_fsck *f, __u64 i,
				const struct mvfs_index_rec *r)
{
	__u64 ref = le64toh(r->ref), off = ref & ~MVFS_INDEX_TREE, len;
	__u64 hash;

	if (!(ref & MVFS_INDEX_TREE)) {
		if (!ref || ref >= f->s->next_object ||
		    !mvfs_map_get(&f->objects, ref, NULL))
			return;		/* ignored by the rules, or orphan */
		if (mvfs_fsck_hash(f, ref, 0, 0, &hash) ||
		    hash != le64toh(r->hash))
			mvfs_fsck_problem(f, "object %#llx: %s (index record %llu)",
					  ref, "content does not match its hash",
					  i);
		return;
	}
	if (!mvfs_map_get(&f->trees, off, &len) &&
	    !mvfs_map_get(&f->links, off, &len) &&
	    !mvfs_fsck_spec_at(f->s, off, &len))
		return;		/* a record may name other bytes */
	if (mvfs_fsck_hash(f, 0, off, len, &hash) || hash != le64toh(r->hash))
		mvfs_fsck_problem(f, "%s at %llu: %s (index record %llu)",
				  MVFS_PACK_FILE, off,
				  "bytes do not match their hash", i);
}

/**
 * mvfs_fsck_index - with --full, check the index's hashes
 * @f: the check, after the trees
 *
 * Return: 0 or -ENOMEM.
 */
int mvfs_fsck_index(struct mvfs_fsck *f)
{
	struct mvfs_index_rec r;
	__u64 i;

	if (!(f->flags & MVFS_FSCK_FULL) || f->s->index_fd < 0)
		return 0;
	for (i = 0; i < f->s->index_len / sizeof(r); i++) {
		if (mvfs_pread(f->s->index_fd, &r, sizeof(r), i * sizeof(r))) {
			mvfs_fsck_problem(f, "%s: cannot read record %llu",
					  MVFS_INDEX_FILE, i);
			break;
		}
		mvfs_fsck_index_rec(f, i, &r);
	}
	return 0;
}

/* N from "N" in objects/XX: lowercase hex, no leading 0, low byte XX. */
static bool mvfs_fsck_obj_name(const char *name, unsigned int xx, __u64 *n)
{
	size_t len = strspn(name, "0123456789abcdef");
	char *end;

	if (!len || len != strlen(name) || len > 16 || name[0] == '0')
		return false;
	*n = strtoull(name, &end, 16);
	return (*n & 0xff) == xx;
}

static void mvfs_fsck_obj_extra(struct mvfs_fsck *f, int dfd,
				const char *dir, const char *name,
				unsigned int xx)
{
	const char *why;
	struct stat st;
	__u64 n;

	if (!mvfs_fsck_obj_name(name, xx, &n) ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode)) {
		mvfs_fsck_problem(f, "%s/%s/%s: not an object (left alone)",
				  MVFS_OBJECTS_DIR, dir, name);
		return;
	}
	if (n < f->s->next_object && mvfs_map_get(&f->objects, n, NULL))
		return;
	why = n >= f->s->next_object ? "past next_object" :
	      f->trees_bad ? "no tree that could be read refers to it" :
	      "no revision refers to it";
	mvfs_fsck_problem(f, "%s/%s/%s: %s (garbage)", MVFS_OBJECTS_DIR, dir,
			  name, why);
	if (!mvfs_fsck_repair(f))
		return;
	if (f->trees_bad && n < f->s->next_object)
		printf("  not repaired: some trees could not be read\n");
	else
		mvfs_fsck_repaired(f, unlinkat(dfd, name, 0) ? -errno : 0,
				   "removed");
}

static void mvfs_fsck_obj_dir(struct mvfs_fsck *f, int dfd, const char *dir)
{
	struct dirent *de;
	unsigned int xx;
	DIR *d;
	int fd;

	fd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		mvfs_fsck_problem(f, "%s/%s: %s", MVFS_OBJECTS_DIR, dir,
				  strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	xx = strtoul(dir, NULL, 16);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			mvfs_fsck_obj_extra(f, dirfd(d), dir, de->d_name, xx);
	closedir(d);
}

/* One entry of objects/: an objects/XX directory, or a leftover. */
static void mvfs_fsck_obj_top(struct mvfs_fsck *f, int dfd, const char *name)
{
	if (strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2) {
		mvfs_fsck_obj_dir(f, dfd, name);
		return;
	}
	if (strncmp(name, MVFS_TMP_PREFIX, strlen(MVFS_TMP_PREFIX))) {
		mvfs_fsck_problem(f, "%s/%s: not part of the store (left alone)",
				  MVFS_OBJECTS_DIR, name);
		return;
	}
	mvfs_fsck_problem(f, "%s/%s: left by an interrupted import (garbage)",
			  MVFS_OBJECTS_DIR, name);
	if (mvfs_fsck_repair(f))
		mvfs_fsck_repaired(f, unlinkat(dfd, name, 0) ? -errno : 0,
				   "removed");
}

/**
 * mvfs_fsck_objects - check objects/: no orphans, no garbage
 * @f: the check, after the trees (f->objects holds what they refer to)
 *
 * Return: 0.
 */
int mvfs_fsck_objects(struct mvfs_fsck *f)
{
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(f->s->dfd, MVFS_OBJECTS_DIR,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		mvfs_fsck_problem(f, "%s: %s", MVFS_OBJECTS_DIR,
				  strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			mvfs_fsck_obj_top(f, dirfd(d), de->d_name);
	closedir(d);
	return 0;
}
