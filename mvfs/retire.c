// SPDX-License-Identifier: GPL-2.0
/*
 * retire.c: MVFS_IOC_PRIVGEN and MVFS_IOC_RETIRE, the module's part of a
 * check-in and of an uncheckout.
 *
 * The tools read a view's private entries from the store, commit a new
 * revision and reload; then they retire each entry they checked in,
 * giving the generation PRIVGEN told them before they read it.  An entry
 * written since (or still open for writing, or mapped) is not retired:
 * it stays private, its origin moved to the new revision, so that no
 * write racing with a check-in is lost.  A retired entry leaves the
 * private area and the view shows the new revision there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "mvfs.h"
#include "uapi/mvfs_ioctl.h"

struct mvfs_priv_req {
	struct mvfs_ioc_priv	arg;
	char			*path;	/* the element path, checked */
	struct path		dir;	/* its directory in the view */
	struct qstr		name;	/* its last component; "" the top */
};

/* Copy and check the argument: 0, -EFAULT, -EINVAL or -ENOMEM. */
static int mvfs_priv_req_get(struct mvfs_priv_req *r, void __user *uarg,
			     u32 flags_ok)
{
	struct mvfs_ioc_priv *a = &r->arg;
	const char *p, *end;
	size_t len;

	if (copy_from_user(a, uarg, sizeof(*a)))
		return -EFAULT;
	len = strnlen(a->tag, sizeof(a->tag));
	if (a->size != sizeof(*a) || a->reserved || (a->flags & ~flags_ok) ||
	    len == sizeof(a->tag) || !mvfs_tag_valid(a->tag, len) ||
	    a->path_len >= PATH_MAX)
		return -EINVAL;
	r->path = memdup_user_nul(u64_to_user_ptr(a->path), a->path_len);
	if (IS_ERR(r->path))
		return PTR_ERR(r->path);
	for (p = r->path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '/');
		if (!mvfs_entry_name_ok(p, end - p) ||
		    (*end && !end[1]))
			goto out_inval;
	}
	if (strlen(r->path) != a->path_len)
		goto out_inval;
	return 0;
out_inval:
	kfree(r->path);
	return -EINVAL;
}

/* Walk DIR ("TAG/a/b") down from /view, one directory at a time. */
static int mvfs_walk_dirs(struct file *file, const char *dir, struct path *out)
{
	struct dentry *d = dget(file->f_path.dentry), *next;
	const char *p, *end;
	int err = 0;

	for (p = dir; *p && !err; p = *end ? end + 1 : end) {
		end = strchrnul(p, '/');
		next = lookup_positive_unlocked(p, d, end - p);
		dput(d);
		if (IS_ERR(next))
			return PTR_ERR(next);
		d = next;
		if (!d_is_dir(d))
			err = -ENOTDIR;
	}
	if (err) {
		dput(d);
		return err;
	}
	out->dentry = d;
	out->mnt = mntget(file->f_path.mnt);
	return 0;
}

