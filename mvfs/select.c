// SPDX-License-Identifier: GPL-2.0
/*
 * select.c: which elements a directory of a view shows, under the view's
 * config spec.
 *
 * The element DIR/NAME is shown from the revision R of the first rule
 * whose pattern matches its path, found in the tree of DIR in R.  Matching
 * patterns per name would make every lookup pay for the spec, so each
 * directory works out once per selection (struct mvfs_dsel, cached in the
 * inode until the view's selection generation moves) which rules can
 * select any of its children (the candidates, with DIR's tree in each
 * one's revision) and whether the first of them selects every child.
 * That is the usual case (a last "*" rule, or "dir/..." above the
 * directory): lookups and readdir there match no pattern at all, and cost
 * what they cost with a one-rule spec.  Elsewhere a name is matched
 * against the candidates only, and readdir takes the union of the
 * candidates' trees, each name from the tree of the rule that selects it.
 *
 * A fixed version's directory (NAME@@REV) shows its own revision's tree.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"

/* A rule that may select children of the directory. */
struct mvfs_cand {
	u64	rev;	/* its revision; 0 selects nothing */
	u64	tree;	/* the directory's tree in rev; 0 none */
	u32	rule;	/* its index in spec */
	bool	first;	/* the first candidate of its revision */
};

struct mvfs_dsel {
	struct kref		ref;
	u64			sel, rev, tree;	/* the directory's own, the key */
	struct mvfs_spec	*spec;	/* NULL: c[0] selects every child */
	char			*path;	/* the directory's element path */
	u32			len;
	unsigned int		nlink;	/* of the directory; 0 unknown; ONCE */
	u32			n;
	struct mvfs_cand	c[];
};

static void mvfs_dsel_release(struct kref *ref)
{
	struct mvfs_dsel *d = container_of(ref, struct mvfs_dsel, ref);

	mvfs_spec_put(d->spec);
	kfree(d->path);
	kfree(d);
}

/**
 * mvfs_dsel_put - drop a reference taken by mvfs_dsel_get()
 * @d: the selection, or NULL
 */
void mvfs_dsel_put(struct mvfs_dsel *d)
{
	if (d)
		kref_put(&d->ref, mvfs_dsel_release);
}

/**
 * mvfs_dsel_uniform - does one tree give every child of a directory
 * @d: the selection, or NULL (nothing)
 * @tree: set to that tree (0: no children)
 *
 * Return: true when @d has no per-name selection to make.
 */
bool mvfs_dsel_uniform(const struct mvfs_dsel *d, u64 *tree)
{
	*tree = d && d->n ? d->c[0].tree : 0;
	return !d || !d->spec;
}

/**
 * mvfs_dsel_empty - does no tree give the directory children
 * @d: the selection, or NULL (nothing)
 *
 * Return: true when every child is private.
 */
bool mvfs_dsel_empty(const struct mvfs_dsel *d)
{
	u32 i;

	for (i = 0; d && i < d->n; i++)
		if (d->c[i].rev && d->c[i].tree)
			return false;
	return true;
}

/**
 * mvfs_dsel_nlink - the link count a selection gives its directory
 * @d: the selection, or NULL
 *
 * Return: what mvfs_dsel_set_nlink() kept, or 0 when unknown.
 */
unsigned int mvfs_dsel_nlink(const struct mvfs_dsel *d)
{
	return d ? READ_ONCE(d->nlink) : 0;
}

/**
 * mvfs_dsel_set_nlink - keep the link count counted for a selection
 * @d: the selection, or NULL
 * @nlink: two plus the subdirectories it shows
 *
 * A selection never changes, so it is counted once, not at each stat.
 */
void mvfs_dsel_set_nlink(struct mvfs_dsel *d, unsigned int nlink)
{
	if (d)
		WRITE_ONCE(d->nlink, nlink);
}

/*
 * The directory's own selection: its key (sel, rev, tree), or false when
 * it shows no tree (a private directory that was never an element).
 * Refreshes a directory whose view's selection moved.
 */
static bool mvfs_dir_key(struct inode *dir, u64 *sel, u64 *rev, u64 *tree)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	struct mvfs_view *v = ei->view;

	if (ei->kind == MVFS_VIEW) {
		spin_lock(&v->lock);
		*sel = v->sel;
		*rev = v->rev;
		*tree = v->rev ? v->root.ref : 0;
		spin_unlock(&v->lock);
		return true;
	}
	if (!mvfs_dir_shows_tree(dir))
		return false;
	if (v && READ_ONCE(ei->sel) != READ_ONCE(v->sel))
		mvfs_dir_refresh(dir);
	mutex_lock(&ei->plock);
	*sel = ei->sel;
	*rev = ei->rev;
	*tree = ei->ref;
	mutex_unlock(&ei->plock);
	return true;
}

