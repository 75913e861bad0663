/* SPDX-License-Identifier: GPL-2.0 */
/*
 * work.h: the commands of work in a view: lsco, lsprivate, mkelem, diff
 * (work.c), checkin, uncheckout, checkout --reserved and unreserve
 * (work_ci.c), merge (merge.c, merge_apply.c, merge_keep.c).  mvfs.c
 * dispatches them through mvfs_work_run().
 */
#ifndef MVFS_WORK_H
#define MVFS_WORK_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "priv.h"
#include "select.h"
#include "store.h"

/* What the command line gave: mvfs.c fills it in. */
struct mvfs_work_cmd {
	const char	*store;		/* the store directory */
	const char	*view_root;	/* where mvfs is mounted */
	const char	*name;		/* the command */
	const char	*args;		/* its usage line after the name */
	const char	*what;
	const char	*help;
};

#define MVFS_WORK_VIEW_HELP \
	"  -v, --view TAG  act on view TAG (default: the view of view-set)\n"
#define MVFS_WORK_PATH_HELP \
	"  PATH  /view/TAG/..., /vob/... in the view, relative to a working\n" \
	"        directory in the view, or else from the top of the tree\n"

int mvfs_work_run(const struct mvfs_work_cmd *wc, int argc, char **argv);

/* Shared by work.c and work_ci.c. */
struct mvfs_wctx {
	const struct mvfs_work_cmd	*wc;
	char			tag[MVFS_NAME_MAX + 1];
	struct mvfs_view_info	vi;
	struct mvfs_sel		sel;	/* what the view selects */
	struct mvfs_store	*s;
	char			**paths;	/* element paths */
	char			**sorted;	/* the same, mvfs_path_order() */
	int			npaths;
	const char		*msg;		/* -m */
	bool			rm;		/* --rm */
	bool			reserved;	/* --reserved */
	const char		*from;		/* --from */
};

int mvfs_w_fail(struct mvfs_wctx *w, int err);
bool mvfs_w_wanted(const struct mvfs_wctx *w, const struct mvfs_change *ch);

int mvfs_w_checkin(struct mvfs_wctx *w);
int mvfs_w_uncheckout(struct mvfs_wctx *w);
int mvfs_w_checkout(struct mvfs_wctx *w);
int mvfs_w_unreserve(struct mvfs_wctx *w);
int mvfs_w_mark(struct mvfs_priv *p, struct mvfs_change *ch);
int mvfs_copy_file(const char *src, const char *dst, int flags, mode_t mode);

/* merge.c */
int mvfs_w_merge(struct mvfs_wctx *w);

#endif /* MVFS_WORK_H */
