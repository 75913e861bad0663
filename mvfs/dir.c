// SPDX-License-Identifier: GPL-2.0
/*
 * dir.c: lookup and readdir of /view and of a view's directories, which
 * also find the version-extended names NAME@@REV, NAME@@B and NAME@@.
 *
 * The @@ rule: a name is first looked up as it is, so an entry whose name
 * really contains "@@" stays reachable.  Only when there is no such entry
 * is the name split at its last "@@": NAME@@REV (REV a revision number or
 * a label) is NAME as it was in REV, read-only and fixed; NAME@@B (B a
 * branch) a directory of its revisions on B; NAME@@ a directory of the
 * revisions in which NAME changed (hist.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"
#include "uapi/mvfs_ioctl.h"

/**
 * mvfs_join - an element path below a directory's
 * @dir: the directory's path, "" the top
 * @name: a name
 * @len: its length
 *
 * Return: "DIR/NAME", or "NAME" at the top (kfree() it); NULL.
 */
char *mvfs_join(const char *dir, const char *name, unsigned int len)
{
	size_t dlen = strlen(dir);
	char *p;

	/* On every lookup and create: no vsnprintf(). */
	p = kmalloc(dlen + len + 2, GFP_KERNEL);
	if (!p)
		return NULL;
	if (dlen) {
		memcpy(p, dir, dlen);
		p[dlen++] = '/';
	}
	memcpy(p + dlen, name, len);
	p[dlen + len] = '\0';
	return p;
}

/**
 * mvfs_child_path - the element path of NAME in directory DIR
 * @dir: a directory of a view; its ->plock is taken here
 * @name: a name
 * @len: its length
 *
 * Return: mvfs_join() of DIR's path and NAME (kfree() it), or NULL.
 */
char *mvfs_child_path(struct inode *dir, const char *name, unsigned int len)
{
	char *path;

	mutex_lock(&MVFS_I(dir)->plock);
	path = mvfs_join(MVFS_I(dir)->path, name, len);
	mutex_unlock(&MVFS_I(dir)->plock);
	return path;
}

/* Where NAME splits into ELEMENT@@VERSION (its last "@@"), or 0. */
static unsigned int mvfs_version_split(const char *name, unsigned int len)
{
	unsigned int at;

	for (at = len - 1; at > 0; at--)
		if (name[at - 1] == '@' && name[at] == '@')
			break;
	return at < 2 ? 0 : at - 1;
}

/* A name with no entry of its own: a version-extended name, or NULL. */
static struct inode *mvfs_lookup_version(struct inode *dir,
					 const char *name, unsigned int len)
{
	unsigned int at = mvfs_version_split(name, len);
	struct mvfs_entry *e;
	struct inode *inode;
	char *path;

	if (!at)
		return NULL;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	path = mvfs_child_path(dir, name, at);
	if (!e || !path) {
		inode = ERR_PTR(-ENOMEM);
		goto out;
	}
	if (at + 2 == len)
		inode = mvfs_history(dir, path, e);
	else
		inode = mvfs_version_at(dir, path, name + at + 2,
					len - at - 2, e);
	/* A label wins over a branch of the same name (FORMAT.md). */
	if (!inode && at + 2 < len)
		inode = mvfs_branch_dir(dir, path, name + at + 2,
					len - at - 2);
out:
	kfree(path);
	kfree(e);
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
		/* A path for a directory alone: mvfs_upper_inode() */
		path = d_is_dir(u) ? mvfs_join(MVFS_I(dir)->path, q->name,
					       q->len) : NULL;
		inode = path || !d_is_dir(u) ?
			mvfs_upper_inode(dir->i_sb, u, MVFS_I(dir)->view,
					 &path) : ERR_PTR(-ENOMEM);
		kfree(path);
		if (!IS_ERR(inode))
			mvfs_impure_found(dir, inode);
	}
	dput(u);
	return inode;
}

