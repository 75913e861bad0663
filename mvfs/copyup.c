// SPDX-License-Identifier: GPL-2.0
/*
 * copyup.c: the first change to an element copies it into the view's
 * private area, as overlayfs copies up: the copy (data, owner, mode,
 * times and origin) is built in views/TAG/work, then renamed into place,
 * so that a crash leaves the element as it was or wholly copied.  A
 * directory is copied alone (its entries stay in the tree, and show
 * through it); its parents first, from the top down.
 *
 * Locking: copy-up of an inode holds its ->cu_lock, so that two writers
 * copy it once; never two ->cu_lock at a time.  Callers may hold the
 * VFS's locks of mvfs inodes, never a lock of the store's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/errseq.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/splice.h>
#include "mvfs.h"

/**
 * mvfs_view_top - the top of the view (/view/TAG) a dentry is in
 * @dentry: a dentry of a view
 *
 * Return: the top's dentry (dput it), or NULL outside a view.
 */
struct dentry *mvfs_view_top(struct dentry *dentry)
{
	struct dentry *d = dget(dentry), *p;

	while (MVFS_I(d_inode(d))->kind != MVFS_VIEW) {
		if (IS_ROOT(d)) {
			dput(d);
			return NULL;
		}
		p = dget_parent(d);
		dput(d);
		d = p;
	}
	return d;
}

/*
 * A large copy is written to the store's disk as it is made: every
 * MVFS_CU_STREAM bytes the writeback of what was copied is started, and a
 * cache flush of the disk is sent without waiting for it (one at a time;
 * it covers the writes done by then), so that the disk stores most of
 * the copy while the rest is read, and the fsync at the end has less
 * left to wait for.  The fsync makes the copy durable, as without them:
 * they change only when the disk works.  A failed flush fails the copy,
 * since writes it should have kept may be lost.  A store on NFS has no
 * block device of its own: writeback only.
 */
#define MVFS_CU_STREAM	SZ_16M

struct mvfs_cu_stream {
	struct block_device	*bdev;	/* the store's disk, or NULL */
	struct bio		bio;	/* the flush in flight */
	struct completion	done;
	bool			busy;	/* bio submitted, not yet waited for */
	int			err;	/* of a flush */
	loff_t			start;	/* copied, writeback not yet started */
};

static void mvfs_cu_flush_end(struct bio *bio)
{
	complete(bio->bi_private);
}

/* Wait for the flush in flight, if any; WAIT false: only if it is done. */
static bool mvfs_cu_flush_wait(struct mvfs_cu_stream *s, bool wait)
{
	if (!s->busy)
		return true;
	if (wait)
		wait_for_completion_io(&s->done);
	else if (!try_wait_for_completion(&s->done))
		return false;
	if (s->bio.bi_status && !s->err)
		s->err = blk_status_to_errno(s->bio.bi_status);
	bio_uninit(&s->bio);
	s->busy = false;
	return true;
}

/* Bytes up to POS are in TO's page cache: start writing them out. */
static void mvfs_cu_stream(struct mvfs_cu_stream *s, struct file *to,
			   loff_t pos)
{
	if (pos - s->start < MVFS_CU_STREAM)
		return;
	filemap_fdatawrite_range(to->f_mapping, s->start, pos - 1);
	s->start = pos;
	if (!s->bdev || !mvfs_cu_flush_wait(s, false))
		return;
	bio_init(&s->bio, s->bdev, NULL, 0, REQ_OP_WRITE | REQ_PREFLUSH);
	s->bio.bi_end_io = mvfs_cu_flush_end;
	s->bio.bi_private = &s->done;
	reinit_completion(&s->done);
	s->busy = true;
	submit_bio(&s->bio);
}

/* Copy SIZE bytes of the element's object into the open file TO. */
static int mvfs_copy_data(struct mvfs_sb_info *sbi, struct inode *inode,
			  struct file *to)
{
	struct mvfs_entry e = { .mode = inode->i_mode };
	loff_t in = 0, out = 0, size = i_size_read(inode);
	struct mvfs_cu_stream s = {
		.bdev = file_inode(to)->i_sb->s_bdev,
	};
	struct file *from;
	long n;
	int err = 0;

	if (!MVFS_I(inode)->ref)
		return 0;
	e.ref = MVFS_I(inode)->ref;
	e.size = size;
	from = mvfs_store_object(sbi, &e);
	if (IS_ERR(from))
		return PTR_ERR(from);
	init_completion(&s.done);
	while (in < size) {
		n = do_splice_direct(from, &in, to, &out,
				     min_t(loff_t, size - in, SZ_1M), 0);
		if (n <= 0) {
			err = n ? n : -EIO;
			break;
		}
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		mvfs_cu_stream(&s, to, out);
	}
	mvfs_cu_flush_wait(&s, true);
	fput(from);
	if (!err)
		err = s.err;
	if (!err)
		err = vfs_fsync(to, 0);
	return err;
}

