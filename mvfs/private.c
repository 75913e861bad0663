// SPDX-License-Identifier: GPL-2.0
/*
 * private.c: a view's private area in the store (views/TAG/upper), and
 * every call the module makes into it.
 *
 * As overlayfs does with its upper layer, each change goes through one
 * small wrapper (mvfs_do_*) that runs with the mounter's credentials and
 * logs with pr_debug.  The callers check permissions on the mvfs inodes
 * with the caller's credentials first, as the VFS does for any
 * filesystem; the store is only ever changed by the module on behalf of
 * a caller who was allowed to change the view.
 *
 * Locking: the wrappers take the store's ext2 inode locks themselves
 * where noted; callers hold no lock of the store's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/xattr.h>
#include "mvfs.h"

/* A whiteout: a character device 0/0, as overlayfs makes them. */
bool mvfs_is_whiteout(struct dentry *d)
{
	struct inode *inode = d_inode(d);

	return inode && S_ISCHR(inode->i_mode) && inode->i_rdev == WHITEOUT_DEV;
}

/**
 * mvfs_priv_lookup - look a name up in a private directory
 * @sbi: the mount
 * @dir: a directory of the private area
 * @name: the name
 * @len: its length
 *
 * Takes @dir's lock itself.
 *
 * Return: the dentry, positive or negative (dput it), or ERR_PTR.
 */
struct dentry *mvfs_priv_lookup(struct mvfs_sb_info *sbi, struct dentry *dir,
				const char *name, unsigned int len)
{
	const struct cred *old = override_creds(sbi->creds);
	struct dentry *d;

	d = lookup_one_unlocked(&init_user_ns, name, dir, len);
	revert_creds(old);
	pr_debug("lookup(%pd2/%.*s) = %d\n", dir, len, name,
		 PTR_ERR_OR_ZERO(d));
	return d;
}

/**
 * mvfs_priv_area - a directory of view @tag's private area
 * @sbi: the mount; sbi->views set
 * @tag: the view's tag
 * @which: MVFS_UPPER_DIR or MVFS_WORK_DIR
 * @out: set to the directory's dentry (dput it)
 *
 * Return: 0; -EROFS when the store has no private area for @tag (format
 * 1, or a view made by an older tool); -errno.
 */
int mvfs_priv_area(struct mvfs_sb_info *sbi, const char *tag,
		   const char *which, struct dentry **out)
{
	const struct cred *old;
	struct dentry *v, *d;
	int err = -EROFS;

	if (!sbi->vdir.dentry)
		return -EROFS;
	old = override_creds(sbi->creds);
	v = mvfs_priv_lookup(sbi, sbi->vdir.dentry, tag, strlen(tag));
	if (IS_ERR(v)) {
		err = PTR_ERR(v);
		goto out;
	}
	if (!d_is_dir(v))
		goto out_dput;
	d = mvfs_priv_lookup(sbi, v, which, strlen(which));
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto out_dput;
	}
	if (d_is_dir(d) && !d_is_symlink(d)) {
		*out = d;
		err = 0;
	} else {
		dput(d);
	}
out_dput:
	dput(v);
out:
	revert_creds(old);
	return err;
}

/* The length of the path of a well-formed origin of N bytes, or -EIO. */
static int mvfs_origin_check(const struct mvfs_origin_disk *od, ssize_t n)
{
	u32 len;

	if (n < (ssize_t)sizeof(*od))
		return -EIO;
	len = le32_to_cpu(od->path_len);
	if (len != n - sizeof(*od) || od->reserved || memchr(od + 1, 0, len))
		return -EIO;
	return len;
}

/*
 * Read D's record XNAME (an origin, or a base: the same layout) into OD
 * (SIZE bytes): its size, or -errno: -ERANGE when SIZE is short of
 * MVFS_ORIGIN_MAX and the record longer; -EIO (logged) for a malformed
 * one.
 */
