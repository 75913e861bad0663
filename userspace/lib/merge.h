/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h: mvfs merge, shared by merge.c (the command: the common
 * ancestor, the walk of what the source changed, the pending merge) and
 * merge_apply.c (what one changed element becomes in the view).
 */
#ifndef MVFS_MERGE_H
#define MVFS_MERGE_H

#include <stdbool.h>
#include <linux/types.h>
#include "work.h"

struct mvfs_merge {
	struct mvfs_wctx	*w;
	__u64			src;	/* the revision merged from */
	__u64			base;	/* the common ancestor */
	__u64			ours;	/* what the view's top selects */
	const char		*srcname;	/* as given, for messages */
	char			**added;	/* new elements, to mkelem */
	size_t			nadded;
	unsigned int		changed;	/* elements written */
	unsigned int		conflicts;
};

int mvfs_merge_elem(struct mvfs_merge *m, const char *path,
		    const struct mvfs_entry_info *b,
		    const struct mvfs_entry_info *t);

#endif /* MVFS_MERGE_H */