/* Make the copy of INODE in the work directory, as W (negative). */
static int mvfs_copy_make(struct mvfs_sb_info *sbi, struct inode *inode,
			  struct inode *wdir, struct dentry *w)
{
	const struct cred *old = override_creds(sbi->creds);
	struct file *f;
	int err;

	switch (inode->i_mode & S_IFMT) {
	case S_IFDIR:
		err = vfs_mkdir(&init_user_ns, wdir, w, 0700);
		break;
	case S_IFLNK:
		err = vfs_symlink(&init_user_ns, wdir, w, inode->i_link);
		break;
	case S_IFREG:
		err = vfs_create(&init_user_ns, wdir, w, 0600, true);
		break;
	default:
		err = -EIO;	/* an element is one of the three */
	}
	revert_creds(old);
	if (err || !S_ISREG(inode->i_mode))
		return err;
	f = mvfs_priv_open(sbi, w, O_WRONLY);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = mvfs_copy_data(sbi, inode, f);
	fput(f);
	return err;
}

/* Give the copy W the element's owner, mode and times. */
static int mvfs_copy_attr(struct mvfs_sb_info *sbi, struct inode *inode,
			  struct dentry *w)
{
	struct iattr a = {
		.ia_valid = ATTR_UID | ATTR_GID,
		.ia_uid = inode->i_uid,
		.ia_gid = inode->i_gid,
	};
	const struct cred *old = override_creds(sbi->creds);
	int err;

	inode_lock(d_inode(w));
	err = notify_change(&init_user_ns, w, &a, NULL);
	if (!err && !S_ISLNK(inode->i_mode)) {
		a.ia_valid = ATTR_MODE;
		a.ia_mode = inode->i_mode;
		err = notify_change(&init_user_ns, w, &a, NULL);
	}
	if (!err) {
		a.ia_valid = ATTR_ATIME | ATTR_MTIME | ATTR_ATIME_SET |
			     ATTR_MTIME_SET;
		a.ia_atime = inode->i_atime;
		a.ia_mtime = inode->i_mtime;
		err = notify_change(&init_user_ns, w, &a, NULL);
	}
	inode_unlock(d_inode(w));
	revert_creds(old);
	return err;
}

/*
 * Keep the finished copy W as an orphan: the element DENTRY stood for is
 * no longer at its name in the view (removed, or another file put there)
 * but is still open, and its opener changes it (fchmod(), ftruncate()).
 * On ext2 that changes the unlinked inode, which nobody else sees; so
 * here the copy is unlinked from WORK (locked) while a reference keeps
 * it, as an O_TMPFILE file is kept, and goes when the view's inode goes.
 * Returns it (dput it).
 */
static struct dentry *mvfs_copy_orphan(struct mvfs_sb_info *sbi,
				       struct dentry *work, struct dentry *w)
{
	struct dentry *d = dget(w);	/* so that the unlink keeps its inode */
	int err;

	if (d_is_dir(w))
		err = mvfs_do_rmdir(sbi, d_inode(work), w);
	else
		err = mvfs_do_unlink(sbi, d_inode(work), w);
	if (err) {
		dput(d);
		return ERR_PTR(err);
	}
	return d;
}

/*
 * Rename the finished copy W of DENTRY's element into UDIR under its
 * name; returns it (dput it).  Where the name no longer holds the
 * element, the copy is kept unnamed (mvfs_copy_orphan()): GONE (the view
 * selects another version there now), DENTRY unhashed, its parent's copy
 * removed, or a private entry at the name (a whiteout, or what replaced
 * it).  The element's inode lock, held by every caller, keeps the name
 * from being removed or replaced meanwhile.
 */
static struct dentry *mvfs_copy_place(struct mvfs_sb_info *sbi,
				      struct dentry *work, struct dentry *w,
				      struct dentry *udir,
				      struct dentry *dentry, bool gone)
{
	const struct qstr *name = &dentry->d_name;
	struct timespec64 pm, pc;
	struct dentry *trap, *d;
	int err;

