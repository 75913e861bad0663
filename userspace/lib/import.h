/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import.h: turn a directory tree into a revision of a store.
 */
#ifndef MVFS_IMPORT_H
#define MVFS_IMPORT_H

#include <linux/types.h>
#include "store.h"

int mvfs_import(struct mvfs_store *s, const char *dir, const char *msg,
		__u64 *rev);

#endif /* MVFS_IMPORT_H */
