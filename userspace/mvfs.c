// SPDX-License-Identifier: GPL-2.0
/*
 * mvfs.c: the mvfs command.  Makes a store, imports trees into it as
 * revisions, labels them, and makes the views that the mount at /view
 * shows.  Everything about the store goes through lib/store.h; after each
 * change the mount is told to read the store again (lib/reload.h).
 *
 * Exit status: 0 done, 1 failed (nothing changed), 2 bad usage.  A change
 * that is committed but whose durability could not be made sure (the
 * fsync of the store directory failed) exits 0 with a warning: the change
 * is what every reader sees.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "err.h"
#include "import.h"
#include "reload.h"
#include "store.h"
#include "viewroot.h"
#include "work.h"

#define MVFS_STR(x)	#x
#define MVFS_XSTR(x)	MVFS_STR(x)	/* a macro's value, as a string */

static int mvfs_cmd_init(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int format = MVFS_FORMAT;
	__u64 n;
	int opt, err;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt != 'f')
			return mvfs_opt_common(c, opt, argv);
		if (!mvfs_parse_rev(optarg, &n) || n < MVFS_FORMAT_MIN ||
		    n > MVFS_FORMAT)
			return mvfs_bad_usage(c, "no such format", optarg);
		format = n;
	}
	err = mvfs_operands(c, argc, 0, 0);
	if (err >= 0)
		return err;
	err = mvfs_store_init(c->store, format);
	if (err)
		return mvfs_fail(c, err);
	return mvfs_changed(c);
}

/* Say once what the imported tree had that the revision does not keep. */
static void mvfs_warn_dropped(unsigned int dropped)
{
	if (!dropped)
		return;
	fprintf(stderr, "mvfs: import: warning: not kept:%s%s%s %s\n",
		dropped & MVFS_DROPPED_XATTR ? " extended attributes" : "",
		dropped & MVFS_DROPPED_CAPS ? " (file capabilities too)" : "",
		dropped & MVFS_DROPPED_SPARSE ? " holes of sparse files" : "",
		"(a revision keeps mode, owner, size, mtime, content and symlink targets)");
}

static int mvfs_do_import(struct mvfs_ctx *c, const char *dir,
			  const char *msg)
{
	unsigned int dropped = 0;
	struct mvfs_store *s;
	__u64 rev;
	int err;

	err = mvfs_store_open(c->store, true, &s);
	if (err)
		return mvfs_fail(c, err);
	err = mvfs_import(s, dir, msg, &rev, &dropped);
	mvfs_store_close(s);
	if (err)
		return mvfs_fail(c, err);
	mvfs_warn_dropped(dropped);
	printf("revision %llu\n", rev);
	return mvfs_changed(c);
}

static int mvfs_cmd_import(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "message", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *msg = NULL;
	int opt, err;

	while ((opt = getopt_long(argc, argv, ":hm:", opts, NULL)) != -1) {
		if (opt != 'm')
			return mvfs_opt_common(c, opt, argv);
		msg = optarg;
	}
	err = mvfs_operands(c, argc, 1, 1);
	if (err >= 0)
		return err;
	if (!msg)
		return mvfs_bad_usage(c, "-m MSG is required", NULL);
	return mvfs_do_import(c, argv[optind], msg);
}

static int mvfs_do_label(struct mvfs_ctx *c, const char *name,
			 const char *arg, bool replace)
{
	struct mvfs_store *s;
	__u64 rev;
	int err;

	err = mvfs_open_rw(c, &s);
	if (err)
		return err;
	err = mvfs_rev_arg(s, arg, &rev);
	if (!err)
		err = mvfs_store_set_label(s, name, rev, replace);
	mvfs_store_close(s);
	if (err == -EEXIST) {
		fprintf(stderr, "mvfs: label: %s; --replace moves it\n",
			mvfs_errmsg(err));
		return MVFS_EXIT_FAIL;
	}
	if (err)
		return mvfs_fail(c, err);
	return mvfs_changed(c);
}

static int mvfs_cmd_label(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "replace", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool replace = false;
	int opt, err;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt != 'R')
			return mvfs_opt_common(c, opt, argv);
		replace = true;
	}
	err = mvfs_operands(c, argc, 1, 2);
	if (err >= 0)
		return err;
	return mvfs_do_label(c, argv[optind], argv[optind + 1], replace);
}