	trap = lock_rename(work, udir);
	if (gone || d_unlinked(dentry) || IS_DEADDIR(d_inode(udir))) {
		d = mvfs_copy_orphan(sbi, work, w);
		goto out_unlock;
	}
	d = lookup_one_len(name->name, udir, name->len);
	if (IS_ERR(d))
		goto out_unlock;
	err = -EIO;
	if (trap == d || trap == w)
		goto out_dput;
	if (d_is_positive(d)) {
		dput(d);
		d = mvfs_copy_orphan(sbi, work, w);
		goto out_unlock;
	}
	pm = d_inode(udir)->i_mtime;
	pc = d_inode(udir)->i_ctime;
	err = mvfs_do_rename(sbi, d_inode(work), w, d_inode(udir), d, 0);
	if (!err) {
		/*
		 * A copy-up changes nothing the user sees: the parent keeps
		 * its times, as overlayfs restores them (its lock is held).
		 */
		d_inode(udir)->i_mtime = pm;
		d_inode(udir)->i_ctime = pc;
		mark_inode_dirty(d_inode(udir));
		/* The rename moved W to the name; D stays negative. */
		dput(d);
		d = dget(w);
		goto out_unlock;
	}
out_dput:
	dput(d);
	d = ERR_PTR(err);
out_unlock:
	unlock_rename(work, udir);
	return d;
}

/*
 * Sync the store's filesystem, as syncfs(2) does, and flush its disk's
 * cache: ext2 has no call that writes just a copy's inode, its origin (an
 * xattr block) and the directory blocks of its rename, which fsync() of
 * the private file does not write.  Twice a copy-up:
 * - before the rename, so that its name never reaches the disk before
 *   the inode and the origin do: one sync writes its blocks in any
 *   order, and a power cut between them showed a copy with the work
 *   file's owner and mode (root, 0600) and no origin
 *   (tests/guest/boot1b/60-copyup-crash);
 * - after, so that a change fsync'ed in the view right after its copy-up
 *   is not lost with the rename (e2fsck -p found an unattached inode,
 *   tests/torture/powercut).
 *
 * Called with the inode's ->cu_lock held, perhaps VFS locks of mvfs
 * inodes; takes the store's s_umount for reading, as syncfs(2) does.
 *
 * Return: 0, or the error of a write the store's filesystem failed since
 * SINCE (mvfs_copy_errseq()): what failed before the copy-up began is not
 * this copy's, nor reason to refuse it once the disk works again.
 */
static int mvfs_copy_sync(struct mvfs_sb_info *sbi, errseq_t since)
{
	struct super_block *sb = sbi->store.mnt->mnt_sb;
	int err;

	down_read(&sb->s_umount);
	sync_filesystem(sb);	/* its errors are in s_wb_err too */
	up_read(&sb->s_umount);
	err = errseq_check(&sb->s_wb_err, since);
	/* ext2's sync sends the disk no cache flush: one goes now. */
	if (!err && sb->s_bdev)
		err = blkdev_issue_flush(sb->s_bdev);
	return err;
}

/*
 * The store's write errors so far (its s_wb_err, where both a file's and
 * ext2's own buffers' failed writes are counted), marked seen, so that
 * mvfs_copy_sync() tells a later one.
 */
static errseq_t mvfs_copy_errseq(struct mvfs_sb_info *sbi)
{
	struct super_block *sb = sbi->store.mnt->mnt_sb;
	errseq_t since = errseq_sample(&sb->s_wb_err);

	errseq_check_and_advance(&sb->s_wb_err, &since);
	return since;
}

/*
 * Build the copy of DENTRY's element in WORK; the new private entry.
 * SINCE: as for mvfs_copy_sync().
 */
static struct dentry *mvfs_copy_build(struct dentry *dentry,
				      struct dentry *work,
				      struct dentry *udir, bool gone,
				      errseq_t since)
{
	struct inode *inode = d_inode(dentry);
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct dentry *w, *d = NULL;
	char name[40];
	int err;

	snprintf(name, sizeof(name), "#%llx",
		 (u64)atomic64_inc_return(&sbi->wgen));
	inode_lock_nested(d_inode(work), I_MUTEX_PARENT);
	w = lookup_one_len(name, work, strlen(name));
	if (IS_ERR(w)) {
		inode_unlock(d_inode(work));
		return w;
	}
	err = d_is_positive(w) ? -EEXIST :
	      mvfs_copy_make(sbi, inode, d_inode(work), w);
	inode_unlock(d_inode(work));
	if (!err)
		err = mvfs_copy_attr(sbi, inode, w);
	if (!err)
		err = mvfs_origin_set(sbi, w, ei->rev, inode->i_ino, ei->path);
	if (!err)
		err = mvfs_copy_sync(sbi, since);
	if (!err) {
		/*
		 * Hashed under its copy before the copy shows: a lookup that
		 * finds the copy takes this inode (mvfs_iget_test()).
		 */
		WRITE_ONCE(ei->cu_target, d_inode(w));
		__insert_inode_hash(inode, (unsigned long)d_inode(w));
		d = mvfs_copy_place(sbi, work, w, udir, dentry, gone);
		err = PTR_ERR_OR_ZERO(d);
		if (err) {
			remove_inode_hash(inode);
			WRITE_ONCE(ei->cu_target, NULL);
		}
	}
	if (err && d_is_positive(w)) {
		inode_lock_nested(d_inode(work), I_MUTEX_PARENT);
		if (d_is_dir(w))
			mvfs_do_rmdir(sbi, d_inode(work), w);
		else
			mvfs_do_unlink(sbi, d_inode(work), w);
		inode_unlock(d_inode(work));
	}
	dput(w);
	return err ? ERR_PTR(err) : d;
}

