// SPDX-License-Identifier: GPL-2.0
/*
 * atomic.c: whole reads and writes, and files made new.
 *
 * Store files change only by being made anew: a new file is created with
 * O_EXCL under a temporary name, written, synced, then renamed over the
 * old one, as git's tempfile.c and lockfile.c do.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "err.h"
#include "store_int.h"

/* Low-level I/O: whole buffers or an error. */

/**
 * mvfs_pread - read exactly @len bytes at @off
 * @fd: the file
 * @buf: where to put them
 * @len: how many
 * @off: where
 *
 * Return: 0, -ENODATA at the end of the file, or -errno (no message).
 */
int mvfs_pread(int fd, void *buf, size_t len, __u64 off)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		buf = (char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/**
 * mvfs_pwrite - write all of @buf at @off
 * @fd: the file
 * @buf: the bytes
 * @len: how many
 * @off: where
 *
 * Return: 0 or -errno (no message).
 */
int mvfs_pwrite(int fd, const void *buf, size_t len, __u64 off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf = (const char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Read up to LEN bytes at OFF; stops short only at the end of the file. */
ssize_t mvfs_pread_upto(int fd, void *buf, size_t len, __u64 off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

/**
 * mvfs_write_new - write file @name whole and fsync it
 * @dfd: the directory
 * @name: the file; an old one is truncated
 * @buf: its content
 * @len: its length
 *
 * Return: 0 or -errno (no message).
 */
int mvfs_write_new(int dfd, const char *name, const void *buf, size_t len)
{
	int fd, err;

	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	err = mvfs_pwrite(fd, buf, len, 0);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}
