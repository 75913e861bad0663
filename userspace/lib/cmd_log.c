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

/* The labels, newest revision first, each revision's in their order. */
struct mvfs_log_labels {
	struct mvfs_log_label {
		__u64		rev;
		unsigned int	i;	/* its index in the state */
	}		*v;
	unsigned int	n, next;	/* next: the first not printed */
};

static int mvfs_log_label_cmp(const void *a, const void *b)
{
	const struct mvfs_log_label *x = a, *y = b;

	if (x->rev != y->rev)
		return x->rev < y->rev ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Sort the labels by revision once: a log that searched all of them
 * for each revision took time in revisions times labels.
 */
static int mvfs_log_labels_get(const struct mvfs_store *s,
			       struct mvfs_log_labels *l)
{
	struct mvfs_label_info li;
	unsigned int i;

	l->n = mvfs_store_nlabels(s);
	l->next = 0;
	l->v = calloc(l->n ? l->n : 1, sizeof(*l->v));
	if (!l->v)
		return mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++) {
		mvfs_store_label(s, i, &li);
		l->v[i].rev = li.rev;
		l->v[i].i = i;
	}
	qsort(l->v, l->n, sizeof(*l->v), mvfs_log_label_cmp);
	return 0;
}

/*
 * " (l1, l2)" for the labels naming REV, or nothing.  Revisions come
 * newest first, so the labels of those after REV are passed by.
 */
static void mvfs_print_labels(const struct mvfs_store *s,
			      struct mvfs_log_labels *l, __u64 rev)
{
	struct mvfs_label_info li;
	unsigned int n = 0;

	while (l->next < l->n && l->v[l->next].rev > rev)
		l->next++;
	for (; l->next < l->n && l->v[l->next].rev == rev; l->next++) {
		mvfs_store_label(s, l->v[l->next].i, &li);
		printf("%s%s", n++ ? ", " : " (", li.name);
	}
	if (n)
		printf(")");
}

static int mvfs_print_rev(struct mvfs_store *s, struct mvfs_log_labels *l,
			  __u64 rev)
{
	char branch[MVFS_NAME_MAX + 1];
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
	mvfs_print_labels(s, l, rev);
	if (ri.branch) {
		mvfs_store_branch_name(s, ri.branch, branch);
		printf(" [%s]", branch);
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
	struct mvfs_log_labels l = { 0 };
	bool *changed, ever = !path;
	int err = 0;

	changed = calloc(n ? n : 1, sizeof(*changed));
	if (!changed)
		return mvfs_fail(c, mvfs_err(-ENOMEM, "out of memory"));
	err = mvfs_log_labels_get(s, &l);
	if (!err && path)
		err = mvfs_path_changes(s, path, changed, &ever);
	if (!err && !ever)
		err = mvfs_err(-ENOENT, "%s: in no revision", path);
	for (rev = n; !err && rev >= 1; rev--)
		if ((!path || changed[rev - 1]) && mvfs_log_on(s, rev, b))
			err = mvfs_print_rev(s, &l, rev);
	free(l.v);
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