/* Find the directory of the entry in the view, through /view/TAG. */
static int mvfs_priv_req_dir(struct mvfs_priv_req *r, struct file *file)
{
	char *slash = strrchr(r->path, '/'), *dir;
	int err;

	if (!*r->path)
		return -EINVAL;	/* the top itself is never retired */
	r->name.name = slash ? slash + 1 : r->path;
	r->name.len = strlen(r->name.name);
	dir = slash ? kasprintf(GFP_KERNEL, "%s/%.*s", r->arg.tag,
				(int)(slash - r->path), r->path) :
		      kstrdup(r->arg.tag, GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	err = mvfs_walk_dirs(file, dir, &r->dir);
	kfree(dir);
	if (!err && !mvfs_upper(d_inode(r->dir.dentry))) {
		path_put(&r->dir);
		err = -ENOENT;
	}
	return err;
}

/* Open for writing, or mapped so, through the view or in the store. */
static bool mvfs_priv_busy(struct inode *inode)
{
	return atomic_read(&inode->i_writecount) > 0 ||
	       atomic_read(&d_inode(mvfs_upper(inode))->i_writecount) > 0;
}

/*
 * PRIVGEN: the generation of the private entry; 0 for a whiteout.  An
 * entry open for writing may be written through a shared mapping, which
 * leaves no trace, after the tools read it and before RETIRE: it moves
 * to a new generation, so that RETIRE keeps it.
 */
static int mvfs_privgen(struct mvfs_priv_req *r)
{
	struct inode *dir = d_inode(r->dir.dentry);
	struct dentry *d;
	int err = -ENOENT;

	inode_lock(dir);
	d = lookup_one_len(r->name.name, r->dir.dentry, r->name.len);
	inode_unlock(dir);
	if (IS_ERR(d))
		return PTR_ERR(d);
	r->arg.gen = 0;
	if (d_really_is_positive(d) && mvfs_upper(d_inode(d))) {
		inode_lock(d_inode(d));
		r->arg.gen = READ_ONCE(MVFS_I(d_inode(d))->wgen);
		if (mvfs_priv_busy(d_inode(d)))
			mvfs_wgen_bump(d_inode(d));
		inode_unlock(d_inode(d));
		err = 0;
	} else if (d_really_is_negative(d)) {
		d_invalidate(d);	/* a whiteout: seen from the store */
		err = 0;
	}
	dput(d);
	return err;
}

/*
 * Retire the whiteout at R's name in private directory UDIR.  Only a
 * removal that was read (generation 0) or FORCE drops it.  With another
 * generation, what was read there (and checked in as r->arg.rev) was
 * removed since: the whiteout stays, -ESTALE, standing on that revision
 * now, as a copy kept by RETIRE is moved to it.
 */
static int mvfs_retire_whiteout(struct mvfs_sb_info *sbi, struct dentry *udir,
				const struct mvfs_priv_req *r)
{
	struct mvfs_origin b = { .rev = r->arg.rev, .path = r->path };
	struct dentry *u;
	int err = -ENOENT;

	inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
	u = lookup_one_len(r->name.name, udir, r->name.len);
	if (IS_ERR(u)) {
		err = PTR_ERR(u);
		goto out_unlock;
	}
	if (!mvfs_is_whiteout(u)) {
		err = -ENOENT;
	} else if (!r->arg.gen || (r->arg.flags & MVFS_PRIV_FORCE)) {
		err = mvfs_do_unlink(sbi, d_inode(udir), u);
	} else {
		mvfs_base_mark(sbi, u, &b);
		err = -ESTALE;
	}
	dput(u);
out_unlock:
	inode_unlock(d_inode(udir));
	return err;
}

/*
 * Retire the private entry of D (positive, its inode and its parent's
 * locked): a directory becomes a copy of the element in rev; anything
 * else leaves the private area.
 */
static int mvfs_retire_entry(struct mvfs_priv_req *r, struct dentry *d)
{
	struct inode *inode = d_inode(d);
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct dentry *upper = mvfs_upper(inode), *udir, *u;
	char *path;
	int err;

	if (S_ISDIR(inode->i_mode)) {
		path = kstrdup(r->path, GFP_KERNEL);
		if (!path)
			return -ENOMEM;
		err = mvfs_origin_set(sbi, upper, r->arg.rev, inode->i_ino,
				      path);
		mutex_lock(&ei->plock);
		if (!err) {
			swap(ei->path, path);
			ei->merge = true;
			WRITE_ONCE(ei->sel, 0);	/* find the tree again */
		}
		mutex_unlock(&ei->plock);
		kfree(path);
		return err;
	}
	udir = mvfs_upper(d_inode(r->dir.dentry));
	inode_lock_nested(d_inode(udir), I_MUTEX_PARENT);
	u = lookup_one_len(r->name.name, udir, r->name.len);
	err = PTR_ERR_OR_ZERO(u);
	if (!err) {
		err = d_inode(u) == d_inode(upper) ?
		      mvfs_do_unlink(sbi, d_inode(udir), u) : -ESTALE;
		dput(u);
	}
	inode_unlock(d_inode(udir));
	/*
	 * Gone with its last name (a hard link's other names stay, and
	 * are retired in turn): an open or a setattr that found it before
	 * now says -ESTALE.
	 */
	if (!err && d_inode(upper)->i_nlink == 0)
		ei->retired = true;
	return err;
}

/* RETIRE, once the entry is found; its inode and its parent locked. */
static int mvfs_retire_found(struct mvfs_priv_req *r, struct dentry *d)
{
	struct inode *inode = d_inode(d);
	struct dentry *upper = mvfs_upper(inode);
	bool force = r->arg.flags & MVFS_PRIV_FORCE, busy;
	struct mvfs_origin o = {};
	int err;

	busy = mvfs_priv_busy(inode);
	if (force && busy) {
		err = -EBUSY;
	} else if (!force &&
		   (busy || READ_ONCE(MVFS_I(inode)->wgen) != r->arg.gen)) {
		/*
		 * Changed since it was read: keep it, up to date now.  With
		 * generation 0 a removal was read, and this entry came since
		 * (a rename onto the path): nothing of it was checked in, so
		 * a copy keeps the revision it was copied from, which its
		 * diff and its out-of-date check start from.  An entry with
		 * no origin stands over the new revision, as made after it.
		 */
		err = mvfs_origin_get(MVFS_SB(inode->i_sb), upper, &o);
		if ((!err && r->arg.gen) || err == -ENODATA)
			err = mvfs_origin_set(MVFS_SB(inode->i_sb), upper,
					      r->arg.rev, inode->i_ino,
					      o.path ? o.path : r->path);
		kfree(o.path);
		err = err ? err : -ESTALE;
	} else {
		err = mvfs_retire_entry(r, d);
	}
	return err;
}

/*
 * Lock order as for every change (mvfs.h): the mvfs directory first, then
 * write access to the store, as the VFS takes them around mvfs_rename().
 */
static int mvfs_retire(struct mvfs_priv_req *r)
{
	struct inode *dir = d_inode(r->dir.dentry);
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct dentry *d;
	int err;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	d = lookup_one_len(r->name.name, r->dir.dentry, r->name.len);
	err = PTR_ERR_OR_ZERO(d);
	if (err)
		goto out_unlock;
	/* The victim's lock too, before the store's, as setattr has them. */
	if (d_really_is_positive(d))
		inode_lock(d_inode(d));
	err = mnt_want_write(sbi->store.mnt);
	if (err)
		goto out_unlock_victim;
	if (d_really_is_positive(d) && mvfs_upper(d_inode(d)))
		err = mvfs_retire_found(r, d);
	else if (d_really_is_negative(d))
		err = mvfs_retire_whiteout(sbi, mvfs_upper(dir), r);
	else
		err = -ENOENT;
	/* Names may show through where the entry was: no negative holds. */
	atomic64_inc(&sbi->ngen);
	mnt_drop_write(sbi->store.mnt);
out_unlock_victim:
	if (d_really_is_positive(d))
		inode_unlock(d_inode(d));
	inode_unlock(dir);
	/*
	 * The view shows the revision there now: look it up again; a
	 * directory stays (it merges the new revision), so a cwd in it does.
	 */
	if (!err && !d_is_dir(d))
		d_invalidate(d);
	dput(d);
	return err;
out_unlock:
	inode_unlock(dir);
	return err;
}

/**
 * mvfs_ioc_priv - MVFS_IOC_PRIVGEN and MVFS_IOC_RETIRE
 * @file: the open /view
 * @cmd: which
 * @uarg: struct mvfs_ioc_priv
 *
 * Return: 0; -EPERM without CAP_SYS_ADMIN; -EINVAL for a malformed
 * argument; -ENOENT when there is no such private entry; -ESTALE or
 * -EBUSY (RETIRE) as uapi/mvfs_ioctl.h says.
 */
long mvfs_ioc_priv(struct file *file, unsigned int cmd, void __user *uarg)
{
	struct mvfs_priv_req r = {};
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	err = mvfs_priv_req_get(&r, uarg, cmd == MVFS_IOC_RETIRE ?
				MVFS_PRIV_FORCE : 0);
	if (err)
		return err;
	err = mvfs_priv_req_dir(&r, file);
	if (err)
		goto out_free;
	if (cmd == MVFS_IOC_PRIVGEN) {
		err = mvfs_privgen(&r);
		if (!err && copy_to_user(uarg, &r.arg, sizeof(r.arg)))
			err = -EFAULT;
	} else {
		err = mvfs_retire(&r);
	}
	path_put(&r.dir);
out_free:
	kfree(r.path);
	return err;
}
