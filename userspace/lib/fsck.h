/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsck.h: the checker's own state, shared by its passes (fsck.c: the
 * driver, the state's records and the views; fsck_tree.c: trees and the
 * objects they refer to; fsck_files.c: pack, index and objects/;
 * fsck_views.c: the private areas).  Private
 * to lib/, as store_int.h is.
 */
#ifndef MVFS_FSCK_H
#define MVFS_FSCK_H

#include <stdbool.h>
#include <linux/types.h>
#include "store_int.h"

/* A map of u64 to u64: tree and symlink offsets, object numbers. */
struct mvfs_map {
	__u64	*keys;		/* key + 1; 0 is an empty slot */
	__u64	*vals;
	size_t	n;
	size_t	nslots;		/* a power of two */
};

struct mvfs_fsck {
	struct mvfs_store	*s;
	unsigned int		flags;		/* MVFS_FSCK_* */
	unsigned int		problems;
	unsigned int		repaired;
	bool			trees_bad;	/* the walk missed some */
	struct mvfs_map		trees;		/* offset -> bytes */
	struct mvfs_map		links;		/* offset -> bytes */
	struct mvfs_map		objects;	/* number -> size */
};

/* fsck.c */
void mvfs_fsck_problem(struct mvfs_fsck *f, const char *fmt, ...);
void mvfs_fsck_repaired(struct mvfs_fsck *f, int err, const char *what);
bool mvfs_map_get(const struct mvfs_map *m, __u64 key, __u64 *val);
int mvfs_map_put(struct mvfs_map *m, __u64 key, __u64 val);

/* fsck_tree.c */
int mvfs_fsck_trees(struct mvfs_fsck *f);

/* fsck_files.c */
int mvfs_fsck_pack(struct mvfs_fsck *f);
int mvfs_fsck_index(struct mvfs_fsck *f);
int mvfs_fsck_objects(struct mvfs_fsck *f);

/* fsck_views.c */
int mvfs_fsck_areas(struct mvfs_fsck *f);

#endif /* MVFS_FSCK_H */
