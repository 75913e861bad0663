// SPDX-License-Identifier: GPL-2.0
/*
 * super.c: the mvfs filesystem type, its mount options and superblock,
 * and the module's entry points.
 *
 *   mount -t mvfs -o store=/var/lib/mvfs none /view
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/fs_struct.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include "mvfs.h"

struct mvfs_fs_context {
	char	*store;
};

enum mvfs_param { MVFS_OPT_STORE };

static const struct fs_parameter_spec mvfs_fs_parameters[] = {
	fsparam_string("store", MVFS_OPT_STORE),
	{}
};

static int mvfs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct mvfs_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	/* -ENOPARAM: the VFS takes "source" and refuses the unknown. */
	opt = fs_parse(fc, mvfs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;
	kfree(ctx->store);
	ctx->store = param->string;
	param->string = NULL;
	return 0;
}

static void mvfs_free_sbi(struct mvfs_sb_info *sbi)
{
	if (!sbi)
		return;
	mvfs_unregister_all(sbi);
	mvfs_views_free(sbi);
	path_put(&sbi->vdir);
	path_put(&sbi->mnt_root);
	mvfs_store_close(sbi);
	if (sbi->creds)
		put_cred(sbi->creds);
	kfree(sbi->store_name);
	/* RCU walk (d_revalidate) may still be reading it. */
	kfree_rcu(sbi, rcu);
}

static int mvfs_show_options(struct seq_file *m, struct dentry *root)
{
	seq_show_option(m, "store", MVFS_SB(root->d_sb)->store_name);
	return 0;
}

/* The space of a view is the store's: what a write there may take. */
static int mvfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dentry->d_sb);
	int err;

	err = vfs_statfs(&sbi->store, buf);
	buf->f_type = MVFS_MAGIC;
	buf->f_namelen = MVFS_ENTRY_NAME_MAX;
	buf->f_fsid = u64_to_fsid(huge_encode_dev(dentry->d_sb->s_dev));
	return err;
}

static const struct super_operations mvfs_super_ops = {
	.alloc_inode	= mvfs_alloc_inode,
	.free_inode	= mvfs_free_inode,
	.evict_inode	= mvfs_evict_inode,
	.drop_inode	= generic_delete_inode,
	.statfs		= mvfs_statfs,
	.show_options	= mvfs_show_options,
};

/* The store's views/ directory, if it has one (format 2). */
/* The store's views/ directory (dput() it), or NULL: format 1. */
static struct dentry *mvfs_views_dir(struct mvfs_sb_info *sbi)
{
	const struct cred *old = override_creds(sbi->creds);
	struct dentry *d;

	d = lookup_one_unlocked(&init_user_ns, MVFS_VIEWS_DIR,
				sbi->store.dentry, strlen(MVFS_VIEWS_DIR));
	revert_creds(old);
	if (IS_ERR(d))
		return NULL;
	if (!d_is_dir(d) || d_is_symlink(d)) {
		dput(d);
		return NULL;
	}
	return d;
}

static void mvfs_find_views(struct mvfs_sb_info *sbi)
{
	struct dentry *d = mvfs_views_dir(sbi);

	if (d) {
		sbi->vdir.dentry = d;
		sbi->vdir.mnt = mntget(sbi->store.mnt);
	}
}

