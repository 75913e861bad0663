// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c: the version-extended names of an element (FORMAT.md "The @@
 * rule"):
 *
 *   NAME@@REV       NAME in revision REV (a number or a label), fixed;
 *   NAME@@          a directory: the revisions in which NAME changed (it
 *                   appeared, or differs from its parent revision), then
 *                   one directory per branch on which NAME exists;
 *   NAME@@B,        a directory: the revisions on branch B in which NAME
 *   NAME@@/B        changed, and LATEST, NAME in B's newest revision.
 *
 * A label wins over a branch of the same name.  What a label or LATEST
 * names may move at each reload: such a version, and a branch directory,
 * is looked up again after one (by_label, gen).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"

/* Positions of NAME@@ and NAME@@B past every revision number. */
#define MVFS_HIST_MORE	((loff_t)BIT_ULL(33))

/* A fixed version's inode inherits how it was named (by label or not). */
static struct inode *mvfs_version_inode(struct inode *dir,
					const struct mvfs_entry *e,
					const char *path, u64 rev,
					bool by_label, u64 gen)
{
	struct inode *inode;

	inode = mvfs_entry_inode(dir->i_sb, e, path, NULL, rev);
	if (!IS_ERR(inode)) {
		MVFS_I(inode)->by_label = by_label;
		MVFS_I(inode)->gen = gen;
	}
	return inode;
}

/* The element PATH in REV as a fixed version, or NULL when it lacks it. */
static struct inode *mvfs_version_rev(struct inode *dir, const char *path,
				      u64 rev, bool by_label, u64 gen,
				      struct mvfs_entry *e)
{
	int err = mvfs_resolve(MVFS_SB(dir->i_sb), rev, path, e);

	if (err == -ENOENT)
		return NULL;
	if (err)
		return ERR_PTR(err);
	return mvfs_version_inode(dir, e, path, rev, by_label, gen);
}

/**
 * mvfs_version_at - NAME@@SPEC
 * @dir: the directory it is looked up in
 * @path: the element's path
 * @spec: a revision number or a label
 * @len: its length
 * @e: scratch space for an entry
 *
 * Return: the element in the revision @spec names, NULL when there is no
 * such revision or it lacks the element, or ERR_PTR.
 */
struct inode *mvfs_version_at(struct inode *dir, const char *path,
			      const char *spec, unsigned int len,
			      struct mvfs_entry *e)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	u64 gen = READ_ONCE(sbi->gen), rev;
	bool by_label;

	if (mvfs_rev_lookup(sbi, spec, len, &rev, &by_label))
		return NULL;
	return mvfs_version_rev(dir, path, rev, by_label, gen, e);
}

/* Revision REV's parent and branch, false when there is no REV. */
static bool mvfs_rev_meta(struct mvfs_sb_info *sbi, u64 rev, u64 *parent,
			  u32 *branch)
{
	bool found;

	down_read(&sbi->state_lock);
	found = rev && rev <= sbi->state->nrevs;
	if (found) {
		*parent = sbi->state->revs[rev - 1].parent;
		*branch = sbi->state->revs[rev - 1].branch;
	}
	up_read(&sbi->state_lock);
	return found;
}

/* Branch NAME (LEN bytes): its index and newest revision; -ENOENT. */
static int mvfs_branch_find(struct mvfs_sb_info *sbi, const char *name,
			    unsigned int len, u32 *index, u64 *head)
{
	struct mvfs_state *st;
	int err = -ENOENT;
	s64 i;

	if (!mvfs_tag_valid(name, len))
		return -ENOENT;
	down_read(&sbi->state_lock);
	st = sbi->state;
	i = mvfs_nameidx_find(&st->branch_idx, name, len);
	if (i >= 0) {
		*index = i;
		*head = st->branches[i].head;
		err = 0;
	}
	up_read(&sbi->state_lock);
	return err;
}

/* Branch I: its name and newest revision; false past the last. */
static bool mvfs_branch_nth(struct mvfs_sb_info *sbi, u32 i, char *name,
			    u64 *head)
{
	bool found;

	down_read(&sbi->state_lock);
	found = i < sbi->state->nbranches;
	if (found) {
		strscpy(name, sbi->state->branches[i].name, MVFS_NAME_MAX + 1);
		*head = sbi->state->branches[i].head;
	}
	up_read(&sbi->state_lock);
	return found;
}

