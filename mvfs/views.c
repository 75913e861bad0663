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

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"

/**
 * mvfs_name_valid - is this a valid tag or label name
 * @name: the name, not necessarily NUL-terminated
 * @len: its length
 *
 * Return: true for 1..64 of [A-Za-z0-9._-] other than "." and "..".
 */
bool mvfs_name_valid(const char *name, unsigned int len)
{
	unsigned int i;

	if (len == 0 || len > MVFS_NAME_MAX)
		return false;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

/* The revision a view record selects in ST; 0 when none (yet). */
static u64 mvfs_select(const struct mvfs_state *st,
		       const struct mvfs_view_rec *r)
{
	u32 i;

	switch (r->select) {
	case MVFS_SEL_REV:
		return r->rev;
	case MVFS_SEL_LABEL:
		for (i = 0; i < st->nlabels; i++)
			if (!strcmp(st->labels[i].name, r->label))
				return st->labels[i].rev;
		return 0;
	default:
		return st->nrevs;
	}
}

/* Point V at what its record selects in ST.  Caller holds state_lock. */
static void mvfs_view_update(struct mvfs_view *v, const struct mvfs_state *st,
			     const struct mvfs_view_rec *r)
{
	u64 rev = mvfs_select(st, r);

	spin_lock(&v->lock);
	v->rec = *r;
	if (rev)
		v->root = st->revs[rev - 1].root;
	else
		v->root = (struct mvfs_entry){ .mode = S_IFDIR | 0555 };
	WRITE_ONCE(v->rev, rev);
	spin_unlock(&v->lock);
}

static void mvfs_view_release(struct kref *ref)
{
	struct mvfs_view *v = container_of(ref, struct mvfs_view, ref);

	/* Removed from the store while started: the root goes with it. */
	if (v->registered) {
		path_put(&v->vroot);
		path_put(&v->base);
	}
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

static struct mvfs_view *mvfs_view_find(struct mvfs_sb_info *sbi,
					const char *tag, unsigned int len)
{
	struct mvfs_view *v;

	list_for_each_entry(v, &sbi->views, node)
		if (strlen(v->rec.tag) == len && !memcmp(v->rec.tag, tag, len))
			return v;
	return NULL;
}

/* Bring sbi->views in line with ST.  Caller holds state_lock for write. */
static int mvfs_views_sync(struct mvfs_sb_info *sbi, struct mvfs_state *st)
{
	struct mvfs_view *v, *tmp;
	LIST_HEAD(keep);
	u32 i;

	for (i = 0; i < st->nviews; i++) {
		v = mvfs_view_find(sbi, st->views[i].tag,
				   strlen(st->views[i].tag));
		if (v) {
			list_move_tail(&v->node, &keep);
		} else {
			v = kzalloc(sizeof(*v), GFP_KERNEL);
			if (!v)
				goto out_nomem;
			kref_init(&v->ref);
			spin_lock_init(&v->lock);
			list_add_tail(&v->node, &keep);
		}
		mvfs_view_update(v, st, &st->views[i]);
	}
	/* What is left was removed from the store. */
	list_for_each_entry_safe(v, tmp, &sbi->views, node) {
		list_del(&v->node);
		WRITE_ONCE(v->dead, true);
		mvfs_view_put(v);
	}
	list_splice(&keep, &sbi->views);
	return 0;

out_nomem:
	list_splice(&keep, &sbi->views);
	return -ENOMEM;
}

/**
 * mvfs_views_reload - read the store's state again and apply it
 * @sb: the mvfs superblock
 *
 * Return: 0; or the error of mvfs_store_read_state(), in which case the
 * state in force does not change.
 */
int mvfs_views_reload(struct super_block *sb)
{
	struct mvfs_sb_info *sbi = MVFS_SB(sb);
	struct mvfs_state *st, *old;
	int err;

	down_write(&sbi->state_lock);
	st = mvfs_store_read_state(sbi);
	if (IS_ERR(st)) {
		err = PTR_ERR(st);
		goto out_unlock;
	}
	err = mvfs_views_sync(sbi, st);
	if (err) {
		mvfs_state_free(st);
		goto out_unlock;
	}
	old = sbi->state;
	sbi->state = st;
	WRITE_ONCE(sbi->gen, sbi->gen + 1);
	mvfs_state_free(old);
out_unlock:
	up_write(&sbi->state_lock);
	return err;
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
	struct mvfs_view *v;

	down_read(&sbi->state_lock);
	v = mvfs_view_find(sbi, tag, len);
	if (v)
		kref_get(&v->ref);
	up_read(&sbi->state_lock);
	return v;
}

/**
 * mvfs_view_root - what a view shows now
 * @v: the view
 * @root: filled with the top directory of its revision
 *
 * Return: the revision, 0 when it selects none (an empty directory).
 */
u64 mvfs_view_root(struct mvfs_view *v, struct mvfs_entry *root)
{
	u64 rev;

	spin_lock(&v->lock);
	*root = v->root;
	rev = v->rev;
	spin_unlock(&v->lock);
	return rev;
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
	u32 i;

	if (!mvfs_name_valid(spec, len))
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
	for (i = 0; i < st->nlabels; i++) {
		if (!strcmp(st->labels[i].name, buf)) {
			*rev = st->labels[i].rev;
			*by_label = true;
			err = 0;
			break;
		}
	}
out_unlock:
	up_read(&sbi->state_lock);
	return err;
}

/**
 * mvfs_resolve - find the element at PATH in revision REV
 * @sbi: the mount
 * @rev: a revision, 1..nrevs
 * @path: relative to the top of the tree, '/'-separated; "" for the top
 * @e: filled with the entry
 *
 * Cost: one binary search per component, whatever the number of revisions.
 *
 * Return: 0; -ENOENT when the element does not exist there; -EIO.
 */
int mvfs_resolve(struct mvfs_sb_info *sbi, u64 rev, const char *path,
		 struct mvfs_entry *e)
{
	const char *end;
	int err = 0;

	down_read(&sbi->state_lock);
	if (!rev || rev > sbi->state->nrevs)
		err = -ENOENT;
	else
		*e = sbi->state->revs[rev - 1].root;
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
