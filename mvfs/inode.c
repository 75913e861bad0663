// SPDX-License-Identifier: GPL-2.0
/*
 * inode.c: mvfs inodes, made from store entries, and the dentry
 * revalidation that makes a moving view show its new revision.
 *
 * An inode of a view's content remembers the view and the revision it
 * came from; once the view selects another revision its dentries fail
 * revalidation and are looked up again.  The inode kind (enum mvfs_kind)
 * leaves room for a per-view private layer above the revision's entry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include "mvfs.h"

static struct kmem_cache *mvfs_inode_cachep;

struct inode *mvfs_alloc_inode(struct super_block *sb)
{
	struct mvfs_inode_info *ei;

	ei = alloc_inode_sb(sb, mvfs_inode_cachep, GFP_KERNEL);
	if (!ei)
		return NULL;
	ei->kind = MVFS_TOP;
	ei->view = NULL;
	ei->rev = 0;
	ei->gen = 0;
	ei->by_label = false;
	ei->ref = 0;
	ei->path = NULL;
	return &ei->vfs_inode;
}

void mvfs_free_inode(struct inode *inode)
{
	struct mvfs_inode_info *ei = MVFS_I(inode);

	if (S_ISLNK(inode->i_mode))
		kfree(inode->i_link);
	kfree(ei->path);
	kmem_cache_free(mvfs_inode_cachep, ei);
}

void mvfs_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	mvfs_view_put(MVFS_I(inode)->view);
	MVFS_I(inode)->view = NULL;
}

static void mvfs_inode_init_once(void *p)
{
	struct mvfs_inode_info *ei = p;

	inode_init_once(&ei->vfs_inode);
}

int mvfs_init_inodecache(void)
{
	mvfs_inode_cachep = kmem_cache_create("mvfs_inode_cache",
					      sizeof(struct mvfs_inode_info),
					      0, SLAB_RECLAIM_ACCOUNT |
					      SLAB_MEM_SPREAD | SLAB_ACCOUNT,
					      mvfs_inode_init_once);
	return mvfs_inode_cachep ? 0 : -ENOMEM;
}

void mvfs_destroy_inodecache(void)
{
	/* Inodes are freed after an RCU grace period. */
	rcu_barrier();
	kmem_cache_destroy(mvfs_inode_cachep);
}

/**
 * mvfs_new_inode - a fresh inode of an mvfs kind
 * @sb: the superblock
 * @kind: what it is
 * @mode: type and permission bits
 *
 * Return: the inode with its operations set, or NULL.
 */
struct inode *mvfs_new_inode(struct super_block *sb, enum mvfs_kind kind,
			     umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	inode->i_mtime = current_time(inode);
	inode->i_atime = inode->i_mtime;
	inode->i_ctime = inode->i_mtime;
	MVFS_I(inode)->kind = kind;
	switch (kind) {
	case MVFS_TOP:
		inode->i_op = &mvfs_top_iops;
		inode->i_fop = &mvfs_top_fops;
		break;
	case MVFS_HIST:
		inode->i_op = &mvfs_hist_iops;
		inode->i_fop = &mvfs_hist_fops;
		break;
	case MVFS_VIEW:
	case MVFS_DIR:
		inode->i_op = &mvfs_dir_iops;
		inode->i_fop = &mvfs_dir_fops;
		break;
	case MVFS_FILE:
		inode->i_fop = &mvfs_file_fops;
		break;
	case MVFS_LINK:
		inode->i_op = &simple_symlink_inode_operations;
		break;
	}
	if (S_ISDIR(mode))
		set_nlink(inode, 2);
	return inode;
}

/* Give INODE the stored attributes of E. */
static void mvfs_inode_attr(struct inode *inode, const struct mvfs_entry *e)
{
	inode->i_mode = e->mode;
	inode->i_uid = make_kuid(&init_user_ns, e->uid);
	inode->i_gid = make_kgid(&init_user_ns, e->gid);
	inode->i_mtime.tv_sec = e->mtime;
	inode->i_mtime.tv_nsec = e->mtime_nsec;
	inode->i_atime = inode->i_mtime;
	inode->i_ctime = inode->i_mtime;
	inode->i_size = e->size;
	inode->i_blocks = (e->size + 511) >> 9;
}

