// SPDX-License-Identifier: GPL-2.0
/*
 * inode.c: mvfs inodes, made from store entries and from a view's private
 * entries, their identity, attributes and permissions, and the dentry
 * revalidation that makes a moving view show its new revision.
 *
 * Identity: an inode number comes from what the inode is, as romfs
 * derives it from the on-disk offset: for an element of a view, a hash
 * of the view's tag and the element's path (stable across lookups, cache
 * drops and check-ins that leave the element where it is); for a private
 * entry, the private file's own inode number, or the number the element
 * had before it was copied up (kept in its origin).  Private inodes are
 * hashed by the private inode, so hard links share one mvfs inode.
 * The numbers are made in names.c.
 *
 * Revalidation is in revalidate.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include "mvfs.h"

static struct kmem_cache *mvfs_inode_cachep;

struct inode *mvfs_alloc_inode(struct super_block *sb)
{
	struct mvfs_inode_info *ei;

	ei = alloc_inode_sb(sb, mvfs_inode_cachep, GFP_KERNEL);
	if (!ei)
		return NULL;
	ei->kind = MVFS_TOP;
	ei->view = NULL;
	ei->rev = 0;
	ei->sel = 0;
	ei->dsel = NULL;
	ei->gen = 0;
	ei->by_label = false;
	ei->ref = 0;
	ei->path = NULL;
	ei->merge = false;
	ei->upper = NULL;
	ei->cu_target = NULL;
	ei->nlink = 0;
	ei->nlink_tree = 0;
	ei->shown = 0;
	ei->retired = false;
	ei->wgen = atomic64_inc_return(&MVFS_SB(sb)->wgen);
	return &ei->vfs_inode;
}

void mvfs_free_inode(struct inode *inode)
{
	struct mvfs_inode_info *ei = MVFS_I(inode);

	if (S_ISLNK(inode->i_mode))
		kfree(inode->i_link);
	kfree(ei->path);
	kmem_cache_free(mvfs_inode_cachep, ei);
}

/*
 * The inode is still hashed here: until evict() unhashes it, a search
 * (iget5_locked(), ilookup5()) may test it, and mvfs_iget_test() reads
 * its upper without a reference.  So the pointer goes before the
 * reference: a search that read it holds inode_hash_lock, which keeps
 * what dput() frees (after an RCU grace period) until it lets go.
 */
void mvfs_evict_inode(struct inode *inode)
{
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct dentry *upper = ei->upper;

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	mvfs_view_put(ei->view);
	ei->view = NULL;
	/* Pairs with mvfs_upper()'s acquire: NULL, then no reference. */
	smp_store_release(&ei->upper, NULL);
	dput(upper);
	mvfs_dsel_put(ei->dsel);
	ei->dsel = NULL;
}

static void mvfs_inode_init_once(void *p)
{
	struct mvfs_inode_info *ei = p;

	inode_init_once(&ei->vfs_inode);
	mutex_init(&ei->plock);
	mutex_init(&ei->cu_lock);
}

int mvfs_init_inodecache(void)
{
	mvfs_inode_cachep = kmem_cache_create("mvfs_inode_cache",
					      sizeof(struct mvfs_inode_info),
					      0, SLAB_RECLAIM_ACCOUNT |
					      SLAB_MEM_SPREAD | SLAB_ACCOUNT,
					      mvfs_inode_init_once);
	return mvfs_inode_cachep ? 0 : -ENOMEM;
}

void mvfs_destroy_inodecache(void)
{
	/* Inodes are freed after an RCU grace period. */
	rcu_barrier();
	kmem_cache_destroy(mvfs_inode_cachep);
}

/*
 * Give INODE the operations of its kind; again once its view is set
 * (ei->view), which makes it writable: only what is never writable
 * (mvfs_inode_readonly()) has a ->permission.
 */
