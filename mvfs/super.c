// SPDX-License-Identifier: GPL-2.0
/*
 * super.c: the mvfs filesystem type, its superblock and module entry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/fs_context.h>
#include "mvfs.h"

static const struct super_operations mvfs_super_ops = {
	.statfs		= simple_statfs,
	.drop_inode	= generic_delete_inode,
};

static int mvfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *inode;

	sb->s_magic = MVFS_MAGIC;
	sb->s_op = &mvfs_super_ops;
	sb->s_flags |= SB_RDONLY;
	sb->s_iflags |= SB_I_NODEV;
	sb->s_time_gran = 1;

	inode = new_inode(sb);
	if (!inode)
		return -ENOMEM;
	inode->i_ino = 1;
	inode->i_mode = S_IFDIR | 0755;
	inode->i_op = &simple_dir_inode_operations;
	inode->i_fop = &simple_dir_operations;
	inode->i_mtime = current_time(inode);
	inode->i_atime = inode->i_mtime;
	inode->i_ctime = inode->i_mtime;
	set_nlink(inode, 2);
	sb->s_root = d_make_root(inode);
	if (!sb->s_root)
		return -ENOMEM;
	return 0;
}

static int mvfs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, mvfs_fill_super);
}

static const struct fs_context_operations mvfs_context_ops = {
	.get_tree	= mvfs_get_tree,
};

static int mvfs_init_fs_context(struct fs_context *fc)
{
	fc->ops = &mvfs_context_ops;
	return 0;
}

static struct file_system_type mvfs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "mvfs",
	.init_fs_context	= mvfs_init_fs_context,
	.kill_sb		= kill_anon_super,
};
MODULE_ALIAS_FS("mvfs");

static int __init mvfs_init(void)
{
	int err;

	err = register_filesystem(&mvfs_fs_type);
	if (err)
		pr_err("cannot register the filesystem type: %d\n", err);
	return err;
}

static void __exit mvfs_exit(void)
{
	unregister_filesystem(&mvfs_fs_type);
}

module_init(mvfs_init);
module_exit(mvfs_exit);

MODULE_DESCRIPTION("mvfs: per-process views of a versioned tree");
MODULE_LICENSE("GPL");
