// SPDX-License-Identifier: GPL-2.0
/*
 * view.c: putting the calling process into a view.
 *
 * This is the only user of set_fs_root() and set_fs_pwd(), the two symbols
 * exported by patches/0001; it is what makes mvfs.ko load only on the
 * patched kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs_struct.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include "mvfs.h"

/**
 * mvfs_switch_root - set the caller's root and working directory
 * @root: the new root
 * @pwd: the new working directory, inside @root
 *
 * Unshares the caller's fs_struct first when other tasks share it, so that
 * only the calling process moves.  May sleep: never call it with a spinlock
 * held.
 *
 * Return: 0, or -ENOMEM when the fs_struct could not be unshared.
 */
int mvfs_switch_root(const struct path *root, const struct path *pwd)
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
