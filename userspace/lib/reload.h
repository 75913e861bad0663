/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reload.h: tell a mounted mvfs that its store changed.
 */
#ifndef MVFS_RELOAD_H
#define MVFS_RELOAD_H

#define MVFS_VIEW_ROOT_DEFAULT	"/view"

int mvfs_reload(const char *view_root);

#endif /* MVFS_RELOAD_H */
