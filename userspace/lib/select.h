/* SPDX-License-Identifier: GPL-2.0 */
/*
 * select.h: the tree as a view's config spec selects it (select.c).
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message
 * unless the comment says otherwise.
 */
#ifndef MVFS_SELECT_H
#define MVFS_SELECT_H

#include <stdbool.h>
#include <linux/types.h>
#include "mvfs_spec.h"
#include "store.h"

/* A spec compiled against the store as it is open. */
struct mvfs_sel {
	struct mvfs_store	*s;
	const char		*cs;	/* the spec's text */
	struct mvfs_rule	*r;	/* its rules, in order */
	__u64			*rev;	/* what rule i selects now; 0 none */
	__u32			n;
};

int mvfs_sel_make(struct mvfs_store *s, const char *cs, struct mvfs_sel *sel);
void mvfs_sel_free(struct mvfs_sel *sel);
int mvfs_sel_rule(const struct mvfs_sel *sel, const char *path);
__u64 mvfs_sel_rev(const struct mvfs_sel *sel, const char *path);
int mvfs_sel_lookup(const struct mvfs_sel *sel, const char *path,
		    struct mvfs_entry_info *e);

#endif /* MVFS_SELECT_H */