/* The tree of PATH in REV, or 0 when it is not a directory there. */
static int mvfs_cand_tree(struct mvfs_sb_info *sbi, const char *path, u64 rev,
			  u64 *tree)
{
	struct mvfs_entry *e;
	int err;

	*tree = 0;
	if (!rev)
		return 0;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	err = mvfs_resolve(sbi, rev, path, e);
	if (!err && S_ISDIR(e->mode))
		*tree = e->ref;
	kfree(e);
	return err == -ENOENT ? 0 : err;
}

/*
 * The candidates of a directory at PATH under SPEC, in rule order, up to
 * the first that selects every child.  0 and *out, or -errno.
 */
static int mvfs_dsel_rules(const struct mvfs_spec *spec, const char *path,
			   struct mvfs_dsel **out)
{
	u32 len = strlen(path), i, n = 0;
	bool some, all = false;
	struct mvfs_dsel *d;

	d = kzalloc(struct_size(d, c, spec->nrules), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	for (i = 0; i < spec->nrules && !all; i++) {
		if (!spec->rules[i].rev)
			continue;	/* passed over: names no revision */
		mvfs_spec_children(spec, i, path, len, &some, &all);
		if (!some)
			continue;
		d->c[n].rule = i;
		d->c[n].rev = spec->rules[i].rev;
		n++;
	}
	d->n = n;
	/* One rule for every child: no name needs matching. */
	if (n > 1 || (n == 1 && !all))
		d->spec = (struct mvfs_spec *)spec;
	*out = d;
	return 0;
}

/* Build the selection of DIR (its plock held) for its key. */
static struct mvfs_dsel *mvfs_dsel_build(struct inode *dir, u64 sel, u64 rev,
					 u64 tree)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct mvfs_inode_info *ei = MVFS_I(dir);
	struct mvfs_spec *spec = NULL;
	struct mvfs_dsel *d;
	u64 vsel;
	u32 i, j;
	int err;

	lockdep_assert_held(&ei->plock);
	if (ei->view && tree) {
		spec = mvfs_view_spec(ei->view, &vsel);
		err = mvfs_dsel_rules(spec, ei->path, &d);
	} else {
		/* A fixed version's tree; or none: a directory not in the
		 * tree (or a top no rule selects) shows no element.
		 */
		d = kzalloc(struct_size(d, c, 1), GFP_KERNEL);
		err = d ? 0 : -ENOMEM;
		if (d && tree) {
			d->n = 1;
			d->c[0].rev = rev;
		}
	}
	if (err)
		goto out_put;
	kref_init(&d->ref);
	if (d->spec)
		kref_get(&spec->ref);
	d->sel = sel;
	d->rev = rev;
	d->tree = tree;
	d->path = kstrdup(ei->path, GFP_KERNEL);
	err = d->path ? 0 : -ENOMEM;
	d->len = d->path ? strlen(d->path) : 0;
	for (i = 0; !err && i < d->n; i++) {
		for (j = 0; j < i && d->c[j].rev != d->c[i].rev; j++)
			;
		d->c[i].first = j == i;
		if (j < i)
			d->c[i].tree = d->c[j].tree;
		else if (d->c[i].rev == rev)
			d->c[i].tree = tree;
		else
			err = mvfs_cand_tree(sbi, ei->path, d->c[i].rev,
					     &d->c[i].tree);
	}
	if (err) {
		mvfs_dsel_put(d);
		d = ERR_PTR(err);
	}
out_put:
	mvfs_spec_put(spec);
	return err ? ERR_PTR(err) : d;
}

/**
 * mvfs_dsel_get - how a directory selects its children now
 * @dir: a directory inode of mvfs
 *
 * Return: the selection (mvfs_dsel_put() it), NULL when the directory
 * shows no tree (a private directory that was never an element), or
 * ERR_PTR.
 */
struct mvfs_dsel *mvfs_dsel_get(struct inode *dir)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	struct mvfs_dsel *d, *old = NULL;
	u64 sel, rev, tree;

	if (!mvfs_dir_key(dir, &sel, &rev, &tree))
		return NULL;
	mutex_lock(&ei->plock);
	d = ei->dsel;
	if (!d || d->sel != sel || d->rev != rev || d->tree != tree) {
		old = d;
		d = mvfs_dsel_build(dir, sel, rev, tree);
		if (IS_ERR(d)) {
			old = NULL;
			goto out_unlock;
		}
		ei->dsel = d;
	}
	kref_get(&d->ref);
out_unlock:
	mutex_unlock(&ei->plock);
	mvfs_dsel_put(old);
	return d;
}

/* The candidate that selects NAME, or NULL when none does. */
static const struct mvfs_cand *mvfs_dsel_pick(const struct mvfs_dsel *d,
					      const char *name,
					      unsigned int len, char *buf)
{
	const struct mvfs_rule *r;
	u32 i, plen = 0;

	if (!d || !d->n)
		return NULL;
	if (!d->spec)
		return &d->c[0];
	if (d->len) {
		memcpy(buf, d->path, d->len);
		buf[d->len] = '/';
		plen = d->len + 1;
	}
	memcpy(buf + plen, name, len);
	plen += len;
	for (i = 0; i < d->n; i++) {
		r = &d->spec->rules[d->c[i].rule].r;
		if (mvfs_pattern_match(d->spec->text + r->pat, r->pat_len, buf,
				       plen))
			return &d->c[i];
	}
	return NULL;
}

