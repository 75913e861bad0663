/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reserve.h: reserved checkouts, kept in the store's file "reserved"
 * (docs/FORMAT.md).  Changes are made under the store's lock (a store open
 * for writing) and replace the file atomically.
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message.
 */
#ifndef MVFS_RESERVE_H
#define MVFS_RESERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "store.h"

struct mvfs_resv {
	char	**tag;
	char	**path;
	size_t	n;
};

int mvfs_resv_read(const char *store_dir, struct mvfs_resv *r);
void mvfs_resv_free(struct mvfs_resv *r);
const char *mvfs_resv_holder(const struct mvfs_store *s,
			     const struct mvfs_resv *r, const char *path);
ssize_t mvfs_resv_other(const struct mvfs_store *s, const struct mvfs_resv *r,
			const char *path, const char *tag, bool under);
int mvfs_resv_add(struct mvfs_resv *r, const char *tag, const char *path);
bool mvfs_resv_drop(struct mvfs_resv *r, const char *tag, const char *path);
int mvfs_resv_write(const char *store_dir, const struct mvfs_resv *r);

#endif /* MVFS_RESERVE_H */