/* NAME in the tree DIR shows: an inode, NULL, or ERR_PTR. */
static struct inode *mvfs_lookup_lower(struct inode *dir, const struct qstr *q)
{
	struct mvfs_inode_info *ei = MVFS_I(dir);
	struct inode *inode = NULL;
	struct mvfs_entry *e;
	u64 rev, sel;
	char *path;
	int err;

	/* A private directory that was never an element: no tree. */
	if (!mvfs_dir_shows_tree(dir))
		return NULL;
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	err = mvfs_lower_find(dir, q->name, q->len, e, &rev, &sel);
	if (err) {
		if (err != -ENOENT)
			inode = ERR_PTR(err);
		goto out;
	}
	path = mvfs_child_path(dir, q->name, q->len);
	inode = path ? mvfs_entry_inode(dir->i_sb, e, path, ei->view, rev) :
		       ERR_PTR(-ENOMEM);
	kfree(path);
	if (!IS_ERR(inode)) {
		MVFS_I(inode)->by_label = ei->by_label;
		MVFS_I(inode)->gen = ei->gen;
		MVFS_I(inode)->sel = sel;
	}
out:
	kfree(e);
	return inode;
}

/*
 * May the lookup of Q in DIR be left to the create that follows it, as
 * NFS leaves an exclusive create's?  Only for open(O_CREAT | O_EXCL),
 * when DIR shows no tree, Q names no version, and the caller may create
 * in DIR: then nothing stands between this lookup and ->create, which
 * looks Q up in the private directory itself and says EEXIST where Q is
 * taken, as ext2 would.  (mkdir, mknod, symlink and link look up with
 * LOOKUP_EXCL too, but the VFS checks more before their call, which
 * would then answer EPERM or EXDEV where ext2 says EEXIST.)  The dentry
 * stays unhashed until the create makes it (mvfs_instantiate()).  One
 * case differs from ext2, as on NFS: on a read-only bind mount of /view,
 * which a lookup cannot see, O_EXCL of a name that is taken says EROFS.
 */
static bool mvfs_lookup_deferred(struct inode *dir, const struct qstr *q,
				 unsigned int flags)
{
	unsigned int want = LOOKUP_OPEN | LOOKUP_CREATE | LOOKUP_EXCL;

	if ((flags & want) != want || mvfs_dir_shows_tree(dir) ||
	    mvfs_version_split(q->name, q->len))
		return false;
	return !inode_permission(&init_user_ns, dir, MAY_WRITE | MAY_EXEC);
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
	bool wh;

	if (q->len > MVFS_ENTRY_NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);	/* as ext2 says */
	if (mvfs_lookup_deferred(dir, q, flags)) {
		mvfs_dentry_defer(dentry);
		return NULL;
	}
	mvfs_dentry_stamp(dentry, stamp);
	inode = mvfs_lookup_upper(dir, q, &wh);
	if (!inode && !wh)
		inode = mvfs_lookup_lower(dir, q);
	if (!inode)
		inode = mvfs_lookup_version(dir, q->name, q->len);
	return d_splice_alias(inode, dentry);
}

struct mvfs_readdir_ctx {
	struct dir_context	*ctx;
	struct mvfs_view	*view;
	const char		*path;
	u64			ino_prefix;	/* of path, for mvfs_ino() */
	u64			ino_rev;	/* a fixed version's revision */
};

static bool mvfs_readdir_actor(void *priv, const struct mvfs_entry *e,
			       u32 index)
{
	struct mvfs_readdir_ctx *rc = priv;

	if (!dir_emit(rc->ctx, e->name, e->name_len,
		      mvfs_ino_child(rc->ino_prefix, e->name, e->name_len) ^
		      rc->ino_rev, fs_umode_to_dtype(e->mode)))
		return false;
	rc->ctx->pos = index + 3;
	return true;
}

/*
 * A directory of the tree alone, with no private entries over it, whose
 * children all come from one TREE: positions are indexes in the tree.
 */