static void mvfs_set_ops(struct inode *inode, enum mvfs_kind kind)
{
	bool ro = mvfs_inode_readonly(inode);

	switch (kind) {
	case MVFS_TOP:
		inode->i_op = &mvfs_top_iops;
		inode->i_fop = &mvfs_top_fops;
		break;
	case MVFS_HIST:
		inode->i_op = &mvfs_hist_iops;
		inode->i_fop = &mvfs_hist_fops;
		break;
	case MVFS_BRANCH:
		inode->i_op = &mvfs_branch_iops;
		inode->i_fop = &mvfs_branch_fops;
		break;
	case MVFS_VIEW:
	case MVFS_DIR:
		inode->i_op = ro ? &mvfs_dir_ro_iops : &mvfs_dir_iops;
		inode->i_fop = &mvfs_dir_fops;
		break;
	case MVFS_FILE:
		inode->i_op = ro ? &mvfs_file_ro_iops : &mvfs_file_iops;
		inode->i_fop = &mvfs_file_fops;
		break;
	case MVFS_LINK:
		inode->i_op = ro ? &mvfs_link_ro_iops : &mvfs_link_iops;
		break;
	case MVFS_SPECIAL:
		inode->i_op = &mvfs_special_iops;
		break;
	}
}

/**
 * mvfs_new_inode - a fresh inode of an mvfs kind
 * @sb: the superblock
 * @kind: what it is
 * @mode: type and permission bits
 *
 * Return: the inode with its operations set, or NULL.
 */
struct inode *mvfs_new_inode(struct super_block *sb, enum mvfs_kind kind,
			     umode_t mode)
{
	struct inode *inode = new_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = kind == MVFS_TOP ? 1 : get_next_ino() | (1ULL << 62);
	inode->i_mode = mode;
	inode->i_mtime = current_time(inode);
	inode->i_atime = inode->i_mtime;
	inode->i_ctime = inode->i_mtime;
	MVFS_I(inode)->kind = kind;
	mvfs_set_ops(inode, kind);
	if (S_ISDIR(mode))
		set_nlink(inode, 2);
	return inode;
}

/**
 * mvfs_inode_attr - give an inode the stored attributes of an entry
 * @inode: the inode
 * @e: the entry
 */
void mvfs_inode_attr(struct inode *inode, const struct mvfs_entry *e)
{
	inode->i_mode = e->mode;
	inode->i_uid = make_kuid(&init_user_ns, e->uid);
	inode->i_gid = make_kgid(&init_user_ns, e->gid);
	inode->i_mtime.tv_sec = e->mtime;
	inode->i_mtime.tv_nsec = e->mtime_nsec;
	inode->i_atime = inode->i_mtime;
	inode->i_ctime = inode->i_mtime;
	inode->i_size = S_ISDIR(e->mode) ? 0 : e->size;
	inode->i_blocks = (inode->i_size + 511) >> 9;
}

/**
 * mvfs_entry_inode - an inode for a store entry
 * @sb: the superblock
 * @e: the entry
 * @path: its element path from the top of the tree
 * @view: the view it is seen through (a reference is taken), or NULL for
 *        a fixed version (NAME@@REV)
 * @rev: the revision @e comes from
 *
 * Return: the inode, or ERR_PTR(-ENOMEM/-EIO).
 */
struct inode *mvfs_entry_inode(struct super_block *sb,
			       const struct mvfs_entry *e, const char *path,
			       struct mvfs_view *view, u64 rev)
{
	enum mvfs_kind kind = S_ISDIR(e->mode) ? MVFS_DIR :
			      S_ISLNK(e->mode) ? MVFS_LINK : MVFS_FILE;
	struct mvfs_inode_info *ei;
	struct inode *inode;
	char *link;

	inode = mvfs_new_inode(sb, kind, e->mode);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ei = MVFS_I(inode);
	mvfs_inode_attr(inode, e);
	inode_has_no_xattr(inode);
	ei->ref = e->ref;
	ei->rev = rev;
	ei->merge = kind == MVFS_DIR;
	ei->gen = READ_ONCE(MVFS_SB(sb)->gen);
	if (view) {
		kref_get(&view->ref);
		ei->view = view;
		mvfs_set_ops(inode, kind);
	} else {
		/* A fixed version: its number says which revision. */
		inode->i_ino = mvfs_ino(NULL, path, NULL, 0) ^ rev;
	}
	if (view)
		inode->i_ino = mvfs_ino(view, path, NULL, 0);
	ei->path = kstrdup(path, GFP_KERNEL);
	if (!ei->path)
		goto out_iput;
	if (kind == MVFS_LINK) {
		link = mvfs_store_link(MVFS_SB(sb), e);
		if (IS_ERR(link)) {
			iput(inode);
			return ERR_CAST(link);
		}
		inode->i_link = link;
	}
	return inode;

out_iput:
	iput(inode);
	return ERR_PTR(-ENOMEM);
}

