// SPDX-License-Identifier: GPL-2.0
/*
 * ci_check.c: where a check-in goes and whether it may: the branch the
 * view's rules send its changes to (mvfs_checkin_target), and what is out
 * of date against that branch's newest revision or reserved by another
 * view (mvfs_checkin_check).
 *
 * The rule that selects a changed path decides: BRANCH/LATEST (LATEST is
 * main/LATEST) checks in on BRANCH; -mkbranch B on B, made from the
 * revision the rule selects if it does not exist yet; a fixed revision or
 * a label without -mkbranch is refused.  Changes that would land on
 * different branches are refused together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "checkin.h"
#include "err.h"

/* Do A (if HA) and B (if HB) differ, whole or (META) owner and mode? */
static bool mvfs_entry_differ(const struct mvfs_entry_info *a, bool ha,
			      const struct mvfs_entry_info *b, bool hb,
			      bool meta)
{
	if (ha != hb)
		return true;
	if (!ha)
		return false;
	if (a->mode != b->mode || a->uid != b->uid || a->gid != b->gid)
		return true;
	return !meta && (a->size != b->size || a->ref != b->ref ||
			 a->mtime != b->mtime ||
			 a->mtime_nsec != b->mtime_nsec);
}

/* The parent of REV (0 for none). */
static __u64 mvfs_ci_parent(struct mvfs_store *s, __u64 rev)
{
	struct mvfs_rev_info ri;

	if (!rev)
		return 0;
	mvfs_store_rev(s, rev, &ri);
	return ri.parent;
}

/*
 * The oldest revision after REV, on the line from HEAD back through
 * parents, in which PATH changed, in *WHEN; 0 when it is the same in
 * HEAD as in REV.
 */
static int mvfs_changed_since(struct mvfs_store *s, const char *path,
			      __u64 rev, __u64 head, bool meta, __u64 *when)
{
	struct mvfs_entry_info prev, cur;
	int had, has;
	__u64 r, p;

	*when = 0;
	had = mvfs_store_find(s, rev, path, &prev);
	has = mvfs_store_find(s, head, path, &cur);
	if (had < 0 || has < 0)
		return had < 0 ? had : has;
	if (!mvfs_entry_differ(&prev, had, &cur, has, meta))
		return 0;
	*when = head;
	for (r = head; r > rev; r = p) {
		p = mvfs_ci_parent(s, r);
		had = mvfs_store_find(s, r, path, &cur);
		has = mvfs_store_find(s, p, path, &prev);
		if (had < 0 || has < 0)
			return had < 0 ? had : has;
		if (mvfs_entry_differ(&prev, has, &cur, had, meta))
			*when = r;
	}
	return 0;
}

/* The revision on HEAD's line that made PATH, new in this view, exist. */
static int mvfs_added_in(struct mvfs_store *s, const char *path, __u64 head,
			 __u64 *when)
{
	struct mvfs_entry_info e;
	__u64 r = head;
	int has;

	*when = 0;
	while (r > 0) {
		has = mvfs_store_find(s, r, path, &e);
		if (has <= 0)
			return has;
		*when = r;
		r = mvfs_ci_parent(s, r);
	}
	return 0;
}

