// SPDX-License-Identifier: GPL-2.0
/*
 * merge_keep.c: a merge's write over a file of the view, whose bytes from
 * before are kept beside it first, in PATH.contrib (the name ClearCase's
 * merge gives them), whole and synced, so that a crash in the write loses
 * nothing the view had; and the refusal to write over a file while its
 * PATH.contrib is left.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "err.h"
#include "merge.h"
#include "store_int.h"

/* VPATH.contrib, where a merge keeps VPATH's bytes from before; NULL. */
static char *mvfs_contrib_name(const char *vpath)
{
	char *keep;

	return asprintf(&keep, "%s.contrib", vpath) < 0 ? NULL : keep;
}

/**
 * mvfs_contrib_is - is VPATH.contrib there
 * @vpath: a file of the view
 *
 * Return: true when it is.
 */
bool mvfs_contrib_is(const char *vpath)
{
	char *keep = mvfs_contrib_name(vpath);
	struct stat st;
	bool is;

	if (!keep)
		return false;	/* and the write, if any, fails */
	is = !lstat(keep, &st);
	free(keep);
	return is;
}

/* Sync the directory that holds PATH: a name made there stays. */
static int mvfs_sync_dir_of(const char *path)
{
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
	int fd, err = 0;

	if (!slash) {
		free(dir);
		return mvfs_err(-ENOMEM, "out of memory");
	}
	*slash = '\0';
	fd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		err = mvfs_err(-errno, "%s: %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return err;
}

/**
 * mvfs_contrib_left - VPATH.contrib is there: say so
 * @vpath: a file of the view
 *
 * A crash cut short a merge's write over VPATH, and left its bytes from
 * before there: VPATH is not the view's change, and no merge reads or
 * writes it until the user puts them back (or removes them).
 *
 * Return: -EEXIST, with a message.
 */
int mvfs_contrib_left(const char *vpath)
{
	return mvfs_err(-EEXIST,
			"%s.contrib exists: %s's bytes from before a merge that was cut short; put them back or remove it, then merge again",
			vpath, vpath);
}

/*
 * Keep VPATH's bytes (ST: its lstat) in KEEP, VPATH.contrib, whole and
 * synced with its name, or not at all: they are written to KEEP.tmp,
 * synced, then renamed to KEEP (never over one), so that a crash leaves
 * no KEEP cut short that a user would put back over an intact VPATH.
 * A KEEP.tmp left by a crash is scratch (VPATH was not written yet).
 */
static int mvfs_contrib_keep(struct mvfs_merge *m, const char *vpath,
			     const char *keep, const struct stat *st)
{
	mode_t kmode = (st->st_mode & 0666) | 0600;
	char *tmp;
	int fd, err;

	if (asprintf(&tmp, "%s.tmp", keep) < 0)
		return mvfs_err(-ENOMEM, "out of memory");
	/*
	 * A crash's leftover goes, its release on the disk before the new
	 * copy may take its blocks (ext2: no two inodes claim one after a
	 * cut).
	 */
	if (!unlink(tmp)) {
		syncfs(m->w->s->dfd);
	} else if (errno != ENOENT) {
		err = mvfs_err(-errno, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return err;
	}
	/* Its name first: no inode without one after a crash (ext2). */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  kmode);
	err = fd < 0 ? mvfs_err(-errno, "%s: %s", tmp, strerror(errno)) :
		       mvfs_sync_dir_of(tmp);
	if (fd >= 0)
		close(fd);
	if (!err)
		err = mvfs_copy_file(vpath, tmp, O_TRUNC | O_DSYNC, kmode);
	if (!err && mvfs_fault("merge-keep-crash") && !truncate(tmp, 1))
		_exit(9);
	if (!err && renameat2(AT_FDCWD, tmp, AT_FDCWD, keep, RENAME_NOREPLACE))
		err = errno == EEXIST ? mvfs_contrib_left(vpath) :
		      mvfs_err(-errno, "%s: %s", keep, strerror(errno));
	if (!err) {
		err = mvfs_sync_dir_of(keep);
		/* Not kept for sure: no KEEP left to stop the next merge. */
		if (err && !unlink(keep))
			syncfs(m->w->s->dfd);
	}
	/* VPATH untouched; the copy's blocks freed as in the caller. */
	if (err && !unlink(tmp))
		syncfs(m->w->s->dfd);
	free(tmp);
	return err;
}

/**
 * mvfs_rewrite_file - write a file of the view over, its bytes kept first
 * @m: the merge
 * @src: the file whose bytes VPATH takes
 * @vpath: the file of the view
 * @st: its lstat
 * @mode: the mode it takes
 *
 * Write SRC's bytes over file VPATH of the view, with MODE.  Its bytes
 * before are kept first beside it, in VPATH.contrib (the name
 * ClearCase's merge gives them), whole and synced.  A write
 * cut short (a full disk) puts them back, so that a merge run again
 * never reads a file cut short as the view's change; a crash in the
 * middle leaves them there, and while they are there a merge refuses to
 * write over VPATH again.  The kept copy goes once VPATH's new bytes are
 * on the disk.
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_rewrite_file(struct mvfs_merge *m, const char *src,
		      const char *vpath, const struct stat *st, mode_t mode)
{
	char *keep = mvfs_contrib_name(vpath);
	int err;

	if (!keep)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_contrib_keep(m, vpath, keep, st);
	if (err) {
		free(keep);
		return err;
	}
	err = mvfs_copy_file(src, vpath, O_TRUNC | O_DSYNC, mode);
	if (!err && mvfs_fault("merge-crash") && !truncate(vpath, 1))
		_exit(9);
	if (!err && mvfs_fault("merge-write") && !truncate(vpath, 1))
		err = mvfs_err(-ENOSPC, "%s: %s", vpath, strerror(ENOSPC));
	if (err && mvfs_copy_file(keep, vpath, O_TRUNC | O_DSYNC,
				  st->st_mode & 07777)) {
		fprintf(stderr,
			"mvfs: merge: %s is cut short: its bytes before the merge are in %s\n",
			vpath, keep);
		free(keep);
		return err;
	}
	/*
	 * On ext2 the copy's blocks, freed, may go to the next file written
	 * (the merge's own record) before the release reaches the disk: a
	 * cut then leaves two inodes claiming one block.  The store's file
	 * system is synced first.  A copy that stays would stop the next
	 * merge of VPATH as if this one had been cut short.
	 */
	if (unlink(keep)) {
		if (!err)
			err = mvfs_err(-errno, "%s: cannot remove it: %s", keep,
				       strerror(errno));
	} else if (syncfs(m->w->s->dfd) && !err) {
		err = mvfs_err(-errno, "store %s: sync: %s", m->w->s->dir,
			       strerror(errno));
	}
	free(keep);
	return err;
}