static bool mvfs_entry_same(const struct mvfs_entry *a,
			    const struct mvfs_entry *b)
{
	return a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->size == b->size && a->mtime == b->mtime &&
	       a->mtime_nsec == b->mtime_nsec && a->ref == b->ref;
}

/*
 * A walk over the revisions in which an element changed: it exists there
 * and did not exist, or differed, in the revision's parent.  The parent
 * is most often the revision read just before, which is kept.
 */
struct mvfs_hist_walk {
	struct mvfs_sb_info	*sbi;
	const char		*path;
	u64			ino;	/* mvfs_ino() of path, no view */
	s64			branch;	/* only revisions on it; -1 all */
	u64			rev;	/* the last one looked at */
	u64			prev;	/* the revision prev_e is of, or 0 */
	bool			prev_has;
	struct mvfs_entry	e[2];	/* the revision's; prev's */
	unsigned long		*on;	/* branches where it exists */
	u32			non;	/* bits in on */
};

/* Is the element in REV different from its parent PARENT?  1, 0, -err */
static int mvfs_hist_changed(struct mvfs_hist_walk *w, u64 rev, u64 parent)
{
	bool had = false;
	int err;

	if (parent && parent == w->prev) {
		had = w->prev_has;
	} else if (parent) {
		err = mvfs_resolve(w->sbi, parent, w->path, &w->e[1]);
		if (err && err != -ENOENT)
			return err;
		had = !err;
	}
	return !had || !mvfs_entry_same(&w->e[0], &w->e[1]);
}

/* The next revision in which the element changed: 1 (w->rev, w->e[0]),
 * 0 at the end, or -errno.
 */
static int mvfs_hist_next(struct mvfs_hist_walk *w)
{
	u64 parent;
	u32 branch;
	int err, changed;

	while (mvfs_rev_meta(w->sbi, ++w->rev, &parent, &branch)) {
		if (w->branch >= 0 && branch != w->branch)
			continue;
		err = mvfs_resolve(w->sbi, w->rev, w->path, &w->e[0]);
		if (err && err != -ENOENT)
			return err;
		if (err) {
			w->prev = w->rev;
			w->prev_has = false;
			continue;
		}
		if (w->on && branch < w->non)
			set_bit(branch, w->on);
		changed = mvfs_hist_changed(w, w->rev, parent);
		if (changed < 0)
			return changed;
		w->e[1] = w->e[0];
		w->prev = w->rev;
		w->prev_has = true;
		if (changed)
			return 1;
	}
	return 0;
}

static struct mvfs_hist_walk *mvfs_hist_start(struct inode *dir,
					      const char *path, s64 branch)
{
	struct mvfs_hist_walk *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (w) {
		w->sbi = MVFS_SB(dir->i_sb);
		w->path = path;
		w->ino = mvfs_ino(NULL, path, NULL, 0);
		w->branch = branch;
	}
	return w;
}

/*
 * The inode number of NAME@@B, PATH the element's, B the branch's name;
 * of NAME@@ with B empty (no branch has an empty name).
 */
static u64 mvfs_branch_ino(const char *path, const char *branch,
			   unsigned int len)
{
	return mvfs_ino_child(mvfs_ino_prefix(NULL, path), branch, len) ^
	       BIT_ULL(62);
}

/* A directory of KIND for PATH (NAME@@ or NAME@@B). */
static struct inode *mvfs_hist_inode(struct inode *dir, enum mvfs_kind kind,
				     char *path)
{
	struct inode *inode;

	if (!path)
		return ERR_PTR(-ENOMEM);
	inode = mvfs_new_inode(dir->i_sb, kind, S_IFDIR | 0555);
	if (!inode) {
		kfree(path);
		return ERR_PTR(-ENOMEM);
	}
	MVFS_I(inode)->path = path;
	if (kind == MVFS_BRANCH) {
		/* The branch may go, or be another, after a reload. */
		MVFS_I(inode)->by_label = true;
		MVFS_I(inode)->gen = READ_ONCE(MVFS_SB(dir->i_sb)->gen);
	}
	return inode;
}

/**
 * mvfs_history - NAME@@
 * @dir: the directory it is looked up in
 * @path: the element's path
 * @e: scratch space for an entry
 *
 * Return: a directory of the element's revisions and branches, NULL when
 * no revision has it, or ERR_PTR.
 */
struct inode *mvfs_history(struct inode *dir, const char *path,
			   struct mvfs_entry *e)
{
	struct mvfs_hist_walk *w = mvfs_hist_start(dir, path, -1);
	struct inode *inode;
	int err;