static int mvfs_cmd_upgrade(struct mvfs_ctx *c, int argc, char **argv)
{
	struct mvfs_store *s;
	unsigned int was, now;
	int err;

	err = mvfs_opts_none(c, argc, argv, 0, 0);
	if (err >= 0)
		return err;
	err = mvfs_open_rw(c, &s);
	if (err)
		return err;
	err = mvfs_store_upgrade(s, &was);
	now = mvfs_store_format(s);
	mvfs_store_close(s);
	if (err)
		return mvfs_fail(c, err);
	if (was == now)
		printf("store %s: format %u already\n", c->store, was);
	else
		printf("store %s: format %u, was %u\n", c->store, now, was);
	return mvfs_changed(c);
}

static int mvfs_cmd_fsck(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repair", no_argument, NULL, 'r' },
		{ "full", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int flags = 0, problems, left;
	int opt, err;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt == 'r')
			flags |= MVFS_FSCK_REPAIR;
		else if (opt == 'f')
			flags |= MVFS_FSCK_FULL;
		else
			return mvfs_opt_common(c, opt, argv);
	}
	err = mvfs_operands(c, argc, 0, 0);
	if (err >= 0)
		return err;
	err = mvfs_store_fsck(c->store, flags, &problems, &left);
	if (err)
		return mvfs_fail(c, err);
	if (problems)
		fprintf(stderr, "mvfs: fsck: %u problems, %u repaired\n",
			problems, problems - left);
	if (problems != left)
		mvfs_changed(c);
	return left ? MVFS_EXIT_FAIL : 0;
}

static int mvfs_cmd_work(struct mvfs_ctx *c, int argc, char **argv)
{
	const struct mvfs_work_cmd wc = {
		.store = c->store, .view_root = c->view_root,
		.name = c->cmd->name, .args = c->cmd->args,
		.what = c->cmd->what, .help = c->cmd->help,
	};

	return mvfs_work_run(&wc, argc, argv);
}

