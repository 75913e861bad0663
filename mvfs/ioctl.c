// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c: the control interface on the mount's root (uapi/mvfs_ioctl.h).
 * Every argument is copied and checked here before switch.c sees it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "mvfs.h"
#include "uapi/mvfs_ioctl.h"

/* Copy and check a struct mvfs_ioc_view: 0, -EFAULT or -EINVAL. */
static int mvfs_ioc_get(struct mvfs_ioc_view *arg, void __user *uarg,
			u32 flags_ok, bool empty_ok)
{
	size_t len;

	if (copy_from_user(arg, uarg, sizeof(*arg)))
		return -EFAULT;
	if (arg->size != sizeof(*arg) || arg->reserved ||
	    (arg->flags & ~flags_ok))
		return -EINVAL;
	len = strnlen(arg->tag, sizeof(arg->tag));
	if (len == sizeof(arg->tag))
		return -EINVAL;
	if (len ? !mvfs_tag_valid(arg->tag, len) : !empty_ok)
		return -EINVAL;
	return 0;
}

/**
 * mvfs_ioctl - an ioctl on /view
 * @file: the open root directory
 * @cmd: MVFS_IOC_*
 * @arg: its argument
 *
 * Return: the command's result; -EFAULT or -EINVAL for a malformed
 * argument; -ENOTTY for an unknown command.
 */
long mvfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct super_block *sb = file_inode(file)->i_sb;
	void __user *uarg = (void __user *)arg;
	struct mvfs_ioc_view v;
	int err;

	switch (cmd) {
	case MVFS_IOC_RELOAD:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return mvfs_views_reload(sb);
	case MVFS_IOC_REGISTER:
		err = mvfs_ioc_get(&v, uarg, 0, false);
		return err ? err : mvfs_register(sb, &v);
	case MVFS_IOC_UNREGISTER:
		err = mvfs_ioc_get(&v, uarg, MVFS_VIEW_FORCE, false);
		return err ? err : mvfs_unregister(sb, &v);
	case MVFS_IOC_SETVIEW:
		err = mvfs_ioc_get(&v, uarg, 0, true);
		return err ? err : mvfs_setview(sb, &v);
	case MVFS_IOC_IDLE:
		err = mvfs_ioc_get(&v, uarg, 0, false);
		return err ? err : mvfs_idle(sb, &v);
	case MVFS_IOC_PWV:
		err = mvfs_ioc_get(&v, uarg, 0, true);
		if (!err)
			err = mvfs_pwv(sb, &v);
		if (!err && copy_to_user(uarg, &v, sizeof(v)))
			err = -EFAULT;
		return err;
	case MVFS_IOC_PRIVGEN:
	case MVFS_IOC_RETIRE:
		return mvfs_ioc_priv(file, cmd, uarg);
	default:
		return -ENOTTY;
	}
}
