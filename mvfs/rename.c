// SPDX-License-Identifier: GPL-2.0
/*
 * rename.c: rename(2) and renameat2(RENAME_NOREPLACE, RENAME_EXCHANGE)
 * in a view.
 *
 * The entries move in the view's private area, in steps that each change
 * nothing when they fail (privmove.c); a failed step undoes the ones
 * before it, so that a rename either completes or leaves the view as it
 * was.  An undo is itself a rename back into a name just freed; if even
 * that fails (the store's disk failing), what could not go back stays in
 * views/TAG/work and one line is logged.
 *
 * A crash between two steps (they are renames on the store's ext2, each
 * atomic) can leave: for a rename of an element, the element at both
 * names (the whiteout of the old name not yet in place); for an exchange,
 * one of the two entries in work/, its name showing the tree's element;
 * when what was at the new name moved to work/ first, the tree's element
 * of that name (if any) showing there until the entry arrives.  Those
 * are the states if the steps reach the disk in their order; ext2,
 * mounted without dirsync, may write them in any order, so that after a
 * crash the steps may show in any mix, as for any renames on ext2 that
 * no fsync ordered.
 *
 * Locking: the VFS holds the i_rwsem of both mvfs directories (and of
 * the victims); the steps take the store's locks themselves.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include "mvfs.h"

/* The private inode behind a dentry of a view, or NULL. */
static struct inode *mvfs_upper_of(struct dentry *d)
{
	struct dentry *upper = d_inode(d) ? mvfs_upper(d_inode(d)) : NULL;

	return upper ? d_inode(upper) : NULL;
}

/* Log a step that could not be undone: X is left in work/. */
static void mvfs_undo_failed(struct mvfs_sb_info *sbi, struct dentry *d,
			     const struct mvfs_wname *x)
{
	if (mvfs_log_fail_ok(sbi))
		pr_err("store %s: rename of %pd2 not undone: %s is left in work/\n",
		       sbi->store_name, d, x ? x->buf : "nothing");
}

/* Prepare a rename: the copies it needs and the target's emptiness. */
static int mvfs_rename_prepare(struct dentry *od, struct dentry *nd)
{
	struct inode *target = d_inode(nd);
	int err = 0;

	if (target && S_ISDIR(target->i_mode))
		err = mvfs_dir_empty(nd);
	if (!err)
		err = mvfs_copy_up(od);
	if (!err)
		err = mvfs_copy_up(nd->d_parent);
	if (!err)
		err = mnt_want_write(MVFS_SB(od->d_sb)->store.mnt);
	return err;
}

/*
 * Does what the private area has at ND's name have to move away first?
 * A directory (the empty one replaced, with its whiteouts), a whiteout
 * that a directory cannot replace, or, when the rename takes steps (a
 * whiteout follows it: STEPS), anything there: a step failing after it
 * was replaced could not bring it back.  1, 0 or -errno.
 */
static int mvfs_target_in_way(struct mvfs_sb_info *sbi, struct dentry *und,
			      struct dentry *nd, bool src_dir, bool steps)
{
	struct dentry *u;
	int ret;

	u = mvfs_priv_lookup(sbi, und, nd->d_name.name, nd->d_name.len);
	if (IS_ERR(u))
		return PTR_ERR(u);
	ret = d_is_dir(u) || (src_dir && mvfs_is_whiteout(u)) ||
	      (steps && d_is_positive(u));
	dput(u);
	return ret;
}

/*
 * The steps of a rename of OD (in UOD) to ND (in UND), with WORK:
 * 1. when the tree has an element at the old name (LOWER), a whiteout
 *    for it is made in work/;
 * 2. what is at the new name (IN_WAY) moves to work/ (X);
 * 3. the entry moves to the new name;
 * 4. the whiteout takes the old name.
 * What is in work/ at the end is dropped.
 */