	if (!w)
		return ERR_PTR(-ENOMEM);
	err = mvfs_hist_next(w);
	kfree(w);
	if (err <= 0)
		return err ? ERR_PTR(err) : NULL;
	inode = mvfs_hist_inode(dir, MVFS_HIST, kstrdup(path, GFP_KERNEL));
	/* The same number at each lookup, as any other name's. */
	if (!IS_ERR(inode))
		inode->i_ino = mvfs_branch_ino(path, "", 0);
	return inode;
}

/**
 * mvfs_branch_dir - NAME@@B, B a branch
 * @dir: the directory it is looked up in
 * @path: the element's path
 * @branch: the branch's name
 * @len: its length
 *
 * Return: a directory of the element's revisions on the branch, NULL
 * when there is no such branch, or ERR_PTR.
 */
struct inode *mvfs_branch_dir(struct inode *dir, const char *path,
			      const char *branch, unsigned int len)
{
	struct inode *inode;
	u32 index;
	u64 head;

	if (mvfs_branch_find(MVFS_SB(dir->i_sb), branch, len, &index, &head))
		return NULL;
	inode = mvfs_hist_inode(dir, MVFS_BRANCH,
				kasprintf(GFP_KERNEL, "%.*s/%s", (int)len,
					  branch, path));
	if (!IS_ERR(inode))
		inode->i_ino = mvfs_branch_ino(path, branch, len);
	return inode;
}

/* NAME@@/N: NAME in revision N (or a label's); NAME@@/B: a branch's. */
static struct dentry *mvfs_hist_lookup(struct inode *dir,
				       struct dentry *dentry,
				       unsigned int flags)
{
	const struct qstr *q = &dentry->d_name;
	const char *path = MVFS_I(dir)->path;
	struct inode *inode;
	struct mvfs_entry *e;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	inode = mvfs_version_at(dir, path, q->name, q->len, e);
	if (!inode)
		inode = mvfs_branch_dir(dir, path, q->name, q->len);
	kfree(e);
	return d_splice_alias(inode, dentry);
}

/*
 * Emit the revision W is at, at its position, under the number its
 * fixed version has (mvfs_entry_inode()); false when full.
 */
static bool mvfs_hist_emit(struct dir_context *ctx, struct mvfs_hist_walk *w)
{
	u64 rev = w->rev;
	char name[24];
	int len;

	if (rev + 2 < ctx->pos)
		return true;
	len = snprintf(name, sizeof(name), "%llu", rev);
	if (!dir_emit(ctx, name, len, w->ino ^ rev,
		      fs_umode_to_dtype(w->e[0].mode)))
		return false;
	ctx->pos = rev + 3;
	return true;
}

/* Emit, past the numbers, the branches on which the element exists. */
static int mvfs_hist_branches(struct mvfs_hist_walk *w,
			      struct dir_context *ctx)
{
	char name[MVFS_NAME_MAX + 1];
	u64 head;
	u32 i;
	int err;

	for (i = 0; mvfs_branch_nth(w->sbi, i, name, &head); i++) {
		if (ctx->pos > MVFS_HIST_MORE + i)
			continue;
		if (i >= w->non || !test_bit(i, w->on)) {
			/* A branch without revisions of its own yet. */
			err = head ? mvfs_resolve(w->sbi, head, w->path,
						  &w->e[0]) : -ENOENT;
			if (err == -ENOENT)
				continue;
			if (err)
				return err;
		}
		if (!dir_emit(ctx, name, strlen(name),
			      mvfs_branch_ino(w->path, name, strlen(name)),
			      DT_DIR))
			break;
		ctx->pos = MVFS_HIST_MORE + i + 1;
	}
	return 0;
}

/*
 * Where a listing of revisions goes on from: past the last revision it
 * emitted (at position rev + 3), not from the first revision again, which
 * made a long history's listing cost its revisions at each getdents().
 */
static void mvfs_hist_resume(struct mvfs_hist_walk *w, loff_t pos)
{
	if (pos > 3 && pos <= MVFS_HIST_MORE)
		w->rev = pos - 3;
}

