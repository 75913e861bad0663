// SPDX-License-Identifier: GPL-2.0
/*
 * file.c: regular files of a view.  An open mvfs file holds the store's
 * object file open, and read, splice and mmap go straight to it, so the
 * bytes live once, in the page cache of the ext2 file, as in overlayfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "mvfs.h"

static int mvfs_file_open(struct inode *inode, struct file *file)
{
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct mvfs_entry e = { .mode = inode->i_mode };
	struct file *real;

	if (file->f_mode & FMODE_WRITE)
		return -EROFS;
	if (!ei->ref)
		return 0;	/* the empty file has no object */
	e.ref = ei->ref;
	e.size = i_size_read(inode);
	real = mvfs_store_object(MVFS_SB(inode->i_sb), &e);
	if (IS_ERR(real))
		return PTR_ERR(real);
	file->private_data = real;
	return 0;
}

static int mvfs_file_release(struct inode *inode, struct file *file)
{
	if (file->private_data)
		fput(file->private_data);
	return 0;
}

static ssize_t mvfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *real = iocb->ki_filp->private_data;

	if (!real || !iov_iter_count(to))
		return 0;
	return vfs_iter_read(real, to, &iocb->ki_pos, 0);
}

static int mvfs_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct file *real = file->private_data;
	const struct cred *old;
	int err;

	if (!real)
		return -ENODEV;
	if (!real->f_op->mmap)
		return -ENODEV;
	vma_set_file(vma, real);
	old = override_creds(MVFS_SB(file_inode(file)->i_sb)->creds);
	err = call_mmap(vma->vm_file, vma);
	revert_creds(old);
	return err;
}

const struct file_operations mvfs_file_fops = {
	.open		= mvfs_file_open,
	.release	= mvfs_file_release,
	.read_iter	= mvfs_read_iter,
	.mmap		= mvfs_mmap,
	.splice_read	= generic_file_splice_read,
	.llseek		= generic_file_llseek,
};