static ssize_t mvfs_record_read(struct mvfs_sb_info *sbi, struct dentry *d,
				const char *xname, struct mvfs_origin_disk *od,
				size_t size)
{
	const struct cred *old = override_creds(sbi->creds);
	ssize_t n;

	n = vfs_getxattr(&init_user_ns, d, xname, od, size);
	revert_creds(old);
	if (n == -EOPNOTSUPP)
		return -ENODATA;
	if (n == -ERANGE && size < MVFS_ORIGIN_MAX)
		return n;	/* the caller reads it whole */
	if (n == -ERANGE || (n >= 0 && mvfs_origin_check(od, n) < 0)) {
		if (mvfs_log_ok(sbi))
			pr_err("store %s: bad %s on %pd\n", sbi->store_name,
			       xname, d);
		return -EIO;
	}
	return n;
}

static ssize_t mvfs_origin_read(struct mvfs_sb_info *sbi, struct dentry *d,
				struct mvfs_origin_disk *od, size_t size)
{
	return mvfs_record_read(sbi, d, MVFS_XATTR_ORIGIN, od, size);
}

/**
 * mvfs_record_get - read an entry's trusted.mvfs.origin or .base
 * @sbi: the mount
 * @d: a private entry
 * @xname: MVFS_XATTR_ORIGIN or MVFS_XATTR_BASE
 * @o: filled in; o->path is allocated
 *
 * Return: 0; -ENODATA when it has none (for an origin: a view-private
 * entry); -EIO (logged) for a malformed one; -errno.
 */
int mvfs_record_get(struct mvfs_sb_info *sbi, struct dentry *d,
		    const char *xname, struct mvfs_origin *o)
{
	struct mvfs_origin_disk *od;
	char *path;
	ssize_t n;

	od = kmalloc(MVFS_ORIGIN_MAX, GFP_KERNEL);
	if (!od)
		return -ENOMEM;
	n = mvfs_record_read(sbi, d, xname, od, MVFS_ORIGIN_MAX);
	if (n >= 0) {
		/* O is left as it was on failure. */
		path = kmemdup_nul((char *)(od + 1), n - sizeof(*od),
				   GFP_KERNEL);
		n = path ? 0 : -ENOMEM;
	}
	if (!n) {
		o->rev = le64_to_cpu(od->rev);
		o->ino = le64_to_cpu(od->ino);
		o->path = path;
	}
	kfree(od);
	return n;
}

/**
 * mvfs_origin_ino - the inode number in an entry's trusted.mvfs.origin
 * @sbi: the mount
 * @d: a private entry
 * @ino: set to the number
 *
 * mvfs_origin_get() for the number alone, without an allocation for the
 * common short path: readdir asks it for many entries (dirlist.c).
 *
 * Return: as mvfs_origin_get().
 */
int mvfs_origin_ino(struct mvfs_sb_info *sbi, struct dentry *d, u64 *ino)
{
	struct {
		struct mvfs_origin_disk od;
		char path[104];
	} v;
	struct mvfs_origin o;
	ssize_t n;

	n = mvfs_origin_read(sbi, d, &v.od, sizeof(v));
	if (n == -ERANGE) {
		n = mvfs_record_get(sbi, d, MVFS_XATTR_ORIGIN, &o);
		if (!n) {
			*ino = o.ino;
			kfree(o.path);
		}
		return n;
	}
	if (n >= 0)
		*ino = le64_to_cpu(v.od.ino);
	return n < 0 ? n : 0;
}

/**
 * mvfs_record_set - write an entry's trusted.mvfs.origin or .base
 * @sbi: the mount
 * @d: a private entry, its own lock not held (its parent's may be)
 * @xname: MVFS_XATTR_ORIGIN or MVFS_XATTR_BASE
 * @rev: the revision it was copied from (an origin), or the one the
 *       element it removes or replaces showed from (a base)
 * @ino: the inode number the view shows for it (an origin), or 0
 * @path: the element path in @rev
 *
 * Return: 0 or -errno.
 */
int mvfs_record_set(struct mvfs_sb_info *sbi, struct dentry *d,
		    const char *xname, u64 rev, u64 ino, const char *path)
{
	size_t len = strlen(path), size = sizeof(struct mvfs_origin_disk) + len;
	struct mvfs_origin_disk *od;
	const struct cred *old;
	int err;

	if (size > MVFS_ORIGIN_MAX)
		return -ENAMETOOLONG;
	od = kzalloc(size, GFP_KERNEL);
	if (!od)
		return -ENOMEM;
	od->rev = cpu_to_le64(rev);
	od->ino = cpu_to_le64(ino);
	od->path_len = cpu_to_le32(len);
	memcpy(od + 1, path, len);
	old = override_creds(sbi->creds);
	err = vfs_setxattr(&init_user_ns, d, xname, od, size, 0);
	revert_creds(old);
	pr_debug("setxattr(%pd2, %s %llu %s) = %d\n", d, xname, rev, path,
		 err);
	kfree(od);
	return err;
}

