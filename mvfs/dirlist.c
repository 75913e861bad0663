// SPDX-License-Identifier: GPL-2.0
/*
 * dirlist.c: the listing of a directory that has private entries: the
 * private directory's entries (whiteouts marked, and each, where it may
 * not be its own, under the number stat() gives it), then the entries of
 * the tree it lies over that no private entry hides, as overlayfs merges
 * a directory.  Built at the first readdir of an open directory (and at
 * rewinddir), so that positions stay stable while it is read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iversion.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "mvfs.h"

#define MVFS_DIRLIST_MAX	BIT(22)	/* entries, as a sanity bound */

/**
 * mvfs_dirlist_free - free a listing
 * @l: the listing, or NULL
 */
void mvfs_dirlist_free(struct mvfs_dirlist *l)
{
	struct mvfs_dirchunk *c;

	if (!l)
		return;
	while (l->chunks) {
		c = l->chunks;
		l->chunks = c->next;
		kfree(c);
	}
	kvfree(l->ents);
	kfree(l);
}

#define MVFS_DIRCHUNK_DATA	(PAGE_SIZE - sizeof(struct mvfs_dirchunk))

/* Room for an entry of SIZE bytes in L's chunks, or NULL. */
static void *mvfs_dirlist_room(struct mvfs_dirlist *l, unsigned int size)
{
	struct mvfs_dirchunk *c = l->chunks;
	void *p;

	BUILD_BUG_ON(sizeof(struct mvfs_dirent) + NAME_MAX + 8 >
		     MVFS_DIRCHUNK_DATA);
	size = ALIGN(size, 8);
	if (!c || c->used + size > MVFS_DIRCHUNK_DATA) {
		c = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!c)
			return NULL;
		c->next = l->chunks;
		c->used = 0;
		l->chunks = c;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

static int mvfs_dirlist_add(struct mvfs_dirlist *l, const char *name,
			    unsigned int len, u64 ino, unsigned int type)
{
	struct mvfs_dirent **ents, *de;

	if (l->count == l->size) {
		if (l->size >= MVFS_DIRLIST_MAX)
			return -EFBIG;
		ents = kvmalloc_array(l->size * 2 + 16, sizeof(*ents),
				      GFP_KERNEL);
		if (!ents)
			return -ENOMEM;
		if (l->count)
			memcpy(ents, l->ents, l->count * sizeof(*ents));
		kvfree(l->ents);
		l->ents = ents;
		l->size = l->size * 2 + 16;
	}
	de = mvfs_dirlist_room(l, sizeof(*de) + len + 1);
	if (!de)
		return -ENOMEM;
	de->ino = ino;
	de->len = len;
	de->type = type;
	de->whiteout = false;
	memcpy(de->name, name, len);
	de->name[len] = '\0';
	l->ents[l->count++] = de;
	return 0;
}

struct mvfs_upper_ctx {
	struct dir_context	ctx;
	struct mvfs_dirlist	*l;
	int			err;
};

static bool mvfs_upper_actor(struct dir_context *ctx, const char *name,
			     int len, loff_t pos, u64 ino, unsigned int type)
{
	struct mvfs_upper_ctx *c = container_of(ctx, struct mvfs_upper_ctx,
						ctx);

	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return true;
	c->err = mvfs_dirlist_add(c->l, name, len, mvfs_ino_own(ino), type);
	return !c->err;
}

static int mvfs_dirent_cmp(const void *a, const void *b)
{
	const struct mvfs_dirent *x = *(const struct mvfs_dirent **)a;
	const struct mvfs_dirent *y = *(const struct mvfs_dirent **)b;
	int c = memcmp(x->name, y->name, min(x->len, y->len));

	return c ? c : (int)x->len - (int)y->len;
}

/*
 * Mark the whiteouts among the character devices of the private
 * directory UDIR of DIR; with NUMBERS, give each other entry the number
 * stat() gives it (mvfs_upper_ino()): in a directory that shows a tree,
 * an entry may be a copy of an element, which keeps the element's number
 * wherever it moved, or a new file where an element was, which has its
 * own; in an impure one (mvfs_impure_for()), a copy was moved in.
 */
static int mvfs_dirlist_private(struct inode *dir, struct dentry *udir,
				struct mvfs_dirlist *l, bool numbers)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct mvfs_dirent *de;
	struct dentry *d;
	unsigned int i;
	int err = 0;

	for (i = 0; i < l->count && !err; i++) {
		de = l->ents[i];
		if (de->type != DT_CHR && !numbers)
			continue;
		d = mvfs_priv_lookup(sbi, udir, de->name, de->len);
		if (IS_ERR(d))
			return PTR_ERR(d);
		de->whiteout = mvfs_is_whiteout(d);
		if (numbers && !de->whiteout && d_is_positive(d))
			err = mvfs_upper_ino(dir->i_sb, d, &de->ino);
		/* A malformed origin (logged; a lookup says EIO): listed. */
		if (err == -EIO)
			err = 0;
		dput(d);
	}
	return err;
}

