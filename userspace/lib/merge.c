// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c: mvfs merge --from BRANCH|REV [PATH...]: a three-way merge of
 * what the source changed since the common ancestor (the newest revision
 * that both the source and the view's revision reach through parent and
 * merge links) into the view, written through /view/TAG so that the
 * module copies each element up, as a user's edit would.  What one
 * element becomes is merge_apply.c's.
 *
 * The merge is then pending: views/TAG/merge holds the source revision,
 * and the view's next check-in records it as the new revision's merge.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checkin.h"
#include "err.h"
#include "merge.h"
#include "store_int.h"

#define MVFS_MERGE_FILE	"merge"
#define MVFS_MERGE_TMP	"merge.tmp"
#define MVFS_MERGE_OLD	"merge.old"

static char *mvfs_merge_path(const char *store_dir, const char *tag)
{
	char *p;

	if (asprintf(&p, "%s/%s/%s/%s", store_dir, MVFS_VIEWS_DIR, tag,
		     MVFS_MERGE_FILE) < 0)
		return NULL;
	return p;
}

/**
 * mvfs_merge_pending - the revision merged into view @tag, not yet
 *	checked in
 * @store_dir: the store
 * @tag: the view
 * @rev: set to it; 0 none
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_merge_pending(const char *store_dir, const char *tag, __u64 *rev)
{
	char *path = mvfs_merge_path(store_dir, tag), buf[32];
	ssize_t len = 0;
	char *end;
	int fd, err = 0;

	*rev = 0;
	if (!path)
		return mvfs_err(-ENOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		err = mvfs_err(-errno, "%s: %s", path, strerror(errno));
	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		*rev = strtoull(buf, &end, 10);
		if (end == buf || (*end && *end != '\n'))
			err = mvfs_err(-EIO, "%s: not a revision number", path);
	}
	free(path);
	return err;
}

/**
 * mvfs_merge_set - record that revision @rev was merged into view @tag
 * @store_dir: the store
 * @tag: the view
 * @rev: the revision
 *
 * The record replaces the one before atomically (merge.tmp renamed over
 * it): a crash leaves one or the other, never an empty file that would
 * fail the view's check-ins.
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_merge_set(const char *store_dir, const char *tag, __u64 rev)
{
	char *dir, buf[32];
	int dfd, len, err;

	if (asprintf(&dir, "%s/%s/%s", store_dir, MVFS_VIEWS_DIR, tag) < 0)
		return mvfs_err(-ENOMEM, "out of memory");
	len = snprintf(buf, sizeof(buf), "%llu\n", rev);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = dfd < 0 ? -errno :
	      mvfs_replace_file(dfd, MVFS_MERGE_FILE, MVFS_MERGE_TMP,
				MVFS_MERGE_OLD, buf, len);
	if (dfd >= 0)
		close(dfd);
	if (err)
		err = mvfs_err(err, "%s: cannot write %s (through %s): %s",
			       dir, MVFS_MERGE_FILE, MVFS_MERGE_TMP,
			       strerror(-err));
	free(dir);
	return err;
}

/**
 * mvfs_merge_done - the pending merge was checked in: forget it
 * @store_dir: the store
 * @tag: the view
 */
void mvfs_merge_done(const char *store_dir, const char *tag)
{
	char *path = mvfs_merge_path(store_dir, tag);

	if (path)
		unlink(path);
	free(path);
}

/* Mark in SEEN every revision REV reaches through parent and merge. */
static int mvfs_merge_reach(struct mvfs_store *s, __u64 rev, bool *seen)
{
	__u64 *stack, n = 0, r;
	struct mvfs_rev_info ri;

	stack = calloc(2 * mvfs_store_nrevs(s) + 2, sizeof(*stack));
	if (!stack)
		return mvfs_err(-ENOMEM, "out of memory");
	stack[n++] = rev;
	while (n) {
		r = stack[--n];
		if (!r || seen[r])
			continue;
		seen[r] = true;
		mvfs_store_rev(s, r, &ri);
		stack[n++] = ri.parent;
		stack[n++] = ri.merge;
	}
	free(stack);
	return 0;
}

/* The newest revision both A and B reach, in *BASE (0: none). */
static int mvfs_merge_base(struct mvfs_store *s, __u64 a, __u64 b,
			   __u64 *base)
{
	__u64 n = mvfs_store_nrevs(s);
	bool *sa, *sb;
	int err;

	sa = calloc(n + 1, sizeof(*sa));
	sb = calloc(n + 1, sizeof(*sb));
	err = sa && sb ? 0 : mvfs_err(-ENOMEM, "out of memory");
	if (!err)
		err = mvfs_merge_reach(s, a, sa);
	if (!err)
		err = mvfs_merge_reach(s, b, sb);
	for (*base = n; !err && *base && !(sa[*base] && sb[*base]); (*base)--)
		;
	free(sa);
	free(sb);
	return err;
}