/**
 * mvfs_record_drop - remove an entry's trusted.mvfs.origin or .base
 * @sbi: the mount
 * @d: a private entry, its own lock not held
 * @xname: MVFS_XATTR_ORIGIN or MVFS_XATTR_BASE
 *
 * Return: 0 (also when it had none) or -errno.
 */
int mvfs_record_drop(struct mvfs_sb_info *sbi, struct dentry *d,
		     const char *xname)
{
	const struct cred *old = override_creds(sbi->creds);
	int err = vfs_removexattr(&init_user_ns, d, xname);

	revert_creds(old);
	pr_debug("removexattr(%pd2, %s) = %d\n", d, xname, err);
	return err == -ENODATA ? 0 : err;
}

/**
 * mvfs_impure - may a private directory hold an entry not under its number
 * @sbi: the mount
 * @udir: a directory of the private area
 *
 * Return: true when @udir has MVFS_XATTR_IMPURE (mvfs_impure_for()), or
 * when that cannot be read (the numbers are read then, to be sure).
 */
bool mvfs_impure(struct mvfs_sb_info *sbi, struct dentry *udir)
{
	const struct cred *old = override_creds(sbi->creds);
	ssize_t n;

	n = vfs_getxattr(&init_user_ns, udir, MVFS_XATTR_IMPURE, NULL, 0);
	revert_creds(old);
	return n != -ENODATA && n != -EOPNOTSUPP;
}

/* Does DIR need marking for INODE (mvfs_impure_for())? */
static bool mvfs_impure_needed(struct inode *dir, struct inode *inode)
{
	struct dentry *upper = mvfs_upper(inode);

	return !mvfs_dir_shows_tree(dir) && upper &&
	       inode->i_ino != mvfs_ino_own(d_inode(upper)->i_ino) &&
	       !mvfs_impure(MVFS_SB(dir->i_sb), mvfs_upper(dir));
}

/**
 * mvfs_impure_for - before an entry of @inode gets a name in @dir
 * @dir: a directory of a view, copied up; its private directory's lock
 *       not held; the store's mount held for writing (mnt_want_write())
 * @inode: a private entry's inode, moved or linked into @dir
 *
 * readdir gives an entry of a directory that shows no tree the number
 * of its own private inode; an entry whose number is another (a copy of
 * an element keeps the element's) marks the directory impure first, so
 * that its listing reads each entry's number (dirlist.c).  A directory
 * that may show a tree reads them always.  Set once, before the entry
 * arrives; ext2 orders neither on the disk, so a crash may keep the move
 * and lose the mark: mvfs_impure_found() marks the directory again.
 *
 * Return: 0 or -errno.
 */
int mvfs_impure_for(struct inode *dir, struct inode *inode)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	const struct cred *old;
	int err;

	if (!mvfs_impure_needed(dir, inode))
		return 0;
	old = override_creds(sbi->creds);
	err = vfs_setxattr(&init_user_ns, mvfs_upper(dir), MVFS_XATTR_IMPURE,
			   "", 0, 0);
	revert_creds(old);
	pr_debug("setxattr(%pd2, impure) = %d\n", mvfs_upper(dir), err);
	return err;
}

/**
 * mvfs_impure_found - a lookup found @inode in @dir
 * @dir: a directory of a view; its private directory's lock not held
 * @inode: what the lookup found there, a private entry's inode
 *
 * Marks @dir as mvfs_impure_for() would have, when a crash lost the mark
 * (or an older module moved the entry): from then on its listings read
 * the numbers.  Best effort: a store that cannot be written stays as it
 * is.
 */
