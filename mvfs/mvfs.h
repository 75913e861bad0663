/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mvfs: a per-process view filesystem.
 *
 * One mount (/view) shows every view of one store.  The store's layout is
 * known to store.c alone; the rest of the module sees revisions, trees and
 * entries through the calls declared under "store.c" below.
 *
 * Lock order: sbi->reg_lock (mutex), then sbi->state_lock (rw_semaphore),
 * then view->lock or sbi->files_lock (spinlocks, never nested).
 * set_fs_root() may sleep: it is never called under a spinlock.
 */
#ifndef _MVFS_H
#define _MVFS_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "uapi/mvfs_format.h"

#define MVFS_MAGIC	0x4d564653	/* "MVFS" */

/* An entry of a tree, or the top directory of a revision, in memory. */
struct mvfs_entry {
	umode_t		mode;
	u32		uid;
	u32		gid;
	u32		mtime_nsec;
	s64		mtime;
	u64		size;
	u64		ref;
	u16		name_len;
	char		name[MVFS_ENTRY_NAME_MAX + 1];
};

/*
 * What an entry says without its name: the top directory of a revision,
 * and the root a view shows.  Kept apart from struct mvfs_entry so that
 * records that have no name do not carry a name buffer.
 */
struct mvfs_attr {
	umode_t		mode;
	u32		uid;
	u32		gid;
	u32		mtime_nsec;
	s64		mtime;
	u64		size;
	u64		ref;
};

static inline void mvfs_attr_from_entry(struct mvfs_attr *a,
					const struct mvfs_entry *e)
{
	*a = (struct mvfs_attr){ .mode = e->mode, .uid = e->uid,
				 .gid = e->gid, .mtime_nsec = e->mtime_nsec,
				 .mtime = e->mtime, .size = e->size,
				 .ref = e->ref };
}

/* Fill E from A; E gets no name (name_len 0). */
static inline void mvfs_entry_from_attr(struct mvfs_entry *e,
					const struct mvfs_attr *a)
{
	e->mode = a->mode;
	e->uid = a->uid;
	e->gid = a->gid;
	e->mtime_nsec = a->mtime_nsec;
	e->mtime = a->mtime;
	e->size = a->size;
	e->ref = a->ref;
	e->name_len = 0;
	e->name[0] = '\0';
}

struct mvfs_rev {
	struct mvfs_attr	root;
};

struct mvfs_label {
	char	name[MVFS_NAME_MAX + 1];
	u64	rev;
};

struct mvfs_view_rec {
	char	tag[MVFS_NAME_MAX + 1];
	char	label[MVFS_NAME_MAX + 1];
	u64	rev;
	u32	select;		/* enum mvfs_select */
	u32	uid;
	u32	gid;
	u32	mode;
};

/* What the store's state file said when it was last read. */
struct mvfs_state {
	u32			nrevs;
	u32			nlabels;
	u32			nviews;
	struct mvfs_rev		*revs;		/* revision N at [N - 1] */
	struct mvfs_label	*labels;
	struct mvfs_view_rec	*views;
	u64			pack_len;	/* what its header says */
	u64			next_object;
};

/*
 * A view as the mount knows it; inodes of the view hold a reference.
 * Replaced by a new object when the view is removed and made again.
 */
struct mvfs_view {
	struct kref		ref;
	struct rcu_head		rcu;	/* RCU-walk revalidation reads it */
	struct list_head	node;	/* in sbi->views, under state_lock */
	struct mvfs_view_rec	rec;
	u64			rev;	/* what it selects now; READ_ONCE */
	bool			dead;	/* removed from the store; READ_ONCE */
	spinlock_t		lock;	/* protects root */
	struct mvfs_attr	root;	/* top directory of rev */
	/* Under sbi->reg_lock: the registered view root, and the system
	 * root it was registered from (where view-set - leads back to).
	 */
	bool			registered;
	struct path		vroot;
	struct path		base;
};

/* An open file or directory of a view, on sbi->files. */
struct mvfs_file {
	struct list_head	node;
	struct mvfs_view	*view;
	struct file		*real;	/* the object, for a regular file */
};

struct mvfs_sb_info {
	struct path		store;		/* the store directory */
	struct file		*pack;
	const struct cred	*creds;		/* the mounter's, for the store */
	struct rw_semaphore	state_lock;	/* protects state, views */
	struct mvfs_state	*state;
	struct list_head	views;
	u64			gen;		/* bumped by each reload */
	u64			pack_len;	/* committed; grows only */
	u64			next_object;	/* committed; grows only */
	char			*store_name;	/* for messages */
	struct mutex		reg_lock;	/* protects view registration */
	spinlock_t		files_lock;	/* protects files */
	struct list_head	files;		/* struct mvfs_file, open */
};

