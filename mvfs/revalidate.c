// SPDX-License-Identifier: GPL-2.0
/*
 * revalidate.c: what a view shows, again, after the view moved (a
 * check-in, an import, a label moved, a reload).
 *
 * Revalidation is by what a dentry refers to, not by revision number:
 * when a view moves, an element is looked up again at its path, and a
 * directory stays valid (it takes the new tree) while it is still a
 * directory: a shell whose cwd is deep in a view keeps working, and
 * lookups of what did not change find it unchanged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include "mvfs.h"

/*
 * Find the element at ei->path again as its view selects it now (the
 * revision of the rule that matches the path may have changed too).  A
 * directory takes the new tree; anything else stays valid only if it is
 * unchanged.  Return: 1 valid, 0 not, or -errno.
 */
static int mvfs_lower_refresh(struct inode *inode)
{
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct mvfs_entry *e;
	u64 rev, sel;
	int err, valid = 0;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	mutex_lock(&ei->plock);
	err = mvfs_view_resolve(sbi, ei->view, ei->path, e, &rev, &sel);
	if (err) {
		valid = err == -ENOENT ? 0 : err;
		goto out_unlock;
	}
	if ((e->mode & S_IFMT) != (inode->i_mode & S_IFMT))
		goto out_unlock;
	if (S_ISDIR(e->mode) || (e->ref == ei->ref && e->mode ==
	    inode->i_mode && e->size == i_size_read(inode) &&
	    e->mtime == inode->i_mtime.tv_sec &&
	    e->uid == i_uid_read(inode) && e->gid == i_gid_read(inode))) {
		ei->ref = e->ref;
		WRITE_ONCE(ei->rev, rev);
		WRITE_ONCE(ei->sel, sel);
		valid = 1;
		/* A directory of the tree alone shows its new attributes. */
		if (S_ISDIR(e->mode) && !mvfs_upper(inode))
			mvfs_inode_attr(inode, e);
	}
out_unlock:
	mutex_unlock(&ei->plock);
	kfree(e);
	return valid;
}

/**
 * mvfs_elem_current - is an element still what its view shows at its path
 * @inode: an element of a view (no private copy), its ->cu_lock held
 *
 * For a change through a file opened before the view's selection moved
 * (its dentry is revalidated by path walks only): a copy of what is no
 * longer there must not land on the name.
 *
 * Return: 1 if so, 0 if it changed or went, or -errno.
 */
int mvfs_elem_current(struct inode *inode)
{
	struct mvfs_inode_info *ei = MVFS_I(inode);

	lockdep_assert_held(&ei->cu_lock);
	if (READ_ONCE(ei->view->sel) == READ_ONCE(ei->sel))
		return 1;
	return mvfs_lower_refresh(inode);
}

/**
 * mvfs_dir_refresh - a directory takes what its view's selection shows now
 * @dir: a directory of a view with merge set (an element, or a private
 *       directory with an origin), whose view's selection moved
 *
 * A directory no longer in the tree keeps its private entries and shows
 * no tree under them until it is found again.
 */
void mvfs_dir_refresh(struct inode *dir)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	u64 sel = READ_ONCE(ei->view->sel);

	if (mvfs_lower_refresh(dir) != 0)
		return;
	mutex_lock(&ei->plock);
	ei->ref = 0;	/* gone from the tree */
	WRITE_ONCE(ei->sel, sel);
	mutex_unlock(&ei->plock);
}

/*
 * Still what the view shows?  A private entry while it is in the private
 * area; an element while it is still at its path (a directory whatever
 * its tree); a version named by label while no reload happened; a fixed
 * version always; a negative dentry while mvfs_negative_valid().
 */
static int mvfs_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct inode *inode = d_inode_rcu(dentry);
	struct mvfs_inode_info *ei;
	struct dentry *upper;
	struct mvfs_view *v;

	if (mvfs_follow(dentry->d_sb, flags))
		return -ECHILD;
	if (!inode)
		return mvfs_negative_valid(dentry);
	ei = MVFS_I(inode);
	v = ei->view;
	if (ei->by_label &&
	    ei->gen != READ_ONCE(MVFS_SB(inode->i_sb)->gen))
		return 0;
	if (!v)
		return 1;
	if (READ_ONCE(v->dead))
		return 0;
	if (ei->kind == MVFS_VIEW || ei->kind == MVFS_HIST)
		return 1;
	upper = mvfs_upper(inode);
	if (upper) {	/* removed by retire, or the last link went */
		/* In RCU walk the inode may be going: its upper with it. */
		struct inode *u = d_inode_rcu(upper);

		if (!u)
			return -ECHILD;
		return READ_ONCE(u->i_nlink) != 0;
	}
	if (READ_ONCE(v->sel) == READ_ONCE(ei->sel))
		return 1;
	if (flags & LOOKUP_RCU)
		return -ECHILD;
	return mvfs_lower_refresh(inode);
}

const struct dentry_operations mvfs_dentry_ops = {
	.d_revalidate	= mvfs_d_revalidate,
};