static int mvfs_readdir_lower(struct inode *dir, struct dir_context *ctx,
			      u64 tree)
{
	struct mvfs_readdir_ctx rc = { .ctx = ctx, .view = MVFS_I(dir)->view };
	int err;

	mutex_lock(&MVFS_I(dir)->plock);
	rc.path = kstrdup(MVFS_I(dir)->path, GFP_KERNEL);
	mutex_unlock(&MVFS_I(dir)->plock);
	if (!rc.path)
		return -ENOMEM;
	rc.ino_prefix = mvfs_ino_prefix(rc.view, rc.path);
	/* A fixed version's numbers say which revision (mvfs_entry_inode()). */
	if (!rc.view)
		rc.ino_rev = READ_ONCE(MVFS_I(dir)->rev);
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
	struct mvfs_dsel *d;
	struct path up;
	bool uniform;
	u64 tree;
	int err;

	if (!dir_emit_dots(file, ctx))
		return 0;
	/*
	 * A listing by index goes on in the tree it started on (trees are
	 * never rewritten), whatever the directory became since: a copy-up
	 * or a check-in.  Each name that stayed shows once; one made or
	 * removed since the opendir may show or not, as POSIX lets it.
	 */
	if (ctx->pos > 2 && mf->by_index)
		return mvfs_readdir_lower(dir, ctx, mf->tree);
	mf->by_index = false;
	if (!mvfs_upper(dir)) {
		d = mvfs_dsel_get(dir);
		if (IS_ERR(d))
			return PTR_ERR(d);
		uniform = mvfs_dsel_uniform(d, &tree);
		mvfs_dsel_put(d);
		/* Else the names of several trees: a merged listing. */
		if (uniform) {
			mf->by_index = true;
			mf->tree = tree;
			return mvfs_readdir_lower(dir, ctx, tree);
		}
	} else {
		/* As on ext2, reading a directory may update its atime. */
		up.mnt = MVFS_SB(dir->i_sb)->store.mnt;
		up.dentry = mvfs_upper(dir);
		touch_atime(&up);
	}
	if (!mf->list || ctx->pos == 2) {
		mvfs_dirlist_free(mf->list);
		mf->list = NULL;
		err = mvfs_dirlist_build(dir, &mf->list, true);
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

/*
 * A writable view's directories need no ->permission: the VFS checks
 * theirs on its fast path.  Those that are never writable (a fixed
 * version's) have mvfs_dir_ro_iops.
 */
const struct inode_operations mvfs_dir_iops = {
	.lookup		= mvfs_lookup,
	.getattr	= mvfs_getattr,
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

const struct inode_operations mvfs_dir_ro_iops = {
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

/* /view/TAG */
static struct dentry *mvfs_top_lookup(struct inode *dir,
				      struct dentry *dentry,
				      unsigned int flags)
{
	const struct qstr *q = &dentry->d_name;
	struct inode *inode = NULL;
	struct mvfs_view *v;

	mvfs_follow(dir->i_sb, 0);
	v = mvfs_view_get(MVFS_SB(dir->i_sb), q->name, q->len);
	if (v) {
		inode = mvfs_view_inode(dir->i_sb, v);
		mvfs_view_put(v);
	}
	return d_splice_alias(inode, dentry);
}

/* /view: the views, a position each, in the order of the state's records. */
static int mvfs_top_readdir(struct file *file, struct dir_context *ctx)
{
	struct mvfs_sb_info *sbi = MVFS_SB(file_inode(file)->i_sb);
	char tag[MVFS_NAME_MAX + 1];
	u64 i;

	mvfs_follow(file_inode(file)->i_sb, 0);
	if (!dir_emit_dots(file, ctx))
		return 0;
	for (i = ctx->pos - 2; mvfs_view_nth(sbi, &i, tag); i++) {
		if (!dir_emit(ctx, tag, strlen(tag), mvfs_ino_dir(tag, ""),
			      DT_DIR))
			break;
		ctx->pos = i + 3;
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
