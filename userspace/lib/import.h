/* SPDX-License-Identifier: GPL-2.0 */
/*
 * import.h: turn a directory tree into a revision of a store.
 */
#ifndef MVFS_IMPORT_H
#define MVFS_IMPORT_H

#include <linux/types.h>
#include "store.h"

/* What a tree had that a revision does not keep (docs/FORMAT.md). */
#define MVFS_DROPPED_XATTR	0x1	/* extended attributes, ACLs */
#define MVFS_DROPPED_CAPS	0x2	/* file capabilities (an xattr) */
#define MVFS_DROPPED_SPARSE	0x4	/* holes: stored as zeros */

int mvfs_import(struct mvfs_store *s, const char *dir, const char *msg,
		__u64 *rev, unsigned int *dropped);

#endif /* MVFS_IMPORT_H */