static const struct mvfs_cmd mvfs_cmds[] = {
	{ "init", mvfs_cmd_init, "[--format N]",
	  "Make an empty store in the store directory",
	  "  --format N  the store's format, " MVFS_XSTR(MVFS_FORMAT_MIN)
	  " to " MVFS_XSTR(MVFS_FORMAT) " (" MVFS_XSTR(MVFS_FORMAT)
	  " by default).  An older one\n"
	  "              is for machines whose module reads no newer:\n"
	  "              format 1 has read-only views, format 2 no branches\n"
	  "              and one-rule specs only\n" },
	{ "upgrade", mvfs_cmd_upgrade, "",
	  "Make a store of format 1 or 2 format 3 (branches, config specs)",
	  "  Makes views/ and each view's area, stores each view's selection\n"
	  "  as its one-rule spec, then commits the new format; until then\n"
	  "  the store keeps its format.  Safe to run again.\n" },
	{ "fsck", mvfs_cmd_fsck, "[--repair] [--full]",
	  "Check the store against every rule of its format",
	  "  Prints each problem on a line; exit status 1 if any is left.\n"
	  "  --repair  remove garbage (bytes past the committed ends,\n"
	  "            leftover temporary files, objects no revision\n"
	  "            refers to, areas of no view) and make missing view\n"
	  "            areas; committed history is never removed\n"
	  "  --full    also check the content hash of every object, tree,\n"
	  "            symlink target and view's config spec\n" },
	{ "import", mvfs_cmd_import, "DIR -m MSG",
	  "Store the tree under DIR as the next revision; print its number",
	  "  -m, --message MSG  what the revision is (required)\n"
	  "  A revision keeps names, types, mode (all 12 bits), owner, size,\n"
	  "  mtime, content and symlink targets.  Not kept: atime, ctime,\n"
	  "  hard links (each name is stored alone), extended attributes\n"
	  "  (ACLs, file capabilities) and holes; a warning says when the\n"
	  "  last two were present.\n" },
	{ "mkview", mvfs_cmd_mkview,
	  "TAG [--rev N | --label L | --latest | --cs FILE] [--mode OCTAL]\n"
	  "      [--owner U:G]",
	  "Make view TAG, shown at /view/TAG",
	  "  --rev N       the view shows revision N (element * N)\n"
	  "  --label L     the revision label L names, following L\n"
	  "  --latest      the newest revision on main, following check-ins\n"
	  "                (element * LATEST; the default)\n"
	  "  --cs FILE     select by the config spec in FILE (- stdin)\n"
	  "  --mode OCTAL  who may enter it with view-set, as the x bits of\n"
	  "                a directory (default 755: everyone)\n"
	  "  --owner UID[:GID]  its owner (default: the caller)\n" },
	{ "rmview", mvfs_cmd_rmview, "TAG",
	  "Remove view TAG; refused while it is started or files are open",
	  "" },
	{ "startview", mvfs_cmd_startview, "TAG",
	  "Build view TAG's root in " MVFS_VIEWROOTS " and register it (root)",
	  "A view is started on one machine at a time: refused while another\n"
	  "machine sharing the store has it started (its lease, held until\n"
	  "endview there, or until its NFS lease expires if it died)\n" },
	{ "endview", mvfs_cmd_endview, "TAG [--force]",
	  "Unregister and unmount view TAG's root (root)",
	  "  --force  even while processes are set to it or files are open\n" },
	{ "pwv", mvfs_cmd_pwv, "",
	  "Print the view this process is set to, or ** NONE **", "" },
	{ "lsview", mvfs_cmd_lsview, "",
	  "List the views: TAG, what it selects, the revision it shows now",
	  "" },
	{ "setcs", mvfs_cmd_setcs, "TAG FILE|-",
	  "Give view TAG the config spec in FILE (- stdin), atomically",
	  "  A spec with an error is refused whole, with its line number;\n"
	  "  the view keeps its old spec.  Rules, one a line:\n"
	  "    element PATTERN LATEST|BRANCH/LATEST|REV|LABEL [-mkbranch B]\n" },
	{ "catcs", mvfs_cmd_catcs, "TAG", "Print view TAG's config spec", "" },
	{ "edcs", mvfs_cmd_edcs, "TAG",
	  "Edit view TAG's config spec with $EDITOR (default vi), then\n"
	  "install it as setcs does", "" },
	{ "mkbranch", mvfs_cmd_mkbranch, "NAME [--from REV|LABEL]",
	  "Make branch NAME from a revision (default: the newest on main)",
	  "" },
	{ "lsbranch", mvfs_cmd_lsbranch, "",
	  "List the branches: NAME, FROM, NEWEST, revisions on it", "" },
	{ "rmbranch", mvfs_cmd_rmbranch, "NAME",
	  "Remove branch NAME; refused while it holds revisions or a view's\n"
	  "spec names it", "" },
	{ "label", mvfs_cmd_label, "NAME [REV] [--replace]",
	  "Make label NAME name revision REV (default: the newest on main)",
	  "  REV        a revision number, or a label\n"
	  "  --replace  move the label if it exists\n" },
	{ "log", mvfs_cmd_log, "[--branch B] [PATH]",
	  "List the revisions, newest first, or those that changed PATH;\n"
	  "[B] after a revision of branch B, (merged from N) after a merge",
	  "  --branch B  only the revisions on branch B\n"
	  "  PATH  an element, from the top of the tree (\"src/a.c\"): list\n"
	  "        the revisions in which it came, changed or went away\n"
	  "        (compared with each revision's parent)\n" },
	{ "lsco", mvfs_cmd_work, "[-v TAG] [PATH...]",
	  "List the elements the view changed: M path, D path (removed),\n"
	  "R old -> new (moved), with the revision each was copied from;\n"
	  "A path for new elements (mkelem)",
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ "lsprivate", mvfs_cmd_work, "[-v TAG] [PATH...]",
	  "List the view-private files and directories (not elements)",
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ "mkelem", mvfs_cmd_work, "[-v TAG] PATH...",
	  "Make view-private files, directories or symlinks elements, added\n"
	  "at the next check-in (with the view-private directories above)",
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ "checkin", mvfs_cmd_work, "[-v TAG] [PATH...] -m MSG",
	  "Make the next revision: the newest one plus the view's element\n"
	  "changes (all, or those at or under PATH); print its number",
	  "  -m, --message MSG  what the revision is (required)\n"
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ "uncheckout", mvfs_cmd_work, "[-v TAG] [--rm] PATH...",
	  "Drop the view's change to PATH; keep its content as PATH.keep;\n"
	  "a directory moved goes back (what changed in it stays changed)",
	  "  --rm    keep no copy\n"
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ "diff", mvfs_cmd_work, "[-v TAG] [PATH...]",
	  "Show the changed files as unified diffs against the revision\n"
	  "each was copied from (diff -u)",
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ "checkout", mvfs_cmd_work, "[-v TAG] --reserved PATH",
	  "Reserve element PATH: only this view may check it in, until it\n"
	  "does or unreserves it",
	  "  --reserved  (required)\n" MVFS_WORK_VIEW_HELP
	  MVFS_WORK_PATH_HELP },
	{ "merge", mvfs_cmd_work, "[-v TAG] --from BRANCH|REV [PATH...]",
	  "Merge into the view what BRANCH (its newest revision) or REV\n"
	  "changed since the common ancestor; exit 1 if conflicts are left",
	  "  An element changed on one side takes that side; a text file\n"
	  "  changed on both gets diff3 -m's line merge, conflicts marked\n"
	  "  <<<<<<< ======= >>>>>>>; binary files, type changes and removals\n"
	  "  against changes are listed and left.  The next checkin records\n"
	  "  the merge.\n"
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ "unreserve", mvfs_cmd_work, "[-v TAG] PATH",
	  "Give up the view's reservation of element PATH",
	  MVFS_WORK_VIEW_HELP MVFS_WORK_PATH_HELP },
	{ }
};

