// SPDX-License-Identifier: GPL-2.0
/*
 * atomic.c: whole reads and writes, and files made new.
 *
 * Store files change only by being made anew: a new file is created with
 * O_EXCL under a temporary name, written, synced, then renamed over the
 * old one, as git's tempfile.c and lockfile.c do.  Also the test faults
 * and the removal of a directory tree (a view's private area).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
 * mvfs_open_file - open a store file, which must be a regular file
 * @dfd: the store directory
 * @name: the file, a path below @dfd
 * @flags: O_RDONLY or O_RDWR
 *
 * Follows no symlink in the last component and does not block: a FIFO
 * planted in a store file's place would block open() and read() for
 * ever.  Only the break of a lease on a regular file is waited for.
 * Anything but a regular file is refused, as the module refuses it, so
 * that a corrupt or hostile store gives an error, never a hang.
 *
 * Return: the descriptor, or -errno (no message): -ELOOP for a symlink,
 * -EIO for a FIFO, device, socket or directory.
 */
int mvfs_open_file(int dfd, const char *name, int flags)
{
	struct stat st;
	int fd;

	fd = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	/*
	 * EWOULDBLOCK: a regular file under a lease that this open breaks,
	 * as nfsd's delegations to the clients of a store on NFS are; only
	 * a regular file is opened again, this time waiting for the break.
	 */
	if (fd < 0 && errno == EWOULDBLOCK &&
	    !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
		fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EIO;
	}
	return fd;
}

/**
 * mvfs_write_new - make file @name anew, write it whole and fsync it
 * @dfd: the directory
 * @name: the file; whatever had that name is unlinked first
 * @buf: its content
 * @len: its length
 *
 * As git's tempfile.c: the old name is unlinked and the file created with
 * O_EXCL, so that a leftover of any type (a symlink to another file, a
 * fifo) is never opened and written through.
 *
 * Return: 0 or -errno (no message).
 */