static int mvfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct mvfs_fs_context *ctx = fc->fs_private;
	struct mvfs_sb_info *sbi;
	struct inode *root;
	int err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	init_rwsem(&sbi->state_lock);
	atomic64_set(&sbi->wgen, 1);
	INIT_LIST_HEAD(&sbi->views);
	mutex_init(&sbi->reg_lock);
	spin_lock_init(&sbi->files_lock);
	INIT_LIST_HEAD(&sbi->files);
	ratelimit_default_init(&sbi->log_rs);
	ratelimit_default_init(&sbi->fail_rs);
	sb->s_fs_info = sbi;
	sbi->creds = get_cred(fc->cred);
	get_fs_root(current->fs, &sbi->mnt_root);
	sbi->store_name = kstrdup(ctx->store, GFP_KERNEL);
	if (!sbi->store_name)
		return -ENOMEM;

	sb->s_magic = MVFS_MAGIC;
	sb->s_op = &mvfs_super_ops;
	sb->s_d_op = &mvfs_dentry_ops;
	sb->s_iflags |= SB_I_NODEV;
	/*
	 * mvfs has no xattrs: an inode without setuid or setgid bits has
	 * nothing for a write to remove (S_NOSEC, inode_has_no_xattr()).
	 */
	sb->s_flags |= SB_NOSEC;
	sb->s_time_gran = 1;
	sb->s_maxbytes = MAX_LFS_FILESIZE;

	err = mvfs_store_open(sbi, ctx->store);
	if (err)
		return err;
	/*
	 * st_blksize as the store's own files give it: stdio sizes its
	 * buffers by it (1, the default of a superblock without a block
	 * size, would mean a read() per byte).
	 */
	sb->s_blocksize = sbi->store.dentry->d_sb->s_blocksize;
	sb->s_blocksize_bits = sbi->store.dentry->d_sb->s_blocksize_bits;
	err = mvfs_views_reload(sb);
	if (err)
		return err;
	mvfs_find_views(sbi);
	/* Format 1: no private areas, every view read-only. */
	if (!sbi->vdir.dentry)
		sb->s_flags |= SB_RDONLY;

	root = mvfs_new_inode(sb, MVFS_TOP, S_IFDIR | 0755);
	if (!root)
		return -ENOMEM;
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return 0;
}

static int mvfs_get_tree(struct fs_context *fc)
{
	struct mvfs_fs_context *ctx = fc->fs_private;

	if (!ctx->store) {
		pr_err("missing mount option store=DIR\n");
		return -EINVAL;
	}
	return get_tree_nodev(fc, mvfs_fill_super);
}

static void mvfs_free_fc(struct fs_context *fc)
{
	struct mvfs_fs_context *ctx = fc->fs_private;

	if (ctx)
		kfree(ctx->store);
	kfree(ctx);
}

/*
 * mount -o remount: a store without private areas stays read-only, as
 * romfs does; checked-in content is never writable either way (a change
 * to it is a copy-up into the view's private area).  A store given
 * private areas since it was mounted (mvfs upgrade) is one whose inodes
 * were all made read-only: remount,rw is refused, saying so, rather than
 * accepted and left read-only.
 */
static int mvfs_reconfigure(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	struct dentry *d;

	sync_filesystem(sb);
	if (sbi->vdir.dentry)
		return 0;
	d = fc->sb_flags & SB_RDONLY ? NULL : mvfs_views_dir(sbi);
	if (d) {
		dput(d);
		pr_err("store %s has private areas since it was mounted (upgraded): unmount it and mount it again to write in its views\n",
		       sbi->store_name);
		return -EINVAL;
	}
	fc->sb_flags |= SB_RDONLY;
	return 0;
}

static const struct fs_context_operations mvfs_context_ops = {
	.parse_param	= mvfs_parse_param,
	.get_tree	= mvfs_get_tree,
	.reconfigure	= mvfs_reconfigure,
	.free		= mvfs_free_fc,
};

static int mvfs_init_fs_context(struct fs_context *fc)
{
	struct mvfs_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	fc->fs_private = ctx;
	fc->ops = &mvfs_context_ops;
	return 0;
}

static void mvfs_kill_sb(struct super_block *sb)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);

	mvfs_follow_free(sbi);
	kill_anon_super(sb);
	mvfs_free_sbi(sbi);
}

static struct file_system_type mvfs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "mvfs",
	.init_fs_context	= mvfs_init_fs_context,
	.parameters		= mvfs_fs_parameters,
	.kill_sb		= mvfs_kill_sb,
};
MODULE_ALIAS_FS("mvfs");

static int __init mvfs_init(void)
{
	int err;

	err = mvfs_init_inodecache();
	if (err)
		return err;
	err = register_filesystem(&mvfs_fs_type);
	if (err) {
		pr_err("cannot register the filesystem type: %d\n", err);
		mvfs_destroy_inodecache();
	}
	return err;
}

static void __exit mvfs_exit(void)
{
	unregister_filesystem(&mvfs_fs_type);
	mvfs_destroy_inodecache();
}

module_init(mvfs_init);
module_exit(mvfs_exit);

MODULE_DESCRIPTION("mvfs: per-process views of a versioned tree");
MODULE_LICENSE("GPL");
