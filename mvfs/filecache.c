// SPDX-License-Identifier: GPL-2.0
/*
 * filecache.c: a private file of a store on ext2, opened for writing, is
 * written through the private file's page cache with no file of the
 * store open.
 *
 * Every write in a view used to go through a second open file, the
 * private file's, and creating a small file paid a second open and close
 * (the create row of the benchmarks).  Here the view's file takes the
 * private inode's mapping as its f_mapping and does what ext2's own
 * ->write_iter (generic_file_write_iter()) does, on that inode.  This
 * knows ext2: its ->write_begin and ->write_end take no file, and its
 * ->open and ->release look at the file's mode and flags only.  A store on
 * another file system (NFS, whose ->write_begin needs its own open file)
 * is written through an open file of it (file.c), as is everything but a
 * buffered write here: a read, mmap, fsync or fallocate opens the private
 * file once (file.c, mvfs_real_late()).
 *
 * What an open file of the private inode holds, the view's file holds
 * too, from ->open to ->release: write access to the inode (no exec of
 * it, no lease granted on it, as for nfsd's delegations on a served
 * store), and what ext2's ->open and ->release do (its block reservation
 * is dropped at the last close).  It does not hold the store's mount for
 * writing between writes (that needs freeze protection held, or VFS
 * internals): a read-only remount of the store succeeds under it, and
 * its writes then fail with EROFS.  O_DIRECT, which fcntl() may set on
 * such a file (its mapping is ext2's), is served buffered, as tmpfs
 * does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/backing-dev.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/uio.h>
#include "mvfs.h"

/**
 * mvfs_cached_ok - may this open file be written through the cache
 * @file: a view's file being opened for writing, copied up
 *
 * A regular private file of a store on ext2, not opened O_DIRECT.
 *
 * Return: true if so.
 */
bool mvfs_cached_ok(struct file *file)
{
	struct dentry *upper = mvfs_upper(file_inode(file));

	return upper && d_is_reg(upper) && !(file->f_flags & O_DIRECT) &&
	       MVFS_SB(file_inode(file)->i_sb)->store_ext2 &&
	       !IS_DAX(d_inode(upper));
}

/**
 * mvfs_cached_open - open a view's file to write it through the cache
 * @file: a file for which mvfs_cached_ok() is true
 *
 * Takes what an open of the private file would: no lease stays, write
 * access, ext2's ->open; then the private file's mapping.  Its caller
 * holds the view inode's lock (shared).
 *
 * Return: 0 (undo with mvfs_cached_release()), or -errno.
 */
int mvfs_cached_open(struct file *file)
{
	struct inode *inode = file_inode(file);
	struct inode *u = d_inode(mvfs_upper(inode));
	const struct cred *old;
	int err;

	lockdep_assert_held_read(&inode->i_rwsem);
	err = get_write_access(u);
	if (err)
		return err;
	old = override_creds(MVFS_SB(inode->i_sb)->creds);
	err = break_lease(u, file->f_flags);
	if (!err && u->i_fop->open)
		err = u->i_fop->open(u, file);
	revert_creds(old);
	if (err) {
		put_write_access(u);
		return err;
	}
	file->f_mapping = u->i_mapping;
	/* do_dentry_open() sampled the view inode's mapping: not this one */
	file->f_wb_err = filemap_sample_wb_err(file->f_mapping);
	return 0;
}

/**
 * mvfs_cached_release - undo mvfs_cached_open()
 * @file: the file, at its ->release (or a failed ->open)
 */
void mvfs_cached_release(struct file *file)
{
	struct inode *u = file->f_mapping->host;

	/* ext2 drops a writer's block reservation here */
	if (u->i_fop->release)
		u->i_fop->release(u, file);
	put_write_access(u);
}

/* file_update_time() for the private inode U, whose lock is held. */
static int mvfs_cached_times(struct inode *u)
{
	struct timespec64 now = current_time(u);
	int flags = 0;

	if (IS_NOCMTIME(u))
		return 0;
	if (!timespec64_equal(&u->i_mtime, &now))
		flags |= S_MTIME;
	if (!timespec64_equal(&u->i_ctime, &now))
		flags |= S_CTIME;
	if (IS_I_VERSION(u) && inode_iversion_need_inc(u))
		flags |= S_VERSION;
	return flags ? inode_update_time(u, &now, flags) : 0;
}

/**
 * mvfs_write_cached - ->write_iter of a file opened by mvfs_cached_open()
 * @iocb: the write; its file's f_mapping is the private file's
 * @from: the data
 *
 * generic_file_write_iter(), on the private inode, with the store's
 * mount held for writing as an open file of it would, after setuid and
 * setgid are dropped from the view's inode with the caller's credentials
 * (the inode's lock held, as ->setattr wants).  Lock order: the view's
 * inode, the store's freeze protection, the private inode.
 *
 * Return: the bytes written, or -errno.
 */
ssize_t mvfs_write_cached(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct inode *u = file->f_mapping->host;
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	const struct cred *old;
	ssize_t n;
	int err;

	iocb->ki_flags &= ~IOCB_DIRECT;	/* buffered: see above */
	inode_lock(inode);
	n = file_remove_privs(file);
	if (n)
		goto out_unlock;
	old = override_creds(sbi->creds);
	n = mnt_want_write(sbi->store.mnt);
	if (n)
		goto out_creds;
	inode_lock(u);
	current->backing_dev_info = inode_to_bdi(u);
	n = generic_write_checks(iocb, from);
	if (n > 0) {
		err = mvfs_cached_times(u);
		n = err ? err : generic_perform_write(iocb, from);
	}
	current->backing_dev_info = NULL;
	inode_unlock(u);
	mnt_drop_write(sbi->store.mnt);
	mvfs_copyattr(inode);
	mvfs_wgen_bump(inode);
out_creds:
	revert_creds(old);
out_unlock:
	inode_unlock(inode);
	if (n > 0)
		n = generic_write_sync(iocb, n);
	return n;
}