void mvfs_impure_found(struct inode *dir, struct inode *inode)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);

	if (!mvfs_upper(dir) || !mvfs_impure_needed(dir, inode) ||
	    mnt_want_write(sbi->store.mnt))
		return;
	if (mvfs_impure_for(dir, inode) && mvfs_log_fail_ok(sbi))
		pr_err("store %s: %pd2 holds a moved copy and cannot be marked so\n",
		       sbi->store_name, mvfs_upper(dir));
	mnt_drop_write(sbi->store.mnt);
}

/**
 * mvfs_creds_as - the mounter's credentials, creating as @uid:@gid
 * @sbi: the mount
 * @uid: owner of what is created
 * @gid: its group
 *
 * New private entries are made with the owner the view shows, as
 * overlayfs makes upper entries: the mounter's capabilities, the
 * caller's fsuid and fsgid.
 *
 * Return: credentials to override_creds() with (put_cred() them), or
 * NULL.
 */
const struct cred *mvfs_creds_as(struct mvfs_sb_info *sbi, kuid_t uid,
				 kgid_t gid)
{
	const struct cred *old = override_creds(sbi->creds);
	struct cred *c = prepare_creds();

	revert_creds(old);
	if (!c)
		return NULL;
	c->fsuid = uid;
	c->fsgid = gid;
	return c;
}

/**
 * mvfs_do_whiteout - make @d, a negative private entry, a whiteout
 * @sbi: the mount
 * @dir: @d's parent's inode, locked by the caller
 * @d: the entry
 *
 * Return: 0 or -errno.
 */
int mvfs_do_whiteout(struct mvfs_sb_info *sbi, struct inode *dir,
		     struct dentry *d)
{
	const struct cred *old = override_creds(sbi->creds);
	int err;

	WARN_ON_ONCE(!inode_is_locked(dir));
	err = vfs_mknod(&init_user_ns, dir, d, S_IFCHR | 0, WHITEOUT_DEV);
	revert_creds(old);
	pr_debug("whiteout(%pd2) = %d\n", d, err);
	return err;
}

/**
 * mvfs_do_rename - rename in the private area
 * @sbi: the mount
 * @odir: old parent, locked with lock_rename() by the caller
 * @od: old entry
 * @ndir: new parent
 * @nd: new entry
 * @flags: RENAME_NOREPLACE or 0
 *
 * Return: 0 or -errno.
 */
int mvfs_do_rename(struct mvfs_sb_info *sbi, struct inode *odir,
		   struct dentry *od, struct inode *ndir, struct dentry *nd,
		   unsigned int flags)
{
	struct renamedata rd = {
		.old_mnt_userns	= &init_user_ns,
		.old_dir	= odir,
		.old_dentry	= od,
		.new_mnt_userns	= &init_user_ns,
		.new_dir	= ndir,
		.new_dentry	= nd,
		.flags		= flags,
	};
	const struct cred *old = override_creds(sbi->creds);
	int err;

	err = vfs_rename(&rd);
	revert_creds(old);
	pr_debug("rename(%pd2, %pd2) = %d\n", od, nd, err);
	return err;
}

/**
 * mvfs_do_rmdir - remove a private directory
 * @sbi: the mount
 * @dir: its parent's inode, locked by the caller
 * @d: the directory
 *
 * Return: 0 or -errno.
 */
int mvfs_do_rmdir(struct mvfs_sb_info *sbi, struct inode *dir,
		  struct dentry *d)
{
	const struct cred *old = override_creds(sbi->creds);
	int err;

	err = vfs_rmdir(&init_user_ns, dir, d);
	revert_creds(old);
	pr_debug("rmdir(%pd2) = %d\n", d, err);
	return err;
}

/**
 * mvfs_do_unlink - remove a private non-directory
 * @sbi: the mount
 * @dir: its parent's inode, locked by the caller
 * @d: the entry
 *
 * Return: 0 or -errno.
 */
int mvfs_do_unlink(struct mvfs_sb_info *sbi, struct inode *dir,
		   struct dentry *d)
{
	const struct cred *old = override_creds(sbi->creds);
	int err;

	err = vfs_unlink(&init_user_ns, dir, d, NULL);
	revert_creds(old);
	pr_debug("unlink(%pd2) = %d\n", d, err);
	return err;
}

struct mvfs_wh_ctx {
	struct dir_context	ctx;
	struct list_head	names;
	int			err;
};

