// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_view.c: the mvfs subcommands that make, list, remove, start and
 * end views, and say which one the caller is in.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "err.h"
#include "lease.h"
#include "reload.h"
#include "store.h"
#include "viewroot.h"
#include "mvfs_spec.h"
#include <unistd.h>

/* Helpers every subcommand uses. */

static const struct option mvfs_help_opt[] = {
	{ "help", no_argument, NULL, 'h' },
	{ }
};

static void mvfs_usage(const struct mvfs_ctx *c, FILE *f)
{
	fprintf(f, "usage: mvfs [--store DIR] %s%s%s\n%s.\n%s",
		c->cmd->name, *c->cmd->args ? " " : "", c->cmd->args,
		c->cmd->what, c->cmd->help);
}

/* Bad usage: say why, show the usage, exit status 2. */
int mvfs_bad_usage(const struct mvfs_ctx *c, const char *why,
		   const char *arg)
{
	fprintf(stderr, "mvfs: %s: %s%s%s\n", c->cmd->name, why,
		arg ? ": " : "", arg ? arg : "");
	mvfs_usage(c, stderr);
	return MVFS_EXIT_USAGE;
}

/* A failure: the library's message, exit status 1. */
int mvfs_fail(const struct mvfs_ctx *c, int err)
{
	fprintf(stderr, "mvfs: %s: %s\n", c->cmd->name, mvfs_errmsg(err));
	return MVFS_EXIT_FAIL;
}

/* getopt_long's answers that every command treats alike. */
int mvfs_opt_common(const struct mvfs_ctx *c, int opt, char **argv)
{
	if (opt == 'h') {
		mvfs_usage(c, stdout);
		return 0;
	}
	if (opt == ':')
		return mvfs_bad_usage(c, "option needs an argument",
				      argv[optind - 1]);
	return mvfs_bad_usage(c, "unknown option", argv[optind - 1]);
}

/* Check that the operands left after the options number MIN..MAX. */
int mvfs_operands(const struct mvfs_ctx *c, int argc, int min,
		  int max)
{
	if (argc - optind < min)
		return mvfs_bad_usage(c, "missing operand", NULL);
	if (argc - optind > max)
		return mvfs_bad_usage(c, "extra operand", NULL);
	return -1;
}

/*
 * For commands whose only option is --help: parse it and check that
 * MIN..MAX operands follow.  -1 to go on, or an exit status.
 */
int mvfs_opts_none(const struct mvfs_ctx *c, int argc, char **argv,
		   int min, int max)
{
	int opt = getopt_long(argc, argv, ":h", mvfs_help_opt, NULL);

	if (opt != -1)
		return mvfs_opt_common(c, opt, argv);
	return mvfs_operands(c, argc, min, max);
}

/* Tell the mount about a committed change; a refusal is only a warning. */
int mvfs_changed(const struct mvfs_ctx *c)
{
	int err = mvfs_reload(c->view_root);

	if (err)
		fprintf(stderr, "mvfs: the mounted %s %s: %s\n", c->view_root,
			"did not accept the new state", strerror(-err));
	return 0;
}

/* A revision number: decimal digits (0 is a number, of no revision). */
bool mvfs_parse_rev(const char *s, __u64 *rev)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*rev = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* Open the store for writing, or say why not. */
int mvfs_open_rw(struct mvfs_ctx *c, struct mvfs_store **s)
{
	int err = mvfs_store_open(c->store, true, s);

	return err ? mvfs_fail(c, err) : 0;
}

/**
 * mvfs_rev_arg - the revision an operand names
 * @s: the store
 * @arg: a revision number or a label; NULL for the newest on main
 * @rev: set to the revision
 *
 * Return: 0, or -ENOENT with a message.
 */
int mvfs_rev_arg(struct mvfs_store *s, const char *arg, __u64 *rev)
{
	if (!arg) {
		*rev = mvfs_store_branch_head(s, 0);
		if (!*rev)
			return mvfs_err(-ENOENT, "no revisions yet");
		return 0;
	}
	if (mvfs_parse_rev(arg, rev))
		return 0;
	*rev = mvfs_store_label_rev(s, arg);
	if (!*rev)
		return mvfs_err(-ENOENT, "no revision or label \"%s\"", arg);
	return 0;
}

static int mvfs_add_view(struct mvfs_ctx *c, struct mvfs_view_info *vi)
{
	struct mvfs_store *s;
	int err;

	err = mvfs_open_rw(c, &s);
	if (err)
		return err;
	if (vi->uid == (__u32)-1) {
		vi->uid = getuid();
		vi->gid = getgid();
	}
	err = mvfs_store_add_view(s, vi);
	mvfs_store_close(s);
	if (err)
		return mvfs_fail(c, err);
	return mvfs_changed(c);
}