/* A buffer for "DIR/NAME" when D matches names, else NULL (not needed). */
static char *mvfs_dsel_buf(const struct mvfs_dsel *d, int *err)
{
	char *buf = NULL;

	*err = 0;
	if (d && d->spec) {
		buf = kmalloc(d->len + 2 + MVFS_ENTRY_NAME_MAX, GFP_KERNEL);
		if (!buf)
			*err = -ENOMEM;
	}
	return buf;
}

/**
 * mvfs_lower_find - the element a directory of a view shows under a name
 * @dir: the directory
 * @name: the name
 * @len: its length, at most MVFS_ENTRY_NAME_MAX
 * @e: filled with the entry
 * @rev: set to the revision it is from (may be NULL)
 * @sel: set to the selection generation that chose it (may be NULL)
 *
 * Private entries are not looked at: this is the tree under them.
 *
 * Return: 0; -ENOENT when no rule selects it or its revision lacks it;
 * -EIO, -ENOMEM, -ELOOP.
 */
int mvfs_lower_find(struct inode *dir, const char *name, unsigned int len,
		    struct mvfs_entry *e, u64 *rev, u64 *sel)
{
	const struct mvfs_cand *c;
	struct mvfs_dsel *d;
	char *buf;
	int err;

	d = mvfs_dsel_get(dir);
	if (IS_ERR(d))
		return PTR_ERR(d);
	buf = mvfs_dsel_buf(d, &err);
	c = err ? NULL : mvfs_dsel_pick(d, name, len, buf);
	if (c)
		err = mvfs_store_find(MVFS_SB(dir->i_sb), c->tree, name, len,
				      e);
	else if (!err)
		err = -ENOENT;
	if (!err && rev)
		*rev = c->rev;
	if (!err && sel)
		*sel = d->sel;
	kfree(buf);
	mvfs_dsel_put(d);
	return err;
}

struct mvfs_union_ctx {
	const struct mvfs_dsel	*d;
	const struct mvfs_cand	*c;	/* the tree being read */
	char			*buf;
	mvfs_actor_t		actor;
	void			*priv;
	bool			stop;	/* the actor said so */
};

/* Pass on the entries of c's tree that c's revision selects. */
static bool mvfs_union_actor(void *priv, const struct mvfs_entry *e,
			     u32 index)
{
	struct mvfs_union_ctx *u = priv;
	const struct mvfs_cand *c;

	c = mvfs_dsel_pick(u->d, e->name, e->name_len, u->buf);
	if (!c || c->rev != u->c->rev)
		return true;
	u->stop = !u->actor(u->priv, e, index);
	return !u->stop;
}

/**
 * mvfs_dsel_iterate - call an actor on every element a directory shows
 * @sbi: the mount
 * @d: the directory's selection, or NULL (nothing)
 * @actor: called for each element, in no particular order across the
 *         revisions of a spec's rules (sorted when mvfs_dsel_uniform()),
 *         with its index in its own tree; returns false to stop
 * @priv: passed to @actor
 *
 * Return: 0, or -errno.
 */
int mvfs_dsel_iterate(struct mvfs_sb_info *sbi, struct mvfs_dsel *d,
		      mvfs_actor_t actor, void *priv)
{
	struct mvfs_union_ctx u = { .d = d, .actor = actor, .priv = priv };
	u32 i;
	int err;

	if (!d || !d->n)
		return 0;
	if (!d->spec)
		return mvfs_store_iterate(sbi, d->c[0].tree, 0, actor, priv);
	u.buf = mvfs_dsel_buf(d, &err);
	for (i = 0; !err && !u.stop && i < d->n; i++) {
		if (!d->c[i].first || !d->c[i].tree)
			continue;
		u.c = &d->c[i];
		err = mvfs_store_iterate(sbi, d->c[i].tree, 0,
					 mvfs_union_actor, &u);
	}
	kfree(u.buf);
	return err;
}

/**
 * mvfs_lower_iterate - mvfs_dsel_iterate() of a directory's selection now
 * @dir: the directory
 * @actor: as for mvfs_dsel_iterate()
 * @priv: passed to @actor
 *
 * Return: 0, or -errno.
 */
int mvfs_lower_iterate(struct inode *dir, mvfs_actor_t actor, void *priv)
{
	struct mvfs_dsel *d = mvfs_dsel_get(dir);
	int err;

	if (IS_ERR(d))
		return PTR_ERR(d);
	err = mvfs_dsel_iterate(MVFS_SB(dir->i_sb), d, actor, priv);
	mvfs_dsel_put(d);
	return err;
}
