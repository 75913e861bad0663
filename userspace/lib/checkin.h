/* SPDX-License-Identifier: GPL-2.0 */
/*
 * checkin.h: turn a view's element changes into the next revision.
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message.
 */
#ifndef MVFS_CHECKIN_H
#define MVFS_CHECKIN_H

#include <stdbool.h>
#include "priv.h"
#include "reserve.h"

struct mvfs_checkin {
	struct mvfs_store	*s;	/* open for writing */
	const char		*store_dir;
	const char		*vmnt;	/* where mvfs is mounted */
	const char		*tag;	/* the view */
	const struct mvfs_sel	*sel;	/* what it selects */
	struct mvfs_priv	p;	/* its private area */
	struct mvfs_resv	resv;
	char			branch[MVFS_NAME_MAX + 1];	/* target */
	const char		*first;	/* the first path bound there */
	struct mvfs_rev_place	place;	/* the target, a merge recorded */
	__u64			head;	/* the target's newest revision */
	__u64			rev;	/* set: the new revision */
	unsigned int		stale;	/* set: entries that stay private */
};

bool mvfs_is_change(const struct mvfs_change *ch);
int mvfs_checkin_select(struct mvfs_checkin *ci, char **paths, int npaths);
int mvfs_checkin_commit(struct mvfs_checkin *ci, const char *msg);
int mvfs_checkin_retire(struct mvfs_checkin *ci);

/* ci_check.c */
int mvfs_checkin_target(struct mvfs_checkin *ci);
int mvfs_checkin_check(struct mvfs_checkin *ci);

/* merge.c: the merge a view's next check-in records */
int mvfs_merge_pending(const char *store_dir, const char *tag, __u64 *rev);
void mvfs_merge_done(const char *store_dir, const char *tag);

#endif /* MVFS_CHECKIN_H */