/* --owner UID[:GID]: 0, or an exit status. */
static int mvfs_parse_owner(const struct mvfs_ctx *c, const char *arg,
			    struct mvfs_view_info *vi)
{
	unsigned long uid, gid;
	char *end;

	uid = strtoul(arg, &end, 10);
	gid = uid;
	if (*end == ':')
		gid = strtoul(end + 1, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || uid >= (__u32)-1 ||
	    gid >= (__u32)-1)
		return mvfs_bad_usage(c, "bad owner (UID[:GID])", arg);
	vi->uid = uid;
	vi->gid = gid;
	return 0;
}

/* mkview's selection, until it becomes the view's spec. */
struct mvfs_mkview {
	struct mvfs_view_info	vi;
	int			nsel;
	char			*cs;	/* the spec to install */
};

/* The one-rule spec "element * WORD"; 0 or an exit status. */
static int mvfs_mkview_rule(struct mvfs_ctx *c, struct mvfs_mkview *m,
			    const char *word)
{
	free(m->cs);
	if (asprintf(&m->cs, "element * %s\n", word) < 0) {
		m->cs = NULL;
		return mvfs_fail(c, mvfs_err(-ENOMEM, "out of memory"));
	}
	return 0;
}

/* One of mkview's options; 0 to go on, or an exit status. */
static int mvfs_mkview_opt(struct mvfs_ctx *c, int opt, char **argv,
			   struct mvfs_mkview *m)
{
	unsigned long mode;
	__u64 rev;
	char *end;
	int err;

	switch (opt) {
	case 'r':
		if (!mvfs_parse_rev(optarg, &rev))
			return mvfs_bad_usage(c, "bad revision", optarg);
		err = mvfs_mkview_rule(c, m, optarg);
		break;
	case 'l':
		/* A label's name: not a number, nor a branch's BRANCH/LATEST. */
		if (!mvfs_name_valid(optarg) ||
		    strspn(optarg, "0123456789") == strlen(optarg))
			return mvfs_bad_usage(c, "bad label name", optarg);
		err = mvfs_mkview_rule(c, m, optarg);
		break;
	case 'L':
		err = mvfs_mkview_rule(c, m, MVFS_SPEC_LATEST);
		break;
	case 'C':
		free(m->cs);
		m->cs = NULL;
		err = mvfs_spec_read_file(optarg, &m->cs);
		if (err)
			return mvfs_fail(c, err);
		break;
	case 'O':
		return mvfs_parse_owner(c, optarg, &m->vi);
	case 'M':
		mode = strtoul(optarg, &end, 8);
		if (!*optarg || *end || mode > 0777)
			return mvfs_bad_usage(c, "bad mode (octal, 0 to 0777)",
					      optarg);
		m->vi.mode = mode;
		return 0;
	default:
		return mvfs_opt_common(c, opt, argv);
	}
	if (err)
		return err;
	if (++m->nsel > 1)
		return mvfs_bad_usage(c, "give one of --rev, --label, --latest, --cs",
				      NULL);
	return 0;
}