struct mvfs_wh_name {
	struct list_head	node;
	int			len;
	char			name[];
};

static bool mvfs_wh_actor(struct dir_context *ctx, const char *name,
			  int len, loff_t pos, u64 ino, unsigned int type)
{
	struct mvfs_wh_ctx *c = container_of(ctx, struct mvfs_wh_ctx, ctx);
	struct mvfs_wh_name *n;

	if (type != DT_CHR)
		return true;
	n = kmalloc(sizeof(*n) + len, GFP_KERNEL);
	if (!n) {
		c->err = -ENOMEM;
		return false;
	}
	n->len = len;
	memcpy(n->name, name, len);
	list_add(&n->node, &c->names);
	return true;
}

/* Unlink the whiteouts among NAMES in DIR; DIR's lock held. */
static int mvfs_unlink_whiteouts(struct mvfs_sb_info *sbi, struct dentry *dir,
				 struct list_head *names)
{
	struct mvfs_wh_name *n;
	struct dentry *d;
	int err = 0;

	list_for_each_entry(n, names, node) {
		d = lookup_one_len(n->name, dir, n->len);
		if (IS_ERR(d)) {
			err = PTR_ERR(d);
			break;
		}
		if (mvfs_is_whiteout(d))
			err = mvfs_do_unlink(sbi, d_inode(dir), d);
		dput(d);
		if (err)
			break;
	}
	return err;
}

/**
 * mvfs_clear_whiteouts - remove every whiteout in a private directory
 * @sbi: the mount
 * @dir: the directory, not locked
 *
 * Before it is removed or replaced: a directory that shows nothing may
 * still hold whiteouts of the elements that were removed from it.
 *
 * Return: 0 or -errno.
 */
int mvfs_clear_whiteouts(struct mvfs_sb_info *sbi, struct dentry *dir)
{
	struct mvfs_wh_ctx c = { .ctx.actor = mvfs_wh_actor };
	struct mvfs_wh_name *n, *tmp;
	int err;

	INIT_LIST_HEAD(&c.names);
	err = mvfs_priv_iterate(sbi, dir, &c.ctx);
	if (!err)
		err = c.err;
	if (!err && !list_empty(&c.names)) {
		struct inode *di = d_inode(dir);
		struct timespec64 mt, ct;

		inode_lock_nested(di, I_MUTEX_PARENT);
		mt = di->i_mtime;
		ct = di->i_ctime;
		err = mvfs_unlink_whiteouts(sbi, dir, &c.names);
		/*
		 * Nothing the user sees changed: a removed directory keeps
		 * its mtime, as on ext2 (an open file of it may still stat
		 * it), and its ctime is the removal's.
		 */
		di->i_mtime = mt;
		di->i_ctime = ct;
		mark_inode_dirty(di);
		inode_unlock(di);
	}
	list_for_each_entry_safe(n, tmp, &c.names, node)
		kfree(n);
	return err;
}

/**
 * mvfs_priv_iterate - read a private directory's entries
 * @sbi: the mount
 * @dir: the directory, not locked
 * @ctx: what each entry is given to
 *
 * Return: 0 or -errno (iterate_dir()'s).
 */
int mvfs_priv_iterate(struct mvfs_sb_info *sbi, struct dentry *dir,
		      struct dir_context *ctx)
{
	struct file *f;
	int err;

	f = mvfs_priv_open(sbi, dir, O_RDONLY | O_DIRECTORY | O_NOATIME);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = iterate_dir(f, ctx);
	fput(f);
	return err;
}

/**
 * mvfs_priv_open - open a private entry with the mounter's credentials
 * @sbi: the mount
 * @d: the entry
 * @flags: open flags
 *
 * Return: the open file (fput it) or ERR_PTR.
 */
struct file *mvfs_priv_open(struct mvfs_sb_info *sbi, struct dentry *d,
			    int flags)
{
	struct path p = { .mnt = sbi->store.mnt, .dentry = d };
	struct file *f;

	f = dentry_open(&p, flags | O_LARGEFILE, sbi->creds);
	pr_debug("open(%pd2, 0%o) = %d\n", d, flags, PTR_ERR_OR_ZERO(f));
	return f;
}