static void mvfs_main_usage(FILE *f)
{
	const struct mvfs_cmd *cmd;

	fprintf(f, "%s\n\nCommands:\n",
		"usage: mvfs [--store DIR] [--view-root DIR] [--wait S] COMMAND [ARGS]");
	for (cmd = mvfs_cmds; cmd->name; cmd++)
		fprintf(f, "  %s%s%s\n      %s\n", cmd->name,
			*cmd->args ? " " : "", cmd->args, cmd->what);
	fprintf(f, "\nOptions:\n"
		"  --store DIR      the store\n"
		"                   (default: $MVFS_STORE_DIR, or %s)\n"
		"  --view-root DIR  where mvfs is mounted, told of changes\n"
		"                   (default: $MVFS_VIEW_ROOT, or %s)\n"
		"  --wait SECONDS   how long to wait for another command that\n"
		"                   changes the store (default 60)\n"
		"\"mvfs COMMAND --help\" describes a command.\n",
		MVFS_STORE_DEFAULT, MVFS_VIEW_ROOT_DEFAULT);
}

/* --wait SECONDS; 0, or -1 after saying why it is bad usage. */
static int mvfs_parse_wait(const char *arg)
{
	unsigned long secs;
	char *end;

	errno = 0;
	secs = strtoul(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || secs > 86400) {
		fprintf(stderr, "mvfs: bad --wait: %s (seconds, 0 to 86400)\n",
			arg);
		mvfs_main_usage(stderr);
		return -1;
	}
	mvfs_store_set_wait(secs);
	return 0;
}

/* The options before the command; -1 to go on, or an exit status. */
static int mvfs_main_opts(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "view-root", required_argument, NULL, 'v' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			c->store = optarg;
			break;
		case 'v':
			c->view_root = optarg;
			break;
		case 'w':
			if (mvfs_parse_wait(optarg))
				return MVFS_EXIT_USAGE;
			break;
		case 'h':
			mvfs_main_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "mvfs: bad option: %s\n",
				argv[optind - 1]);
			mvfs_main_usage(stderr);
			return MVFS_EXIT_USAGE;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct mvfs_ctx c = {
		.store = mvfs_env("MVFS_STORE_DIR", MVFS_STORE_DEFAULT),
		.view_root = mvfs_env("MVFS_VIEW_ROOT", MVFS_VIEW_ROOT_DEFAULT),
	};
	int ret;

	opterr = 0;
	ret = mvfs_main_opts(&c, argc, argv);
	if (ret >= 0)
		return ret;
	if (optind == argc) {
		mvfs_main_usage(stderr);
		return MVFS_EXIT_USAGE;
	}
	for (c.cmd = mvfs_cmds; c.cmd->name; c.cmd++)
		if (!strcmp(c.cmd->name, argv[optind]))
			break;
	if (!c.cmd->name) {
		fprintf(stderr, "mvfs: unknown command: %s\n", argv[optind]);
		mvfs_main_usage(stderr);
		return MVFS_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	optind = 0;	/* glibc: start afresh, at argv[1] */
	return c.cmd->run(&c, argc, argv);
}
