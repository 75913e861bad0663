// SPDX-License-Identifier: GPL-2.0
/*
 * namei.c: the calls that change a view: create, mkdir, mknod, symlink,
 * link, unlink, rmdir, rename and setattr.
 *
 * Each works on the view's private area: the directory it changes is
 * copied up first (copyup.c), the change is made there with the
 * mounter's credentials (and, for what is created, the caller's fsuid and
 * fsgid, so that the owner is what ext2 would give), and an element of
 * the tree that goes away leaves a whiteout.  Permissions were checked by
 * the VFS on the mvfs inodes, with the caller's credentials, before any
 * of these is called; each ends by taking the private entries' new
 * attributes (mvfs_copyattr()).
 *
 * Locking: the VFS holds the i_rwsem of the mvfs directories (and of the
 * victim); these take the store's directory locks themselves.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include "mvfs.h"

/* Is there an element NAME in the tree DIR shows?  1, 0 or -errno. */
static int mvfs_lower_has(struct inode *dir, const struct qstr *name)
{
	struct mvfs_entry *e;
	u64 tree, rev;
	int err;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	err = mvfs_dir_lower(dir, &tree, &rev);
	if (!err)
		err = mvfs_store_find(MVFS_SB(dir->i_sb), tree, name->name,
				      name->len, e);
	kfree(e);
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

/* Start a change in the directory of DENTRY (VFS-locked). */
static int mvfs_begin(struct dentry *dentry)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dentry->d_sb);
	int err;

	err = mvfs_copy_up(dentry->d_parent);
	if (!err)
		err = mnt_want_write(sbi->store.mnt);
	return err;
}

static void mvfs_end(struct inode *dir)
{
	mnt_drop_write(MVFS_SB(dir->i_sb)->store.mnt);
	mvfs_copyattr(dir);
}

/* NAME in UDIR (locked), negative: a whiteout there is removed first. */
static struct dentry *mvfs_lookup_free(struct mvfs_sb_info *sbi,
				       struct dentry *udir,
				       const struct qstr *name)
{
	struct dentry *u;
	int err;

	u = lookup_one_len(name->name, udir, name->len);
	if (IS_ERR(u) || !mvfs_is_whiteout(u))
		goto out;
	err = mvfs_do_unlink(sbi, d_inode(udir), u);
	dput(u);
	u = err ? ERR_PTR(err) : lookup_one_len(name->name, udir, name->len);
out:
	if (!IS_ERR(u) && d_is_positive(u)) {
		dput(u);
		u = ERR_PTR(-EEXIST);
	}
	return u;
}

struct mvfs_new {
	kuid_t		uid;		/* the caller's fsuid and fsgid */
	kgid_t		gid;
	umode_t		mode;
	dev_t		rdev;
	const char	*target;	/* symlink */
	struct dentry	*old;		/* link: the private entry linked */
};

/* Make the private entry U (negative) in UDIR (locked), as the caller. */
static int mvfs_make(struct mvfs_sb_info *sbi, struct inode *udir,
		     struct dentry *u, const struct mvfs_new *n)
{
	const struct cred *c, *old;
	int err;

	/* The mounter making its own: no new credentials needed. */
	if (uid_eq(n->uid, sbi->creds->fsuid) &&
	    gid_eq(n->gid, sbi->creds->fsgid))
		c = get_cred(sbi->creds);
	else
		c = mvfs_creds_as(sbi, n->uid, n->gid);
	if (!c)
		return -ENOMEM;
	old = override_creds(c);
	if (n->old)
		err = vfs_link(n->old, &init_user_ns, udir, u, NULL);
	else if (S_ISDIR(n->mode))
		err = vfs_mkdir(&init_user_ns, udir, u, n->mode);
	else if (S_ISREG(n->mode))
		err = vfs_create(&init_user_ns, udir, u, n->mode, true);
	else if (S_ISLNK(n->mode))
		err = vfs_symlink(&init_user_ns, udir, u, n->target);
	else
		err = vfs_mknod(&init_user_ns, udir, u, n->mode, n->rdev);
	revert_creds(old);
	put_cred(c);
	pr_debug("make(%pd2, 0%o) = %d\n", u, n->mode, err);
	return err;
}