/**
 * mvfs_copyattr - take the attributes of an inode's private entry
 * @inode: an mvfs inode with a private entry
 *
 * Called after each change made through it, and by getattr.
 */
void mvfs_copyattr(struct inode *inode)
{
	struct dentry *upper = mvfs_upper(inode);
	struct inode *u;

	if (!upper || MVFS_I(inode)->kind == MVFS_VIEW)
		return;
	u = d_inode(upper);
	inode->i_mode = u->i_mode;
	inode->i_uid = u->i_uid;
	inode->i_gid = u->i_gid;
	inode->i_atime = u->i_atime;
	inode->i_mtime = u->i_mtime;
	inode->i_ctime = u->i_ctime;
	inode->i_blocks = u->i_blocks;
	inode->i_rdev = u->i_rdev;
	if (!S_ISDIR(u->i_mode)) {
		i_size_write(inode, i_size_read(u));
		set_nlink(inode, u->i_nlink);
	}
}

static enum mvfs_kind mvfs_kind_of(umode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return MVFS_DIR;
	case S_IFREG:
		return MVFS_FILE;
	case S_IFLNK:
		return MVFS_LINK;
	default:
		return MVFS_SPECIAL;
	}
}

struct mvfs_iget {
	struct dentry	*upper;
};

/*
 * The inode of this private entry: the one it belongs to, or an element
 * whose copy it is, being renamed into place (copyup.c hashes the
 * element under its copy first): a lookup that finds the copy in the
 * private area before the copy-up ends takes the element's inode, so
 * that one element has one inode in a view.
 */
static int mvfs_iget_test(struct inode *inode, void *data)
{
	struct inode *key = d_inode(((struct mvfs_iget *)data)->upper);
	struct dentry *upper = mvfs_upper(inode);

	if (upper)
		return d_inode(upper) == key;
	return READ_ONCE(MVFS_I(inode)->cu_target) == key;
}

static int mvfs_iget_set(struct inode *inode, void *data)
{
	MVFS_I(inode)->upper = dget(((struct mvfs_iget *)data)->upper);
	return 0;
}

/* Read the symlink target of a private symlink into inode->i_link. */
static int mvfs_upper_link(struct inode *inode, struct dentry *upper)
{
	DEFINE_DELAYED_CALL(done);
	const char *target;
	int err = 0;

	target = vfs_get_link(upper, &done);
	if (IS_ERR(target))
		return PTR_ERR(target);
	inode->i_link = kstrdup(target, GFP_KERNEL);
	if (!inode->i_link)
		err = -ENOMEM;
	do_delayed_call(&done);
	return err;
}

/*
 * Fill a new private inode: its kind, view, path and identity.  FRESH:
 * the entry was just made by the module, so it has no origin to read.
 * *PATH is taken (set to NULL) when the inode keeps it.
 */
static int mvfs_upper_fill(struct inode *inode, struct dentry *upper,
			   struct mvfs_view *view, char **path, bool fresh)
{
	struct mvfs_sb_info *sbi = MVFS_SB(inode->i_sb);
	struct mvfs_inode_info *ei = MVFS_I(inode);
	struct inode *u = d_inode(upper);
	struct mvfs_origin o;
	int err;

	ei->kind = mvfs_kind_of(u->i_mode);
	kref_get(&view->ref);
	ei->view = view;
	mvfs_set_ops(inode, ei->kind);
	inode->i_ino = mvfs_ino_own(u->i_ino);
	err = fresh ? -ENODATA : mvfs_origin_get(sbi, upper, &o);
	if (!err) {
		inode->i_ino = o.ino;
		ei->path = o.path;
		ei->merge = ei->kind == MVFS_DIR;
	} else if (err == -ENODATA) {
		ei->path = *path;
		*path = NULL;
		err = 0;
	}
	if (err)
		return err;
	mvfs_copyattr(inode);
	inode_has_no_xattr(inode);
	if (S_ISDIR(u->i_mode))
		set_nlink(inode, 2);
	if (ei->kind == MVFS_SPECIAL)
		init_special_inode(inode, u->i_mode, u->i_rdev);
	if (ei->kind == MVFS_LINK)
		err = mvfs_upper_link(inode, upper);
	return err;
}

