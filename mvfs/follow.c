// SPDX-License-Identifier: GPL-2.0
/*
 * follow.c: a mount follows the changes that other machines make to a
 * store they share with it over NFS.
 *
 * The tools reload the mount (MVFS_IOC_RELOAD) after each change they
 * make, but only on the machine they run on.  When the store lives on
 * NFS, another machine's check-in replaces the state file on the server,
 * and a mount here learns of it on access: when a dentry of it is
 * revalidated or /view is looked up or listed, at most once per
 * MVFS_FOLLOW_INTERVAL, it asks for the store directory's attributes
 * and opens the state file by name, and compares that file with the one
 * it read last.  The state is only ever replaced whole, by rename()
 * (FORMAT.md "Committing a change"), so a new state is a new file, with
 * another inode number, generation or change attribute.  (Two states
 * in a row between two checks that share all of these, inode number,
 * size and times, are told apart at the next change only: NFS gives no
 * generation, and an ext2 server's times are whole seconds.)
 *
 * NFS caches a file's attributes for 3 to 60 seconds and a name's
 * lookup as long as its directory seems unchanged, which is why the check
 * asks the server (AT_STATX_FORCE_SYNC) for the directory's attributes
 * first: a rename in it changed its change attribute, so NFS looks the
 * name up again, and the open that follows (NFS's close-to-open: an
 * OPEN to the server, its attributes in the reply) gives the new file.
 * A change made elsewhere is seen here within the interval plus those
 * round trips.  Every read of the state (at mount, on MVFS_IOC_RELOAD,
 * here) opens it so, and first asks the server for the pack's size,
 * since the state commits pack bytes that another machine appended.  A
 * local store costs two dcache lookups.
 *
 * The reload runs where the access is, when reg_lock and state_lock come
 * at once: the caller may hold locks that these nest outside of (the
 * i_rwsem of a directory being looked up, reg_lock in a view switch).
 * Otherwise a worker does it, a moment later.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "mvfs.h"

#define MVFS_FOLLOW_INTERVAL	(HZ / 10)

/* What tells one state file from the next. */
struct mvfs_follow_stamp {
	unsigned long		ino;
	u32			generation;
	loff_t			size;
	u64			version;	/* NFS: the change attribute */
	struct timespec64	mtime;
	struct timespec64	ctime;
};

struct mvfs_follow {
	spinlock_t		lock;	/* protects seen */
	struct mvfs_follow_stamp seen;	/* of the state file read last */
	struct work_struct	work;	/* a reload that could not be done */
	struct super_block	*sb;	/* set before work is queued */
};

static void mvfs_follow_stamp(struct file *file, struct mvfs_follow_stamp *st)
{
	struct inode *inode = file_inode(file);

	st->ino = inode->i_ino;
	st->generation = inode->i_generation;
	st->size = i_size_read(inode);
	st->version = inode_peek_iversion_raw(inode);
	st->mtime = inode->i_mtime;
	st->ctime = inode->i_ctime;
}

static bool mvfs_follow_same(const struct mvfs_follow_stamp *a,
			     const struct mvfs_follow_stamp *b)
{
	return a->ino == b->ino && a->generation == b->generation &&
	       a->size == b->size && a->version == b->version &&
	       timespec64_equal(&a->mtime, &b->mtime) &&
	       timespec64_equal(&a->ctime, &b->ctime);
}

static void mvfs_follow_work(struct work_struct *work)
{
	struct mvfs_follow *f = container_of(work, struct mvfs_follow, work);

	mvfs_views_reload(f->sb);
}

/* Is FILE a regular file on the store's own mount?  0 or -EINVAL. */
static int mvfs_follow_regular(struct mvfs_sb_info *sbi, struct file *file)
{
	if (!S_ISREG(file_inode(file)->i_mode) ||
	    file->f_path.mnt != sbi->store.mnt)
		return -EINVAL;
	return 0;
}

