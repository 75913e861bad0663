// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_branch.c: the mvfs subcommands of branches: mkbranch, lsbranch,
 * rmbranch.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cmd.h"
#include "err.h"
#include "store.h"

int mvfs_cmd_mkbranch(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *from = NULL;
	struct mvfs_store *s;
	int opt, err;
	__u64 rev;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt != 'f')
			return mvfs_opt_common(c, opt, argv);
		from = optarg;
	}
	err = mvfs_operands(c, argc, 1, 1);
	if (err >= 0)
		return err;
	err = mvfs_open_rw(c, &s);
	if (err)
		return err;
	err = mvfs_rev_arg(s, from, &rev);
	if (!err)
		err = mvfs_store_add_branch(s, argv[optind], rev);
	mvfs_store_close(s);
	if (err)
		return mvfs_fail(c, err);
	return mvfs_changed(c);
}

/* "NAME<TAB>FROM<TAB>NEWEST<TAB>REVISIONS" */
static int mvfs_list_branches(const struct mvfs_store *s)
{
	struct mvfs_branch_info *bi = mvfs_store_branches(s);
	unsigned int i;

	if (!bi)
		return -ENOMEM;
	for (i = 0; i < mvfs_store_nbranches(s); i++)
		printf("%s\t%llu\t%llu\t%llu\n", bi[i].name, bi[i].from,
		       bi[i].head, bi[i].nrevs);
	free(bi);
	return 0;
}

int mvfs_cmd_lsbranch(struct mvfs_ctx *c, int argc, char **argv)
{
	return mvfs_list_cmd(c, argc, argv, mvfs_list_branches);
}

int mvfs_cmd_rmbranch(struct mvfs_ctx *c, int argc, char **argv)
{
	struct mvfs_store *s;
	int err;

	err = mvfs_opts_none(c, argc, argv, 1, 1);
	if (err >= 0)
		return err;
	err = mvfs_open_rw(c, &s);
	if (err)
		return err;
	err = mvfs_store_remove_branch(s, argv[optind]);
	mvfs_store_close(s);
	if (err)
		return mvfs_fail(c, err);
	return mvfs_changed(c);
}