/* Is PATH at or under one the command line asks for (ABOVE: or above)? */
static bool mvfs_merge_wanted(const struct mvfs_merge *m, const char *path,
			      bool above)
{
	const struct mvfs_wctx *w = m->w;

	return !w->npaths || mvfs_paths_hold(w->sorted, w->npaths, path) ||
	       (above && mvfs_paths_under(w->sorted, w->npaths, path));
}

static bool mvfs_merge_same(const struct mvfs_entry_info *a,
			    const struct mvfs_entry_info *b)
{
	if (!a || !b)
		return a == b;
	return a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->size == b->size && a->ref == b->ref;
}

/*
 * Are the entries V of N sorted by name, as a tree's are (docs/FORMAT.md)?
 * The merge walks two directories side by side on that order.
 */
static bool mvfs_merge_sorted(const struct mvfs_entry_info *v, __u64 n)
{
	__u64 i;

	for (i = 1; i < n; i++)
		if (strcmp(v[i - 1].name, v[i].name) >= 0)
			return false;
	return true;
}

/*
 * NAME in the sorted entries V of N, from *AT on (moved to where NAME
 * is or would be): NULL if none.  Names asked for in order, a directory
 * is walked once, not once for each name of the other side.
 */
static const struct mvfs_entry_info *
mvfs_merge_find(const struct mvfs_entry_info *v, __u64 n, __u64 *at,
		const char *name)
{
	while (*at < n && strcmp(v[*at].name, name) < 0)
		++*at;
	return *at < n && !strcmp(v[*at].name, name) ? &v[*at] : NULL;
}

static int mvfs_merge_walk(struct mvfs_merge *m, const char *path,
			   const struct mvfs_entry_info *b,
			   const struct mvfs_entry_info *t);

/* The children of directories B and T (either may be NULL) at PATH. */
static int mvfs_merge_children(struct mvfs_merge *m, const char *path,
			       const struct mvfs_entry_info *b,
			       const struct mvfs_entry_info *t)
{
	struct mvfs_store *s = m->w->s;
	struct mvfs_entry_info *bv = NULL, *tv = NULL;
	__u64 bn = b ? b->size : 0, tn = t->size, i, at;
	char *child;
	int err;

	err = b ? mvfs_store_list(s, b, &bv) : 0;
	if (!err)
		err = mvfs_store_list(s, t, &tv);
	if (!err && (!mvfs_merge_sorted(bv, bn) || !mvfs_merge_sorted(tv, tn)))
		err = mvfs_err(-EIO, "%s: a corrupt tree, names out of order",
			       *path ? path : "/");
	for (i = 0, at = 0; !err && i < tn; i++) {
		child = mvfs_path_join(path, tv[i].name);
		err = child ? mvfs_merge_walk(m, child,
					      mvfs_merge_find(bv, bn, &at,
							      tv[i].name),
					      &tv[i]) :
			      mvfs_err(-ENOMEM, "out of memory");
		free(child);
	}
	for (i = 0, at = 0; !err && i < bn; i++) {
		if (mvfs_merge_find(tv, tn, &at, bv[i].name))
			continue;
		child = mvfs_path_join(path, bv[i].name);
		err = child ? mvfs_merge_walk(m, child, &bv[i], NULL) :
			      mvfs_err(-ENOMEM, "out of memory");
		free(child);
	}
	mvfs_store_list_free(bv, bv ? bn : 0);
	mvfs_store_list_free(tv, tv ? tn : 0);
	return err;
}

/* Element PATH: B in the ancestor, T in the source (NULL: absent). */
static int mvfs_merge_walk(struct mvfs_merge *m, const char *path,
			   const struct mvfs_entry_info *b,
			   const struct mvfs_entry_info *t)
{
	if (mvfs_merge_same(b, t) || !mvfs_merge_wanted(m, path, true))
		return 0;
	if (t && S_ISDIR(t->mode) && (!*path || (b && S_ISDIR(b->mode))))
		return mvfs_merge_children(m, path, b, t);
	if (!mvfs_merge_wanted(m, path, false))
		return 0;
	return mvfs_merge_elem(m, path, b, t);
}

