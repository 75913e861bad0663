// SPDX-License-Identifier: GPL-2.0
/*
 * checkin.c: the next revision of a branch from its newest revision plus
 * the view's element changes.
 *
 * Under the store's lock (the store open for writing): choose the changes
 * (mvfs_checkin_select), the branch the view's rules send them to
 * (ci_check.c: mvfs_checkin_target), refuse what is out of date or
 * reserved by another view (mvfs_checkin_check), ask the module for the generation of
 * each entry, then read them and write only the trees on their paths
 * (mvfs_checkin_commit): every other subtree keeps its reference in the
 * new revision.  The state commit makes the revision, atomically.  Only
 * then are the entries retired (mvfs_checkin_retire), children before
 * their directories; one written since its generation was read stays
 * private.  A crash before the commit leaves the old revision and every
 * change private; after it, the new revision and private entries that
 * the next check-in finds equal to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "checkin.h"
#include "err.h"
#include "reload.h"

/* The changes to the entries of a directory being built. */
struct mvfs_ents {
	struct mvfs_entry_info	*v;
	size_t			n;
	size_t			cap;
};

/**
 * mvfs_is_change - is @ch a change to check in (not a copied directory
 *	or a view-private file)
 * @ch: an entry of the private area
 *
 * Return: true if so.
 */
bool mvfs_is_change(const struct mvfs_change *ch)
{
	return ch->kind != MVFS_CH_DIR && ch->kind != MVFS_CH_PRIV;
}

/*
 * What the selection needs of the list, whose order (mvfs_priv_read():
 * parents before children, by name) puts the entries under entry I at
 * I + 1 to end[I]: a selection that searched the whole list for each
 * change took time in the square of the changes (minutes for 10,000).
 */
struct mvfs_sel_idx {
	size_t	*end;	/* the last entry under each */
	size_t	*count;	/* count[I]: how many of 0 to I - 1 are selected */
};

static void mvfs_sel_idx_free(struct mvfs_sel_idx *x)
{
	free(x->end);
	free(x->count);
}

static int mvfs_sel_idx_get(const struct mvfs_priv *p, struct mvfs_sel_idx *x)
{
	size_t i, top = 0, *stack;

	x->end = calloc(p->n + 1, sizeof(*x->end));
	x->count = calloc(p->n + 1, sizeof(*x->count));
	stack = calloc(p->n + 1, sizeof(*stack));
	if (!x->end || !x->count || !stack) {
		free(stack);
		mvfs_sel_idx_free(x);
		return mvfs_err(-ENOMEM, "out of memory");
	}
	for (i = 0; i < p->n; i++) {
		while (top && !mvfs_path_under(p->v[i].path,
					       p->v[stack[top - 1]].path))
			x->end[stack[--top]] = i - 1;
		stack[top++] = i;
	}
	while (top)
		x->end[stack[--top]] = p->n - 1;
	free(stack);
	return 0;
}

/* Select the renames and removals that share FROM with change I. */
static void mvfs_select_pairs(struct mvfs_priv *p, size_t i)
{
	struct mvfs_change **same;
	size_t j, n;

	if (!p->v[i].from)
		return;
	same = mvfs_priv_from(p, p->v[i].from, &n);
	for (j = 0; j < n; j++)
		if (same[j]->kind == MVFS_CH_REN ||
		    same[j]->kind == MVFS_CH_DEL)
			same[j]->selected = true;
}

/*
 * Select the directories above the selected changes: the tree needs
 * them.  One pass: an entry is selected when one under it is.
 */
static void mvfs_select_parents(struct mvfs_priv *p, struct mvfs_sel_idx *x)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		x->count[i + 1] = x->count[i] + p->v[i].selected;
	for (i = 0; i < p->n; i++)
		if (x->count[x->end[i] + 1] > x->count[i + 1])
			p->v[i].selected = true;
}

/*
 * A directory moved, or made in place of an element, goes whole: a
 * change under it left out would then read as a move from a path that
 * is gone, out of date for good.
 */
