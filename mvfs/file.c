// SPDX-License-Identifier: GPL-2.0
/*
 * file.c: open files of a view.
 *
 * Every open file or directory of a view is on its superblock's list of
 * open files, under sbi->files_lock: that is how endview and rmview find
 * out that a view is busy.
 *
 * An open regular file holds the store's object file open, and read,
 * splice and mmap go straight to it, so the bytes live once, in the page
 * cache of the ext2 file, as in overlayfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "mvfs.h"

static struct mvfs_file *mvfs_file_new(struct inode *inode)
{
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_file *mf;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return NULL;
	mf->view = MVFS_I(inode)->view;
	spin_lock_init(&mf->lock);
	spin_lock(&sbi->files_lock);
	list_add(&mf->node, &sbi->files);
	spin_unlock(&sbi->files_lock);
	return mf;
}

/**
 * mvfs_track_open - ->open of a view's directories: list the open file
 * @inode: the directory
 * @file: its new open file
 *
 * Return: 0 or -ENOMEM.
 */
int mvfs_track_open(struct inode *inode, struct file *file)
{
	file->private_data = mvfs_file_new(inode);
	return file->private_data ? 0 : -ENOMEM;
}

/**
 * mvfs_track_release - ->release matching mvfs_track_open()
 * @inode: the inode
 * @file: the file being closed
 *
 * Return: 0.
 */
int mvfs_track_release(struct inode *inode, struct file *file)
{
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_file *mf = file->private_data;

	if (mf->cached)
		mvfs_cached_release(file);
	spin_lock(&sbi->files_lock);
	list_del(&mf->node);
	spin_unlock(&sbi->files_lock);
	if (mf->real)
		fput(mf->real);
	mvfs_dirlist_free(mf->list);
	kfree(mf);
	return 0;
}

/**
 * mvfs_files_open - how many files of a view are open
 * @sbi: the mount
 * @v: the view
 *
 * Return: the count.
 */
unsigned int mvfs_files_open(struct mvfs_sb_info *sbi, struct mvfs_view *v)
{
	struct mvfs_file *mf;
	unsigned int n = 0;

	spin_lock(&sbi->files_lock);
	list_for_each_entry(mf, &sbi->files, node)
		if (mf->view == v)
			n++;
	spin_unlock(&sbi->files_lock);
	return n;
}

/*
 * The content to stack on: the private file, or the element's object
 * (*LOWER set then: NULL for an empty element).
 */
static struct file *mvfs_real_open(struct file *file, bool *lower)
{
	struct inode *inode = file_inode(file);
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_entry e = { .mode = inode->i_mode };
	struct dentry *upper = mvfs_upper(inode);
	int flags = file->f_flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);

	/* What was opened, not what is there by now: a copy-up may end. */
	*lower = !upper;
	if (upper)
		return mvfs_priv_open(sbi, upper, flags);
	if (!MVFS_I(inode)->ref)
		return NULL;
	e.ref = MVFS_I(inode)->ref;
	e.size = i_size_read(inode);
	return mvfs_store_object(sbi, &e);
}

/*
 * Opening an element for writing (or to truncate it) copies it up
 * first; from then on its content is the private file's.
 */
static int mvfs_file_open(struct inode *inode, struct file *file)
{
	bool write = (file->f_mode & FMODE_WRITE) || (file->f_flags & O_TRUNC);
	bool lower = true, cached = false;
	struct mvfs_file *mf;
	struct file *real;
	int err = 0;

	/*
	 * Against RETIRE, which looks for writers under the inode's lock:
	 * a private file it removed meanwhile is -ESTALE, and the VFS looks
	 * the name up again (LOOKUP_REVAL): no write goes to a retired copy.
	 * (One the user unlinked opens as on ext2, through /proc/PID/fd.)
	 */
	if (write) {
		inode_lock_shared(inode);
		err = mvfs_copy_up(file->f_path.dentry);
		if (!err && MVFS_I(inode)->retired)
			err = -ESTALE;
	}
	if (!err && (file->f_mode & FMODE_WRITE) && mvfs_cached_ok(file)) {
		/* No file of the store: filecache.c */
		err = mvfs_cached_open(file);
		cached = !err;
		lower = false;
		real = err ? ERR_PTR(err) : NULL;
	} else {
		real = err ? ERR_PTR(err) : mvfs_real_open(file, &lower);
	}
	if (write)
		inode_unlock_shared(inode);
	if (IS_ERR(real))
		return PTR_ERR(real);
	mf = mvfs_file_new(inode);
	if (!mf) {
		if (real)
			fput(real);
		if (cached)
			mvfs_cached_release(file);
		return -ENOMEM;
	}
	mf->real = real;
	mf->lower = lower;
	mf->cached = cached;
	file->private_data = mf;
	return 0;
}

