// SPDX-License-Identifier: GPL-2.0
/*
 * privmove.c: changes to a view's private area made of steps that can be
 * undone, for rename, RENAME_EXCHANGE, rmdir and the removal of an
 * element (namei.c, rename.c).
 *
 * Each step is one rename by name, between the private area and the
 * view's work directory (views/TAG/work): what it needs (lookups, a new
 * whiteout) is taken before it changes anything, so a step that fails
 * changes nothing, and a change of several steps undoes the ones done
 * when a later one fails.  What the view no longer shows is moved to
 * work/ first and dropped there last: after a crash in the middle, what
 * is left in work/ is invisible, and the view shows the old state or the
 * new one.
 *
 * Locking: the VFS holds the i_rwsem of the mvfs directories concerned,
 * so nothing else changes these names between steps; each step takes the
 * store's directory locks itself (lock_rename()), and the callers hold
 * none of the store's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/namei.h>
#include "mvfs.h"

/**
 * mvfs_view_work - the work directory of a view
 * @dir: a directory of the view
 * @work: set to it (dput it)
 *
 * Return: 0 or -errno (mvfs_priv_area()'s).
 */
int mvfs_view_work(struct inode *dir, struct dentry **work)
{
	return mvfs_priv_area(MVFS_SB(dir->i_sb), MVFS_I(dir)->view->rec.tag,
			      MVFS_WORK_DIR, work);
}

/**
 * mvfs_work_name - a new name in a view's work directory
 * @sbi: the mount
 * @w: filled in: the name, "#" KIND and a number never given before
 * @kind: 'w' a whiteout made ahead, 'x' a moved entry
 */
void mvfs_work_name(struct mvfs_sb_info *sbi, struct mvfs_wname *w, char kind)
{
	snprintf(w->buf, sizeof(w->buf), "#%c%llx", kind,
		 (u64)atomic64_inc_return(&sbi->wgen));
	w->q = (struct qstr)QSTR_INIT(w->buf, strlen(w->buf));
}

/**
 * mvfs_priv_move - one step: rename @n1 in @d1 to @n2 in @d2, by name
 * @sbi: the mount
 * @d1: a directory of the private area or the work directory, unlocked
 * @n1: the name there, which must be positive
 * @d2: the directory to move to, unlocked
 * @n2: the new name
 * @want: the inode @n1 must have, or NULL for any
 * @replace: whether a non-directory at @n2 is replaced (as rename(2)
 *           replaces it, atomically); else @n2 must be free
 *
 * Return: 0, or -errno with nothing changed: -ESTALE when @n1 is not
 * @want, -ENOENT when it is free, -EEXIST when @n2 is taken.
 */
int mvfs_priv_move(struct mvfs_sb_info *sbi, struct dentry *d1,
		   const struct qstr *n1, struct dentry *d2,
		   const struct qstr *n2, struct inode *want, bool replace)
{
	struct dentry *trap, *o, *n;
	int err;

	trap = lock_rename(d1, d2);
	o = lookup_one_len(n1->name, d1, n1->len);
	err = PTR_ERR_OR_ZERO(o);
	if (err)
		goto out_unlock;
	n = lookup_one_len(n2->name, d2, n2->len);
	err = PTR_ERR_OR_ZERO(n);
	if (err)
		goto out_o;
	if (d_is_negative(o))
		err = -ENOENT;
	else if (want && d_inode(o) != want)
		err = -ESTALE;
	else if (o == trap)
		err = -EINVAL;
	else if (n == trap)
		err = -ENOTEMPTY;
	else if (d_is_positive(n) && (!replace || d_is_dir(n)))
		err = -EEXIST;
	else
		err = mvfs_do_rename(sbi, d_inode(d1), o, d_inode(d2), n, 0);
	dput(n);
out_o:
	dput(o);
out_unlock:
	unlock_rename(d1, d2);
	return err;
}

/**
 * mvfs_work_whiteout - make a whiteout in the work directory, ahead
 * @sbi: the mount
 * @work: the view's work directory, unlocked
 * @w: set to its name there
 * @b: the base it records (base.c), or NULL
 *
 * So that a change that must leave a whiteout allocates it before it
 * changes anything; the whiteout is then moved into place, its base
 * recorded already.
 *
 * Return: 0 or -errno.
 */
int mvfs_work_whiteout(struct mvfs_sb_info *sbi, struct dentry *work,
		       struct mvfs_wname *w, const struct mvfs_origin *b)
{
	struct dentry *d;
	int err;

	mvfs_work_name(sbi, w, 'w');
	inode_lock_nested(d_inode(work), I_MUTEX_PARENT);
	d = lookup_one_len(w->q.name, work, w->q.len);
	err = PTR_ERR_OR_ZERO(d);
	if (!err)
		err = d_is_positive(d) ? -EEXIST :
		      mvfs_do_whiteout(sbi, d_inode(work), d);
	inode_unlock(d_inode(work));
	if (!err && b)
		mvfs_base_mark(sbi, d, b);
	if (!IS_ERR(d))
		dput(d);
	return err;
}

/**
 * mvfs_work_drop - remove what a change left in the work directory
 * @sbi: the mount
 * @work: the view's work directory, unlocked
 * @w: the name there: a whiteout, or a directory the view no longer
 *     shows (its whiteouts are removed, then it)
 *
 * The change is done: a failure here leaves an invisible leftover in
 * work/, logged.
 */
void mvfs_work_drop(struct mvfs_sb_info *sbi, struct dentry *work,
		    const struct mvfs_wname *w)
{
	struct dentry *d;
	int err;

	d = mvfs_priv_lookup(sbi, work, w->q.name, w->q.len);
	err = PTR_ERR_OR_ZERO(d);
	if (err || d_is_negative(d))
		goto out;
	if (d_is_dir(d))
		err = mvfs_clear_whiteouts(sbi, d);
	if (!err) {
		inode_lock_nested(d_inode(work), I_MUTEX_PARENT);
		if (d->d_parent != work || d_unhashed(d))
			err = -ESTALE;
		else if (d_is_dir(d))
			err = mvfs_do_rmdir(sbi, d_inode(work), d);
		else
			err = mvfs_do_unlink(sbi, d_inode(work), d);
		inode_unlock(d_inode(work));
	}
out:
	if (err && mvfs_log_fail_ok(sbi))
		pr_warn("store %s: %s left in a work directory: %d\n",
			sbi->store_name, w->buf, err);
	if (!IS_ERR(d))
		dput(d);
}
