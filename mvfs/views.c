// SPDX-License-Identifier: GPL-2.0
/*
 * views.c: the views and revisions of a mount, as the store's state says.
 *
 * sbi->state is replaced whole by each reload; the struct mvfs_view
 * objects outlive reloads (inodes point at them), so a reload updates them
 * in place: a LATEST view's rev moves, and the dentries of what it showed
 * before fail their revalidation (inode.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"

/*
 * Point V at what its record and its compiled SPEC select in ST (taking
 * the caller's reference to SPEC).  Its selection generation moves when
 * the spec or any rule's revision changed, which makes every dentry of
 * the view look again (revalidate.c).  Caller holds state_lock.
 */
static void mvfs_view_update(struct mvfs_view *v, const struct mvfs_state *st,
			     const struct mvfs_view_rec *r,
			     struct mvfs_spec *spec)
{
	struct mvfs_spec *old;
	int i = mvfs_spec_match(spec, "", 0);
	u64 rev = i < 0 ? 0 : spec->rules[i].rev;

	spin_lock(&v->lock);
	v->rec = *r;
	if (rev)
		v->root = st->revs[rev - 1].root;
	else
		v->root = (struct mvfs_attr){ .mode = S_IFDIR | 0555 };
	WRITE_ONCE(v->rev, rev);
	old = v->spec;
	v->spec = spec;
	if (!mvfs_spec_same(spec, old))
		WRITE_ONCE(v->sel, v->sel + 1);
	spin_unlock(&v->lock);
	mvfs_spec_put(old);
}

static void mvfs_view_release(struct kref *ref)
{
	struct mvfs_view *v = container_of(ref, struct mvfs_view, ref);

	/* A reload unregisters a view (under reg_lock) before it lets go. */
	if (WARN_ON_ONCE(v->registered)) {
		path_put(&v->vroot);
		path_put(&v->base);
	}
	mvfs_spec_put(v->spec);
	kfree_rcu(v, rcu);
}

/**
 * mvfs_view_put - drop a reference taken by mvfs_view_get()
 * @v: the view, or NULL
 */
void mvfs_view_put(struct mvfs_view *v)
{
	if (v)
		kref_put(&v->ref, mvfs_view_release);
}

/* Free the views on @list, made by mvfs_views_alloc() and never used. */
static void mvfs_views_free_list(struct list_head *list)
{
	struct mvfs_view *v, *tmp;

	list_for_each_entry_safe(v, tmp, list, node) {
		list_del(&v->node);
		mvfs_spec_put(v->spec);
		kfree(v);
	}
}

/* Put the specs of mvfs_specs_compile(), those not taken. */
static void mvfs_specs_free(struct mvfs_spec **specs, u32 n)
{
	u32 i;

	for (i = 0; specs && i < n; i++)
		mvfs_spec_put(specs[i]);
	kfree(specs);
}

/* The first record of @st with the tag of record I: I unless given twice. */
static u32 mvfs_view_first(const struct mvfs_state *st, u32 i)
{
	const char *tag = st->views[i].tag;
	s64 first = mvfs_nameidx_find(&st->view_idx, tag, strlen(tag));

	return first < 0 ? i : first;
}

/*
 * The view each record of @st is for, by the index of its tag's first
 * record: the view of that tag that sbi->views has, or NULL.  One pass
 * over each: a state may have hundreds of thousands of views.  Caller
 * holds state_lock for writing.
 */
static struct mvfs_view **mvfs_views_match(struct mvfs_sb_info *sbi,
					   const struct mvfs_state *st)
{
	struct mvfs_view **match, *v;
	s64 i;

	lockdep_assert_held_write(&sbi->state_lock);
	match = kvcalloc(max(st->nviews, 1U), sizeof(*match), GFP_KERNEL);
	if (!match)
		return NULL;
	list_for_each_entry(v, &sbi->views, node) {
		i = mvfs_nameidx_find(&st->view_idx, v->rec.tag,
				      strlen(v->rec.tag));
		if (i >= 0)
			match[i] = v;
	}
	return match;
}

/*
 * Compile the spec of every view of @st, against the spec each view has
 * now (@match).  Caller holds state_lock for writing.
 */
static struct mvfs_spec **mvfs_specs_compile(struct mvfs_sb_info *sbi,
					     struct mvfs_state *st,
					     struct mvfs_view **match)
{
	struct mvfs_spec **specs;
	struct mvfs_view *v;
	u32 i;

	specs = kcalloc(st->nviews, sizeof(*specs), GFP_KERNEL);
	if (!specs && st->nviews)
		return NULL;
	for (i = 0; i < st->nviews; i++) {
		v = match[mvfs_view_first(st, i)];
		specs[i] = mvfs_spec_compile(sbi, st, &st->cs[i],
					     st->views[i].tag,
					     v ? v->spec : NULL);
		if (!specs[i]) {
			mvfs_specs_free(specs, i);
			return NULL;
		}
		if (!(i % 64))
			cond_resched();
	}
	return specs;
}