/* Create DENTRY (negative) in DIR as a new private entry. */
static int __mvfs_new_entry(struct inode *dir, struct dentry *dentry,
			    const struct mvfs_new *n)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct dentry *udir, *u;
	struct inode *inode;
	char *path;
	int err;

	err = mvfs_begin(dentry);
	if (err)
		return err;
	udir = mvfs_upper(dir);
	inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
	u = mvfs_lookup_free(sbi, udir, &dentry->d_name);
	err = PTR_ERR_OR_ZERO(u);
	if (!err)
		err = mvfs_make(sbi, d_inode(udir), u, n);
	inode_unlock(d_inode(udir));
	if (err)
		goto out;
	mutex_lock(&MVFS_I(dir)->plock);
	path = kasprintf(GFP_KERNEL, "%s%s%pd", MVFS_I(dir)->path,
			 *MVFS_I(dir)->path ? "/" : "", dentry);
	mutex_unlock(&MVFS_I(dir)->plock);
	inode = path ? mvfs_new_upper_inode(dir->i_sb, u, MVFS_I(dir)->view,
					    path) : ERR_PTR(-ENOMEM);
	kfree(path);
	err = PTR_ERR_OR_ZERO(inode);
	if (!err)
		d_instantiate(dentry, inode);
out:
	if (!IS_ERR(u))
		dput(u);
	mvfs_end(dir);
	return err;
}

/*
 * Every change runs with the mounter's credentials, as overlayfs's do:
 * the VFS checked the caller's permissions on the mvfs inodes, and the
 * store's own directories (work/, views/) are root's.  What is created
 * takes the caller's fsuid and fsgid, taken here first.
 */
static int mvfs_new_entry(struct inode *dir, struct dentry *dentry,
			  struct mvfs_new *n)
{
	const struct cred *old;
	int err;

	n->uid = current_fsuid();
	n->gid = current_fsgid();
	old = override_creds(MVFS_SB(dir->i_sb)->creds);
	err = __mvfs_new_entry(dir, dentry, n);
	revert_creds(old);
	return err;
}

int mvfs_create(struct user_namespace *mnt_userns, struct inode *dir,
		struct dentry *dentry, umode_t mode, bool excl)
{
	struct mvfs_new n = { .mode = (mode & 07777) | S_IFREG };

	return mvfs_new_entry(dir, dentry, &n);
}

int mvfs_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
	       struct dentry *dentry, umode_t mode)
{
	struct mvfs_new n = { .mode = (mode & 07777) | S_IFDIR };

	return mvfs_new_entry(dir, dentry, &n);
}

int mvfs_mknod(struct user_namespace *mnt_userns, struct inode *dir,
	       struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct mvfs_new n = { .mode = mode, .rdev = rdev };

	if (S_ISCHR(mode) && rdev == WHITEOUT_DEV)
		return -EPERM;	/* would read as a whiteout */
	return mvfs_new_entry(dir, dentry, &n);
}

int mvfs_symlink(struct user_namespace *mnt_userns, struct inode *dir,
		 struct dentry *dentry, const char *target)
{
	struct mvfs_new n = { .mode = S_IFLNK | 0777, .target = target };

	return mvfs_new_entry(dir, dentry, &n);
}

static int __mvfs_link(struct dentry *old, struct inode *dir,
		       struct dentry *dentry)
{
	struct inode *inode = d_inode(old);
	struct mvfs_new n = { .mode = inode->i_mode };
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct dentry *udir, *u;
	int err;

	/* Views are separate trees: nothing is shared between two. */
	if (MVFS_I(inode)->view != MVFS_I(dir)->view)
		return -EXDEV;

