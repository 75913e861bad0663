// SPDX-License-Identifier: GPL-2.0
/*
 * switch.c: view roots, and putting the calling process into a view.
 *
 * User space builds a view root (a recursive bind of / with /view/TAG over
 * its /vob) and registers it here; view-set then asks, by ioctl, to be
 * switched to it.  This file is the only user of set_fs_root() and
 * set_fs_pwd(), the two symbols exported by patches/0001: it is what makes
 * mvfs.ko load only on the patched kernel.
 *
 * The checks follow chroot(2) (fs/open.c): the view must be registered,
 * the caller allowed to use it, and the caller's current root must be the
 * system root the view was registered from, or another view root made
 * from it; a process in any other root (a chroot jail) is refused, so
 * that mvfs never becomes a way out of a jail.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs_struct.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "mvfs.h"
#include "uapi/mvfs_ioctl.h"

/*
 * Set the caller's root and working directory, unsharing its fs_struct
 * first when other tasks share it, so that only the calling process
 * moves.  May sleep: never call it with a spinlock held.
 */
static int mvfs_switch_root(const struct path *root, const struct path *pwd)
{
	int err;

	might_sleep();
	err = unshare_fs_struct();
	if (err)
		return err;
	set_fs_root(current->fs, root);
	set_fs_pwd(current->fs, pwd);
	return 0;
}

/*
 * The view of @tag, with a reference (mvfs_view_put() it), or NULL.
 * Caller holds reg_lock, so that its registration cannot change.
 */
static struct mvfs_view *mvfs_reg_find(struct mvfs_sb_info *sbi,
				       const char *tag)
{
	lockdep_assert_held(&sbi->reg_lock);
	return mvfs_view_get(sbi, tag, strlen(tag));
}

/*
 * The registered view whose root is @root, with a reference, or NULL.
 * Caller holds reg_lock.
 */
static struct mvfs_view *mvfs_reg_by_root(struct mvfs_sb_info *sbi,
					  const struct path *root)
{
	struct mvfs_view *v, *found = NULL;

	lockdep_assert_held(&sbi->reg_lock);
	down_read(&sbi->state_lock);
	list_for_each_entry(v, &sbi->views, node) {
		if (v->registered && path_equal(&v->vroot, root)) {
			found = v;
			kref_get(&found->ref);
			break;
		}
	}
	up_read(&sbi->state_lock);
	return found;
}

/* Is @root the system root of some registered view?  reg_lock held. */
static bool mvfs_reg_is_base(struct mvfs_sb_info *sbi,
			     const struct path *root)
{
	struct mvfs_view *v;
	bool found = false;

	lockdep_assert_held(&sbi->reg_lock);
	down_read(&sbi->state_lock);
	list_for_each_entry(v, &sbi->views, node)
		if (v->registered && path_equal(&v->base, root))
			found = true;
	up_read(&sbi->state_lock);
	return found;
}

/*
 * Who may use a view: its owner (with the owner's x bit), its group
 * (group x bit), others (others' x bit), as for a directory; failing
 * that, an administrator.  The mode is checked first and the capability
 * without audit, as fs/namei.c orders generic_permission(), so that an
 * ordinary entry logs no capability denial.
 */
static bool mvfs_may_use(const struct mvfs_view *v)
{
	u32 mode = v->rec.mode;

	if (uid_eq(current_fsuid(), make_kuid(&init_user_ns, v->rec.uid)))
		mode >>= 6;
	else if (in_group_p(make_kgid(&init_user_ns, v->rec.gid)))
		mode >>= 3;
	if (mode & 0001)
		return true;
	return ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
}

/* How many tasks have @root as their root. */
static unsigned int mvfs_tasks_in(const struct path *root)
{
	struct task_struct *g, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		task_lock(t);
		if (t->fs) {
			spin_lock(&t->fs->lock);
			if (path_equal(&t->fs->root, root))
				n++;
			spin_unlock(&t->fs->lock);
		}
		task_unlock(t);
	}
	rcu_read_unlock();
	return n;
}

/* Look @name up under @root (which it cannot leave) as the caller. */
static int mvfs_lookup_in(const struct path *root, const char *name,
			  struct path *out)
{
	struct file *f;

