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

/* The registered view of @tag; caller holds reg_lock. */
static struct mvfs_view *mvfs_reg_find(struct mvfs_sb_info *sbi,
				       const char *tag)
{
	struct mvfs_view *v;

	lockdep_assert_held(&sbi->reg_lock);
	down_read(&sbi->state_lock);
	list_for_each_entry(v, &sbi->views, node)
		if (!strcmp(v->rec.tag, tag))
			goto out_unlock;
	v = NULL;
out_unlock:
	up_read(&sbi->state_lock);
	return v;
}

/* The registered view whose root is @root, or NULL; reg_lock held. */
static struct mvfs_view *mvfs_reg_by_root(struct mvfs_sb_info *sbi,
					  const struct path *root)
{
	struct mvfs_view *v, *found = NULL;

	lockdep_assert_held(&sbi->reg_lock);
	down_read(&sbi->state_lock);
	list_for_each_entry(v, &sbi->views, node) {
		if (v->registered && path_equal(&v->vroot, root)) {
			found = v;
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
 * Who may use a view: root, its owner (with the owner's x bit), its group
 * (group x bit), others (others' x bit), as for a directory.
 */
static bool mvfs_may_use(const struct mvfs_view *v)
{
	u32 mode = v->rec.mode;

	if (capable(CAP_SYS_ADMIN))
		return true;
	if (uid_eq(current_fsuid(), make_kuid(&init_user_ns, v->rec.uid)))
		return mode & 0100;
	if (in_group_p(make_kgid(&init_user_ns, v->rec.gid)))
		return mode & 0010;
	return mode & 0001;
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
		goto out_unlock;
	err = -EINVAL;
	if (!mvfs_root_valid(sb, v, &f.file->f_path)) {
		pr_err("view %s: not a view root: its vob must be /view/%s\n",
		       arg->tag, arg->tag);
		goto out_unlock;
	}
	v->vroot = f.file->f_path;
	path_get(&v->vroot);
	get_fs_root(current->fs, &v->base);
	v->registered = true;
	err = 0;
out_unlock:
	mutex_unlock(&sbi->reg_lock);
	fdput(f);
	return err;
}

/* Drop @v's registration; reg_lock held. */
static void mvfs_reg_drop(struct mvfs_view *v)
{
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
		goto out_unlock;
	tasks = mvfs_tasks_in(&v->vroot);
	files = mvfs_files_open(sbi, v);
	err = -EBUSY;
	if ((tasks || files) && !(arg->flags & MVFS_VIEW_FORCE)) {
		pr_info("view %s is busy: %u processes in it, %u files open\n",
			arg->tag, tasks, files);
		goto out_unlock;
	}
	mvfs_reg_drop(v);
	err = 0;
out_unlock:
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
			mvfs_reg_drop(v);
	mutex_unlock(&sbi->reg_lock);
}

/**
 * mvfs_idle - MVFS_IOC_IDLE: may view tag be removed now
 * @sb: the mount's superblock
 * @arg: the checked argument
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
			pr_info("view %s is busy: %s, %u files open\n",
				arg->tag, v->registered ? "started" :
				"not started", files);
			err = -EBUSY;
		}
	}
	mutex_unlock(&sbi->reg_lock);
	return err;
}

/*
 * Where the working directory goes in @root: the caller's pwd as seen from
 * its current root, if @root has it, else @root/@fallback (or @root).
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
	if (err && fallback)
		err = mvfs_lookup_in(root, fallback, pwd);
	if (err) {
		*pwd = *root;
		path_get(pwd);
	}
}

/* Choose the new root for SETVIEW under reg_lock: 0 and @to, or -errno. */
static int mvfs_setview_target(struct mvfs_sb_info *sbi, const char *tag,
			       const struct path *cur, struct path *to)
{
	struct mvfs_view *v, *in;

	lockdep_assert_held(&sbi->reg_lock);
	in = mvfs_reg_by_root(sbi, cur);
	if (!*tag) {
		if (in)
			*to = in->base;
		else if (mvfs_reg_is_base(sbi, cur))
			*to = *cur;
		else
			return -EPERM;
		path_get(to);
		return 0;
	}
	v = mvfs_reg_find(sbi, tag);
	if (!v || !v->registered)
		return -ENOENT;
	if (in ? !path_equal(&in->base, &v->base) :
		 !path_equal(cur, &v->base))
		return -EPERM;
	if (!mvfs_may_use(v))
		return -EACCES;
	*to = v->vroot;
	path_get(to);
	return 0;
}

/**
 * mvfs_setview - MVFS_IOC_SETVIEW: put the caller into a view, or out
 * @sb: the mount's superblock
 * @arg: the checked argument; an empty tag leaves the view
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
	mutex_unlock(&sbi->reg_lock);
	path_put(&cur);
	if (err)
		return err;
	mvfs_new_pwd(&to, *arg->tag ? "vob" : NULL, &pwd);
	/* Outside every lock: set_fs_root() may sleep. */
	err = mvfs_switch_root(&to, &pwd);
	path_put(&pwd);
	path_put(&to);
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
	if (v)
		strscpy(arg->tag, v->rec.tag, sizeof(arg->tag));
	mutex_unlock(&sbi->reg_lock);
	path_put(&cur);
	return 0;
}