/* The revision --from names: a branch's newest, a number or a label. */
static int mvfs_merge_src(struct mvfs_merge *m)
{
	struct mvfs_store *s = m->w->s;
	char *end;
	int b;

	b = mvfs_store_branch_find(s, m->srcname);
	if (b >= 0) {
		m->src = mvfs_store_branch_head(s, b);
		return m->src ? 0 : mvfs_err(-ENOENT, "branch %s has no revision",
					     m->srcname);
	}
	m->src = strtoull(m->srcname, &end, 10);
	if (*m->srcname >= '0' && *m->srcname <= '9' && !*end)
		return mvfs_check_rev(s, m->src);
	m->src = mvfs_store_label_rev(s, m->srcname);
	return m->src ? 0 : mvfs_err(-ENOENT, "no branch, revision or label \"%s\"",
				     m->srcname);
}

/* Make the new elements the merge wrote elements (mkelem). */
static int mvfs_merge_mkelem(struct mvfs_merge *m)
{
	struct mvfs_change *ch;
	struct mvfs_priv p;
	size_t i;
	int err;

	if (!m->nadded)
		return 0;
	err = mvfs_priv_read(m->w->s, m->w->wc->store, m->w->tag, &m->w->sel,
			     &p);
	for (i = 0; !err && i < m->nadded; i++) {
		ch = mvfs_priv_find(&p, m->added[i]);
		if (ch && ch->kind == MVFS_CH_PRIV)
			err = mvfs_w_mark(&p, ch);
	}
	mvfs_priv_free(&p);
	return err;
}

static int mvfs_merge_run(struct mvfs_merge *m)
{
	struct mvfs_entry_info b, t;
	struct mvfs_rev_info ri;
	int err, added, sync_err;

	err = mvfs_merge_src(m);
	if (err)
		return err;
	m->ours = mvfs_sel_rev(&m->w->sel, "");
	err = mvfs_merge_base(m->w->s, m->src, m->ours, &m->base);
	if (err)
		return err;
	if (m->base == m->src) {
		printf("revision %llu is merged already\n", m->src);
		return 0;
	}
	mvfs_store_rev(m->w->s, m->src, &ri);
	t = ri.root;
	if (m->base) {
		mvfs_store_rev(m->w->s, m->base, &ri);
		b = ri.root;
	}
	printf("merging revision %llu into view %s (ancestor %llu)\n", m->src,
	       m->w->tag, m->base);
	/*
	 * What the walk wrote before a failure stays, its new files made
	 * elements as they would be at the end: the merge run again finds
	 * them done (merge_apply.c) and goes on from there.
	 */
	err = mvfs_merge_walk(m, "", m->base ? &b : NULL, &t);
	added = mvfs_merge_mkelem(m);
	err = err ? err : added;
	/*
	 * Only a whole merge makes the source an ancestor of the next
	 * check-in: after a merge of some paths, the rest is still to merge.
	 * What the merge wrote (files, removals, their element marks) is on
	 * the disk when it returns, as mkelem's marks are, and before the
	 * record: a crash must not leave a record whose next check-in calls
	 * the source merged without them, nor give the record blocks whose
	 * release is not on the disk yet (ext2).
	 */
	sync_err = mvfs_store_sync(m->w->s);
	err = err ? err : sync_err;
	if (!err && !m->w->npaths)
		err = mvfs_merge_set(m->w->wc->store, m->w->tag, m->src);
	else if (!err)
		printf("some paths merged: revision %llu is not recorded as merged\n",
		       m->src);
	return err;
}

/**
 * mvfs_w_merge - mvfs merge --from BRANCH|REV [PATH...]
 * @w: the command, the store open for writing
 *
 * Return: the exit status: 0, or 1 when conflicts are left (listed) or
 * the merge failed.
 */
int mvfs_w_merge(struct mvfs_wctx *w)
{
	struct mvfs_merge m = { .w = w, .srcname = w->from };
	size_t i;
	int err;

	/* Each line as its element is done, even into a file or a pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	err = mvfs_merge_run(&m);
	for (i = 0; i < m.nadded; i++)
		free(m.added[i]);
	free(m.added);
	if (err) {
		mvfs_w_fail(w, err);
		if (m.changed || m.conflicts)
			fprintf(stderr,
				"mvfs: merge: what it merged before stays in view %s (%u elements, %u conflicts): %s\n",
				w->tag, m.changed, m.conflicts,
				m.conflicts ? "resolve the conflicts, then merge again to go on" :
					      "merge again to go on");
		return 1;
	}
	if (m.conflicts)
		fprintf(stderr, "mvfs: merge: %u conflicts left: resolve them, then check in\n",
			m.conflicts);
	return m.conflicts ? 1 : 0;
}