/*
 * Make, on @fresh, a view for each tag of @st that has none yet (in
 * @match, which then has one for every record), so that applying @st
 * cannot fail half-way.  Caller holds state_lock.
 */
static int mvfs_views_alloc(struct mvfs_sb_info *sbi, struct mvfs_state *st,
			    struct mvfs_view **match, struct list_head *fresh)
{
	struct mvfs_view *v;
	u32 i;

	lockdep_assert_held(&sbi->state_lock);
	for (i = 0; i < st->nviews; i++) {
		if (match[i] || mvfs_view_first(st, i) != i)
			continue;
		v = kzalloc(sizeof(*v), GFP_KERNEL);
		if (!v) {
			mvfs_views_free_list(fresh);
			return -ENOMEM;
		}
		kref_init(&v->ref);
		spin_lock_init(&v->lock);
		list_add_tail(&v->node, fresh);
		match[i] = v;
	}
	return 0;
}

/*
 * Bring sbi->views in line with ST, its views those of @match (the new
 * ones on @fresh) and their specs @specs (those taken are set to NULL);
 * the views that ST no longer has go to @gone, still referenced by the
 * list, for the caller to unregister under reg_lock and put.  Cannot
 * fail.  Caller holds state_lock for write.
 */
static void mvfs_views_sync(struct mvfs_sb_info *sbi, struct mvfs_state *st,
			    struct mvfs_view **match, struct mvfs_spec **specs,
			    struct list_head *gone)
{
	struct mvfs_view *v, *tmp;
	LIST_HEAD(keep);
	u32 i;

	lockdep_assert_held_write(&sbi->state_lock);
	for (i = 0; i < st->nviews; i++) {
		/* A tag given twice: one view, as its last record says. */
		v = match[mvfs_view_first(st, i)];
		list_move_tail(&v->node, &keep);
		mvfs_view_update(v, st, &st->views[i], specs[i]);
		specs[i] = NULL;
	}
	/* What is left was removed from the store. */
	list_for_each_entry_safe(v, tmp, &sbi->views, node) {
		WRITE_ONCE(v->dead, true);
		list_move_tail(&v->node, gone);
	}
	list_splice(&keep, &sbi->views);
}

/* Unregister and put the views on @gone.  Caller holds reg_lock. */
static void mvfs_views_drop(struct mvfs_sb_info *sbi, struct list_head *gone)
{
	struct mvfs_view *v, *tmp;

	lockdep_assert_held(&sbi->reg_lock);
	list_for_each_entry_safe(v, tmp, gone, node) {
		list_del_init(&v->node);
		if (v->registered)
			mvfs_view_unregister(sbi, v);
		mvfs_view_put(v);
	}
}

/*
 * Replace the state in force by @st, its records' views @match, and
 * commit its lengths.  Caller holds state_lock for write.
 */
static void mvfs_state_commit(struct mvfs_sb_info *sbi, struct mvfs_state *st,
			      struct mvfs_view **match)
{
	struct mvfs_state *old = sbi->state;

	lockdep_assert_held_write(&sbi->state_lock);
	kvfree(sbi->view_of);
	sbi->view_of = match;
	sbi->state = st;
	WRITE_ONCE(sbi->pack_len, max(sbi->pack_len, st->pack_len));
	WRITE_ONCE(sbi->next_object, max(sbi->next_object, st->next_object));
	WRITE_ONCE(sbi->gen, sbi->gen + 1);
	mvfs_state_free(old);
}

/*
 * Read the store's state again and apply it, with reg_lock, then
 * state_lock: a view that the new state no longer has loses its
 * registration under reg_lock, so that no holder of reg_lock sees it go.
 * Without @wait, only when both locks come at once (-EAGAIN otherwise).
 * One that failed for a reason of the moment, not because the state was
 * refused, is tried again at the next check (follow.c).
 */