/**
 * mvfs_entry_inode - an inode for a store entry
 * @sb: the superblock
 * @e: the entry
 * @path: its element path from the top of the tree (directories need it)
 * @view: the view it is seen through (a reference is taken), or NULL for
 *        a fixed version (NAME@@REV)
 * @rev: the revision @e comes from
 *
 * Return: the inode, or ERR_PTR(-ENOMEM/-EIO).
 */
struct inode *mvfs_entry_inode(struct super_block *sb,
			       const struct mvfs_entry *e, const char *path,
			       struct mvfs_view *view, u64 rev)
{
	enum mvfs_kind kind = S_ISDIR(e->mode) ? MVFS_DIR :
			      S_ISLNK(e->mode) ? MVFS_LINK : MVFS_FILE;
	struct mvfs_inode_info *ei;
	struct inode *inode;
	char *link;

	inode = mvfs_new_inode(sb, kind, e->mode);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ei = MVFS_I(inode);
	mvfs_inode_attr(inode, e);
	ei->ref = e->ref;
	ei->rev = rev;
	ei->gen = READ_ONCE(MVFS_SB(sb)->gen);
	if (view) {
		kref_get(&view->ref);
		ei->view = view;
	}
	if (kind == MVFS_DIR) {
		ei->path = kstrdup(path, GFP_KERNEL);
		if (!ei->path)
			goto out_iput;
	} else if (kind == MVFS_LINK) {
		link = mvfs_store_link(MVFS_SB(sb), e);
		if (IS_ERR(link)) {
			iput(inode);
			return ERR_CAST(link);
		}
		inode->i_link = link;
	}
	return inode;

out_iput:
	iput(inode);
	return ERR_PTR(-ENOMEM);
}

/* A view's top directory takes its attributes from the current revision. */
static void mvfs_view_refresh(struct inode *inode)
{
	struct mvfs_entry *root;

	root = kmalloc(sizeof(*root), GFP_KERNEL);
	if (!root)
		return;
	mvfs_view_root(MVFS_I(inode)->view, root);
	mvfs_inode_attr(inode, root);
	kfree(root);
}

/**
 * mvfs_view_inode - the top directory of a view (/view/TAG)
 * @sb: the superblock
 * @v: the view; a reference is taken
 *
 * Return: the inode, or ERR_PTR(-ENOMEM).
 */
struct inode *mvfs_view_inode(struct super_block *sb, struct mvfs_view *v)
{
	struct inode *inode = mvfs_new_inode(sb, MVFS_VIEW, S_IFDIR | 0555);

	if (!inode)
		return ERR_PTR(-ENOMEM);
	kref_get(&v->ref);
	MVFS_I(inode)->view = v;
	MVFS_I(inode)->path = kstrdup("", GFP_KERNEL);
	if (!MVFS_I(inode)->path) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	mvfs_view_refresh(inode);
	return inode;
}

/**
 * mvfs_getattr - stat; a view's top shows its current revision's top
 * @mnt_userns: the mount's user namespace
 * @path: what is stat'ed
 * @stat: filled in
 * @request_mask: STATX_* wanted
 * @flags: AT_* flags
 *
 * Return: 0.
 */
int mvfs_getattr(struct user_namespace *mnt_userns, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);

	if (MVFS_I(inode)->kind == MVFS_VIEW)
		mvfs_view_refresh(inode);
	generic_fillattr(mnt_userns, inode, stat);
	return 0;
}

/*
 * Still what the view shows?  Content of a view is valid while the view
 * selects the revision it came from; a version named by label while no
 * reload happened; a fixed version always.  Negative dentries are looked
 * up again.  Safe in RCU walk: it only reads.
 */
static int mvfs_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct inode *inode = d_inode_rcu(dentry);
	struct mvfs_inode_info *ei;
	struct mvfs_view *v;

	if (!inode)
		return 0;
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
	return READ_ONCE(v->rev) == ei->rev;
}

const struct dentry_operations mvfs_dentry_ops = {
	.d_revalidate	= mvfs_d_revalidate,
};
