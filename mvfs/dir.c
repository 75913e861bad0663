// SPDX-License-Identifier: GPL-2.0
/*
 * dir.c: lookup and readdir of /view, of a view's directories, and of the
 * version-extended names NAME@@REV and NAME@@.
 *
 * The @@ rule: a name is first looked up as it is, so an entry whose name
 * really contains "@@" stays reachable.  Only when there is no such entry
 * is the name split at its last "@@": NAME@@REV (REV a revision number or
 * a label) is NAME as it was in REV, read-only and fixed; NAME@@ is a
 * directory of the revision numbers in which NAME changed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"
#include "uapi/mvfs_ioctl.h"

/* "DIR/NAME", or "NAME" at the top; kfree() it. */
static char *mvfs_join(const char *dir, const char *name, unsigned int len)
{
	if (!*dir)
		return kmemdup_nul(name, len, GFP_KERNEL);
	return kasprintf(GFP_KERNEL, "%s/%.*s", dir, (int)len, name);
}

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

/* NAME@@SPEC: the element PATH in the revision SPEC names, or NULL. */
static struct inode *mvfs_version_at(struct inode *dir, const char *path,
				     const char *spec, unsigned int len,
				     struct mvfs_entry *e)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	u64 gen = READ_ONCE(sbi->gen), rev;
	bool by_label;
	int err;

	if (mvfs_rev_lookup(sbi, spec, len, &rev, &by_label))
		return NULL;
	err = mvfs_resolve(sbi, rev, path, e);
	if (err == -ENOENT)
		return NULL;
	if (err)
		return ERR_PTR(err);
	return mvfs_version_inode(dir, e, path, rev, by_label, gen);
}

/* NAME@@: a directory of the revisions of PATH, if it ever existed. */
static struct inode *mvfs_history(struct inode *dir, const char *path,
				  struct mvfs_entry *e)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct inode *inode;
	u64 rev, nrevs;

	down_read(&sbi->state_lock);
	nrevs = sbi->state->nrevs;
	up_read(&sbi->state_lock);
	for (rev = 1; rev <= nrevs; rev++)
		if (!mvfs_resolve(sbi, rev, path, e))
			break;
	if (rev > nrevs)
		return NULL;
	inode = mvfs_new_inode(dir->i_sb, MVFS_HIST, S_IFDIR | 0555);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	MVFS_I(inode)->path = kstrdup(path, GFP_KERNEL);
	if (!MVFS_I(inode)->path) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	return inode;
}

/* A name with no entry of its own: a version-extended name, or NULL. */
static struct inode *mvfs_lookup_version(struct inode *dir, const char *dpath,
					 const char *name, unsigned int len,
					 struct mvfs_entry *e)
{
	struct inode *inode;
	unsigned int at;
	char *path;

	for (at = len - 1; at > 0; at--)
		if (name[at - 1] == '@' && name[at] == '@')
			break;
	if (at < 2)
		return NULL;
	at--;
	path = mvfs_join(dpath, name, at);
	if (!path)
		return ERR_PTR(-ENOMEM);
	if (at + 2 == len)
		inode = mvfs_history(dir, path, e);
	else
		inode = mvfs_version_at(dir, path, name + at + 2,
					len - at - 2, e);
	kfree(path);
	return inode;
}

/* NAME in DIR's private directory: an inode, NULL, or ERR_PTR; *wh set
 * when it is a whiteout (the element is removed in this view).
 */
static struct inode *mvfs_lookup_upper(struct inode *dir, const struct qstr *q,
				       bool *wh)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct dentry *udir = mvfs_upper(dir), *u;
	struct inode *inode = NULL;
	char *path;

	*wh = false;
	if (!udir)
		return NULL;
	u = mvfs_priv_lookup(sbi, udir, q->name, q->len);
	if (IS_ERR(u))
		return ERR_CAST(u);
	if (mvfs_is_whiteout(u)) {
		*wh = true;
	} else if (d_really_is_positive(u)) {
		path = mvfs_join(MVFS_I(dir)->path, q->name, q->len);
		inode = path ? mvfs_upper_inode(dir->i_sb, u, MVFS_I(dir)->view,
						path) : ERR_PTR(-ENOMEM);
		kfree(path);
	}
	dput(u);
	return inode;
}

/* NAME in the tree DIR shows: an inode, NULL, or ERR_PTR. */
static struct inode *mvfs_lookup_lower(struct inode *dir, const struct qstr *q,
				       struct mvfs_entry *e)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	struct inode *inode;
	u64 tree, rev;
	char *path;
	int err;

	err = mvfs_dir_lower(dir, &tree, &rev);
	if (!err)
		err = mvfs_store_find(MVFS_SB(dir->i_sb), tree, q->name, q->len,
				      e);
	if (err)
		return err == -ENOENT ? NULL : ERR_PTR(err);
	mutex_lock(&ei->plock);
	path = mvfs_join(ei->path, q->name, q->len);
	mutex_unlock(&ei->plock);
	if (!path)
		return ERR_PTR(-ENOMEM);
	inode = mvfs_entry_inode(dir->i_sb, e, path, ei->view, rev);
	kfree(path);
	if (!IS_ERR(inode)) {
		MVFS_I(inode)->by_label = ei->by_label;
		MVFS_I(inode)->gen = ei->gen;
	}
	return inode;
}