static void mvfs_select_under(struct mvfs_priv *p,
			      const struct mvfs_sel_idx *x, size_t i)
{
	const struct mvfs_change *ch = &p->v[i];
	size_t j;

	if (!S_ISDIR(ch->mode) || !(ch->kind == MVFS_CH_REN ||
				    (ch->kind == MVFS_CH_MOD && !ch->src)))
		return;
	for (j = i + 1; j <= x->end[i]; j++)
		if (mvfs_is_change(&p->v[j]))
			p->v[j].selected = true;
}

/* How many changes are selected. */
static size_t mvfs_selected(const struct mvfs_priv *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->v[i].selected;
	return n;
}

static bool mvfs_wanted(const struct mvfs_change *ch, char **paths,
			int npaths)
{
	return !npaths || mvfs_paths_hold(paths, npaths, ch->path) ||
	       (ch->from && mvfs_paths_hold(paths, npaths, ch->from));
}

/**
 * mvfs_checkin_select - choose the changes to check in
 * @ci: the check-in, its private area read
 * @paths: element paths, by mvfs_path_order(): the changes at or under
 *	them, or at or under where they came from; with a rename, its
 *	other half; and the directories above them
 * @npaths: how many; 0 for every change
 *
 * Return: 0, or -ENOENT when that is no change.
 */
int mvfs_checkin_select(struct mvfs_checkin *ci, char **paths, int npaths)
{
	struct mvfs_priv *p = &ci->p;
	size_t i, n = 0, was;
	struct mvfs_sel_idx x;
	int err;

	err = mvfs_sel_idx_get(p, &x);
	if (err)
		return err;
	for (i = 0; i < p->n; i++)
		p->v[i].selected = mvfs_is_change(&p->v[i]) &&
				   mvfs_wanted(&p->v[i], paths, npaths);
	/*
	 * Until nothing more comes in: a directory above a change may be
	 * a rename, whose other half (the old name's whiteout) it brings,
	 * with the changes under it, and that has directories above it too.
	 */
	do {
		was = mvfs_selected(p);
		for (i = 0; i < p->n; i++)
			if (p->v[i].selected) {
				mvfs_select_pairs(p, i);
				mvfs_select_under(p, &x, i);
			}
		mvfs_select_parents(p, &x);
	} while (mvfs_selected(p) != was);
	mvfs_sel_idx_free(&x);
	for (i = 0; i < p->n; i++)
		n += p->v[i].selected && mvfs_is_change(&p->v[i]);
	if (!n)
		return mvfs_err(-ENOENT, "no changes to check in");
	return 0;
}

/* Add change E named NAME to ES (mode 0: NAME is removed). */
static int mvfs_ents_add(struct mvfs_ents *es, const char *name,
			 struct mvfs_entry_info *e)
{
	struct mvfs_entry_info *v;

	if (es->n == es->cap) {
		v = realloc(es->v, (es->cap * 2 + 8) * sizeof(*v));
		if (!v)
			return mvfs_err(-ENOMEM, "out of memory");
		es->v = v;
		es->cap = es->cap * 2 + 8;
	}
	e->name = strdup(name);
	if (!e->name)
		return mvfs_err(-ENOMEM, "out of memory");
	es->v[es->n++] = *e;
	return 0;
}

static void mvfs_entry_stat(struct mvfs_entry_info *e, const struct stat *st)
{
	memset(e, 0, sizeof(*e));
	e->mode = st->st_mode;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->mtime = st->st_mtim.tv_sec;
	e->mtime_nsec = st->st_mtim.tv_nsec;
}

static int mvfs_ci_file(struct mvfs_checkin *ci, const struct mvfs_change *ch,
			struct mvfs_entry_info *e)
{
	struct stat st;
	int fd, err;