static int mvfs_views_do_reload(struct super_block *sb, bool wait)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	struct mvfs_spec **specs;
	struct mvfs_view **match;
	struct mvfs_state *st;
	LIST_HEAD(fresh);
	LIST_HEAD(gone);
	int err;

	if (wait) {
		mutex_lock(&sbi->reg_lock);
		down_write(&sbi->state_lock);
	} else if (!mutex_trylock(&sbi->reg_lock)) {
		return -EAGAIN;
	} else if (!down_write_trylock(&sbi->state_lock)) {
		mutex_unlock(&sbi->reg_lock);
		return -EAGAIN;
	}
	st = mvfs_store_read_state(sbi);
	if (IS_ERR(st)) {
		err = PTR_ERR(st);
		goto out_unlock;
	}
	match = mvfs_views_match(sbi, st);
	specs = match ? mvfs_specs_compile(sbi, st, match) : NULL;
	err = specs ? mvfs_views_alloc(sbi, st, match, &fresh) : -ENOMEM;
	if (err) {
		mvfs_specs_free(specs, st->nviews);
		kvfree(match);
		mvfs_state_free(st);
		goto out_unlock;
	}
	mvfs_views_sync(sbi, st, match, specs, &gone);
	mvfs_specs_free(specs, st->nviews);
	mvfs_state_commit(sbi, st, match);
out_unlock:
	if (mvfs_err_transient(err))
		mvfs_follow_forget(sbi);
	up_write(&sbi->state_lock);
	mvfs_views_drop(sbi, &gone);
	mutex_unlock(&sbi->reg_lock);
	return err;
}

/**
 * mvfs_views_reload - read the store's state again and apply it
 * @sb: the mvfs superblock
 *
 * Takes reg_lock, then state_lock.
 *
 * Return: 0; or the error of mvfs_store_read_state() or -ENOMEM, in which
 * case nothing changes: the state, the committed lengths and every view
 * stay as they were.
 */
int mvfs_views_reload(struct super_block *sb)
{
	return mvfs_views_do_reload(sb, true);
}

/**
 * mvfs_views_reload_nowait - mvfs_views_reload(), if it need not wait
 * @sb: the mvfs superblock
 *
 * For a caller that may hold locks that reg_lock and state_lock nest
 * outside of (follow.c).
 *
 * Return: as mvfs_views_reload(), or -EAGAIN when a lock was taken.
 */
int mvfs_views_reload_nowait(struct super_block *sb)
{
	return mvfs_views_do_reload(sb, false);
}

/**
 * mvfs_views_free - drop every view and the state, at unmount
 * @sbi: the mount
 */
void mvfs_views_free(struct mvfs_sb_info *sbi)
{
	struct mvfs_view *v, *tmp;

	list_for_each_entry_safe(v, tmp, &sbi->views, node) {
		list_del(&v->node);
		WRITE_ONCE(v->dead, true);
		mvfs_view_put(v);
	}
	mvfs_state_free(sbi->state);
	sbi->state = NULL;
	kvfree(sbi->view_of);
	sbi->view_of = NULL;
}

/**
 * mvfs_view_get - find a view by tag and take a reference
 * @sbi: the mount
 * @tag: the tag, not NUL-terminated
 * @len: its length
 *
 * Return: the view (mvfs_view_put() it) or NULL when there is none.
 */
struct mvfs_view *mvfs_view_get(struct mvfs_sb_info *sbi, const char *tag,
				unsigned int len)
{
	struct mvfs_view *v = NULL;
	s64 i;

	down_read(&sbi->state_lock);
	i = mvfs_nameidx_find(&sbi->state->view_idx, tag, len);
	if (i >= 0) {
		v = sbi->view_of[i];
		kref_get(&v->ref);
	}
	up_read(&sbi->state_lock);
	return v;
}

/**
 * mvfs_view_nth - the next view a listing of /view shows
 * @sbi: the mount
 * @pos: where to start, an index of the state's view records; set to the
 *       record found
 * @tag: set to its tag (MVFS_NAME_MAX + 1 bytes)
 *
 * By record, each tag at its first: the views of the state in force, in
 * constant time each (a state may have hundreds of thousands).
 *
 * Return: false past the last.
 */
bool mvfs_view_nth(struct mvfs_sb_info *sbi, u64 *pos, char *tag)
{
	struct mvfs_state *st;
	bool found = false;

	down_read(&sbi->state_lock);
	st = sbi->state;
	for (; *pos < st->nviews && !found; ++*pos) {
		found = mvfs_view_first(st, *pos) == *pos;
		if (found)
			strscpy(tag, st->views[*pos].tag, MVFS_NAME_MAX + 1);
	}
	up_read(&sbi->state_lock);
	if (found)
		--*pos;
	return found;
}

/**
 * mvfs_view_root - what a view shows at its top now
 * @v: the view
 * @root: filled with the top directory of its revision
 *
 * Return: the revision its spec selects for the top (the first rule
 * whose pattern is "*" or "..."), 0 when none (an empty directory).
 */
u64 mvfs_view_root(struct mvfs_view *v, struct mvfs_entry *root)
{
	struct mvfs_attr a;
	u64 rev;

	spin_lock(&v->lock);
	a = v->root;
	rev = v->rev;
	spin_unlock(&v->lock);
	mvfs_entry_from_attr(root, &a);
	return rev;
}