	f = file_open_root(root, name, O_PATH | O_DIRECTORY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	*out = f->f_path;
	path_get(out);
	fput(f);
	return 0;
}

/* Is @root a view root for @v: a mount root whose vob is /view/TAG? */
static bool mvfs_root_valid(struct super_block *sb, struct mvfs_view *v,
			    const struct path *root)
{
	struct path vob;
	struct inode *inode;
	bool ok;

	if (!d_is_dir(root->dentry) || root->dentry != root->mnt->mnt_root)
		return false;
	if (mvfs_lookup_in(root, "vob", &vob))
		return false;
	inode = d_inode(vob.dentry);
	ok = vob.dentry->d_sb == sb && MVFS_I(inode)->kind == MVFS_VIEW &&
	     MVFS_I(inode)->view == v;
	path_put(&vob);
	return ok;
}

/**
 * mvfs_register - MVFS_IOC_REGISTER
 * @sb: the mount's superblock
 * @arg: the checked argument
 *
 * Return: 0, -EPERM, -ENOENT, -EEXIST, -EBADF or -EINVAL.
 */
int mvfs_register(struct super_block *sb, struct mvfs_ioc_view *arg)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	struct mvfs_view *v;
	struct fd f;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	f = fdget(arg->fd);
	if (!f.file)
		return -EBADF;
	mutex_lock(&sbi->reg_lock);
	v = mvfs_reg_find(sbi, arg->tag);
	err = -ENOENT;
	if (!v)
		goto out_unlock;
	err = -EEXIST;
	if (v->registered)
		goto out_put;
	err = -EINVAL;
	if (!mvfs_root_valid(sb, v, &f.file->f_path)) {
		pr_err_ratelimited("view %s: not a view root: its vob must be /view/%s\n",
				   arg->tag, arg->tag);
		goto out_put;
	}
	v->vroot = f.file->f_path;
	path_get(&v->vroot);
	get_fs_root(current->fs, &v->base);
	v->registered = true;
	err = 0;
out_put:
	mvfs_view_put(v);
out_unlock:
	mutex_unlock(&sbi->reg_lock);
	fdput(f);
	return err;
}

/**
 * mvfs_view_unregister - drop a view's registration
 * @sbi: the mount
 * @v: a registered view
 *
 * Caller holds reg_lock.
 */
void mvfs_view_unregister(struct mvfs_sb_info *sbi, struct mvfs_view *v)
{
	lockdep_assert_held(&sbi->reg_lock);
	if (WARN_ON_ONCE(!v->registered))
		return;
	v->registered = false;
	path_put(&v->vroot);
	path_put(&v->base);
}

/**
 * mvfs_unregister - MVFS_IOC_UNREGISTER
 * @sb: the mount's superblock
 * @arg: the checked argument
 *
 * Return: 0, -EPERM, -ENOENT or -EBUSY (logged with what keeps it busy).
 */
int mvfs_unregister(struct super_block *sb, struct mvfs_ioc_view *arg)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	unsigned int tasks, files;
	struct mvfs_view *v;
	int err = -ENOENT;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&sbi->reg_lock);
	v = mvfs_reg_find(sbi, arg->tag);
	if (!v || !v->registered)
		goto out_put;
	tasks = mvfs_tasks_in(&v->vroot);
	files = mvfs_files_open(sbi, v);
	err = -EBUSY;
	if ((tasks || files) && !(arg->flags & MVFS_VIEW_FORCE)) {
		pr_info_ratelimited("view %s is busy: %u processes in it, %u files open\n",
				    arg->tag, tasks, files);
		goto out_put;
	}
	mvfs_view_unregister(sbi, v);
	err = 0;
out_put:
	mvfs_view_put(v);
	mutex_unlock(&sbi->reg_lock);
	return err;
}

/**
 * mvfs_unregister_all - drop every registration, at unmount
 * @sbi: the mount
 */
void mvfs_unregister_all(struct mvfs_sb_info *sbi)
{
	struct mvfs_view *v;

	mutex_lock(&sbi->reg_lock);
	list_for_each_entry(v, &sbi->views, node)
		if (v->registered)
			mvfs_view_unregister(sbi, v);
	mutex_unlock(&sbi->reg_lock);
}

/**
 * mvfs_idle - MVFS_IOC_IDLE: may view tag be removed now
 * @sb: the mount's superblock
 * @arg: the checked argument
 *
 * Needs no capability: any user may ask, so the message is rate-limited.
 *
 * Return: 0, or -EBUSY (logged) while it is registered or has open files.
 */
int mvfs_idle(struct super_block *sb, struct mvfs_ioc_view *arg)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	struct mvfs_view *v;
	unsigned int files;
	int err = 0;

	mutex_lock(&sbi->reg_lock);
	v = mvfs_reg_find(sbi, arg->tag);
	if (v) {
		files = mvfs_files_open(sbi, v);
		if (v->registered || files) {
			pr_info_ratelimited("view %s is busy: %s, %u files open\n",
					    arg->tag, v->registered ?
					    "started" : "not started", files);
			err = -EBUSY;
		}
		mvfs_view_put(v);
	}
	mutex_unlock(&sbi->reg_lock);
	return err;
}

/* May the caller chdir to @dir, as chdir(2) and chroot(2) check? */
static int mvfs_may_chdir(const struct path *dir)
{
	return path_permission(dir, MAY_EXEC | MAY_CHDIR);
}

/*
 * Where the working directory goes in @root: the caller's pwd as seen from
 * its current root, if @root has it and the caller may chdir there, else
 * @root/@fallback under the same condition, else @root.
 */
static void mvfs_new_pwd(const struct path *root, const char *fallback,
			 struct path *pwd)
{
	struct path old;
	char *buf, *p;
	int err = -ENOMEM;

