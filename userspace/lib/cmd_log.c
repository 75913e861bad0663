// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_log.c: mvfs log: the revisions, newest first, with their labels,
 * their branch (when not main) and the revision merged into them; those
 * of one branch, or those in which a path changed from their parent.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cmd.h"
#include "err.h"
#include "store.h"

/* " (l1, l2)" for the labels naming REV, or nothing. */
static void mvfs_print_labels(const struct mvfs_store *s, __u64 rev)
{
	struct mvfs_label_info li;
	unsigned int i, n = 0;

	for (i = 0; i < mvfs_store_nlabels(s); i++) {
		mvfs_store_label(s, i, &li);
		if (li.rev != rev)
			continue;
		printf("%s%s", n++ ? ", " : " (", li.name);
	}
	if (n)
		printf(")");
}

static int mvfs_print_rev(struct mvfs_store *s, __u64 rev)
{
	struct mvfs_branch_info bi;
	struct mvfs_rev_info ri;
	char when[32], *msg, *p;
	time_t t;
	struct tm tm;
	int err;

	mvfs_store_rev(s, rev, &ri);
	err = mvfs_store_rev_msg(s, rev, &msg);
	if (err)
		return err;
	for (p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	t = ri.time;
	if (!gmtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(when, sizeof(when), "@%lld", (long long)ri.time);
	printf("%llu\t%s\t%s", rev, when, msg);
	mvfs_print_labels(s, rev);
	if (ri.branch) {
		mvfs_store_branch(s, ri.branch, &bi);
		printf(" [%s]", bi.name);
	}
	if (ri.merge)
		printf(" (merged from %llu)", ri.merge);
	printf("\n");
	free(msg);
	return 0;
}

static bool mvfs_entry_same(const struct mvfs_entry_info *a,
			    const struct mvfs_entry_info *b)
{
	return a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->size == b->size && a->mtime == b->mtime &&
	       a->mtime_nsec == b->mtime_nsec && a->ref == b->ref;
}

/*
 * Mark in CHANGED[rev - 1] the revisions in which PATH changed: it is
 * not as it was in the revision's parent.
 */
static int mvfs_path_changes(struct mvfs_store *s, const char *path,
			     bool *changed, bool *ever)
{
	struct mvfs_entry_info prev = { 0 }, cur = { 0 };
	struct mvfs_rev_info ri;
	int had, has;
	__u64 rev;

	for (rev = 1; rev <= mvfs_store_nrevs(s); rev++) {
		mvfs_store_rev(s, rev, &ri);
		had = mvfs_store_find(s, ri.parent, path, &prev);
		has = had < 0 ? had : mvfs_store_find(s, rev, path, &cur);
		if (has < 0)
			return has;
		changed[rev - 1] = has != had ||
				   (has && !mvfs_entry_same(&prev, &cur));
		*ever |= has;
	}
	return 0;
}

/* Is REV on branch B (-1: any)? */
static bool mvfs_log_on(const struct mvfs_store *s, __u64 rev, int b)
{
	struct mvfs_rev_info ri;

	if (b < 0)
		return true;
	mvfs_store_rev(s, rev, &ri);
	return ri.branch == (unsigned int)b;
}

static int mvfs_log(struct mvfs_ctx *c, struct mvfs_store *s,
		    const char *path, int b)
{
	__u64 n = mvfs_store_nrevs(s), rev;
	bool *changed, ever = !path;
	int err = 0;

	changed = calloc(n ? n : 1, sizeof(*changed));
	if (!changed)
		return mvfs_fail(c, mvfs_err(-ENOMEM, "out of memory"));
	if (path)
		err = mvfs_path_changes(s, path, changed, &ever);
	if (!err && !ever)
		err = mvfs_err(-ENOENT, "%s: in no revision", path);
	for (rev = n; !err && rev >= 1; rev--)
		if ((!path || changed[rev - 1]) && mvfs_log_on(s, rev, b))
			err = mvfs_print_rev(s, rev);
	free(changed);
	return err ? mvfs_fail(c, err) : 0;
}

int mvfs_cmd_log(struct mvfs_ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "branch", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *branch = NULL;
	struct mvfs_store *s;
	int opt, err, b = -1;

	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (opt != 'b')
			return mvfs_opt_common(c, opt, argv);
		branch = optarg;
	}
	err = mvfs_operands(c, argc, 0, 1);
	if (err >= 0)
		return err;
	err = mvfs_store_open(c->store, false, &s);
	if (err)
		return mvfs_fail(c, err);
	if (branch)
		b = mvfs_store_branch_index(s, branch);
	err = b < -1 ? mvfs_fail(c, b) : mvfs_log(c, s, argv[optind], b);
	mvfs_store_close(s);
	return err;
}