static int mvfs_rename_undoable(struct mvfs_sb_info *sbi, struct dentry *work,
				struct dentry *uod, struct dentry *und,
				struct dentry *od, struct dentry *nd,
				const struct mvfs_origin *lower, int in_way)
{
	struct inode *src = mvfs_upper_of(od);
	const struct qstr *on = &od->d_name, *nn = &nd->d_name;
	struct mvfs_wname wh, x;
	bool moved = false;
	int err;

	err = lower ? mvfs_work_whiteout(sbi, work, &wh, lower) : 0;
	if (!err && in_way) {
		mvfs_work_name(sbi, &x, 'x');
		err = mvfs_priv_move(sbi, und, nn, work, &x.q, NULL, false);
		moved = !err;
	}
	if (!err)
		err = mvfs_priv_move(sbi, uod, on, und, nn, src, true);
	if (!err && lower) {
		err = mvfs_priv_move(sbi, work, &wh.q, uod, on, NULL, false);
		if (err && mvfs_priv_move(sbi, und, nn, uod, on, src, false)) {
			/* The entry is at the new name: X stays in work/. */
			mvfs_undo_failed(sbi, nd, moved ? &x : NULL);
			moved = false;
		}
	}
	if (err && moved &&
	    mvfs_priv_move(sbi, work, &x.q, und, nn, NULL, false)) {
		mvfs_undo_failed(sbi, nd, &x);
		moved = false;
	}
	if (err && lower)
		mvfs_work_drop(sbi, work, &wh);
	if (moved)
		mvfs_work_drop(sbi, work, &x);
	return err;
}

/*
 * The rename in the private area: one rename when nothing needs a
 * whiteout or is in the way (replacing a private file is atomic), else
 * the steps above.
 */
static int mvfs_rename_steps(struct inode *odir, struct dentry *od,
			     struct inode *ndir, struct dentry *nd,
			     const struct mvfs_origin *lower)
{
	struct mvfs_sb_info *sbi = MVFS_SB(odir->i_sb);
	struct dentry *uod = mvfs_upper(odir), *und = mvfs_upper(ndir);
	struct inode *src = mvfs_upper_of(od);
	struct dentry *work;
	int in_way, err;

	in_way = mvfs_target_in_way(sbi, und, nd, S_ISDIR(src->i_mode),
				    !!lower);
	if (in_way < 0)
		return in_way;
	if (!lower && !in_way)
		return mvfs_priv_move(sbi, uod, &od->d_name, und, &nd->d_name,
				      src, true);
	err = mvfs_view_work(odir, &work);
	if (err)
		return err;
	err = mvfs_rename_undoable(sbi, work, uod, und, od, nd, lower, in_way);
	dput(work);
	return err;
}

/*
 * RENAME_EXCHANGE.  The store's ext2 has no exchange, so the two private
 * entries swap through work/: OD's to work/, ND's to OD's name, OD's to
 * ND's name; a failed step moves back what moved.
 */
static int mvfs_exchange_steps(struct mvfs_sb_info *sbi, struct dentry *work,
			       struct dentry *uod, struct dentry *und,
			       struct dentry *od, struct dentry *nd)
{
	/* By name: a hard link's inode may know another of its names. */
	struct inode *a = mvfs_upper_of(od), *b = mvfs_upper_of(nd);
	const struct qstr *on = &od->d_name, *nn = &nd->d_name;
	struct mvfs_wname x;
	int err;

	mvfs_work_name(sbi, &x, 'x');
	err = mvfs_priv_move(sbi, uod, on, work, &x.q, a, false);
	if (err)
		return err;
	err = mvfs_priv_move(sbi, und, nn, uod, on, b, false);
	if (!err) {
		err = mvfs_priv_move(sbi, work, &x.q, und, nn, a, false);
		if (err && mvfs_priv_move(sbi, uod, on, und, nn, b, false)) {
			mvfs_undo_failed(sbi, od, &x);
			return err;
		}
	}
	if (err && mvfs_priv_move(sbi, work, &x.q, uod, on, a, false))
		mvfs_undo_failed(sbi, od, &x);
	return err;
}

/*
 * Each entry lands over the other's name: what the view showed there
 * goes with it (base.c), once both moved.
 */