/* Set a private inode's ctime as it was. */
static void mvfs_set_ctime(struct inode *u, const struct timespec64 *c)
{
	inode_lock(u);
	u->i_ctime = *c;
	mark_inode_dirty(u);
	inode_unlock(u);
}

/* Copy DENTRY up; its parent already has its private entry. */
static int mvfs_copy_up_one(struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct dentry *parent, *work, *d;
	int err, cur, serr;
	errseq_t since;

	mutex_lock(&ei->cu_lock);
	err = 0;
	if (mvfs_upper(inode))
		goto out_unlock;
	err = -EROFS;
	if (!ei->view || ei->kind == MVFS_VIEW)
		goto out_unlock;
	err = mvfs_priv_area(sbi, ei->view->rec.tag, MVFS_WORK_DIR, &work);
	if (err)
		goto out_unlock;
	err = mnt_want_write(sbi->store.mnt);
	if (err)
		goto out_work;
	since = mvfs_copy_errseq(sbi);
	cur = mvfs_elem_current(inode);
	err = cur < 0 ? cur : 0;
	if (!err) {
		parent = dget_parent(dentry);
		d = mvfs_copy_build(dentry, work, mvfs_upper(d_inode(parent)),
				    !cur, since);
		dput(parent);
		err = PTR_ERR_OR_ZERO(d);
	}
	/*
	 * The copy keeps the element's ctime, which no call can set.  One
	 * kept unnamed goes at the last close: nothing to make durable.
	 */
	if (!err) {
		mvfs_set_ctime(d_inode(d), &inode->i_ctime);
		/*
		 * A failure is logged: the copy is in place all the same, and
		 * the writes will be retried.
		 */
		serr = d_unhashed(d) ? 0 : mvfs_copy_sync(sbi, since);
		if (serr && mvfs_log_fail_ok(sbi))
			pr_warn("store %s: sync after the copy-up of %pd: %d\n",
				sbi->store_name, dentry, serr);
	}
	mnt_drop_write(sbi->store.mnt);
	if (!err) {
		/* Publish it complete: mvfs_upper() pairs with this. */
		smp_store_release(&ei->upper, d);
		WRITE_ONCE(ei->cu_target, NULL);
		mvfs_wgen_bump(inode);
		mvfs_copyattr(inode);
	}
	pr_debug("copy-up %pd2: %d\n", dentry, err);
	/*
	 * Said once in a while: a disk that fails the copy's writes or
	 * flushes (or a store object that cannot be read, logged as such
	 * already).
	 */
	if (err == -EIO && mvfs_log_fail_ok(sbi))
		pr_err("store %s: copy-up of %pd: %d\n", sbi->store_name,
		       dentry, err);
out_work:
	dput(work);
out_unlock:
	mutex_unlock(&ei->cu_lock);
	return err;
}

/**
 * mvfs_copy_up - give an element of a view its private copy
 * @dentry: the element
 *
 * Copies its parents first, from the top down.  Nothing to do for what
 * is already private.
 *
 * Return: 0; -EROFS when the view has no private area or @dentry is a
 * fixed version; -errno.
 */
int mvfs_copy_up(struct dentry *dentry)
{
	struct dentry *d, *next;
	const struct cred *old;
	int err = 0;

	if (mvfs_inode_readonly(d_inode(dentry)))
		return -EROFS;
	if (mvfs_upper(d_inode(dentry)))
		return 0;	/* copied up already: the common case */
	/* work/ is root's: a copy-up is the mounter's doing. */
	old = override_creds(MVFS_SB(dentry->d_sb)->creds);
	while (!err && !mvfs_upper(d_inode(dentry))) {
		/* The highest ancestor still without a private entry. */
		d = dget(dentry);
		for (;;) {
			if (MVFS_I(d_inode(d))->kind == MVFS_VIEW)
				break;
			next = dget_parent(d);
			if (mvfs_upper(d_inode(next))) {
				dput(next);
				break;
			}
			dput(d);
			d = next;
		}
		if (MVFS_I(d_inode(d))->kind == MVFS_VIEW)
			err = mvfs_upper(d_inode(d)) ? 0 : -EROFS;
		else
			err = mvfs_copy_up_one(d);
		dput(d);
		if (!err && MVFS_I(d_inode(dentry))->kind == MVFS_VIEW)
			break;
	}
	revert_creds(old);
	return err;
}
