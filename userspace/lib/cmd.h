/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd.h: what the mvfs command's files share: its context, the helpers
 * every subcommand uses (cmd_view.c), and the subcommands of views
 * (cmd_view.c), config specs (cmd_spec.c), branches (cmd_branch.c) and
 * history (cmd_log.c).
 */
#ifndef MVFS_CMD_H
#define MVFS_CMD_H

#include <stdbool.h>
#include <linux/types.h>
#include "store.h"

#define MVFS_EXIT_FAIL	1
#define MVFS_EXIT_USAGE	2

struct mvfs_ctx;

struct mvfs_cmd {
	const char	*name;
	int		(*run)(struct mvfs_ctx *c, int argc, char **argv);
	const char	*args;		/* the usage line after the name */
	const char	*what;		/* one line */
	const char	*help;		/* the options, for --help */
};

struct mvfs_ctx {
	const char		*store;		/* the store directory */
	const char		*view_root;	/* where mvfs is mounted */
	const struct mvfs_cmd	*cmd;
};

int mvfs_bad_usage(const struct mvfs_ctx *c, const char *why,
		   const char *arg);
int mvfs_fail(const struct mvfs_ctx *c, int err);
int mvfs_opt_common(const struct mvfs_ctx *c, int opt, char **argv);
int mvfs_operands(const struct mvfs_ctx *c, int argc, int min,
		  int max);
int mvfs_opts_none(const struct mvfs_ctx *c, int argc, char **argv,
		   int min, int max);
int mvfs_changed(const struct mvfs_ctx *c);
bool mvfs_parse_rev(const char *s, __u64 *rev);
int mvfs_open_rw(struct mvfs_ctx *c, struct mvfs_store **s);
int mvfs_rev_arg(struct mvfs_store *s, const char *arg, __u64 *rev);
int mvfs_list_cmd(struct mvfs_ctx *c, int argc, char **argv,
		  int (*list)(const struct mvfs_store *s));

int mvfs_cmd_mkview(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_rmview(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_lsview(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_startview(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_endview(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_pwv(struct mvfs_ctx *c, int argc, char **argv);

/* cmd_spec.c */
int mvfs_spec_read_file(const char *path, char **cs);
int mvfs_cmd_setcs(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_catcs(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_edcs(struct mvfs_ctx *c, int argc, char **argv);

/* cmd_branch.c */
int mvfs_cmd_mkbranch(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_lsbranch(struct mvfs_ctx *c, int argc, char **argv);
int mvfs_cmd_rmbranch(struct mvfs_ctx *c, int argc, char **argv);

/* cmd_log.c */
int mvfs_cmd_log(struct mvfs_ctx *c, int argc, char **argv);

#endif /* MVFS_CMD_H */