	fd = open(ch->upath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		err = mvfs_err(-errno, "%s: %s", ch->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = mvfs_err(-ESTALE, "%s: changed while it was read",
			       ch->path);
	else
		err = 0;
	if (!err) {
		mvfs_entry_stat(e, &st);
		e->size = st.st_size;
		err = mvfs_store_put_file(ci->s, fd, e->size, &e->ref);
	}
	if (fd >= 0)
		close(fd);
	return err;
}

static int mvfs_ci_symlink(struct mvfs_checkin *ci,
			   const struct mvfs_change *ch,
			   const struct stat *st, struct mvfs_entry_info *e)
{
	char target[PATH_MAX];
	ssize_t len;

	len = readlink(ch->upath, target, sizeof(target));
	if (len <= 0 || (size_t)len >= sizeof(target))
		return mvfs_err(len < 0 ? -errno : -ENAMETOOLONG,
				"%s: cannot read the symlink", ch->path);
	mvfs_entry_stat(e, st);
	e->size = len;
	return mvfs_store_put_symlink(ci->s, target, len, &e->ref);
}

static int mvfs_ci_dir(struct mvfs_checkin *ci, size_t first, size_t end,
		       const char *src, struct mvfs_entry_info *e);

/* The new entry of change I, whose descendants end at END. */
static int mvfs_ci_entry(struct mvfs_checkin *ci, size_t i, size_t end,
			 struct mvfs_entry_info *e)
{
	const struct mvfs_change *ch = &ci->p.v[i];
	struct stat st;

	if (lstat(ch->upath, &st))
		return mvfs_err(-errno, "%s: %s", ch->path, strerror(errno));
	if (S_ISREG(st.st_mode))
		return mvfs_ci_file(ci, ch, e);
	if (S_ISLNK(st.st_mode))
		return mvfs_ci_symlink(ci, ch, &st, e);
	if (!S_ISDIR(st.st_mode))
		return mvfs_err(-EINVAL, "%s: %s", ch->path,
				"only files, directories and symlinks can be elements");
	mvfs_entry_stat(e, &st);
	return mvfs_ci_dir(ci, i + 1, end, ch->src, e);
}

/*
 * The new entries of the selected changes among FIRST..END (one
 * directory's) into ES; a removal as an entry of mode 0.
 */
static int mvfs_ci_apply(struct mvfs_checkin *ci, size_t first, size_t end,
			 struct mvfs_ents *es)
{
	struct mvfs_change *ch;
	struct mvfs_entry_info e;
	size_t i, sub;
	int err = 0;

	for (i = first; !err && i < end; i = sub) {
		ch = &ci->p.v[i];
		for (sub = i + 1; sub < end &&
		     mvfs_path_under(ci->p.v[sub].path, ch->path); sub++)
			;
		if (!ch->selected)
			continue;
		memset(&e, 0, sizeof(e));
		if (ch->kind != MVFS_CH_DEL)
			err = mvfs_ci_entry(ci, i, sub, &e);
		if (!err)
			err = mvfs_ents_add(es, strrchr(ch->upath, '/') + 1, &e);
	}
	return err;
}

/*
 * Store the directory whose private entries are FIRST..END: the entries
 * of SRC in the target's newest revision with the changes made (only the
 * changes are read one by one); E holds its metadata.
 */
static int mvfs_ci_dir(struct mvfs_checkin *ci, size_t first, size_t end,
		       const char *src, struct mvfs_entry_info *e)
{
	struct mvfs_ents es = { 0 };
	struct mvfs_entry_info d;
	int err, found = 0;

	err = mvfs_ci_apply(ci, first, end, &es);
	if (!err && src)
		found = mvfs_store_find(ci->s, ci->head, src, &d);
	if (found < 0)
		err = found;
	if (!err && es.n > UINT32_MAX)
		err = mvfs_err(-E2BIG, "too many entries");
	if (!err)
		err = mvfs_store_put_tree_edit(ci->s, found && S_ISDIR(d.mode) ?
					       &d : NULL, es.v, es.n, e);
	mvfs_store_list_free(es.v, es.n);
	return err;
}

/*
 * Ask the module for the generation of each selected entry.  A removal's
 * is 0, a whiteout's, whatever PRIVGEN says: a file made at its path
 * since the whiteout was read is another entry, whose generation RETIRE
 * must not be given, or it would unlink a file nobody checked in; with
 * 0 it keeps that file, as a change over the new revision.
 */
static int mvfs_ci_gens(struct mvfs_checkin *ci)
{
	struct mvfs_change *ch;
	size_t i;
	int err = 0;

	if (mvfs_fault("checkin-pause"))
		mvfs_test_pause();
	for (i = 0; !err && i < ci->p.n; i++) {
		ch = &ci->p.v[i];
		if (!ch->selected)
			continue;
		err = mvfs_priv_gen(ci->vmnt, ci->tag, ch->path, &ch->gen);
		if (ch->kind == MVFS_CH_DEL)
			ch->gen = 0;
	}
	return err;
}

/**
 * mvfs_checkin_commit - write and commit the new revision
 * @ci: the check-in, checked
 * @msg: the revision's message
 *
 * Return: 0 (ci->rev set) or -errno, and then nothing is committed.
 */
int mvfs_checkin_commit(struct mvfs_checkin *ci, const char *msg)
{
	__u64 last = ci->head;
	struct mvfs_rev_info ri;
	struct mvfs_entry_info root;
	struct stat st;
	int err;

	err = mvfs_ci_gens(ci);
	if (err)
		return err;
	if (last) {
		mvfs_store_rev(ci->s, last, &ri);
		root = ri.root;
	} else if (stat(ci->p.upper, &st)) {
		return mvfs_err(-errno, "%s: %s", ci->p.upper,
				strerror(errno));
	} else {
		mvfs_entry_stat(&root, &st);
	}
	err = mvfs_store_begin(ci->s);
	if (err)
		return err;
	err = mvfs_ci_dir(ci, 0, ci->p.n, last ? "" : NULL, &root);
	if (err) {
		mvfs_store_abort(ci->s);
		return err;
	}
	root.name = NULL;
	return mvfs_store_commit_rev(ci->s, &root, msg, &ci->place, &ci->rev);
}

/* This view's reservations of what it checked in end with it. */
static int mvfs_ci_unreserve(struct mvfs_checkin *ci)
{
	bool any = false;
	size_t i;

	for (i = 0; i < ci->p.n; i++)
		if (ci->p.v[i].selected)
			any |= mvfs_resv_drop(&ci->resv, ci->tag,
					      ci->p.v[i].path);
	return any ? mvfs_resv_write(ci->store_dir, &ci->resv) : 0;
}

/**
 * mvfs_checkin_retire - after the commit: reload, let the entries go
 * @ci: the check-in, committed
 *
 * Children before their directories.  An entry written since it was
 * read stays private (counted in ci->stale), as view-private files do.
 *
 * Return: 0, or the first failure (the others are still tried).
 */
int mvfs_checkin_retire(struct mvfs_checkin *ci)
{
	struct mvfs_change *ch;
	size_t i;
	int err, first;

	if (mvfs_fault("retire-pause"))
		mvfs_test_pause();
	first = mvfs_reload(ci->vmnt);
	if (first)
		return mvfs_err(first, "%s did not take revision %llu: %s",
				ci->vmnt, ci->rev, strerror(-first));
	first = mvfs_ci_unreserve(ci);
	for (i = ci->p.n; i-- > 0;) {
		ch = &ci->p.v[i];
		if (!ch->selected)
			continue;
		err = mvfs_priv_retire(ci->vmnt, ci->tag, ch->path, ch->gen,
				       ci->rev, 0);
		if (err == -ESTALE)
			ci->stale += !S_ISDIR(ch->mode);
		else if (err && !first)
			first = mvfs_err_prefix(err, "retiring");
	}
	return first;
}