	err = mvfs_copy_up(old);
	if (!err)
		err = mvfs_begin(dentry);
	if (err)
		return err;
	n.old = mvfs_upper(inode);
	udir = mvfs_upper(dir);
	inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
	u = mvfs_lookup_free(sbi, udir, &dentry->d_name);
	err = PTR_ERR_OR_ZERO(u);
	if (!err) {
		err = mvfs_make(sbi, d_inode(udir), u, &n);
		dput(u);
	}
	inode_unlock(d_inode(udir));
	if (!err) {
		ihold(inode);
		d_instantiate(dentry, inode);
		mvfs_copyattr(inode);
		MVFS_I(inode)->wgen = atomic64_inc_return(&sbi->wgen);
	}
	mvfs_end(dir);
	return err;
}

/*
 * Remove NAME from the private directory UDIR (locked): the private entry
 * if any, and a whiteout in its place when the tree has an element NAME.
 */
static int mvfs_remove(struct mvfs_sb_info *sbi, struct dentry *udir,
		       const struct qstr *name, bool lower, bool isdir)
{
	struct dentry *u;
	int err = 0;

	u = lookup_one_len(name->name, udir, name->len);
	if (IS_ERR(u))
		return PTR_ERR(u);
	if (d_is_positive(u) && !mvfs_is_whiteout(u)) {
		err = isdir ? mvfs_do_rmdir(sbi, d_inode(udir), u) :
			      mvfs_do_unlink(sbi, d_inode(udir), u);
		dput(u);
		/* A whiteout needs the name again (U may be unhashed). */
		if (err || !lower)
			return err;
		u = lookup_one_len(name->name, udir, name->len);
		if (IS_ERR(u))
			return PTR_ERR(u);
	}
	if (lower && d_is_negative(u))
		err = mvfs_do_whiteout(sbi, d_inode(udir), u);
	dput(u);
	return err;
}

static int mvfs_remove_entry(struct inode *dir, struct dentry *dentry,
			     bool isdir)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct inode *inode = d_inode(dentry);
	struct dentry *udir;
	int lower, err;

	if (isdir) {
		err = mvfs_dir_empty(dentry);
		if (err)
			return err;
	}
	err = mvfs_begin(dentry);
	if (err)
		return err;
	lower = mvfs_lower_has(dir, &dentry->d_name);
	err = lower < 0 ? lower : 0;
	if (!err && isdir && mvfs_upper(inode))
		err = mvfs_clear_whiteouts(sbi, mvfs_upper(inode));
	udir = mvfs_upper(dir);
	if (!err) {
		inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
		err = mvfs_remove(sbi, udir, &dentry->d_name, lower, isdir);
		inode_unlock(d_inode(udir));
	}
	if (!err) {
		if (isdir || !mvfs_upper(inode))
			clear_nlink(inode);
		else
			mvfs_copyattr(inode);
		inode->i_ctime = current_time(inode);
		MVFS_I(inode)->wgen = atomic64_inc_return(&sbi->wgen);
	}
	mvfs_end(dir);
	return err;
}

int mvfs_link(struct dentry *old, struct inode *dir, struct dentry *dentry)
{
	const struct cred *cred = override_creds(MVFS_SB(dir->i_sb)->creds);
	int err = __mvfs_link(old, dir, dentry);

	revert_creds(cred);
	return err;
}

int mvfs_unlink(struct inode *dir, struct dentry *dentry)
{
	const struct cred *old = override_creds(MVFS_SB(dir->i_sb)->creds);
	int err = mvfs_remove_entry(dir, dentry, false);

	revert_creds(old);
	return err;
}

int mvfs_rmdir(struct inode *dir, struct dentry *dentry)
{
	const struct cred *old = override_creds(MVFS_SB(dir->i_sb)->creds);
	int err = mvfs_remove_entry(dir, dentry, true);

	revert_creds(old);
	return err;
}

/* Prepare a rename: the copies it needs and the target's emptiness. */
static int mvfs_rename_prepare(struct dentry *od, struct dentry *nd)
{
	struct mvfs_sb_info *sbi = MVFS_SB(od->d_sb);
	struct inode *target = d_inode(nd);
	int err = 0;

	if (target && S_ISDIR(target->i_mode))
		err = mvfs_dir_empty(nd);
	if (!err)
		err = mvfs_copy_up(od);
	if (!err)
		err = mvfs_copy_up(nd->d_parent);
	if (!err)
		err = mnt_want_write(sbi->store.mnt);
	if (!err && target && S_ISDIR(target->i_mode) && mvfs_upper(target)) {
		err = mvfs_clear_whiteouts(sbi, mvfs_upper(target));
		if (err)
			mnt_drop_write(sbi->store.mnt);
	}
	return err;
}