enum mvfs_kind {
	MVFS_TOP,	/* /view */
	MVFS_VIEW,	/* /view/TAG: the selected revision's top, moving */
	MVFS_DIR,
	MVFS_FILE,
	MVFS_LINK,
	MVFS_HIST,	/* NAME@@: the revisions in which NAME changed */
};

struct mvfs_inode_info {
	struct inode		vfs_inode;
	enum mvfs_kind		kind;
	struct mvfs_view	*view;	/* NULL for a fixed (@@) version */
	u64			rev;	/* the revision it comes from */
	u64			gen;	/* sbi->gen at lookup, for @@LABEL */
	bool			by_label;
	u64			ref;	/* tree, object or link target */
	char			*path;	/* dirs, HIST: element path, "" top */
};

static inline struct mvfs_inode_info *MVFS_I(struct inode *inode)
{
	return container_of(inode, struct mvfs_inode_info, vfs_inode);
}

static inline struct mvfs_sb_info *MVFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/* store.c */
typedef bool (*mvfs_actor_t)(void *priv, const struct mvfs_entry *e,
			     u32 index);
int mvfs_store_open(struct mvfs_sb_info *sbi, const char *dir);
void mvfs_store_close(struct mvfs_sb_info *sbi);
struct mvfs_state *mvfs_store_read_state(struct mvfs_sb_info *sbi);
void mvfs_state_free(struct mvfs_state *state);
int mvfs_store_find(struct mvfs_sb_info *sbi, u64 tree, const char *name,
		    unsigned int len, struct mvfs_entry *e);
int mvfs_store_iterate(struct mvfs_sb_info *sbi, u64 tree, u32 start,
		       mvfs_actor_t actor, void *priv);
char *mvfs_store_link(struct mvfs_sb_info *sbi, const struct mvfs_entry *e);
struct file *mvfs_store_object(struct mvfs_sb_info *sbi,
			       const struct mvfs_entry *e);

/* views.c */
#define MVFS_DEPTH_MAX	2048	/* path components; PATH_MAX of 1-byte names */
int mvfs_views_reload(struct super_block *sb);
void mvfs_views_free(struct mvfs_sb_info *sbi);
struct mvfs_view *mvfs_view_get(struct mvfs_sb_info *sbi, const char *tag,
				unsigned int len);
void mvfs_view_put(struct mvfs_view *view);
u64 mvfs_view_root(struct mvfs_view *view, struct mvfs_entry *root);
int mvfs_rev_lookup(struct mvfs_sb_info *sbi, const char *spec,
		    unsigned int len, u64 *rev, bool *by_label);
int mvfs_resolve(struct mvfs_sb_info *sbi, u64 rev, const char *path,
		 struct mvfs_entry *e);

/* inode.c */
extern const struct dentry_operations mvfs_dentry_ops;
struct inode *mvfs_new_inode(struct super_block *sb, enum mvfs_kind kind,
			     umode_t mode);
struct inode *mvfs_entry_inode(struct super_block *sb,
			       const struct mvfs_entry *e, const char *path,
			       struct mvfs_view *view, u64 rev);
struct inode *mvfs_view_inode(struct super_block *sb, struct mvfs_view *v);
int mvfs_init_inodecache(void);
void mvfs_destroy_inodecache(void);
struct inode *mvfs_alloc_inode(struct super_block *sb);
void mvfs_free_inode(struct inode *inode);
void mvfs_evict_inode(struct inode *inode);
int mvfs_getattr(struct user_namespace *mnt_userns, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);

/* dir.c */
extern const struct inode_operations mvfs_dir_iops;
extern const struct file_operations mvfs_dir_fops;
extern const struct inode_operations mvfs_top_iops;
extern const struct file_operations mvfs_top_fops;
extern const struct inode_operations mvfs_hist_iops;
extern const struct file_operations mvfs_hist_fops;

/* file.c */
extern const struct file_operations mvfs_file_fops;
int mvfs_track_open(struct inode *inode, struct file *file);
int mvfs_track_release(struct inode *inode, struct file *file);
unsigned int mvfs_files_open(struct mvfs_sb_info *sbi, struct mvfs_view *v);

/* ioctl.c */
long mvfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* switch.c */
struct mvfs_ioc_view;
int mvfs_register(struct super_block *sb, struct mvfs_ioc_view *arg);
int mvfs_unregister(struct super_block *sb, struct mvfs_ioc_view *arg);
int mvfs_setview(struct super_block *sb, struct mvfs_ioc_view *arg);
int mvfs_pwv(struct super_block *sb, struct mvfs_ioc_view *arg);
int mvfs_idle(struct super_block *sb, struct mvfs_ioc_view *arg);
void mvfs_unregister_all(struct mvfs_sb_info *sbi);
void mvfs_view_unregister(struct mvfs_sb_info *sbi, struct mvfs_view *v);

#endif /* _MVFS_H */
