// SPDX-License-Identifier: GPL-2.0
/*
 * object.c: objects, the contents of regular files: their numbers,
 * copying a file in through objects/tmp.PID, and finding equal content
 * through the index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "err.h"
#include "store_int.h"

/* Objects. */

/*
 * Object numbers.  The format wants them unique and, once committed,
 * below next_object; it does not want them dense.  Dense numbers would
 * spread the first 256 objects over 256 objects/XX directories, a block
 * each, which costs more than a small store's metadata.  So the I-th
 * number given out is (I << 8) | ((I >> 8) & 0xff): the numbers grow, and
 * 256 objects in a row share one directory, 00 first, then 01 and so on.
 */
static __u64 mvfs_object_number(__u64 i)
{
	return i << 8 | ((i >> 8) & 0xff);
}

/* The first number given out at or above BOUND (which is at least 1). */
__u64 mvfs_object_next(__u64 bound)
{
	__u64 i = bound >> 8;

	if (mvfs_object_number(i) < bound)
		i++;
	return mvfs_object_number(i);
}

static void mvfs_tmp_path(char *path)
{
	snprintf(path, MVFS_OBJ_PATH_LEN, MVFS_OBJECTS_DIR "/" MVFS_TMP_PREFIX
		 "%ld", (long)getpid());
}

/*
 * Hash the SIZE bytes of FD.  -ESTALE when the file does not hold exactly
 * SIZE bytes any more: it changed while it was being imported.
 */
static int mvfs_hash_fd(struct mvfs_store *s, int fd, __u64 size,
			__u64 *hash)
{
	__u64 h = MVFS_FNV64_INIT, off = 0;
	ssize_t n;

	for (;;) {
		n = mvfs_pread_upto(fd, s->buf, MVFS_IO_BUF, off);
		if (n <= 0)
			break;
		h = mvfs_fnv64(h, s->buf, n);
		off += n;
	}
	if (n < 0)
		return mvfs_err(n, "read: %s", strerror(-n));
	if (off != size)
		return mvfs_err(-ESTALE, "changed while it was imported");
	*hash = h;
	return 0;
}

/* Do the first SIZE bytes of A and B match? 1 yes, 0 no, or -errno. */
static int mvfs_fd_equal(struct mvfs_store *s, int a, int b, __u64 size)
{
	__u64 off;
	ssize_t n;
	size_t len;

	for (off = 0; off < size; off += len) {
		len = size - off < MVFS_IO_BUF ? size - off : MVFS_IO_BUF;
		n = mvfs_pread_upto(a, s->buf, len, off);
		if (n >= 0 && (size_t)n == len)
			n = mvfs_pread_upto(b, s->buf2, len, off);
		if (n < 0)
			return mvfs_err(n, "read: %s", strerror(-n));
		if ((size_t)n != len || memcmp(s->buf, s->buf2, len))
			return 0;
	}
	return 1;
}

/* Is object N the same SIZE bytes as FD?  1 yes, 0 no, or -errno. */
static int mvfs_object_equal(struct mvfs_store *s, __u64 n, int fd,
			     __u64 size)
{
	char path[MVFS_OBJ_PATH_LEN];
	struct stat st;
	int ofd, ret;

	mvfs_object_path(path, n);
	ofd = mvfs_open_file(s->dfd, path, O_RDONLY);
	if (ofd < 0)
		return mvfs_err(-EIO, "store %s: object %s: %s", s->dir, path,
				ofd == -EIO || ofd == -ELOOP ?
				"not a regular file" : strerror(-ofd));
	if (fstat(ofd, &st))
		ret = mvfs_err(-errno, "store %s: %s: %s", s->dir, path,
			       strerror(errno));
	else if ((__u64)st.st_size != size)
		ret = 0;
	else
		ret = mvfs_fd_equal(s, fd, ofd, size);
	close(ofd);
	return ret;
}

/* The object holding FD's content: 0 and *REF, -ENOENT, or -errno. */
static int mvfs_object_find(struct mvfs_store *s, int fd, __u64 size,
			    __u64 hash, __u64 *ref)
{
	const struct mvfs_index_ent *r;
	struct mvfs_index_pos pos;
	int ret;

	ret = mvfs_index_start(s, hash, &pos);
	if (ret)
		return ret;
	while ((r = mvfs_index_next(&s->index, hash, &pos))) {
		if (r->ref & MVFS_INDEX_TREE)
			continue;
		ret = mvfs_object_equal(s, r->ref, fd, size);
		if (ret < 0)
			return ret;
		if (ret) {
			*ref = r->ref;
			return 0;
		}
	}
	return -ENOENT;
}