/* file_open_root() of the state file; O_PATH for a look, not an open. */
static struct file *mvfs_follow_open_flags(struct mvfs_sb_info *sbi,
					   int flags)
{
	const struct cred *old = override_creds(sbi->creds);
	struct file *file;

	file = file_open_root(&sbi->store, MVFS_STATE_FILE,
			      flags | O_NOFOLLOW | O_NOCTTY | O_LARGEFILE, 0);
	revert_creds(old);
	if (!IS_ERR(file) && mvfs_follow_regular(sbi, file)) {
		fput(file);
		file = ERR_PTR(-EINVAL);
	}
	return file;
}

/*
 * Open the state file by name, so that NFS asks its server.  Whatever
 * the name holds is checked before (as the store's other files are: no
 * symlink, nothing but a regular file, not across a mount), by a look
 * that opens nothing (O_PATH), and again after the open, which does not
 * block, so that a FIFO or a device there is neither waited for nor
 * opened through.  Return: the file, or ERR_PTR(-errno).
 */
static struct file *mvfs_follow_open(struct mvfs_sb_info *sbi)
{
	struct file *file;

	file = mvfs_follow_open_flags(sbi, O_PATH);
	if (IS_ERR(file))
		return file;
	fput(file);
	return mvfs_follow_open_flags(sbi, O_RDONLY | O_NONBLOCK | O_NOATIME);
}

/*
 * Ask the filesystem for PATH's attributes afresh: over NFS, a GETATTR
 * to the server, whose reply updates the cached ones (a directory's
 * change attribute, a file's size); locally, nothing.
 */
static int mvfs_follow_getattr(struct mvfs_sb_info *sbi,
			       const struct path *path)
{
	const struct cred *old = override_creds(sbi->creds);
	struct kstat st;
	int err;

	err = vfs_getattr(path, &st, STATX_BASIC_STATS, AT_STATX_FORCE_SYNC);
	revert_creds(old);
	return err;
}

/*
 * Drop the cached pages of the pack from the one that holds its committed
 * end on: when another machine appended, a page read while it held the
 * end of the file holds zeros where the new bytes are, and NFS may keep
 * it (the change attribute of an ext2 server moves in whole seconds).
 * Pages below hold committed bytes, which never change.  Clean pages
 * only: one being read now is read from the server anyway.
 */
static void mvfs_follow_drop_tail(struct mvfs_sb_info *sbi)
{
	invalidate_mapping_pages(sbi->pack->f_mapping,
				 READ_ONCE(sbi->pack_len) >> PAGE_SHIFT, -1);
}

static struct mvfs_follow *mvfs_follow_alloc(void)
{
	struct mvfs_follow *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	spin_lock_init(&f->lock);
	INIT_WORK(&f->work, mvfs_follow_work);
	return f;
}

/**
 * mvfs_follow_open_state - open the state file to read it, and remember it
 * @sbi: the mount, its store open
 *
 * Caller holds sbi->state_lock for writing (a reload, the mount's too).
 * The file opened is the one that later checks compare against, whether
 * or not its content is accepted: a state that was refused is not read
 * again until it is replaced (one whose read failed for a reason of the
 * moment is: mvfs_follow_forget()).  Before the open, the store directory's
 * attributes are fetched (a name renamed over is looked up again), and
 * after it the pack's (its size may have grown elsewhere).
 *
 * Return: the file (fput() it), or ERR_PTR(-errno).
 */
struct file *mvfs_follow_open_state(struct mvfs_sb_info *sbi)
{
	struct mvfs_follow *f = sbi->follow;
	struct mvfs_follow_stamp st;
	struct file *file;
	int err;

