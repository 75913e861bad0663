/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h: mvfs merge, shared by merge.c (the command: the common
 * ancestor, the walk of what the source changed, the pending merge),
 * merge_apply.c (what one changed element becomes in the view) and
 * merge_keep.c (a write over a file of the view, its bytes kept first).
 */
#ifndef MVFS_MERGE_H
#define MVFS_MERGE_H

#include <stdbool.h>
#include <sys/stat.h>
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

/* merge_keep.c */
bool mvfs_contrib_is(const char *vpath);
int mvfs_contrib_left(const char *vpath);
int mvfs_rewrite_file(struct mvfs_merge *m, const char *src,
		      const char *vpath, const struct stat *st, mode_t mode);

#endif /* MVFS_MERGE_H */