/* Copy FD into the temporary file TMP; -ESTALE if it is not HASH now. */
static int mvfs_copy_to(struct mvfs_store *s, int fd, __u64 size,
			__u64 hash, const char *tmp)
{
	__u64 h = MVFS_FNV64_INIT, off = 0;
	ssize_t n;
	int out, err = 0;

	unlinkat(s->dfd, tmp, 0);
	out = openat(s->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		     0444);
	if (out < 0)
		return mvfs_err(-errno, "store %s: %s: %s", s->dir, tmp,
				strerror(errno));
	for (;;) {
		n = mvfs_pread_upto(fd, s->buf, MVFS_IO_BUF, off);
		if (n <= 0)
			break;
		h = mvfs_fnv64(h, s->buf, n);
		err = mvfs_pwrite(out, s->buf, n, off);
		if (err)
			break;
		off += n;
	}
	if (!err && n < 0)
		err = mvfs_err(n, "read: %s", strerror(-n));
	else if (err)
		err = mvfs_err(err, "store %s: %s: %s", s->dir, tmp,
			       strerror(-err));
	else if (off != size || h != hash)
		err = mvfs_err(-ESTALE, "changed while it was imported");
	if (close(out) && !err)
		err = mvfs_err(-errno, "store %s: %s: %s", s->dir, tmp,
			       strerror(errno));
	return err;
}

/* Move TMP to object N, making its objects/XX directory on first use. */
static int mvfs_object_place(struct mvfs_store *s, const char *tmp, __u64 n)
{
	char path[MVFS_OBJ_PATH_LEN];
	int err = 0;

	mvfs_object_path(path, n);
	if (!renameat(s->dfd, tmp, s->dfd, path))
		return 0;
	if (errno == ENOENT) {
		/* "objects/XX/N": cut at the second '/' to make objects/XX */
		*strrchr(path, '/') = '\0';
		if (mkdirat(s->dfd, path, 0755) && errno != EEXIST)
			err = -errno;
		mvfs_object_path(path, n);
		if (!err && renameat(s->dfd, tmp, s->dfd, path))
			err = -errno;
	} else {
		err = -errno;
	}
	if (err)
		return mvfs_err(err, "store %s: %s: %s", s->dir, path,
				strerror(-err));
	return 0;
}

static int mvfs_object_new(struct mvfs_store *s, int fd, __u64 size,
			   __u64 hash, __u64 *ref)
{
	__u64 n = mvfs_object_next(s->obj_end);
	char tmp[MVFS_OBJ_PATH_LEN];
	int err;

	if (s->obj_end >> 62)
		return mvfs_err(-EOVERFLOW, "store %s: out of object numbers",
				s->dir);
	mvfs_tmp_path(tmp);
	err = mvfs_copy_to(s, fd, size, hash, tmp);
	if (!err)
		err = mvfs_object_place(s, tmp, n);
	if (err)
		goto out_unlink;
	s->obj_end = n + 1;
	*ref = n;
	return mvfs_index_add(&s->index, hash, n);

out_unlink:
	unlinkat(s->dfd, tmp, 0);
	return err;
}

/**
 * mvfs_store_put_file - store the content of a regular file
 * @s: the store, between mvfs_store_begin() and the commit
 * @fd: the file, open for reading; read from offset 0 with pread
 * @size: its size as the entry will say
 * @ref: set to the object number (0 for an empty file)
 *
 * Content already in the store (same hash, and the same bytes) is not
 * stored again.
 *
 * Return: 0; -ESTALE when the file does not hold @size bytes or changed
 * while it was read; -errno.
 */
int mvfs_store_put_file(struct mvfs_store *s, int fd, __u64 size,
			__u64 *ref)
{
	__u64 hash = 0;
	int err;

	*ref = 0;
	err = mvfs_hash_fd(s, fd, size, &hash);
	if (err || !size)
		return err;
	err = mvfs_object_find(s, fd, size, hash, ref);
	if (err == -ENOENT)
		err = mvfs_object_new(s, fd, size, hash, ref);
	return err;
}

/**
 * mvfs_object_trim - remove objects an interrupted change left
 * @s: a store open for writing, not building
 *
 * A change gives out object numbers in the sequence of
 * mvfs_object_next() from next_object on, and makes each object before
 * the next: what it left is the start of that sequence.  Removing them
 * at open keeps them from filling the disk until the next import.
 * Errors are ignored: an import overwrites what is left.
 */
void mvfs_object_trim(struct mvfs_store *s)
{
	char path[MVFS_OBJ_PATH_LEN];
	__u64 n;

	for (n = mvfs_object_next(s->next_object); !(n >> 62);
	     n = mvfs_object_next(n + 1)) {
		mvfs_object_path(path, n);
		if (unlinkat(s->dfd, path, 0))
			break;
		*strrchr(path, '/') = '\0';
		unlinkat(s->dfd, path, AT_REMOVEDIR);
	}
}