/*
 * The private entries of DIR (in UDIR); sorted by name for merging with
 * a tree (MERGE); each under the number stat() gives it when NUMBERS
 * (and DIR may show a tree, or is impure).
 */
static int mvfs_dirlist_upper(struct inode *dir, struct dentry *udir,
			      struct mvfs_dirlist *l, bool merge, bool numbers)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct mvfs_upper_ctx c = { .ctx.actor = mvfs_upper_actor, .l = l };
	int err;

	err = mvfs_priv_iterate(sbi, udir, &c.ctx);
	if (!err)
		err = c.err;
	if (!err)
		err = mvfs_dirlist_private(dir, udir, l, numbers &&
					   (mvfs_dir_shows_tree(dir) ||
					    mvfs_impure(sbi, udir)));
	if (!err && merge)
		sort(l->ents, l->count, sizeof(*l->ents), mvfs_dirent_cmp,
		     NULL);
	return err;
}

struct mvfs_lower_ctx {
	struct mvfs_dirlist	*l;
	unsigned int		nupper;
	struct mvfs_view	*view;
	const char		*path;
	u64			ino_prefix;	/* of path, for mvfs_ino() */
	u64			ino_rev;	/* a fixed version's revision */
	int			err;
};

/* The private entry of this name, or NULL (none can be longer). */
static struct mvfs_dirent *mvfs_dirlist_find(struct mvfs_lower_ctx *c,
					     const char *name,
					     unsigned int len)
{
	union {
		struct mvfs_dirent de;
		char buf[sizeof(struct mvfs_dirent) + MVFS_ENTRY_NAME_MAX + 1];
	} k;
	struct mvfs_dirent *key = &k.de, **found;

	if (len > MVFS_ENTRY_NAME_MAX)
		return NULL;
	k.de.len = len;
	memcpy(k.de.name, name, len);
	found = bsearch(&key, c->l->ents, c->nupper, sizeof(*c->l->ents),
			mvfs_dirent_cmp);
	return found ? *found : NULL;
}

static bool mvfs_lower_actor(void *priv, const struct mvfs_entry *e,
			     u32 index)
{
	struct mvfs_lower_ctx *c = priv;

	/* A private entry of the name hides it, with its own number. */
	if (mvfs_dirlist_find(c, e->name, e->name_len))
		return true;
	c->err = mvfs_dirlist_add(c->l, e->name, e->name_len,
				  mvfs_ino_child(c->ino_prefix, e->name,
						 e->name_len) ^ c->ino_rev,
				  fs_umode_to_dtype(e->mode));
	return !c->err;
}

/**
 * mvfs_dirlist_build - the merged listing of a directory
 * @dir: a directory inode with a private entry, or one whose elements
 *       come from the trees of several revisions (select.c)
 * @out: set to the listing (mvfs_dirlist_free() it)
 * @numbers: with each entry's inode number as stat() gives it; else a
 *           private entry's may be its own (mvfs_dir_empty())
 *
 * Return: 0 or -errno.
 */