int mvfs_write_new(int dfd, const char *name, const void *buf, size_t len)
{
	int fd, err;

	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		return -errno;
	fd = openat(dfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/*
	 * The name first: once the file's own fsync has written its inode,
	 * a crash must not find an inode without an entry, which e2fsck -p
	 * leaves to a manual run (ext2 has no journal).
	 */
	err = fsync(dfd) ? -errno : 0;
	if (!err && mvfs_fault("state-write"))
		err = -ENOSPC;
	if (!err)
		err = mvfs_pwrite(fd, buf, len, 0);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (err)
		unlinkat(dfd, name, 0);
	return err;
}

/**
 * mvfs_sync_disk - everything written to a file system, on its disk
 * @dfd: a directory of it
 *
 * syncfs(), then an fsync() of @dfd for the disk's cache flush, which
 * ext2's syncfs does not send.
 *
 * Return: 0 or -errno (no message).
 */
int mvfs_sync_disk(int dfd)
{
	return syncfs(dfd) || fsync(dfd) ? -errno : 0;
}

/**
 * mvfs_rename_keep - rename @tmp over @name, the file replaced keeping a
 *	second name
 * @dfd: the directory of all three
 * @tmp: the new file, written and synced (mvfs_write_new())
 * @name: the file it replaces (if any)
 * @old: the second name the replaced file keeps (a leftover of that name
 *	is unlinked first)
 *
 * ext2 orders nothing: writeback may write the release of the replaced
 * inode (an inode-table block) before the directory block that names
 * the new file, and after a cut between them @name names a free inode,
 * which e2fsck clears: neither file is left.  Linked as @old, the
 * replaced inode is not released until the caller has synced @dfd and
 * dropped @old (mvfs_kept_drop()).
 *
 * Return: 0 when renamed, or -errno and nothing changed (@tmp stays).
 */
int mvfs_rename_keep(int dfd, const char *tmp, const char *name,
		     const char *old)
{
	int err;

	if (unlinkat(dfd, old, 0) && errno != ENOENT)
		return -errno;
	if (linkat(dfd, name, dfd, old, 0) && errno != ENOENT)
		return -errno;
	if (!renameat(dfd, tmp, dfd, name))
		return 0;
	err = -errno;
	unlinkat(dfd, old, 0);
	return err;
}

/**
 * mvfs_kept_drop - drop the second name mvfs_rename_keep() gave
 * @dfd: the directory, synced since the rename
 * @old: the name
 *
 * A name it cannot drop is garbage that the next replace drops first.
 */
void mvfs_kept_drop(int dfd, const char *old)
{
	unlinkat(dfd, old, 0);
}

/**
 * mvfs_replace_file - replace file @name with @buf, atomically
 * @dfd: the directory
 * @name: the file
 * @tmp: the name it is written under first (mvfs_write_new())
 * @old: the name the file replaced keeps until the rename is on the disk
 *	(mvfs_rename_keep())
 * @buf: its content
 * @len: its length
 *
 * After a crash @name holds its old content or the new, whole.  The
 * replaced file's release is on the disk when it returns
 * (mvfs_sync_disk()), before anything can take its inode or blocks: ext2
 * has no journal, and an entry naming a reused inode that still reads as
 * the old file is a fault e2fsck -p leaves to a manual run.
 *
 * Return: 0, or -errno (no message): before the rename, nothing changed.
 */
int mvfs_replace_file(int dfd, const char *name, const char *tmp,
		      const char *old, const void *buf, size_t len)
{
	int err = mvfs_write_new(dfd, tmp, buf, len);

	if (!err)
		err = mvfs_rename_keep(dfd, tmp, name, old);
	if (err) {
		unlinkat(dfd, tmp, 0);
		return err;
	}
	if (fsync(dfd))
		return -errno;
	mvfs_kept_drop(dfd, old);
	return mvfs_sync_disk(dfd);
}

/**
 * mvfs_fault - is the test fault @point asked for
 * @point: its name
 *
 * Tests make failures that a real disk gives rarely (ENOSPC, EIO of a
 * directory's fsync, a crash between two steps) by naming them in the
 * environment, as git's GIT_TEST_* variables do:
 * MVFS_TEST_FAULT=state-write,dir-sync.  The points:
 *   state-write         writing a new file fails with ENOSPC
 *   dir-sync            the fsync of the store directory fails with EIO
 *   crash-before-state  a revision's commit exits before its state is
 *                       written, as a crash would
 *   hold-lock           a writer holds the store's lock 3 s longer
 *   checkin-pause       a check-in stops once it has read the view's
 *                       changes, before it asks for their generations,
 *                       until $MVFS_TEST_GO exists (mvfs_test_pause())
 *   retire-pause        the same, once its revision is committed, before
 *                       the view takes it and the changes are retired
 *   merge-write         a merge's write over a file of the view is cut
 *                       short (one byte left) and fails with ENOSPC
 *   merge-crash         the same write is cut short, and the command
 *                       exits there, as a crash would
 *   merge-keep-crash    the copy of that file's bytes from before
 *                       (PATH.contrib.tmp) is cut short, and the
 *                       command exits there
 *
 * Return: true if it is.
 */
bool mvfs_fault(const char *point)
{
	const char *env = getenv("MVFS_TEST_FAULT"), *p;
	size_t len = strlen(point);

	for (p = env; p && *p; p += strcspn(p, ","), p += !!*p)
		if (!strncmp(p, point, len) && (!p[len] || p[len] == ','))
			return true;
	return false;
}

/**
 * mvfs_tmp_file - a new file of this user's, for scratch
 * @name: how its name starts ("mvfs-cs")
 * @path: set to its path: $TMPDIR (else /tmp), /NAME.XXXXXX made unique;
 *        "" when it fails
 * @size: @path's size
 *
 * Never for bytes that must outlive a crash: /tmp may be a tmpfs.
 *
 * Return: the open file (close it, unlink @path), or -errno (said).
 */
int mvfs_tmp_file(const char *name, char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if ((size_t)snprintf(path, size, "%s/%s.XXXXXX",
			     dir && *dir ? dir : "/tmp", name) >= size) {
		*path = '\0';
		return mvfs_err(-ENAMETOOLONG, "$TMPDIR: %s",
				strerror(ENAMETOOLONG));
	}
	fd = mkstemp(path);
	if (fd < 0) {
		fd = mvfs_err(-errno, "%s: %s", path, strerror(errno));
		*path = '\0';	/* nothing to unlink */
	}
	return fd;
}

/**
 * mvfs_test_pause - stop at a point a test names, until it says go
 *
 * For a test that must act at a given moment of a command (MVFS_TEST_FAULT
 * names the point): says "mvfs: test: paused" on stderr, then waits until
 * the file $MVFS_TEST_GO exists (at most a minute).
 */
void mvfs_test_pause(void)
{
	const char *go = getenv("MVFS_TEST_GO");
	int i;

	fprintf(stderr, "mvfs: test: paused\n");
	for (i = 0; go && i < 6000 && access(go, F_OK); i++)
		usleep(10000);
}

/* Remove the entries of directory FD, recursively; -errno. */
static int mvfs_remove_entries(int fd)
{
	struct dirent *de;
	int err = 0, e;
	DIR *d;

	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		e = mvfs_remove_tree(dirfd(d), de->d_name);
		if (e && !err)
			err = e;
	}
	closedir(d);
	return err;
}

/**
 * mvfs_remove_tree - remove @name and, if it is a directory, all it holds
 * @dfd: the directory it is in
 * @name: what to remove; symlinks are removed, never followed
 *
 * Return: 0 (also when @name does not exist) or the first -errno.
 */
int mvfs_remove_tree(int dfd, const char *name)
{
	int fd, err;

	if (!unlinkat(dfd, name, 0) || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	fd = openat(dfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = mvfs_remove_entries(fd);
	if (unlinkat(dfd, name, AT_REMOVEDIR) && !err)
		err = -errno;
	return err;
}