/*
 * The private file, opened when a file written through its page cache
 * (filecache.c) is first read, mapped, synced or written otherwise; then
 * it stays until ->release.  It reads buffered, as that file writes, and
 * reports the writeback errors since the view's file was opened.
 */
static struct fd mvfs_real_late(struct file *file)
{
	struct mvfs_file *mf = file->private_data;
	struct inode *inode = file_inode(file);
	struct file *real;

	real = mvfs_priv_open(MVFS_SB(inode->i_sb), mvfs_upper(inode),
			      file->f_flags & ~O_DIRECT);
	if (IS_ERR(real))
		return (struct fd){ .file = real };
	real->f_wb_err = READ_ONCE(file->f_wb_err);
	spin_lock(&mf->lock);
	if (!mf->real) {
		/* Pairs with the acquire in mvfs_real_fdget(). */
		smp_store_release(&mf->real, real);
		real = NULL;
	}
	spin_unlock(&mf->lock);
	if (real)
		fput(real);
	return (struct fd){ .file = mf->real };
}

/*
 * The file to stack on (fdput() it; .file NULL for an empty element).
 * A file opened before its element was copied up (through another
 * descriptor) moves to the private copy, as it would on ext2 see the
 * other descriptor's writes.  Once a file is private, its ->real stays
 * until ->release, which cannot run while the caller holds FILE: no
 * reference is taken then, as fdget() takes none for an unshared table.
 */
static struct fd mvfs_real_fdget(struct file *file)
{
	struct mvfs_file *mf = file->private_data;
	struct inode *inode = file_inode(file);
	struct file *real, *fresh, *old = NULL;
	bool stale, lower;

	/* Pairs with the release below, after ->real is set. */
	if (!smp_load_acquire(&mf->lower)) {
		/* Pairs with the release in mvfs_real_late(). */
		real = smp_load_acquire(&mf->real);
		if (!real && mf->cached)
			return mvfs_real_late(file);
		return (struct fd){ .file = real };
	}
	spin_lock(&mf->lock);
	real = mf->real ? get_file(mf->real) : NULL;
	stale = mf->lower && mvfs_upper(inode);
	spin_unlock(&mf->lock);
	if (!stale)
		goto out;
	/* The private copy: upper, once set, stays. */
	fresh = mvfs_real_open(file, &lower);
	if (IS_ERR_OR_NULL(fresh))
		goto out;
	if (WARN_ON_ONCE(lower)) {	/* upper, once set, stays */
		fput(fresh);
		goto out;
	}
	spin_lock(&mf->lock);
	if (mf->lower) {
		old = mf->real;
		mf->real = get_file(fresh);
		/* ->real before ->lower: pairs with the acquire above. */
		smp_store_release(&mf->lower, false);
	}
	spin_unlock(&mf->lock);
	if (old)
		fput(old);
	if (real)
		fput(real);
	real = fresh;
out:
	return (struct fd){ .file = real, .flags = real ? FDPUT_FPUT : 0 };
}

static ssize_t mvfs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct fd real = mvfs_real_fdget(iocb->ki_filp);
	ssize_t n = 0;

	if (IS_ERR(real.file))
		return PTR_ERR(real.file);
	if (real.file && iov_iter_count(to))
		n = vfs_iter_read(real.file, to, &iocb->ki_pos, 0);
	fdput(real);
	return n;
}

/*
 * The flags of this one call (pwritev2()'s RWF_*) that the real file's
 * write must see: ext2 appends or syncs by them.
 */
static rwf_t mvfs_iocb_rwf(const struct kiocb *iocb)
{
	rwf_t rwf = 0;

	if (iocb->ki_flags & IOCB_APPEND)
		rwf |= RWF_APPEND;
	if (iocb->ki_flags & IOCB_DSYNC)
		rwf |= RWF_DSYNC;
	if (iocb->ki_flags & IOCB_SYNC)
		rwf |= RWF_SYNC;
	return rwf;
}