static struct inode *__mvfs_upper_inode(struct super_block *sb,
					struct dentry *upper,
					struct mvfs_view *view,
					char **path, bool fresh)
{
	struct mvfs_iget key = { .upper = upper };
	struct inode *inode;
	int err;

	inode = iget5_locked(sb, (unsigned long)d_inode(upper),
			     mvfs_iget_test, mvfs_iget_set, &key);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	err = mvfs_upper_fill(inode, upper, view, path, fresh);
	if (err) {
		iget_failed(inode);
		return ERR_PTR(err);
	}
	unlock_new_inode(inode);
	return inode;
}

/**
 * mvfs_upper_inode - the inode of a view's private entry
 * @sb: the superblock
 * @upper: the private entry, positive and not a whiteout
 * @view: the view (a reference is taken)
 * @path: its element path (kmalloc'ed), for a directory without an
 *        origin, whose children's paths start with it (NULL will do for
 *        anything else); taken, and set to NULL, when the inode keeps it;
 *        kfree() it after
 *
 * Return: the inode (one per private inode: hard links share it), or
 * ERR_PTR.
 */
struct inode *mvfs_upper_inode(struct super_block *sb, struct dentry *upper,
			       struct mvfs_view *view, char **path)
{
	return __mvfs_upper_inode(sb, upper, view, path, false);
}

/**
 * mvfs_upper_ino - the inode number a view shows for a private entry
 * @sb: the superblock
 * @upper: the private entry, positive and not a whiteout
 * @ino: set to the number stat() gives: its inode's when it has one now,
 *       else its origin's, else its own (mvfs_ino_own())
 *
 * For readdir, which must give the number stat() gives (dirlist.c).
 *
 * Return: 0, or -errno (-EIO: a malformed origin, logged).
 */
int mvfs_upper_ino(struct super_block *sb, struct dentry *upper, u64 *ino)
{
	struct mvfs_iget key = { .upper = upper };
	struct inode *inode;
	int err;

	inode = ilookup5(sb, (unsigned long)d_inode(upper), mvfs_iget_test,
			 &key);
	if (inode) {
		*ino = inode->i_ino;
		iput(inode);
		return 0;
	}
	err = mvfs_origin_ino(MVFS_SB(sb), upper, ino);
	if (err == -ENODATA) {
		*ino = mvfs_ino_own(d_inode(upper)->i_ino);
		return 0;
	}
	return err;
}

/**
 * mvfs_new_upper_inode - the inode of a private entry just created
 * @sb: the superblock
 * @upper: the new private entry: view-private, no origin
 * @view: the view (a reference is taken)
 * @path: its path in the view, as for mvfs_upper_inode()
 *
 * Return: the inode, or ERR_PTR.
 */
struct inode *mvfs_new_upper_inode(struct super_block *sb,
				   struct dentry *upper,
				   struct mvfs_view *view, char **path)
{
	return __mvfs_upper_inode(sb, upper, view, path, true);
}

/*
 * The view's top takes its owner and mode from the view's record, its
 * times from its private directory (else its revision's top).  Each field
 * is written once, with its final value: a lookup in RCU walk checks the
 * mode while this runs, and must never see the revision's mode in place
 * of a --mode 0700 view's.
 */
static void mvfs_view_refresh(struct inode *inode)
{
	struct mvfs_view *v = MVFS_I(inode)->view;
	struct dentry *upper = mvfs_upper(inode);
	struct timespec64 mtime;
	struct mvfs_attr a;
	u32 mode;

	spin_lock(&v->lock);
	a = v->root;
	mode = v->rec.mode;
	a.uid = v->rec.uid;
	a.gid = v->rec.gid;
	spin_unlock(&v->lock);
	inode->i_mode = S_IFDIR | (mode & 0777);
	inode->i_uid = make_kuid(&init_user_ns, a.uid);
	inode->i_gid = make_kgid(&init_user_ns, a.gid);
	if (upper) {
		inode->i_mtime = d_inode(upper)->i_mtime;
		inode->i_ctime = d_inode(upper)->i_ctime;
		inode->i_atime = d_inode(upper)->i_atime;
	} else {
		mtime.tv_sec = a.mtime;
		mtime.tv_nsec = a.mtime_nsec;
		inode->i_mtime = mtime;
		inode->i_atime = mtime;
		inode->i_ctime = mtime;
	}
}

