/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mvfs: a per-process view filesystem.
 *
 * Lock order: (none yet)
 */
#ifndef _MVFS_H
#define _MVFS_H

#include <linux/fs.h>
#include <linux/path.h>

#define MVFS_MAGIC	0x4d564653	/* "MVFS" */

/* view.c */
int mvfs_switch_root(const struct path *root, const struct path *pwd);

#endif /* _MVFS_H */
