// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c: the control interface on the mount's root (uapi/mvfs_ioctl.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include "mvfs.h"
#include "uapi/mvfs_ioctl.h"

/**
 * mvfs_ioctl - an ioctl on /view
 * @file: the open root directory
 * @cmd: MVFS_IOC_*
 * @arg: its argument
 *
 * Return: 0; -EPERM for a reload by an unprivileged caller; the reload's
 * error; -ENOTTY for an unknown command.
 */
long mvfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct super_block *sb = file_inode(file)->i_sb;

	switch (cmd) {
	case MVFS_IOC_RELOAD:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		return mvfs_views_reload(sb);
	default:
		return -ENOTTY;
	}
}