static int mvfs_mkview_args(struct mvfs_ctx *c, int argc, char **argv,
			    struct mvfs_mkview *m)
{
	static const struct option opts[] = {
		{ "rev", required_argument, NULL, 'r' },
		{ "label", required_argument, NULL, 'l' },
		{ "latest", no_argument, NULL, 'L' },
		{ "cs", required_argument, NULL, 'C' },
		{ "mode", required_argument, NULL, 'M' },
		{ "owner", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		ret = mvfs_mkview_opt(c, opt, argv, m);
		if (opt == 'h' || ret)
			return ret;
	}
	ret = mvfs_operands(c, argc, 1, 1);
	if (ret >= 0)
		return ret;
	if (strlen(argv[optind]) >= sizeof(m->vi.tag))
		return mvfs_fail(c, mvfs_name_check("view tag", argv[optind]));
	snprintf(m->vi.tag, sizeof(m->vi.tag), "%s", argv[optind]);
	if (!m->cs)
		return mvfs_mkview_rule(c, m, MVFS_SPEC_LATEST);
	return 0;
}

int mvfs_cmd_mkview(struct mvfs_ctx *c, int argc, char **argv)
{
	struct mvfs_mkview m = {
		.vi = { .mode = 0755, .uid = (__u32)-1 },
	};
	int ret;

	ret = mvfs_mkview_args(c, argc, argv, &m);
	if (ret < 0 || (!ret && m.cs)) {
		m.vi.cs = m.cs;
		ret = mvfs_add_view(c, &m.vi);
	}
	free(m.cs);
	return ret;
}

int mvfs_cmd_rmview(struct mvfs_ctx *c, int argc, char **argv)
{
	struct mvfs_store *s;
	int err;

	err = mvfs_opts_none(c, argc, argv, 1, 1);
	if (err >= 0)
		return err;
	err = mvfs_viewroot_idle(c->view_root, argv[optind]);
	if (!err)
		err = mvfs_lease_idle(c->store, argv[optind]);
	if (err)
		return mvfs_fail(c, err);
	err = mvfs_open_rw(c, &s);
	if (err)
		return err;
	err = mvfs_store_remove_view(s, argv[optind]);
	mvfs_store_close(s);
	if (err)
		return mvfs_fail(c, err);
	return mvfs_changed(c);
}

/*
 * "TAG<TAB>what it selects<TAB>the revision it shows"; HEAD: main's
 * newest revision, found once for all LATEST views (a search from the
 * newest revision back, which a busy branch beside main makes long).
 */
static void mvfs_print_view(const struct mvfs_store *s, unsigned int i,
			    __u64 head)
{
	char label[MVFS_NAME_MAX + 1];
	struct mvfs_view_info vi;
	enum mvfs_select sel;
	__u64 rev;

	mvfs_store_view(s, i, &vi);
	if (!mvfs_spec_one(vi.cs, &sel, label, &rev)) {
		printf("%s\tspec\t-\n", vi.tag);
	} else if (sel == MVFS_SEL_REV) {
		printf("%s\trev %llu\t%llu\n", vi.tag, rev, rev);
	} else if (sel == MVFS_SEL_LABEL) {
		printf("%s\tlabel %s\t%llu\n", vi.tag, label,
		       mvfs_store_label_rev(s, label));
	} else {
		printf("%s\tlatest\t%llu\n", vi.tag, head);
	}
}

/**
 * mvfs_list_cmd - a command that lists records, one a line
 * @c: the command
 * @argc: its arguments (only --help)
 * @argv: ...
 * @list: print them; 0, or -errno with a message
 *
 * Return: the exit status.
 */
int mvfs_list_cmd(struct mvfs_ctx *c, int argc, char **argv,
		  int (*list)(const struct mvfs_store *s))
{
	struct mvfs_store *s;
	int err;

	err = mvfs_opts_none(c, argc, argv, 0, 0);
	if (err >= 0)
		return err;
	err = mvfs_store_open(c->store, false, &s);
	if (err)
		return mvfs_fail(c, err);
	err = list(s);
	mvfs_store_close(s);
	return err ? mvfs_fail(c, err) : 0;
}

static int mvfs_list_views(const struct mvfs_store *s)
{
	__u64 head = mvfs_store_branch_head(s, 0);
	unsigned int i;

	for (i = 0; i < mvfs_store_nviews(s); i++)
		mvfs_print_view(s, i, head);
	return 0;
}

int mvfs_cmd_lsview(struct mvfs_ctx *c, int argc, char **argv)
{
	return mvfs_list_cmd(c, argc, argv, mvfs_list_views);
}

/* REV of "label NAME REV": a number, or a label naming one. */
int mvfs_cmd_startview(struct mvfs_ctx *c, int argc, char **argv)
{
	const char *tag;
	int err;

	err = mvfs_opts_none(c, argc, argv, 1, 1);
	if (err >= 0)
		return err;
	tag = argv[optind];
	err = mvfs_name_check("view tag", tag);
	if (err)
		return mvfs_fail(c, err);
	/* Only root starts views: others get viewroot's own refusal. */
	err = geteuid() ? 0 : mvfs_lease_take(c->store, tag);
	if (!err) {
		err = mvfs_viewroot_start(c->view_root, tag);
		/* Started here already: the lease stays with that start. */
		if (err && err != -EEXIST)
			mvfs_lease_drop(c->store, tag);
	}
	return err ? mvfs_fail(c, err) : 0;
}

int mvfs_cmd_endview(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool force = false;
	int opt, err;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt != 'f')
			return mvfs_opt_common(c, opt, argv);
		force = true;
	}
	err = mvfs_operands(c, argc, 1, 1);
	if (err >= 0)
		return err;
	err = mvfs_viewroot_end(c->view_root, argv[optind], force);
	if (!err || err == -ENOENT)
		mvfs_lease_drop(c->store, argv[optind]);
	return err ? mvfs_fail(c, err) : 0;
}

int mvfs_cmd_pwv(struct mvfs_ctx *c, int argc, char **argv)
{
	char tag[MVFS_NAME_FIELD];
	int err;

	err = mvfs_opts_none(c, argc, argv, 0, 0);
	if (err >= 0)
		return err;
	err = mvfs_viewroot_pwv(c->view_root, tag, sizeof(tag));
	if (err)
		return mvfs_fail(c, err);
	printf("%s\n", *tag ? tag : "** NONE **");
	return 0;
}

/* The commands of work in a view: lib/work.c. */
