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

/**
 * mvfs_lower_has - is there an element of this name in the tree
 * @dir: a directory of a view
 * @name: the name
 *
 * Return: 1, 0, or -errno.
 */
int mvfs_lower_has(struct inode *dir, const struct qstr *name)
{
	struct mvfs_entry *e;
	int err;

	if (!mvfs_dir_shows_tree(dir))
		return 0;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	err = mvfs_lower_find(dir, name->name, name->len, e, NULL, NULL);
	kfree(e);
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

/*
 * When mvfs_lookup() left the lookup of DENTRY (negative) to the create:
 * is its name free in DIR's tree, which DIR may show since?  The create
 * finds out about the private entries itself.  Return: 0, -EEXIST or
 * -errno.
 */
static int mvfs_name_free(struct inode *dir, struct dentry *dentry)
{
	int lower;

	if (!mvfs_dentry_deferred(dentry))
		return 0;
	lower = mvfs_lower_has(dir, &dentry->d_name);
	return lower > 0 ? -EEXIST : lower;
}

/* DENTRY, negative, takes INODE; hashed too if its lookup was deferred. */
static void mvfs_instantiate(struct dentry *dentry, struct inode *inode)
{
	if (d_unhashed(dentry))
		d_add(dentry, inode);
	else
		d_instantiate(dentry, inode);
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

/*
 * NAME in UDIR (locked), negative: a whiteout there is removed first
 * (*WH set), to be made again if what takes its place cannot be made
 * (mvfs_make_over()); B, if not NULL, takes its base record (base.c),
 * for what takes its place (b->path NULL: none).
 */
static struct dentry *mvfs_lookup_free(struct mvfs_sb_info *sbi,
				       struct dentry *udir,
				       const struct qstr *name, bool *wh,
				       struct mvfs_origin *b)
{
	struct dentry *u;
	int err;

	*wh = false;
	u = lookup_one_len(name->name, udir, name->len);
	if (IS_ERR(u) || !mvfs_is_whiteout(u))
		goto out;
	*wh = true;
	if (b && mvfs_record_get(sbi, u, MVFS_XATTR_BASE, b)) {
		b->rev = 0;	/* none, or unreadable: no record */
		b->path = NULL;
	}
	err = mvfs_do_unlink(sbi, d_inode(udir), u);
	if (err) {
		dput(u);
		u = ERR_PTR(err);
	} else if (d_unhashed(u)) {
		/* Someone else held it: a new dentry of the name, then. */
		dput(u);
		u = lookup_one_len(name->name, udir, name->len);
		if (IS_ERR(u) && mvfs_log_fail_ok(sbi))
			pr_err("store %s: %pd/%.*s: its whiteout is lost: %ld\n",
			       sbi->store_name, udir, name->len, name->name,
			       PTR_ERR(u));
	}
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

/*
 * Make the private entry U (negative) in UDIR (locked), as the caller.
 * Runs with the mounter's credentials (sbi->creds): its callers
 * override them.
 */
static int mvfs_make(struct mvfs_sb_info *sbi, struct inode *udir,
		     struct dentry *u, const struct mvfs_new *n)
{
	const struct cred *c = NULL, *old = NULL;
	int err;

	/* The mounter making its own: no other credentials needed. */
	if (!uid_eq(n->uid, sbi->creds->fsuid) ||
	    !gid_eq(n->gid, sbi->creds->fsgid)) {
		c = mvfs_creds_as(sbi, n->uid, n->gid);
		if (!c)
			return -ENOMEM;
		old = override_creds(c);
	}
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
	if (c) {
		revert_creds(old);
		put_cred(c);
	}
	pr_debug("make(%pd2, 0%o) = %d\n", u, n->mode, err);
	return err;
}

/*
 * mvfs_make() where a whiteout was (WH: mvfs_lookup_free() removed it):
 * if the entry cannot be made (ENOSPC, EMLINK, ENOMEM), the whiteout is
 * made again, with its base record B (or NULL), so that the element it
 * hid stays removed.
 */
static int mvfs_make_over(struct mvfs_sb_info *sbi, struct inode *udir,
			  struct dentry *u, const struct mvfs_new *n, bool wh,
			  const struct mvfs_origin *b)
{
	int err = mvfs_make(sbi, udir, u, n);

	if (!err || !wh || !d_is_negative(u))
		return err;
	if (mvfs_do_whiteout(sbi, udir, u)) {
		if (mvfs_log_fail_ok(sbi))
			pr_err("store %s: %pd2 could not be made, nor its whiteout again: the element shows\n",
			       sbi->store_name, u);
	} else if (b) {
		mvfs_base_mark(sbi, u, b);
	}
	return err;
}

/*
 * Take back the entry NAME that mvfs_make_over() made in UDIR (unlocked),
 * when no inode could be had for it: the view stays as it was, the
 * whiteout it replaced (WH) made again.
 */
static void mvfs_unmake(struct mvfs_sb_info *sbi, struct dentry *udir,
			const struct qstr *name, bool wh,
			const struct mvfs_origin *b)
{
	struct inode *dir = d_inode(udir);
	struct dentry *u;
	int err;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	u = lookup_one_len(name->name, udir, name->len);
	err = PTR_ERR_OR_ZERO(u);
	if (!err && d_is_positive(u) && !mvfs_is_whiteout(u)) {
		err = d_is_dir(u) ? mvfs_do_rmdir(sbi, dir, u) :
		      mvfs_do_unlink(sbi, dir, u);
		dput(u);
		u = err ? NULL : lookup_one_len(name->name, udir, name->len);
		err = err ?: PTR_ERR_OR_ZERO(u);
		if (!err && wh)
			err = d_is_negative(u) ?
			      mvfs_do_whiteout(sbi, dir, u) : -EEXIST;
		if (!err && wh && b)
			mvfs_base_mark(sbi, u, b);
	}
	if (!IS_ERR_OR_NULL(u))
		dput(u);
	inode_unlock(dir);
	if (err && mvfs_log_fail_ok(sbi))
		pr_err("store %s: %pd/%.*s stays in the private area: %d\n",
		       sbi->store_name, udir, name->len, name->name, err);
}

/* Create DENTRY (negative) in DIR as a new private entry. */
static int __mvfs_new_entry(struct inode *dir, struct dentry *dentry,
			    const struct mvfs_new *n)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct mvfs_origin b = {};
	struct dentry *udir, *u;
	struct inode *inode;
	char *path;
	bool wh;
	int err;

	err = mvfs_name_free(dir, dentry);
	if (!err)
		err = mvfs_begin(dentry);
	if (err)
		return err;
	udir = mvfs_upper(dir);
	inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
	u = mvfs_lookup_free(sbi, udir, &dentry->d_name, &wh, &b);
	err = PTR_ERR_OR_ZERO(u);
	if (!err)
		err = mvfs_make_over(sbi, d_inode(udir), u, n, wh, &b);
	inode_unlock(d_inode(udir));
	if (err)
		goto out;
	/* Made where the view removed an element: it stands on that too. */
	if (b.path)
		mvfs_base_mark(sbi, u, &b);
	/*
	 * Only a directory needs its path: its children's start with it
	 * (mvfs_upper_inode()).  The VFS holds DIR's lock: the name is
	 * stable.
	 */
	path = S_ISDIR(n->mode) ? mvfs_child_path(dir, dentry->d_name.name,
						  dentry->d_name.len) : NULL;
	inode = path || !S_ISDIR(n->mode) ?
		mvfs_new_upper_inode(dir->i_sb, u, MVFS_I(dir)->view, &path) :
		ERR_PTR(-ENOMEM);
	kfree(path);
	err = PTR_ERR_OR_ZERO(inode);
	if (!err)
		mvfs_instantiate(dentry, inode);
	else
		mvfs_unmake(sbi, udir, &dentry->d_name, wh, &b);
out:
	if (!IS_ERR(u))
		dput(u);
	kfree(b.path);
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
	struct mvfs_origin b = {};
	struct dentry *udir, *u;
	bool wh;
	int err;

	/* Views are separate trees: nothing is shared between two. */
	if (MVFS_I(inode)->view != MVFS_I(dir)->view)
		return -EXDEV;
	if (MVFS_I(inode)->retired)	/* vfs_link() holds its lock */
		return -ESTALE;

	err = mvfs_copy_up(old);
	if (!err)
		err = mvfs_begin(dentry);
	if (err)
		return err;
	err = mvfs_impure_for(dir, inode);
	if (err)
		goto out;
	n.old = mvfs_upper(inode);
	udir = mvfs_upper(dir);
	inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
	u = mvfs_lookup_free(sbi, udir, &dentry->d_name, &wh, &b);
	err = PTR_ERR_OR_ZERO(u);
	if (!err) {
		err = mvfs_make_over(sbi, d_inode(udir), u, &n, wh, &b);
		dput(u);
	}
	inode_unlock(d_inode(udir));
	/* Made where the view removed an element: base.c */
	if (!err)
		mvfs_base_link(sbi, old, &b);
	kfree(b.path);
	if (!err) {
		ihold(inode);
		d_instantiate(dentry, inode);
		mvfs_copyattr(inode);
		mvfs_wgen_bump(inode);
	}
out:
	mvfs_end(dir);
	return err;
}

/*
 * NAME's dentry in UDIR (locked), positive or not: UPPER (the private
 * entry of the inode removed, or NULL) while it is still that name, as
 * it is but for a hard link's other names; else looked up.
 */
static struct dentry *mvfs_lookup_own(struct dentry *udir,
				      const struct qstr *name,
				      struct dentry *upper)
{
	/* Renames into or out of UDIR hold its lock: d_parent is stable. */
	if (upper && upper->d_parent == udir && !d_unhashed(upper) &&
	    upper->d_name.len == name->len &&
	    !memcmp(upper->d_name.name, name->name, name->len))
		return dget(upper);
	return lookup_one_len(name->name, udir, name->len);
}

/*
 * Remove the private entry NAME of UDIR, if there is one, in one step:
 * -ENOTEMPTY for a directory that still holds whiteouts.  UPPER: as for
 * mvfs_lookup_own().
 */
static int mvfs_remove_private(struct mvfs_sb_info *sbi, struct dentry *udir,
			       const struct qstr *name, struct dentry *upper,
			       bool isdir)
{
	struct dentry *u;
	int err = 0;

	inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
	u = mvfs_lookup_own(udir, name, upper);
	if (IS_ERR(u)) {
		err = PTR_ERR(u);
		goto out_unlock;
	}
	if (d_is_positive(u) && !mvfs_is_whiteout(u))
		err = isdir ? mvfs_do_rmdir(sbi, d_inode(udir), u) :
			      mvfs_do_unlink(sbi, d_inode(udir), u);
	dput(u);
out_unlock:
	inode_unlock(d_inode(udir));
	return err;
}

/*
 * Remove NAME from the private directory UDIR of DIR, whose private entry
 * is UPPER (NULL: none).  Without an element NAME in the tree, in one
 * step, unless a directory holds whiteouts.  Else in steps that can be
 * undone (privmove.c): a private directory is moved to work/, and dropped
 * there at the end; when the tree has an element NAME (LOWER: its base,
 * base.c), a whiteout made ahead in work/ takes the name (replacing a
 * private file in one rename).  If the whiteout cannot follow a moved directory, the
 * directory moves back.  A crash between those steps can show the
 * element at NAME again, its directory moved and the whiteout not yet
 * there (rename.c says more of crashes between steps).
 */
static int mvfs_remove(struct inode *dir, struct dentry *udir,
		       const struct qstr *name, struct dentry *upper,
		       bool isdir, const struct mvfs_origin *lower)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct inode *want = upper ? d_inode(upper) : NULL;
	struct mvfs_wname wh, x;
	struct dentry *work;
	bool moved = false;
	int err;

	if (!lower) {
		err = mvfs_remove_private(sbi, udir, name, upper, isdir);
		if (!isdir || err != -ENOTEMPTY)
			return err;
	}
	err = mvfs_view_work(dir, &work);
	if (err)
		return err;
	if (lower)
		err = mvfs_work_whiteout(sbi, work, &wh, lower);
	if (err)
		goto out_work;
	if (isdir && want) {
		mvfs_work_name(sbi, &x, 'x');
		err = mvfs_priv_move(sbi, udir, name, work, &x.q, want, false);
		moved = !err;
	}
	if (!err && lower)
		err = mvfs_priv_move(sbi, work, &wh.q, udir, name, NULL, !isdir);
	/* Kept in work/ (and logged) if it cannot move back. */
	if (err && moved &&
	    mvfs_priv_move(sbi, work, &x.q, udir, name, want, false) &&
	    mvfs_log_fail_ok(sbi))
		pr_err("store %s: %pd/%.*s is left in work/ as %s\n",
		       sbi->store_name, udir, name->len, name->name, x.buf);
	if (err)
		moved = false;
	if (err && lower)
		mvfs_work_drop(sbi, work, &wh);
	if (moved)
		mvfs_work_drop(sbi, work, &x);
out_work:
	dput(work);
	return err;
}

static int mvfs_remove_entry(struct inode *dir, struct dentry *dentry,
			     bool isdir)
{
	struct mvfs_origin b = {};
	struct inode *inode = d_inode(dentry);
	struct dentry *upper;
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
	/* An element removed: what it stood on goes with its whiteout. */
	if (lower > 0)
		err = mvfs_base_of(dir, dentry, &b);
	upper = mvfs_upper(inode);
	if (!err)
		err = mvfs_remove(dir, mvfs_upper(dir), &dentry->d_name,
				  upper, isdir, lower > 0 ? &b : NULL);
	kfree(b.path);
	if (!err) {
		if (isdir || !upper)
			clear_nlink(inode);
		else
			mvfs_copyattr(inode);
		inode->i_ctime = current_time(inode);
		mvfs_wgen_bump(inode);
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
	if (MVFS_I(inode)->retired)
		return -ESTALE;	/* the VFS looks the name up again */
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
	mvfs_wgen_bump(inode);
	return err;
}

/* As for directories (dir.c): ->permission only where never writable. */
const struct inode_operations mvfs_file_iops = {
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.update_time	= mvfs_update_time,
};

const struct inode_operations mvfs_file_ro_iops = {
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.permission	= mvfs_permission,
	.update_time	= mvfs_update_time,
};

const struct inode_operations mvfs_link_iops = {
	.get_link	= simple_get_link,
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.update_time	= mvfs_update_time,
};

const struct inode_operations mvfs_link_ro_iops = {
	.get_link	= simple_get_link,
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.permission	= mvfs_permission,
	.update_time	= mvfs_update_time,
};

/* Only ever private entries: never read-only. */
const struct inode_operations mvfs_special_iops = {
	.getattr	= mvfs_getattr,
	.setattr	= mvfs_setattr,
	.update_time	= mvfs_update_time,
};