/* The rename in the private area; lock_rename() held on both parents. */
static int mvfs_rename_upper(struct mvfs_sb_info *sbi, struct dentry *uod,
			     struct dentry *und, struct dentry *trap,
			     struct dentry *od, struct dentry *nd,
			     unsigned int flags, int lower)
{
	struct dentry *uo, *un;
	int err;

	uo = lookup_one_len(od->d_name.name, uod, od->d_name.len);
	if (IS_ERR(uo))
		return PTR_ERR(uo);
	un = lookup_one_len(nd->d_name.name, und, nd->d_name.len);
	err = PTR_ERR_OR_ZERO(un);
	if (err)
		goto out_uo;
	err = -ESTALE;
	if (d_inode(uo) != d_inode(mvfs_upper(d_inode(od))))
		goto out_un;
	err = uo == trap ? -EINVAL : un == trap ? -ENOTEMPTY : 0;
	if (!err && mvfs_is_whiteout(un)) {
		err = mvfs_do_unlink(sbi, d_inode(und), un);
		dput(un);
		un = err ? NULL : lookup_one_len(nd->d_name.name, und,
						 nd->d_name.len);
		if (IS_ERR(un)) {
			err = PTR_ERR(un);
			un = NULL;
		}
	}
	if (!err)
		err = mvfs_do_rename(sbi, d_inode(uod), uo, d_inode(und), un,
				     flags);
	if (!err && lower)
		err = mvfs_remove(sbi, uod, &od->d_name, true, false);
out_un:
	dput(un);
out_uo:
	dput(uo);
	return err;
}

/* Rename U (in UD1, named by Q1) to NAME in UD2; both parents locked. */
static int mvfs_move(struct mvfs_sb_info *sbi, struct dentry *ud1,
		     struct dentry *u, struct dentry *ud2, const char *name,
		     unsigned int len)
{
	struct dentry *n;
	int err;

	n = lookup_one_len(name, ud2, len);
	if (IS_ERR(n))
		return PTR_ERR(n);
	err = d_is_positive(n) ? -EEXIST :
	      mvfs_do_rename(sbi, d_inode(ud1), u, d_inode(ud2), n, 0);
	dput(n);
	return err;
}

/*
 * RENAME_EXCHANGE.  The store's ext2 has no exchange, so the two private
 * entries swap through a temporary name, with both parents locked: no
 * mvfs caller sees the middle (the VFS holds both mvfs directories).
 * A crash in the middle leaves the temporary name as a private file.
 */
static int mvfs_exchange(struct dentry *od, struct dentry *nd)
{
	struct mvfs_sb_info *sbi = MVFS_SB(od->d_sb);
	struct dentry *uod, *und, *uo, *un;
	char tmp[32];
	int err;

	err = mvfs_copy_up(od);
	if (!err)
		err = mvfs_copy_up(nd);
	if (!err)
		err = mnt_want_write(sbi->store.mnt);
	if (err)
		return err;
	uod = mvfs_upper(d_inode(od->d_parent));
	und = mvfs_upper(d_inode(nd->d_parent));
	snprintf(tmp, sizeof(tmp), "#x%llx",
		 (u64)atomic64_inc_return(&sbi->wgen));
	lock_rename(uod, und);
	/* By name: a hard link's inode may know another of its names. */
	uo = lookup_one_len(od->d_name.name, uod, od->d_name.len);
	un = lookup_one_len(nd->d_name.name, und, nd->d_name.len);
	err = -ESTALE;
	if (IS_ERR(uo) || IS_ERR(un) ||
	    d_inode(uo) != d_inode(mvfs_upper(d_inode(od))) ||
	    d_inode(un) != d_inode(mvfs_upper(d_inode(nd))))
		goto out_unlock;
	err = mvfs_move(sbi, uod, uo, uod, tmp, strlen(tmp));
	if (!err)
		err = mvfs_move(sbi, und, un, uod, od->d_name.name,
				od->d_name.len);
	if (!err)
		err = mvfs_move(sbi, uod, uo, und, nd->d_name.name,
				nd->d_name.len);
out_unlock:
	unlock_rename(uod, und);
	if (!IS_ERR(uo))
		dput(uo);
	if (!IS_ERR(un))
		dput(un);
	mnt_drop_write(sbi->store.mnt);
	mvfs_copyattr(d_inode(od->d_parent));
	mvfs_copyattr(d_inode(nd->d_parent));
	return err;
}

