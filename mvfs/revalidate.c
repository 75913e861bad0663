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
 * Find the element at ei->path again in the revision its view selects
 * now.  A directory takes the new tree; anything else stays valid only
 * if it is unchanged.  Return: 1 valid, 0 not, or -errno.
 */
static int mvfs_lower_refresh(struct inode *inode)
{
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct mvfs_entry *e, *root;
	u64 rev;
	int err, valid = 0;

	e = kmalloc_array(2, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	root = e + 1;
	rev = mvfs_view_root(ei->view, root);
	mutex_lock(&ei->plock);
	err = rev ? mvfs_resolve(sbi, rev, ei->path, e) : -ENOENT;
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
 * mvfs_dir_lower - the tree a directory shows under its private entries
 * @dir: a directory inode
 * @tree: set to the tree's offset, 0 for none
 * @rev: set to the revision it is from
 *
 * Return: 0 or -errno.
 */
int mvfs_dir_lower(struct inode *dir, u64 *tree, u64 *rev)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	struct mvfs_entry *root;
	int err = 0;

	*tree = 0;
	*rev = 0;
	if (ei->kind == MVFS_VIEW) {
		root = kmalloc(sizeof(*root), GFP_KERNEL);
		if (!root)
			return -ENOMEM;
		*rev = mvfs_view_root(ei->view, root);
		*tree = *rev ? root->ref : 0;
		kfree(root);
		return 0;
	}
	if (!READ_ONCE(ei->merge))
		return 0;
	if (ei->view && READ_ONCE(ei->view->rev) != READ_ONCE(ei->rev)) {
		err = mvfs_lower_refresh(dir);
		if (err == 0)
			WRITE_ONCE(ei->ref, 0);	/* gone from the tree */
		err = err < 0 ? err : 0;
	}
	mutex_lock(&ei->plock);
	*tree = ei->ref;
	*rev = ei->rev;
	mutex_unlock(&ei->plock);
	return err;
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
	if (upper)	/* removed by retire, or the last link went */
		return d_inode(upper)->i_nlink != 0;
	if (READ_ONCE(v->rev) == READ_ONCE(ei->rev))
		return 1;
	if (flags & LOOKUP_RCU)
		return -ECHILD;
	return mvfs_lower_refresh(inode);
}

const struct dentry_operations mvfs_dentry_ops = {
	.d_revalidate	= mvfs_d_revalidate,
};