int mvfs_dirlist_build(struct inode *dir, struct mvfs_dirlist **out,
		       bool numbers)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct mvfs_inode_info *ei = MVFS_I(dir);
	struct mvfs_lower_ctx c = { .view = ei->view };
	struct mvfs_dirlist *l;
	struct mvfs_dsel *d;
	int err = 0;

	d = mvfs_dsel_get(dir);
	if (IS_ERR(d))
		return PTR_ERR(d);
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	err = -ENOMEM;
	if (!l)
		goto out_put;
	err = 0;
	if (mvfs_upper(dir))
		err = mvfs_dirlist_upper(dir, mvfs_upper(dir), l,
					 !mvfs_dsel_empty(d), numbers);
	if (err || mvfs_dsel_empty(d))
		goto out_done;
	c.l = l;
	c.nupper = l->count;
	mutex_lock(&ei->plock);
	c.path = kstrdup(ei->path, GFP_KERNEL);
	mutex_unlock(&ei->plock);
	err = -ENOMEM;
	if (!c.path)
		goto out_free;
	c.ino_prefix = mvfs_ino_prefix(c.view, c.path);
	if (!c.view)
		c.ino_rev = READ_ONCE(ei->rev);
	err = mvfs_dsel_iterate(sbi, d, mvfs_lower_actor, &c);
	kfree(c.path);
	if (!err)
		err = c.err;
out_done:
	if (!err) {
		*out = l;
		l = NULL;
	}
out_free:
	if (l)
		mvfs_dirlist_free(l);
out_put:
	mvfs_dsel_put(d);
	return err;
}

static bool mvfs_any_actor(void *priv, const struct mvfs_entry *e, u32 index)
{
	*(bool *)priv = true;
	return false;
}

/**
 * mvfs_dir_empty - does a directory of a view show nothing
 * @dentry: the directory
 *
 * Return: 0 when empty, -ENOTEMPTY, or -errno.
 */
int mvfs_dir_empty(struct dentry *dentry)
{
	struct inode *dir = d_inode(dentry);
	struct mvfs_dirlist *l;
	bool any = false;
	unsigned int i;
	int err;

	if (mvfs_upper(dir)) {
		err = mvfs_dirlist_build(dir, &l, false);
		if (err)
			return err;
		for (i = 0; i < l->count; i++)
			any |= !l->ents[i]->whiteout;
		mvfs_dirlist_free(l);
	} else {
		err = mvfs_lower_iterate(dir, mvfs_any_actor, &any);
		if (err)
			return err;
	}
	return any ? -ENOTEMPTY : 0;
}

static bool mvfs_subdir_actor(void *priv, const struct mvfs_entry *e,
			      u32 index)
{
	if (S_ISDIR(e->mode))
		(*(unsigned int *)priv)++;
	return true;
}

/*
 * The link count selection D gives its directory: two plus the tree's
 * subdirectories, counted once for the selection (it never changes).
 * Return: the count, or 0 when it cannot be read.
 */
static unsigned int mvfs_dsel_count(struct mvfs_sb_info *sbi,
				    struct mvfs_dsel *d)
{
	unsigned int n = mvfs_dsel_nlink(d);

	if (n)
		return n;
	if (mvfs_dsel_iterate(sbi, d, mvfs_subdir_actor, &n))
		return 0;
	mvfs_dsel_set_nlink(d, n + 2);
	return n + 2;
}

struct mvfs_shown_ctx {
	struct mvfs_sb_info	*sbi;
	struct dentry		*udir;
	unsigned int		n;
	int			err;
};

/* Count the subdirectories of the tree that no private entry hides. */
static bool mvfs_shown_actor(void *priv, const struct mvfs_entry *e,
			     u32 index)
{
	struct mvfs_shown_ctx *c = priv;
	struct dentry *u;

	if (!S_ISDIR(e->mode))
		return true;
	u = mvfs_priv_lookup(c->sbi, c->udir, e->name, e->name_len);
	if (IS_ERR(u)) {
		c->err = PTR_ERR(u);
		return false;
	}
	c->n += d_really_is_negative(u);
	dput(u);
	return true;
}

/*
 * The count mvfs_dir_nlink_upper() keeps for DIR: the tree's
 * subdirectories that its private directory U hides none of, counted
 * in TREE (a uniform selection's: trees never change) while U was at
 * VER.  ext2 moves a directory's i_version at each change of its
 * entries; another store's directory (NFS) is counted at each stat.
 * Return: the count plus one, or 0 when there is none to trust.
 */