/* Do files A and B hold the same SIZE bytes? */
static bool mvfs_same_bytes(const char *a, const char *b, __u64 size)
{
	char x[16384], y[16384];
	int fa, fb;
	ssize_t n = 1, m;
	bool same = false;

	fa = open(a, O_RDONLY | O_CLOEXEC);
	fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	while (fa >= 0 && fb >= 0 && size && n > 0) {
		n = read(fa, x, sizeof(x));
		m = n > 0 ? read(fb, y, n) : -1;
		if (m != n || memcmp(x, y, n))
			break;
		size -= n;
	}
	same = fa >= 0 && fb >= 0 && !size;
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/*
 * Does the target's newest revision hold at CH's path what its private
 * file holds?  Then it is no conflict: what a check-in interrupted between
 * its commit and its retiring leaves.
 */
static bool mvfs_in_newest(struct mvfs_checkin *ci,
			   const struct mvfs_change *ch)
{
	char obj[MVFS_OBJ_PATH_LEN], *path;
	struct mvfs_entry_info e;
	struct stat st;
	bool same;

	if (!S_ISREG(ch->mode) || lstat(ch->upath, &st) ||
	    mvfs_store_find(ci->s, ci->head, ch->path, &e) != 1 ||
	    e.mode != st.st_mode || e.size != (__u64)st.st_size)
		return false;
	if (!e.ref)
		return true;
	mvfs_object_path(obj, e.ref);
	if (asprintf(&path, "%s/%s", ci->store_dir, obj) < 0)
		return false;
	same = mvfs_same_bytes(path, ch->upath, e.size);
	free(path);
	return same;
}

/*
 * A directory made in place of an element (rm -r d; mkdir d): it shows
 * none of the element's entries, so its check-in drops them all.
 */
static bool mvfs_replaced_dir(const struct mvfs_change *ch)
{
	return ch->kind == MVFS_CH_MOD && S_ISDIR(ch->mode) && !ch->src;
}

/*
 * Another view's reservation that change CH runs into: of its path, or
 * of the element it came from and, when that is removed or moved, of
 * any element below it.  Return: 0, or -EBUSY naming it.
 */
static int mvfs_check_reserved(struct mvfs_checkin *ci,
			       const struct mvfs_change *ch)
{
	bool under = ch->kind == MVFS_CH_DEL || ch->kind == MVFS_CH_REN ||
		     mvfs_replaced_dir(ch);
	ssize_t i;

	i = mvfs_resv_other(ci->s, &ci->resv, ch->path, ci->tag, false);
	if (i < 0 && ch->from)
		i = mvfs_resv_other(ci->s, &ci->resv, ch->from, ci->tag,
				    under);
	if (i < 0)
		return 0;
	return mvfs_err(-EBUSY, "%s: reserved by view %s", ci->resv.path[i],
			ci->resv.tag[i]);
}

static int mvfs_check_one(struct mvfs_checkin *ci,
			  const struct mvfs_change *ch)
{
	const char *what;
	__u64 when;
	int err;

	err = mvfs_check_reserved(ci, ch);
	if (err || mvfs_in_newest(ci, ch))
		return err;
	what = ch->kind == MVFS_CH_ADD ? ch->path : ch->from;
	if (ch->kind == MVFS_CH_ADD)
		err = mvfs_added_in(ci->s, ch->path, ci->head, &when);
	else
		err = mvfs_changed_since(ci->s, ch->from, ch->rev, ci->head,
					 S_ISDIR(ch->mode) &&
					 ch->kind != MVFS_CH_DEL &&
					 !mvfs_replaced_dir(ch), &when);
	/*
	 * A move lands over what its new path showed (priv.c says as of
	 * which revision): another view's change there since makes it out
	 * of date.
	 */
	if (!err && !when && ch->kind == MVFS_CH_REN && ch->over) {
		what = ch->path;
		err = mvfs_changed_since(ci->s, ch->over, ch->over_rev,
					 ci->head, false, &when);
	}
	if (!err && when)
		err = mvfs_err(-EAGAIN, "out of date: %s changed in revision %llu",
			       what, when);
	return err;
}

/**
 * mvfs_checkin_check - refuse what is out of date or reserved
 * @ci: the check-in, its changes selected
 *
 * An element is out of date when its entry at the path it was copied
 * from differs between the revision it was copied from and the newest
 * of the target branch (a directory: its owner and mode); a new element,
 * when that revision has something at its path; a moved one also when
 * its new path differs between the revision the view last showed it in
 * and the newest; a directory made in place of one, when anything under
 * it differs.  Another view's reservation of an element, or of one below
 * an element removed, moved or replaced, refuses it.
 *
 * Return: 0; -EAGAIN out of date; -EBUSY reserved by another view.
 */
int mvfs_checkin_check(struct mvfs_checkin *ci)
{
	size_t i;
	int err;

	err = mvfs_resv_read(ci->store_dir, &ci->resv);
	for (i = 0; !err && i < ci->p.n; i++)
		if (ci->p.v[i].selected && mvfs_is_change(&ci->p.v[i]))
			err = mvfs_check_one(ci, &ci->p.v[i]);
	return err;
}

/* Why a check-in through rule I cannot be: the view is pinned there. */
static int mvfs_ci_pinned(struct mvfs_checkin *ci, int i, const char *path)
{
	enum mvfs_select sel;
	char label[MVFS_NAME_MAX + 1];
	__u64 rev;

	if (mvfs_spec_one(ci->sel->cs, &sel, label, &rev))
		return mvfs_err(-EROFS, "view %s selects revision %llu: %s",
				ci->tag, ci->sel->rev[i],
				"check in from a view that selects the newest revision");
	return mvfs_err(-EROFS, "view %s selects revision %llu for %s: %s %u %s",
			ci->tag, ci->sel->rev[i], path,
			"the rule on line", ci->sel->r[i].line,
			"neither selects BRANCH/LATEST nor has -mkbranch");
}

/* The branch rule I of the spec checks PATH in on, into NAME. */
static int mvfs_ci_rule_branch(struct mvfs_checkin *ci, int i,
			       const char *path, char *name, __u64 *from)
{
	const struct mvfs_rule *r = &ci->sel->r[i];
	const char *cs = ci->sel->cs;

	*from = 0;
	if (r->mkb_len) {
		memcpy(name, cs + r->mkb, r->mkb_len);
		name[r->mkb_len] = '\0';
		if (mvfs_store_branch_find(ci->s, name) >= 0)
			return 0;
		*from = ci->sel->rev[i];
		if (!*from)
			return mvfs_err(-ENOENT, "%s: the rule on line %u %s %s from",
					path, r->line, "selects no revision to make branch",
					name);
		return 0;
	}
	if (r->kind != MVFS_SEL_LATEST)
		return mvfs_ci_pinned(ci, i, path);
	if (!r->name_len) {
		strcpy(name, MVFS_MAIN_BRANCH);
		return 0;
	}
	memcpy(name, cs + r->name, r->name_len);
	name[r->name_len] = '\0';
	if (mvfs_store_branch_find(ci->s, name) < 0)
		return mvfs_err(-ENOENT, "%s: no branch \"%s\" (line %u)",
				path, name, r->line);
	return 0;
}

/* Send change CH to its branch; refuse a second, different one. */
static int mvfs_ci_target_one(struct mvfs_checkin *ci,
			      const struct mvfs_change *ch)
{
	char name[MVFS_NAME_MAX + 1];
	int i = mvfs_sel_rule(ci->sel, ch->path), err;
	__u64 from;

	if (i < 0)
		return mvfs_err(-ENOENT, "%s: no rule of view %s's spec selects it",
				ch->path, ci->tag);
	err = mvfs_ci_rule_branch(ci, i, ch->path, name, &from);
	if (err)
		return err;
	if (!ci->branch[0]) {
		strcpy(ci->branch, name);
		ci->place.from = from;
		ci->first = ch->path;
		return 0;
	}
	if (strcmp(ci->branch, name) || ci->place.from != from)
		return mvfs_err(-EXDEV, "%s goes to branch %s, %s to branch %s%s: %s",
				ci->first, ci->branch, ch->path, name,
				ci->place.from != from ? " (from another revision)" : "",
				"check them in apart");
	return 0;
}

/**
 * mvfs_checkin_target - the branch the selected changes go to
 * @ci: the check-in, its changes selected
 *
 * Sets ci->branch, ci->place (a branch to make, the merge pending in the
 * view) and ci->head, the branch's newest revision.
 *
 * Return: 0; -EROFS for a change the view pins; -EXDEV for changes bound
 * for different branches; -ENOENT.
 */
int mvfs_checkin_target(struct mvfs_checkin *ci)
{
	size_t i;
	int err = 0, b;

	ci->branch[0] = '\0';
	for (i = 0; !err && i < ci->p.n; i++)
		if (ci->p.v[i].selected && mvfs_is_change(&ci->p.v[i]))
			err = mvfs_ci_target_one(ci, &ci->p.v[i]);
	if (err)
		return err;
	ci->place.branch = ci->branch;
	b = mvfs_store_branch_find(ci->s, ci->branch);
	ci->head = b < 0 ? ci->place.from : mvfs_store_branch_head(ci->s, b);
	err = mvfs_merge_pending(ci->store_dir, ci->tag, &ci->place.merge);
	/* The new revision's merge must be below it, or no reader takes it. */
	if (!err && ci->place.merge > mvfs_store_nrevs(ci->s))
		err = mvfs_err(-EIO, "view %s: %s %llu, %s (merge again)",
			       ci->tag, "its pending merge names revision",
			       (unsigned long long)ci->place.merge,
			       "which the store does not have");
	return err;
}