/**
 * mvfs_view_inode - the top directory of a view (/view/TAG)
 * @sb: the superblock
 * @v: the view; a reference is taken
 *
 * Its private entry is the top of the view's private area, when the
 * store has one.
 *
 * Return: the inode, or ERR_PTR(-ENOMEM).
 */
struct inode *mvfs_view_inode(struct super_block *sb, struct mvfs_view *v)
{
	struct inode *inode = mvfs_new_inode(sb, MVFS_VIEW, S_IFDIR | 0555);
	struct dentry *upper;

	if (!inode)
		return ERR_PTR(-ENOMEM);
	kref_get(&v->ref);
	MVFS_I(inode)->view = v;
	mvfs_set_ops(inode, MVFS_VIEW);
	MVFS_I(inode)->merge = true;
	inode->i_ino = mvfs_ino(v, "", NULL, 0);
	MVFS_I(inode)->path = kstrdup("", GFP_KERNEL);
	if (!MVFS_I(inode)->path) {
		iput(inode);
		return ERR_PTR(-ENOMEM);
	}
	if (!mvfs_priv_area(MVFS_SB(sb), v->rec.tag, MVFS_UPPER_DIR, &upper))
		MVFS_I(inode)->upper = upper;
	mvfs_view_refresh(inode);
	return inode;
}

/**
 * mvfs_inode_readonly - is this inode never writable
 * @inode: an mvfs inode
 *
 * Return: true for /view, NAME@@ listings, fixed versions (NAME@@REV) and
 * anything of a store without private areas (format 1).
 */
bool mvfs_inode_readonly(struct inode *inode)
{
	struct mvfs_inode_info *ei = MVFS_I(inode);

	return !ei->view || ei->kind == MVFS_TOP || ei->kind == MVFS_HIST ||
	       ei->kind == MVFS_BRANCH ||
	       !MVFS_SB(inode->i_sb)->vdir.dentry;
}

/**
 * mvfs_permission - ->permission: fixed versions are read-only
 * @mnt_userns: the mount's user namespace
 * @inode: the inode
 * @mask: MAY_*
 *
 * Return: 0, -EROFS for a write to what is never writable, or what
 * generic_permission() says.
 */
int mvfs_permission(struct user_namespace *mnt_userns, struct inode *inode,
		    int mask)
{
	if ((mask & MAY_WRITE) && mvfs_inode_readonly(inode) &&
	    (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode) ||
	     S_ISLNK(inode->i_mode)))
		return -EROFS;
	return generic_permission(mnt_userns, inode, mask);
}

/**
 * mvfs_update_time - ->update_time: times the VFS sets on an mvfs inode
 * @inode: the inode
 * @now: the time
 * @flags: S_ATIME, S_MTIME, S_CTIME
 *
 * A fifo's writes, a symlink followed, a directory read: the VFS updates
 * the mvfs inode's times; a private entry keeps them, as ext2 would.
 *
 * Return: 0.
 */
int mvfs_update_time(struct inode *inode, struct timespec64 *now, int flags)
{
	struct vfsmount *mnt = MVFS_SB(inode->i_sb)->store.mnt;
	struct dentry *upper = mvfs_upper(inode);

	if (upper && MVFS_I(inode)->kind != MVFS_VIEW &&
	    !mnt_want_write(mnt)) {
		inode_lock(d_inode(upper));
		generic_update_time(d_inode(upper), now, flags);
		inode_unlock(d_inode(upper));
		mnt_drop_write(mnt);
	}
	return generic_update_time(inode, now, flags);
}

/**
 * mvfs_getattr - stat
 * @mnt_userns: the mount's user namespace
 * @path: what is stat'ed
 * @stat: filled in
 * @request_mask: STATX_* wanted
 * @flags: AT_* flags
 *
 * A view's top shows its view's owner and mode; a private entry its
 * private file's attributes.
 *
 * Return: 0.
 */
int mvfs_getattr(struct user_namespace *mnt_userns, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	enum mvfs_kind kind = MVFS_I(inode)->kind;
	unsigned int nlink;

	if (kind == MVFS_VIEW)
		mvfs_view_refresh(inode);
	else
		mvfs_copyattr(inode);
	if ((kind == MVFS_VIEW || kind == MVFS_DIR) && inode->i_nlink) {
		nlink = mvfs_dir_nlink(inode);
		if (nlink)
			set_nlink(inode, nlink);
	}
	generic_fillattr(mnt_userns, inode, stat);
	return 0;
}