static unsigned int mvfs_shown_get(struct inode *dir, u64 tree, u64 ver)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	unsigned int shown = 0;

	spin_lock(&dir->i_lock);
	if (ei->shown && ei->shown_tree == tree && ei->shown_ver == ver)
		shown = ei->shown;
	spin_unlock(&dir->i_lock);
	return shown;
}

static void mvfs_shown_set(struct inode *dir, u64 tree, u64 ver,
			   unsigned int n)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);

	spin_lock(&dir->i_lock);
	ei->shown_tree = tree;
	ei->shown_ver = ver;
	ei->shown = n + 1;
	spin_unlock(&dir->i_lock);
}

/*
 * A directory with a private entry: the private directory's own count
 * (ext2's: two plus its subdirectories; whiteouts are not directories),
 * plus the tree's subdirectories that have no private entry of their
 * name.  No listing is built: a stat must stay cheap.  A tree without
 * subdirectories (most of a source tree's) is not walked at all: a
 * copied directory of 2,000 files took 278 us a stat walking it, 3 us
 * on ext2.  A tree with subdirectories is walked again only once the
 * private directory's entries changed (mvfs_shown_get()): each lookup
 * of a name in it cost a stat of the copied directory.
 */
static unsigned int mvfs_dir_nlink_upper(struct inode *dir)
{
	struct mvfs_shown_ctx c = { .sbi = MVFS_SB(dir->i_sb),
				    .udir = mvfs_upper(dir) };
	struct inode *u = d_inode(c.udir);
	unsigned int tree, shown = 0;
	struct mvfs_dsel *d;
	u64 ver = 0, sel = 0;
	bool keep;
	int err = 0;

	d = mvfs_dsel_get(dir);
	if (IS_ERR(d))
		return 0;
	tree = mvfs_dsel_count(c.sbi, d);
	keep = tree > 2 && c.sbi->store_ext2 && mvfs_dsel_uniform(d, &sel) &&
	       sel;
	/*
	 * The version before the walk: a change during it moves the version
	 * past this one, and the next stat counts again.  Read under the
	 * lock: ext2 moves it before the change's dentry is instantiated,
	 * and every change holds the lock until then; so each change up to
	 * this version is seen whole by the walk's (unlocked) lookups.
	 */
	if (keep) {
		inode_lock_shared(u);
		ver = inode_peek_iversion(u);
		inode_unlock_shared(u);
		shown = mvfs_shown_get(dir, sel, ver);
	}
	if (shown) {
		c.n = shown - 1;
	} else if (tree > 2) {
		err = mvfs_dsel_iterate(c.sbi, d, mvfs_shown_actor, &c);
		if (keep && !err && !c.err)
			mvfs_shown_set(dir, sel, ver, c.n);
	}
	mvfs_dsel_put(d);
	if (!tree || err || c.err)
		return 0;
	return u->i_nlink + c.n;
}

/**
 * mvfs_dir_nlink - a directory's link count, as ext2 gives it
 * @dir: a directory of a view
 *
 * Two, plus one for each subdirectory it shows.
 *
 * Return: the count, or 0 when it cannot be read (keep the old one).
 */
unsigned int mvfs_dir_nlink(struct inode *dir)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	unsigned int n;
	struct mvfs_dsel *d;
	bool uniform;
	u64 tree;

	if (mvfs_upper(dir))
		return mvfs_dir_nlink_upper(dir);
	d = mvfs_dsel_get(dir);
	if (IS_ERR(d))
		return 0;
	uniform = mvfs_dsel_uniform(d, &tree);
	/* Trees and selections never change: count once, not per stat. */
	if (uniform && READ_ONCE(ei->nlink) &&
	    READ_ONCE(ei->nlink_tree) == tree) {
		n = READ_ONCE(ei->nlink);
	} else {
		n = mvfs_dsel_count(MVFS_SB(dir->i_sb), d);
		if (n && uniform) {
			WRITE_ONCE(ei->nlink, 0);
			WRITE_ONCE(ei->nlink_tree, tree);
			WRITE_ONCE(ei->nlink, n);
		}
	}
	mvfs_dsel_put(d);
	return n;
}
