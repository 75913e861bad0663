/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reload.h: tell a mounted mvfs that its store changed.
 */
#ifndef MVFS_RELOAD_H
#define MVFS_RELOAD_H

#include <stdlib.h>

#define MVFS_VIEW_ROOT_DEFAULT	"/view"

/*
 * $NAME when it is set and not empty, else DEF: how the commands find the
 * store ($MVFS_STORE_DIR) and the view mount ($MVFS_VIEW_ROOT).
 */
static inline const char *mvfs_env(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

int mvfs_reload(const char *view_root);

#endif /* MVFS_RELOAD_H */