static int mvfs_exchange(struct dentry *od, struct dentry *nd)
{
	struct mvfs_sb_info *sbi = MVFS_SB(od->d_sb);
	struct inode *odir = d_inode(od->d_parent);
	struct inode *ndir = d_inode(nd->d_parent);
	struct mvfs_origin ob = {}, nb = {};
	struct dentry *work;
	int err;

	err = mvfs_copy_up(od);
	if (!err)
		err = mvfs_copy_up(nd);
	if (!err)
		err = mnt_want_write(sbi->store.mnt);
	if (err)
		return err;
	err = mvfs_impure_for(ndir, d_inode(od));
	if (!err)
		err = mvfs_impure_for(odir, d_inode(nd));
	/* Best effort: an exchange needed no tree lookup before them. */
	if (!err && mvfs_base_replacing(ndir, nd, &nb))
		nb.rev = 0;
	if (!err && mvfs_base_replacing(odir, od, &ob))
		ob.rev = 0;
	if (!err)
		err = mvfs_view_work(odir, &work);
	if (!err) {
		err = mvfs_exchange_steps(sbi, work, mvfs_upper(odir),
					  mvfs_upper(ndir), od, nd);
		dput(work);
	}
	if (!err) {
		mvfs_base_moved(sbi, mvfs_upper(d_inode(od)), &nb);
		mvfs_base_moved(sbi, mvfs_upper(d_inode(nd)), &ob);
	}
	kfree(ob.path);
	kfree(nb.path);
	mnt_drop_write(sbi->store.mnt);
	mvfs_copyattr(odir);
	mvfs_copyattr(ndir);
	return err;
}

/* After a rename: the replaced target's link count and times. */
static void mvfs_rename_done(struct dentry *od, struct inode *target)
{
	if (target) {
		if (S_ISDIR(target->i_mode) || !mvfs_upper(target)) {
			clear_nlink(target);
			target->i_ctime = current_time(target);
		} else {
			mvfs_copyattr(target);
		}
	}
	mvfs_wgen_bump(d_inode(od));
}

static int __mvfs_rename(struct inode *odir, struct dentry *od,
			 struct inode *ndir, struct dentry *nd,
			 unsigned int flags)
{
	struct mvfs_sb_info *sbi = MVFS_SB(odir->i_sb);
	struct inode *target = d_inode(nd);
	struct mvfs_origin b = {}, nb = {};
	int lower, err;

	if (MVFS_I(odir)->view != MVFS_I(ndir)->view)
		return -EXDEV;	/* views are separate trees */
	if (flags & RENAME_EXCHANGE)
		return mvfs_exchange(od, nd);
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;	/* RENAME_WHITEOUT: not ours to make */
	err = mvfs_rename_prepare(od, nd);
	if (err)
		return err;
	lower = mvfs_impure_for(ndir, d_inode(od));
	if (!lower)
		lower = mvfs_lower_has(odir, &od->d_name);
	err = lower < 0 ? lower : 0;
	/* What the whiteout at the old name, and the new entry, stand on */
	if (!err && lower)
		err = mvfs_base_of(odir, od, &b);
	if (!err)
		err = mvfs_base_replacing(ndir, nd, &nb);
	if (!err)
		err = mvfs_rename_steps(odir, od, ndir, nd, lower ? &b : NULL);
	/* Once moved: a failed rename leaves the entry's record as it was. */
	if (!err)
		mvfs_base_moved(sbi, mvfs_upper(d_inode(od)), &nb);
	kfree(b.path);
	kfree(nb.path);
	if (!err)
		mvfs_rename_done(od, target);
	mnt_drop_write(sbi->store.mnt);
	mvfs_copyattr(odir);
	mvfs_copyattr(ndir);
	mvfs_copyattr(d_inode(od));
	return err;
}

/**
 * mvfs_rename - ->rename of a view's directories
 * @mnt_userns: the mount's user namespace
 * @odir: the old parent
 * @od: what is renamed
 * @ndir: the new parent
 * @nd: the new name (positive: what is replaced or exchanged)
 * @flags: RENAME_NOREPLACE or RENAME_EXCHANGE
 *
 * Runs with the mounter's credentials, as every change does (namei.c).
 *
 * Return: 0, or -errno with the view as it was (see above).
 */
int mvfs_rename(struct user_namespace *mnt_userns, struct inode *odir,
		struct dentry *od, struct inode *ndir, struct dentry *nd,
		unsigned int flags)
{
	const struct cred *old = override_creds(MVFS_SB(odir->i_sb)->creds);
	int err = __mvfs_rename(odir, od, ndir, nd, flags);

	revert_creds(old);
	return err;
}