static int __mvfs_rename(struct inode *odir, struct dentry *od,
			 struct inode *ndir, struct dentry *nd,
			 unsigned int flags)
{
	struct mvfs_sb_info *sbi = MVFS_SB(odir->i_sb);
	struct inode *target = d_inode(nd);
	struct dentry *uod, *und, *trap;
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
	lower = mvfs_lower_has(odir, &od->d_name);
	err = lower < 0 ? lower : 0;
	uod = mvfs_upper(odir);
	und = mvfs_upper(ndir);
	if (!err) {
		trap = lock_rename(uod, und);
		err = mvfs_rename_upper(sbi, uod, und, trap, od, nd, flags,
					lower);
		unlock_rename(uod, und);
	}
	if (!err && target) {
		if (S_ISDIR(target->i_mode) || !mvfs_upper(target)) {
			clear_nlink(target);
			target->i_ctime = current_time(target);
		} else {
			mvfs_copyattr(target);
		}
	}
	if (!err)
		MVFS_I(d_inode(od))->wgen = atomic64_inc_return(&sbi->wgen);
	mnt_drop_write(sbi->store.mnt);
	mvfs_copyattr(odir);
	mvfs_copyattr(ndir);
	mvfs_copyattr(d_inode(od));
	return err;
}

int mvfs_rename(struct user_namespace *mnt_userns, struct inode *odir,
		struct dentry *od, struct inode *ndir, struct dentry *nd,
		unsigned int flags)
{
	const struct cred *old = override_creds(MVFS_SB(odir->i_sb)->creds);
	int err = __mvfs_rename(odir, od, ndir, nd, flags);

	revert_creds(old);
	return err;
}

/**
 * mvfs_setattr - chmod, chown, utimes, truncate
 * @mnt_userns: the mount's user namespace
 * @dentry: what changes
 * @attr: the change
 *
 * Return: 0 or -errno; -EPERM for a view's top (its owner and mode are
 * the view's, changed with the mvfs command).
 */
int mvfs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		 struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	const struct cred *old;
	struct dentry *upper;
	int err;

	if (MVFS_I(inode)->kind == MVFS_VIEW)
		return -EPERM;
	err = setattr_prepare(&init_user_ns, dentry, attr);
	if (!err)
		err = mvfs_copy_up(dentry);
	if (!err)
		err = mnt_want_write(sbi->store.mnt);
	if (err)
		return err;
	attr->ia_valid &= ~ATTR_FILE;
	if (attr->ia_valid & (ATTR_KILL_SUID | ATTR_KILL_SGID))
		attr->ia_valid &= ~ATTR_MODE;
	upper = mvfs_upper(inode);
	old = override_creds(sbi->creds);
	inode_lock(d_inode(upper));
	err = notify_change(&init_user_ns, upper, attr, NULL);
	inode_unlock(d_inode(upper));
	revert_creds(old);
	mnt_drop_write(sbi->store.mnt);
	mvfs_copyattr(inode);
	MVFS_I(inode)->wgen = atomic64_inc_return(&sbi->wgen);
	return err;
}

const struct inode_operations mvfs_file_iops = {
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.permission	= mvfs_permission,
	.update_time	= mvfs_update_time,
};

const struct inode_operations mvfs_link_iops = {
	.get_link	= simple_get_link,
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.permission	= mvfs_permission,
	.update_time	= mvfs_update_time,
};

const struct inode_operations mvfs_special_iops = {
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.permission	= mvfs_permission,
	.update_time	= mvfs_update_time,
};