/* O_APPEND and O_DIRECT may change with fcntl: follow them. */
static void mvfs_sync_flags(struct file *file, struct file *real)
{
	unsigned int mask = O_APPEND | O_NONBLOCK | O_NDELAY;

	if ((file->f_flags ^ real->f_flags) & mask) {
		spin_lock(&real->f_lock);
		real->f_flags = (real->f_flags & ~mask) |
				(file->f_flags & mask);
		spin_unlock(&real->f_lock);
	}
}

static ssize_t mvfs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_file *mf = file->private_data;
	const struct cred *old;
	ssize_t n = -EBADF;
	struct fd real;

	if (mf->cached)
		return mvfs_write_cached(iocb, from);
	real = mvfs_real_fdget(file);
	if (IS_ERR(real.file))
		return PTR_ERR(real.file);
	if (!real.file || !mvfs_upper(inode))
		goto out_put;
	inode_lock(inode);
	/* Setuid and setgid go as on ext2: judged with the caller's creds. */
	n = file_remove_privs(file);
	if (n)
		goto out_unlock;
	mvfs_sync_flags(file, real.file);
	old = override_creds(sbi->creds);
	file_start_write(real.file);
	n = vfs_iter_write(real.file, from, &iocb->ki_pos, mvfs_iocb_rwf(iocb));
	file_end_write(real.file);
	revert_creds(old);
	mvfs_copyattr(inode);
	mvfs_wgen_bump(inode);
out_unlock:
	inode_unlock(inode);
out_put:
	fdput(real);
	return n;
}

static int mvfs_fsync(struct file *file, loff_t start, loff_t end,
		      int datasync)
{
	struct fd real = mvfs_real_fdget(file);
	int err = 0;

	if (IS_ERR(real.file))
		return PTR_ERR(real.file);
	if (real.file)
		err = vfs_fsync_range(real.file, start, end, datasync);
	fdput(real);
	return err;
}

static long mvfs_fallocate(struct file *file, int mode, loff_t off,
			   loff_t len)
{
	struct inode *inode = file_inode(file);
	struct fd real = mvfs_real_fdget(file);
	const struct cred *old;
	long err = -EBADF;

	if (IS_ERR(real.file))
		return PTR_ERR(real.file);
	if (real.file && mvfs_upper(inode)) {
		old = override_creds(MVFS_SB(inode->i_sb)->creds);
		err = vfs_fallocate(real.file, mode, off, len);
		revert_creds(old);
		mvfs_copyattr(inode);
		if (!err)
			mvfs_wgen_bump(inode);
	}
	fdput(real);
	return err;
}

/* A fault in a mapping of an empty element: past its end, as on ext2. */
static vm_fault_t mvfs_empty_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct mvfs_empty_vm_ops = {
	.fault		= mvfs_empty_fault,
};

/*
 * The mapping is the real file's.  Stores through a shared writable one
 * are writes that mvfs never sees: its making counts as one for RETIRE,
 * which keeps the copy while it is mapped (retire.c).
 */
static int mvfs_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(file);
	struct fd real = mvfs_real_fdget(file);
	const struct cred *old;
	int err = -ENODEV;

	if (IS_ERR(real.file))
		return PTR_ERR(real.file);
	if (!real.file && !mvfs_upper(inode)) {
		/* An empty element (read-only: a write opens a copy). */
		vma->vm_ops = &mvfs_empty_vm_ops;
		err = 0;
	} else if (real.file && real.file->f_op->mmap) {
		vma_set_file(vma, real.file);
		old = override_creds(MVFS_SB(inode->i_sb)->creds);
		err = call_mmap(vma->vm_file, vma);
		revert_creds(old);
		if (!err && (vma->vm_flags & VM_SHARED) &&
		    (vma->vm_flags & VM_MAYWRITE))
			mvfs_wgen_bump(inode);
	}
	fdput(real);
	return err;
}

const struct file_operations mvfs_file_fops = {
	.open		= mvfs_file_open,
	.release	= mvfs_track_release,
	.read_iter	= mvfs_read_iter,
	.write_iter	= mvfs_write_iter,
	.fsync		= mvfs_fsync,
	.fallocate	= mvfs_fallocate,
	.mmap		= mvfs_mmap,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
	.llseek		= generic_file_llseek,
};