/*
 * A name in a view's directory: the private entry if there is one (a
 * whiteout hides the element), else the element of the tree, else a
 * version-extended name.
 */
static struct dentry *mvfs_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	unsigned long stamp = mvfs_names_stamp(MVFS_SB(dir->i_sb));
	const struct qstr *q = &dentry->d_name;
	struct inode *inode;
	struct mvfs_entry *e;
	char *path;
	bool wh;

	if (q->len > MVFS_ENTRY_NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);	/* as ext2 says */
	mvfs_dentry_stamp(dentry, stamp);
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	inode = mvfs_lookup_upper(dir, q, &wh);
	if (!inode && !wh)
		inode = mvfs_lookup_lower(dir, q, e);
	if (!inode) {
		mutex_lock(&MVFS_I(dir)->plock);
		path = kstrdup(MVFS_I(dir)->path, GFP_KERNEL);
		mutex_unlock(&MVFS_I(dir)->plock);
		inode = path ? mvfs_lookup_version(dir, path, q->name, q->len,
						   e) : ERR_PTR(-ENOMEM);
		kfree(path);
	}
	kfree(e);
	return d_splice_alias(inode, dentry);
}

struct mvfs_readdir_ctx {
	struct dir_context	*ctx;
	struct mvfs_view	*view;
	const char		*path;
	u64			ino_prefix;	/* of path, for mvfs_ino() */
};

static bool mvfs_readdir_actor(void *priv, const struct mvfs_entry *e,
			       u32 index)
{
	struct mvfs_readdir_ctx *rc = priv;

	if (!dir_emit(rc->ctx, e->name, e->name_len,
		      mvfs_ino_child(rc->ino_prefix, e->name, e->name_len),
		      fs_umode_to_dtype(e->mode)))
		return false;
	rc->ctx->pos = index + 3;
	return true;
}

/* A directory of the tree alone, with no private entries over it. */
static int mvfs_readdir_lower(struct inode *dir, struct dir_context *ctx)
{
	struct mvfs_readdir_ctx rc = { .ctx = ctx, .view = MVFS_I(dir)->view };
	u64 tree, rev;
	int err;

	err = mvfs_dir_lower(dir, &tree, &rev);
	if (err)
		return err;
	mutex_lock(&MVFS_I(dir)->plock);
	rc.path = kstrdup(MVFS_I(dir)->path, GFP_KERNEL);
	mutex_unlock(&MVFS_I(dir)->plock);
	if (!rc.path)
		return -ENOMEM;
	rc.ino_prefix = mvfs_ino_prefix(rc.view, rc.path);
	err = mvfs_store_iterate(MVFS_SB(dir->i_sb), tree, ctx->pos - 2,
				 mvfs_readdir_actor, &rc);
	kfree(rc.path);
	return err;
}

static int mvfs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct mvfs_file *mf = file->private_data;
	struct mvfs_dirent *de;
	struct path up;
	int err;

	if (!dir_emit_dots(file, ctx))
		return 0;
	if (!mvfs_upper(dir))
		return mvfs_readdir_lower(dir, ctx);
	/* As on ext2, reading a directory may update its atime. */
	up.mnt = MVFS_SB(dir->i_sb)->store.mnt;
	up.dentry = mvfs_upper(dir);
	touch_atime(&up);
	if (!mf->list || ctx->pos == 2) {
		mvfs_dirlist_free(mf->list);
		mf->list = NULL;
		err = mvfs_dirlist_build(dir, &mf->list);
		if (err)
			return err;
	}
	while (ctx->pos - 2 < mf->list->count) {
		de = mf->list->ents[ctx->pos - 2];
		if (!de->whiteout &&
		    !dir_emit(ctx, de->name, de->len, de->ino, de->type))
			break;
		ctx->pos++;
	}
	return 0;
}

const struct inode_operations mvfs_dir_iops = {
	.lookup		= mvfs_lookup,
	.getattr	= mvfs_getattr,
	.permission	= mvfs_permission,
	.setattr	= mvfs_setattr,
	.update_time	= mvfs_update_time,
	.create		= mvfs_create,
	.mkdir		= mvfs_mkdir,
	.mknod		= mvfs_mknod,
	.symlink	= mvfs_symlink,
	.link		= mvfs_link,
	.unlink		= mvfs_unlink,
	.rmdir		= mvfs_rmdir,
	.rename		= mvfs_rename,
};

