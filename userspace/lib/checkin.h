/* SPDX-License-Identifier: GPL-2.0 */
/*
 * checkin.h: turn a view's element changes into the next revision.
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message.
 */
#ifndef MVFS_CHECKIN_H
#define MVFS_CHECKIN_H

#include "priv.h"
#include "reserve.h"

struct mvfs_checkin {
	struct mvfs_store	*s;	/* open for writing */
	const char		*store_dir;
	const char		*vmnt;	/* where mvfs is mounted */
	const char		*tag;	/* the view, selecting the newest */
	struct mvfs_priv	p;	/* its private area */
	struct mvfs_resv	resv;
	__u64			rev;	/* set: the new revision */
	unsigned int		stale;	/* set: entries that stay private */
};

int mvfs_checkin_select(struct mvfs_checkin *ci, char **paths, int npaths);
int mvfs_checkin_check(struct mvfs_checkin *ci);
int mvfs_checkin_commit(struct mvfs_checkin *ci, const char *msg);
int mvfs_checkin_retire(struct mvfs_checkin *ci);

#endif /* MVFS_CHECKIN_H */