	get_fs_pwd(current->fs, &old);
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (buf) {
		p = d_path(&old, buf, PATH_MAX);
		err = IS_ERR(p) || *p != '/' ? -ENOENT :
		      mvfs_lookup_in(root, p, pwd);
		kfree(buf);
	}
	path_put(&old);
	if (!err && mvfs_may_chdir(pwd)) {
		path_put(pwd);
		err = -EACCES;
	}
	if (err && fallback) {
		err = mvfs_lookup_in(root, fallback, pwd);
		if (!err && mvfs_may_chdir(pwd)) {
			path_put(pwd);
			err = -EACCES;
		}
	}
	if (err) {
		*pwd = *root;
		path_get(pwd);
	}
}

/*
 * Leaving a view: back to the system root it was entered from.  Outside
 * a view, a system root (one a view was entered from, or the root /view
 * was mounted from) stays; any other root (a chroot, an ended view's) is
 * -EPERM: the ioctl takes nobody anywhere else.
 */
static int mvfs_leave_target(struct mvfs_sb_info *sbi, const struct path *cur,
			     struct mvfs_view *in, struct path *to)
{
	lockdep_assert_held(&sbi->reg_lock);
	if (in)
		*to = in->base;
	else if (path_equal(cur, &sbi->mnt_root) ||
		 mvfs_reg_is_base(sbi, cur))
		*to = *cur;
	else
		return -EPERM;
	path_get(to);
	return 0;
}

/*
 * Choose the new root for SETVIEW: 0 and @to (path_put() it), or -errno.
 * Caller holds reg_lock, and keeps it until the switch is done.
 */
static int mvfs_setview_target(struct mvfs_sb_info *sbi, const char *tag,
			       const struct path *cur, struct path *to)
{
	struct mvfs_view *v = NULL, *in;
	int err;

	lockdep_assert_held(&sbi->reg_lock);
	in = mvfs_reg_by_root(sbi, cur);
	if (!*tag) {
		err = mvfs_leave_target(sbi, cur, in, to);
		goto out_put;
	}
	v = mvfs_reg_find(sbi, tag);
	err = -ENOENT;
	if (!v || !v->registered)
		goto out_put;
	err = -EPERM;
	if (in ? !path_equal(&in->base, &v->base) :
		 !path_equal(cur, &v->base))
		goto out_put;
	err = -EACCES;
	if (!mvfs_may_use(v))
		goto out_put;
	*to = v->vroot;
	path_get(to);
	err = 0;
out_put:
	mvfs_view_put(v);
	mvfs_view_put(in);
	return err;
}

/**
 * mvfs_setview - MVFS_IOC_SETVIEW: put the caller into a view, or out
 * @sb: the mount's superblock
 * @arg: the checked argument; an empty tag leaves the view
 *
 * reg_lock is held from the choice of the root to the switch, so that an
 * endview cannot come in between and leave the caller in an ended root.
 * It is a mutex: set_fs_root() may sleep under it.  As chroot(2) does,
 * the caller must be allowed to chdir to the new root (MAY_EXEC |
 * MAY_CHDIR); its new working directory is one it may chdir to.
 *
 * Return: 0, -ENOENT, -EACCES, -EPERM or -ENOMEM.
 */
int mvfs_setview(struct super_block *sb, struct mvfs_ioc_view *arg)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	struct path cur, to, pwd;
	int err;

	get_fs_root(current->fs, &cur);
	mutex_lock(&sbi->reg_lock);
	err = mvfs_setview_target(sbi, arg->tag, &cur, &to);
	if (err)
		goto out_unlock;
	err = mvfs_may_chdir(&to);
	if (err)
		goto out_put_to;
	mvfs_new_pwd(&to, *arg->tag ? "vob" : NULL, &pwd);
	err = mvfs_switch_root(&to, &pwd);
	path_put(&pwd);
out_put_to:
	path_put(&to);
out_unlock:
	mutex_unlock(&sbi->reg_lock);
	path_put(&cur);
	return err;
}

/**
 * mvfs_pwv - MVFS_IOC_PWV: the caller's view
 * @sb: the mount's superblock
 * @arg: its tag is filled with the view's, or "" for none
 *
 * Return: 0.
 */
int mvfs_pwv(struct super_block *sb, struct mvfs_ioc_view *arg)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	struct mvfs_view *v;
	struct path cur;

	get_fs_root(current->fs, &cur);
	memset(arg->tag, 0, sizeof(arg->tag));
	mutex_lock(&sbi->reg_lock);
	v = mvfs_reg_by_root(sbi, &cur);
	if (v) {
		spin_lock(&v->lock);
		strscpy(arg->tag, v->rec.tag, sizeof(arg->tag));
		spin_unlock(&v->lock);
		mvfs_view_put(v);
	}
	mutex_unlock(&sbi->reg_lock);
	path_put(&cur);
	return 0;
}