	lockdep_assert_held_write(&sbi->state_lock);
	/*
	 * An attribute that could not be fetched would be an old one (an
	 * old pack size, a state refused for it): fail, and read again.
	 */
	err = mvfs_follow_getattr(sbi, &sbi->store);
	if (err)
		return ERR_PTR(err);
	file = mvfs_follow_open(sbi);
	if (IS_ERR(file))
		return file;
	err = mvfs_follow_getattr(sbi, &sbi->pack->f_path);
	if (err) {
		fput(file);
		return ERR_PTR(err);
	}
	mvfs_follow_drop_tail(sbi);
	mvfs_follow_stamp(file, &st);
	if (!f) {
		f = mvfs_follow_alloc();
		if (!f)		/* no following; the next read tries again */
			return file;
		f->seen = st;
		WRITE_ONCE(sbi->follow_next, jiffies + MVFS_FOLLOW_INTERVAL);
		/* Pairs with mvfs_follow_check(): f is whole when seen. */
		smp_store_release(&sbi->follow, f);
		return file;
	}
	spin_lock(&f->lock);
	f->seen = st;
	spin_unlock(&f->lock);
	return file;
}

/**
 * mvfs_follow_forget - check the state file again, as if it had changed
 * @sbi: the mount
 *
 * Caller holds sbi->state_lock for writing, after a read of the state
 * that failed for a reason of the moment (memory, a fatal signal of the
 * process that ran the check, a stale NFS handle), not because the state
 * was refused: the next check reads it again, so that a state another
 * machine committed is not missed until it commits the next one.
 */
void mvfs_follow_forget(struct mvfs_sb_info *sbi)
{
	struct mvfs_follow *f = sbi->follow;

	lockdep_assert_held_write(&sbi->state_lock);
	if (!f)
		return;
	spin_lock(&f->lock);
	memset(&f->seen, 0, sizeof(f->seen));	/* no file has inode 0 */
	spin_unlock(&f->lock);
}

/* Is the state file another than the one read last? */
static bool mvfs_follow_changed(struct mvfs_sb_info *sbi,
				struct mvfs_follow *f)
{
	struct mvfs_follow_stamp st;
	struct file *file;
	bool changed;

	mvfs_follow_getattr(sbi, &sbi->store);
	file = mvfs_follow_open(sbi);
	if (IS_ERR(file))	/* gone or odd: the next read will say */
		return false;
	mvfs_follow_stamp(file, &st);
	fput(file);
	spin_lock(&f->lock);
	changed = !mvfs_follow_same(&st, &f->seen);
	spin_unlock(&f->lock);
	return changed;
}

/**
 * mvfs_follow_check - apply a state that another machine committed
 * @sb: the mvfs superblock
 * @flags: the lookup flags of the access (LOOKUP_RCU)
 *
 * Called through mvfs_follow() when a check is due; one caller wins the
 * check, the others go on with the state in force.  May be called with
 * the i_rwsem of an mvfs directory or reg_lock held: it waits for
 * neither reg_lock nor state_lock.
 *
 * Return: 0, or -ECHILD in RCU walk, where it cannot open a file.
 */
int mvfs_follow_check(struct super_block *sb, unsigned int flags)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	unsigned long next = READ_ONCE(sbi->follow_next);
	struct mvfs_follow *f;

	if (flags & LOOKUP_RCU)
		return -ECHILD;
	/* Pairs with mvfs_follow_open_state(). */
	f = smp_load_acquire(&sbi->follow);
	if (!f || time_before(jiffies, next) ||
	    cmpxchg(&sbi->follow_next, next,
		    jiffies + MVFS_FOLLOW_INTERVAL) != next)
		return 0;
	if (mvfs_follow_changed(sbi, f) &&
	    mvfs_views_reload_nowait(sb) == -EAGAIN) {
		f->sb = sb;
		queue_work(system_wq, &f->work);
	}
	return 0;
}

/**
 * mvfs_follow_free - stop following, at unmount
 * @sbi: the mount, or NULL
 *
 * Called before the superblock goes: no access can start a check.
 */
void mvfs_follow_free(struct mvfs_sb_info *sbi)
{
	struct mvfs_follow *f = sbi ? sbi->follow : NULL;

	if (!f)
		return;
	cancel_work_sync(&f->work);
	sbi->follow = NULL;
	kfree(f);
}