/**
 * mvfs_view_spec - a view's compiled spec and its selection generation
 * @v: the view
 * @sel: set to the generation the spec goes with
 *
 * Return: the spec, referenced (mvfs_spec_put() it).
 */
struct mvfs_spec *mvfs_view_spec(struct mvfs_view *v, u64 *sel)
{
	struct mvfs_spec *spec;

	spin_lock(&v->lock);
	spec = v->spec;
	kref_get(&spec->ref);
	*sel = v->sel;
	spin_unlock(&v->lock);
	return spec;
}

/**
 * mvfs_view_resolve - the element a view shows at a path
 * @sbi: the mount
 * @v: the view
 * @path: relative to the top of the tree; "" for the top
 * @e: filled with the entry
 * @rev: set to the revision the view's spec selects for @path
 * @sel: set to the selection generation that chose it
 *
 * The element at DIR/NAME is shown from the revision of the first rule
 * that matches its path, from its place in that revision's tree.
 *
 * Return: 0; -ENOENT when no rule selects it or its revision lacks it;
 * what mvfs_resolve() returns.
 */
int mvfs_view_resolve(struct mvfs_sb_info *sbi, struct mvfs_view *v,
		      const char *path, struct mvfs_entry *e, u64 *rev,
		      u64 *sel)
{
	struct mvfs_spec *spec = mvfs_view_spec(v, sel);
	int i = mvfs_spec_match(spec, path, strlen(path));

	*rev = i < 0 ? 0 : spec->rules[i].rev;
	mvfs_spec_put(spec);
	if (!*rev)
		return -ENOENT;
	return mvfs_resolve(sbi, *rev, path, e);
}

/**
 * mvfs_rev_lookup - the revision that a NAME@@SPEC suffix names
 * @sbi: the mount
 * @spec: a revision number or a label, not NUL-terminated
 * @len: its length
 * @rev: set to the revision
 * @by_label: set when @spec was a label (which may move later)
 *
 * Return: 0, or -ENOENT when no such revision or label exists.
 */
int mvfs_rev_lookup(struct mvfs_sb_info *sbi, const char *spec,
		    unsigned int len, u64 *rev, bool *by_label)
{
	struct mvfs_state *st;
	char buf[MVFS_NAME_MAX + 1];
	int err = -ENOENT;
	s64 i;

	if (!mvfs_tag_valid(spec, len))
		return -ENOENT;
	memcpy(buf, spec, len);
	buf[len] = '\0';
	down_read(&sbi->state_lock);
	st = sbi->state;
	*by_label = false;
	if (!kstrtou64(buf, 10, rev)) {
		if (*rev >= 1 && *rev <= st->nrevs)
			err = 0;
		goto out_unlock;
	}
	i = mvfs_nameidx_find(&st->label_idx, buf, len);
	if (i >= 0) {
		*rev = st->labels[i].rev;
		*by_label = true;
		err = 0;
	}
out_unlock:
	up_read(&sbi->state_lock);
	return err;
}

/* The number of components of a '/'-separated PATH ("" has none). */
static unsigned int mvfs_path_depth(const char *path)
{
	unsigned int n = *path ? 1 : 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

/**
 * mvfs_resolve - find the element at PATH in revision REV
 * @sbi: the mount
 * @rev: a revision, 1..nrevs
 * @path: relative to the top of the tree, '/'-separated; "" for the top
 * @e: filled with the entry
 *
 * Cost: one binary search per component, whatever the number of revisions.
 * Called once per revision by the NAME@@ listing, so it yields the CPU.
 *
 * Return: 0; -ENOENT when the element does not exist there; -ELOOP for a
 * path deeper than MVFS_DEPTH_MAX components (logged, rate-limited); -EIO.
 */
int mvfs_resolve(struct mvfs_sb_info *sbi, u64 rev, const char *path,
		 struct mvfs_entry *e)
{
	const char *end;
	int err = 0;

	cond_resched();
	if (mvfs_path_depth(path) > MVFS_DEPTH_MAX) {
		if (mvfs_log_ok(sbi))
			pr_err("store %s: a path deeper than %u components\n",
			       sbi->store_name, MVFS_DEPTH_MAX);
		return -ELOOP;
	}
	down_read(&sbi->state_lock);
	if (!rev || rev > sbi->state->nrevs)
		err = -ENOENT;
	else
		mvfs_entry_from_attr(e, &sbi->state->revs[rev - 1].root);
	up_read(&sbi->state_lock);

	while (!err && *path) {
		end = strchrnul(path, '/');
		if (!S_ISDIR(e->mode))
			return -ENOENT;
		err = mvfs_store_find(sbi, e->ref, path, end - path, e);
		path = *end ? end + 1 : end;
	}
	return err;
}