/* fsync of a directory: its private directory's, if it has one. */
static int mvfs_dir_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	struct inode *dir = file_inode(file);
	struct dentry *upper = mvfs_upper(dir);
	struct file *real;
	int err;

	if (!upper)
		return 0;	/* nothing of it is on the store's disk yet */
	real = mvfs_priv_open(MVFS_SB(dir->i_sb), upper,
			      O_RDONLY | O_DIRECTORY | O_NOATIME);
	if (IS_ERR(real))
		return PTR_ERR(real);
	err = vfs_fsync_range(real, start, end, datasync);
	fput(real);
	return err;
}

const struct file_operations mvfs_dir_fops = {
	.open		= mvfs_track_open,
	.release	= mvfs_track_release,
	.fsync		= mvfs_dir_fsync,
	.read		= generic_read_dir,
	.iterate_shared	= mvfs_readdir,
	.llseek		= generic_file_llseek,
};

/* NAME@@/N: NAME in revision N (or in the revision a label names). */
static struct dentry *mvfs_hist_lookup(struct inode *dir,
				       struct dentry *dentry,
				       unsigned int flags)
{
	const struct qstr *q = &dentry->d_name;
	struct inode *inode;
	struct mvfs_entry *e;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	inode = mvfs_version_at(dir, MVFS_I(dir)->path, q->name, q->len, e);
	kfree(e);
	return d_splice_alias(inode, dentry);
}

static bool mvfs_entry_same(const struct mvfs_entry *a,
			    const struct mvfs_entry *b)
{
	return a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->size == b->size && a->mtime == b->mtime &&
	       a->mtime_nsec == b->mtime_nsec && a->ref == b->ref;
}

/* The revisions in which the element exists and differs from before. */
static int mvfs_hist_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct mvfs_entry *e;
	bool had = false;
	u64 rev, nrevs;
	char name[24];
	int err = 0, len;

	if (!dir_emit_dots(file, ctx))
		return 0;
	e = kmalloc_array(2, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	down_read(&sbi->state_lock);
	nrevs = sbi->state->nrevs;
	up_read(&sbi->state_lock);
	for (rev = 1; rev <= nrevs; rev++) {
		err = mvfs_resolve(sbi, rev, MVFS_I(dir)->path, &e[0]);
		if (err == -ENOENT) {
			had = false;
			continue;
		}
		if (err)
			break;
		if (had && mvfs_entry_same(&e[0], &e[1]))
			continue;
		had = true;
		e[1] = e[0];
		if (rev + 2 < ctx->pos)
			continue;
		len = snprintf(name, sizeof(name), "%llu", rev);
		if (!dir_emit(ctx, name, len, rev + 2,
			      fs_umode_to_dtype(e[0].mode)))
			break;
		ctx->pos = rev + 3;
	}
	kfree(e);
	return err == -ENOENT ? 0 : err;
}

const struct inode_operations mvfs_hist_iops = {
	.lookup		= mvfs_hist_lookup,
};

const struct file_operations mvfs_hist_fops = {
	.read		= generic_read_dir,
	.iterate_shared	= mvfs_hist_readdir,
	.llseek		= generic_file_llseek,
};

/* /view/TAG */
static struct dentry *mvfs_top_lookup(struct inode *dir,
				      struct dentry *dentry,
				      unsigned int flags)
{
	const struct qstr *q = &dentry->d_name;
	struct inode *inode = NULL;
	struct mvfs_view *v;

	v = mvfs_view_get(MVFS_SB(dir->i_sb), q->name, q->len);
	if (v) {
		inode = mvfs_view_inode(dir->i_sb, v);
		mvfs_view_put(v);
	}
	return d_splice_alias(inode, dentry);
}

/* Copy the tag of the view at position POS into TAG; false past the end. */
static bool mvfs_top_nth(struct mvfs_sb_info *sbi, loff_t pos, char *tag)
{
	struct mvfs_view *v;
	bool found = false;

	down_read(&sbi->state_lock);
	list_for_each_entry(v, &sbi->views, node) {
		if (pos-- == 0) {
			strscpy(tag, v->rec.tag, MVFS_NAME_MAX + 1);
			found = true;
			break;
		}
	}
	up_read(&sbi->state_lock);
	return found;
}

static int mvfs_top_readdir(struct file *file, struct dir_context *ctx)
{
	struct mvfs_sb_info *sbi = MVFS_SB(file_inode(file)->i_sb);
	char tag[MVFS_NAME_MAX + 1];

	if (!dir_emit_dots(file, ctx))
		return 0;
	while (mvfs_top_nth(sbi, ctx->pos - 2, tag)) {
		if (!dir_emit(ctx, tag, strlen(tag), ctx->pos, DT_DIR))
			break;
		ctx->pos++;
	}
	return 0;
}

const struct inode_operations mvfs_top_iops = {
	.lookup		= mvfs_top_lookup,
};

const struct file_operations mvfs_top_fops = {
	.read		= generic_read_dir,
	.iterate_shared	= mvfs_top_readdir,
	.llseek		= generic_file_llseek,
	.unlocked_ioctl	= mvfs_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};