/* NAME@@: the revisions in which it changed, then its branches. */
static int mvfs_hist_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct mvfs_hist_walk *w;
	bool whole;
	int err = -ENOMEM;

	if (!dir_emit_dots(file, ctx))
		return 0;
	w = mvfs_hist_start(dir, MVFS_I(dir)->path, -1);
	if (!w)
		return -ENOMEM;
	down_read(&sbi->state_lock);
	w->non = sbi->state->nbranches;
	up_read(&sbi->state_lock);
	/* A reload may add branches: those past non are looked at alone. */
	w->on = bitmap_zalloc(w->non, GFP_KERNEL);
	if (!w->on)
		goto out_free;
	mvfs_hist_resume(w, ctx->pos);
	whole = !w->rev;
	while ((err = mvfs_hist_next(w)) > 0 &&
	       mvfs_hist_emit(ctx, w))
		;
	/* err > 0: the buffer is full. */
	if (!err && !whole) {
		/* The branches it is on: from every revision, once. */
		w->rev = 0;
		w->prev = 0;
		while ((err = mvfs_hist_next(w)) > 0)
			;
	}
	if (!err)
		err = mvfs_hist_branches(w, ctx);
	err = min(err, 0);
out_free:
	bitmap_free(w->on);
	kfree(w);
	return err;
}

const struct inode_operations mvfs_hist_iops = {
	.lookup		= mvfs_hist_lookup,
};

const struct file_operations mvfs_hist_fops = {
	.read		= generic_read_dir,
	.iterate_shared	= mvfs_hist_readdir,
	.llseek		= generic_file_llseek,
};

/* A branch directory's branch (its path up to the first '/'), at *len. */
static const char *mvfs_branch_of(struct inode *dir, unsigned int *len,
				  const char **path)
{
	const char *p = MVFS_I(dir)->path;
	const char *slash = strchr(p, '/');

	*len = slash - p;
	*path = slash + 1;
	return p;
}

/* NAME@@B/LATEST: NAME in B's newest revision; NAME@@B/N as NAME@@/N. */
static struct dentry *mvfs_branch_lookup(struct inode *dir,
					 struct dentry *dentry,
					 unsigned int flags)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	const struct qstr *q = &dentry->d_name;
	u64 gen = READ_ONCE(sbi->gen), head;
	struct inode *inode = NULL;
	const char *branch, *path;
	struct mvfs_entry *e;
	unsigned int len;
	u32 index;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	branch = mvfs_branch_of(dir, &len, &path);
	if (q->len == sizeof(MVFS_SPEC_LATEST) - 1 &&
	    !memcmp(q->name, MVFS_SPEC_LATEST, q->len)) {
		if (!mvfs_branch_find(sbi, branch, len, &index, &head) && head)
			inode = mvfs_version_rev(dir, path, head, true, gen, e);
	} else {
		inode = mvfs_version_at(dir, path, q->name, q->len, e);
	}
	kfree(e);
	return d_splice_alias(inode, dentry);
}

/* NAME@@B: the revisions on B in which NAME changed, then LATEST. */
static int mvfs_branch_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	const char *branch, *path;
	struct mvfs_hist_walk *w;
	unsigned int len;
	u32 index;
	u64 head;
	int err;

	if (!dir_emit_dots(file, ctx) || ctx->pos > MVFS_HIST_MORE)
		return 0;	/* full, or LATEST given: the end */
	branch = mvfs_branch_of(dir, &len, &path);
	if (mvfs_branch_find(sbi, branch, len, &index, &head))
		return 0;	/* gone since the lookup */
	w = mvfs_hist_start(dir, path, index);
	if (!w)
		return -ENOMEM;
	mvfs_hist_resume(w, ctx->pos);
	while ((err = mvfs_hist_next(w)) > 0 &&
	       mvfs_hist_emit(ctx, w))
		;
	/* err > 0: the buffer is full. */
	if (!err && ctx->pos <= MVFS_HIST_MORE && head) {
		err = mvfs_resolve(sbi, head, path, &w->e[0]);
		if (!err && dir_emit(ctx, MVFS_SPEC_LATEST,
				     sizeof(MVFS_SPEC_LATEST) - 1,
				     w->ino ^ head,
				     fs_umode_to_dtype(w->e[0].mode)))
			ctx->pos = MVFS_HIST_MORE + 1;
		if (err == -ENOENT)
			err = 0;
	}
	kfree(w);
	return min(err, 0);
}

const struct inode_operations mvfs_branch_iops = {
	.lookup		= mvfs_branch_lookup,
};

const struct file_operations mvfs_branch_fops = {
	.read		= generic_read_dir,
	.iterate_shared	= mvfs_branch_readdir,
	.llseek		= generic_file_llseek,
};
