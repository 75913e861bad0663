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
 *
 * Writes: the VFS's i_rwsem of mvfs inodes, then one mvfs_inode_info
 * ->cu_lock (copy-up; never two at once), then ->plock, then the i_rwsem
 * of the store's ext2 inodes (work before upper, as lock_rename() orders
 * them).  Nothing of the store's is locked while an mvfs lock is taken.
 */
#ifndef _MVFS_H
#define _MVFS_H

#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "uapi/mvfs_format.h"
#include "uapi/mvfs_spec.h"

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

/*
 * A revision as the module keeps it: no message, time or author (the
 * module never shows them), so that a long history stays small.
 */
struct mvfs_rev {
	struct mvfs_attr	root;
	u32			parent;	/* the revision it was made from; 0 */
	u32			branch;	/* index into the state's branches */
};

/* A line of development; branch 0 is main. */
struct mvfs_branch {
	char	name[MVFS_NAME_MAX + 1];
	u64	from;	/* the revision it starts from; 0 for main */
	u64	head;	/* its newest revision (BRANCH/LATEST), or from */
};

struct mvfs_label {
	char	name[MVFS_NAME_MAX + 1];
	u64	rev;
};

struct mvfs_view_rec {
	char	tag[MVFS_NAME_MAX + 1];
	u32	uid;
	u32	gid;
	u32	mode;
};

/* The text of a view's config spec (mvfs_spec.h), as the state gave it. */
struct mvfs_cs_text {
	char	*text;		/* kfree() with the state */
	u32	len;
};

/*
 * An index of the names of an array of records, each of which starts
 * with its NUL-terminated name (nameidx.c).
 */
struct mvfs_nameidx {
	const void		*base;
	size_t			stride;
	u32			*slots;	/* an entry's index + 1; 0 free */
	u32			mask;	/* slots - 1, a power of two - 1 */
	siphash_key_t		key;
};

/* What the store's state file said when it was last read. */
struct mvfs_state {
	u32			format;
	u32			nrevs;
	u32			nlabels;
	u32			nviews;
	u32			nbranches;	/* at least 1: main */
	struct mvfs_rev		*revs;		/* revision N at [N - 1] */
	struct mvfs_label	*labels;
	struct mvfs_view_rec	*views;
	struct mvfs_cs_text	*cs;		/* the spec of views[i] */
	struct mvfs_branch	*branches;
	struct mvfs_nameidx	label_idx;	/* of labels[].name */
	struct mvfs_nameidx	view_idx;	/* of views[].tag */
	struct mvfs_nameidx	branch_idx;	/* of branches[].name */
	u64			pack_len;	/* what its header says */
	u64			next_object;
};

/*
 * A view's config spec, compiled: the rules of its text, each with the
 * revision its selector resolved to at the last reload (0: none, a label
 * or branch that does not exist: the rule is passed over).  Never changed
 * once made: a reload that changes it makes a new one.
 */
struct mvfs_crule {
	struct mvfs_rule	r;	/* offsets into text */
	u64			rev;
};

struct mvfs_spec {
	struct kref		ref;
	char			*text;
	u32			len;
	u32			nrules;	/* 0 also for a spec that failed */
	bool			bad;	/* failed to parse: selects nothing */
	struct mvfs_crule	rules[];
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
	u64			rev;	/* of its top directory; READ_ONCE */
	u64			sel;	/* selection generation; READ_ONCE */
	bool			dead;	/* removed from the store; READ_ONCE */
	spinlock_t		lock;	/* protects root, spec, sel, rev */
	struct mvfs_attr	root;	/* top directory of rev */
	struct mvfs_spec	*spec;	/* its config spec, compiled */
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
	spinlock_t		lock;	/* protects real, lower */
	struct file		*real;	/* the object or private file */
	bool			lower;	/* real is the element's, not private */
	bool			cached;	/* written through f_mapping: filecache.c */
	struct mvfs_dirlist	*list;	/* merged directory listing */
	bool			by_index; /* dir: a listing of tree, by index */
	u64			tree;	/* the tree it started on */
};

struct mvfs_sb_info {
	struct path		store;		/* the store directory */
	struct file		*pack;
	const struct cred	*creds;		/* the mounter's, for the store */
	struct path		mnt_root;	/* the mounter's root: no view */
	bool			store_ext2;	/* the store's fs is ext2 */
	struct rw_semaphore	state_lock;	/* protects state, views */
	struct mvfs_state	*state;
	struct list_head	views;
	/* By a record of state, its tag's first: its view, on views. */
	struct mvfs_view	**view_of;
	u64			gen;		/* bumped by each reload */
	u64			pack_len;	/* committed; grows only */
	u64			next_object;	/* committed; grows only */
	char			*store_name;	/* for messages */
	struct ratelimit_state	log_rs;		/* mvfs_log_ok() */
	struct ratelimit_state	fail_rs;	/* mvfs_log_fail_ok() */
	struct mutex		reg_lock;	/* protects view registration */
	spinlock_t		files_lock;	/* protects files */
	struct list_head	files;		/* struct mvfs_file, open */
	struct path		vdir;		/* views/; NULL dentry: read-only */
	atomic64_t		wgen;		/* gives out write generations */
	struct mvfs_follow	*follow;	/* follow.c; set once, acquire */
	unsigned long		follow_next;	/* jiffies; cmpxchg */
	/* Bumped when a name may appear unseen by the VFS (a retire). */
	atomic64_t		ngen;
	struct rcu_head		rcu;		/* RCU walk reads sbi */
};

enum mvfs_kind {
	MVFS_TOP,	/* /view */
	MVFS_VIEW,	/* /view/TAG: the selected revision's top, moving */
	MVFS_DIR,
	MVFS_FILE,
	MVFS_LINK,
	MVFS_HIST,	/* NAME@@: the revisions in which NAME changed */
	MVFS_BRANCH,	/* NAME@@B: its revisions on branch B, and LATEST */
	MVFS_SPECIAL,	/* a private fifo, socket or device node */
};

/*
 * An mvfs inode: an element of the tree a view selects (its lower part:
 * ref, from revision rev, as the view's selection sel chose it), the
 * view's private entry over it (upper), or both.  A directory with merge
 * set shows its upper entries over the elements below path that the
 * view selects now, found again (ref, rev) when the view's selection
 * moves: a cwd stays valid across check-ins and setcs.  A branch
 * directory (MVFS_BRANCH) has path "BRANCH/ELEMENT".
 */
struct mvfs_inode_info {
	struct inode		vfs_inode;
	enum mvfs_kind		kind;
	struct mvfs_view	*view;	/* NULL for a fixed (@@) version */
	u64			gen;	/* sbi->gen at lookup, for @@LABEL */
	bool			by_label;
	struct mutex		plock;	/* protects path, ref, rev, merge, dsel */
	u64			rev;	/* the revision ref is from; READ_ONCE */
	u64			sel;	/* view->sel rev was chosen by; ONCE */
	struct mvfs_dsel	*dsel;	/* dir: how its children are selected */
	u64			ref;	/* tree, object or link target */
	/* element path in the tree, "" top; NULL: a private non-dir */
	char			*path;
	bool			merge;	/* dir: also shows the tree at path */
	struct mutex		cu_lock;	/* serialises copy-up */
	struct dentry		*upper;	/* private entry; set once, acquire */
	struct inode		*cu_target; /* the copy being put in place */
	u64			wgen;	/* write generation: mvfs_wgen_bump() */
	u64			nlink_tree;	/* the tree nlink was counted in */
	unsigned int		nlink;	/* its link count, 0 unknown; ONCE */
	/*
	 * A copied directory: how many of the tree's subdirectories it
	 * shows, counted in tree shown_tree while its private directory
	 * was at i_version shown_ver (dirlist.c); under i_lock.
	 */
	u64			shown_tree;
	u64			shown_ver;
	unsigned int		shown;	/* that count plus one; 0 unknown */
	bool			retired; /* upper left by RETIRE; inode lock */
};

static inline struct mvfs_inode_info *MVFS_I(struct inode *inode)
{
	return container_of(inode, struct mvfs_inode_info, vfs_inode);
}

static inline struct mvfs_sb_info *MVFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/*
 * A change to INODE's content or attributes: RETIRE keeps its private
 * copy unless the generation is the one PRIVGEN gave (retire.c).  Most
 * callers hold the inode's lock; ->mmap cannot take it (mmap_lock nests
 * inside it), hence the ONCE accesses.
 */
static inline void mvfs_wgen_bump(struct inode *inode)
{
	WRITE_ONCE(MVFS_I(inode)->wgen,
		   atomic64_inc_return(&MVFS_SB(inode->i_sb)->wgen));
}

/* A merged directory listing, built at the first readdir of an open dir. */
struct mvfs_dirent {
	u64		ino;
	u16		len;
	u8		type;	/* DT_* */
	bool		whiteout;
	char		name[];
};

/* Entries are packed into page-sized chunks, one allocation per page. */
struct mvfs_dirchunk {
	struct mvfs_dirchunk	*next;
	unsigned int		used;
	char			data[] __aligned(8);
};

struct mvfs_dirlist {
	unsigned int		count;
	unsigned int		size;
	struct mvfs_dirent	**ents;
	struct mvfs_dirchunk	*chunks;	/* the newest first */
};

/*
 * An error of the moment, which says nothing of what the store holds:
 * memory, a fatal signal, an NFS file handle gone stale.  What failed
 * with it is tried again; it is never reported as a corrupt or foreign
 * store.
 */
static inline bool mvfs_err_transient(int err)
{
	return err == -ENOMEM || err == -EINTR || err == -ERESTARTSYS ||
	       err == -ESTALE;
}

/* store.c */
/*
 * Whether a line about the store of SBI may be logged now.  A user can
 * trigger these lines, so they are rate-limited, per mount rather than per
 * call site: a store mounted anew is heard at once, even when another
 * store (or this one, a moment ago) used up a call site's budget.  A
 * macro, so that "callbacks suppressed" names the caller.
 */
#define mvfs_log_ok(sbi)	__ratelimit(&(sbi)->log_rs)

/*
 * The same for the lines of a change that could not be completed or
 * undone (something is left in work/, a sync failed): a budget of their
 * own, so that a user who floods the log with lookups of a corrupt entry
 * cannot hide them.
 */
#define mvfs_log_fail_ok(sbi)	__ratelimit(&(sbi)->fail_rs)

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

/* follow.c */
struct file *mvfs_follow_open_state(struct mvfs_sb_info *sbi);
int mvfs_follow_check(struct super_block *sb, unsigned int flags);
void mvfs_follow_forget(struct mvfs_sb_info *sbi);
void mvfs_follow_free(struct mvfs_sb_info *sbi);

/**
 * mvfs_follow - see whether another machine changed the store, if due
 * @sb: the mvfs superblock
 * @flags: the lookup flags of the access
 *
 * Costs one comparison until a check is due (follow.c).
 *
 * Return: 0, or -ECHILD in RCU walk when a check is due.
 */
static inline int mvfs_follow(struct super_block *sb, unsigned int flags)
{
	if (time_before(jiffies, READ_ONCE(MVFS_SB(sb)->follow_next)))
		return 0;
	return mvfs_follow_check(sb, flags);
}

/* views.c */
#define MVFS_DEPTH_MAX	2048	/* path components; PATH_MAX of 1-byte names */
int mvfs_views_reload(struct super_block *sb);
int mvfs_views_reload_nowait(struct super_block *sb);
void mvfs_views_free(struct mvfs_sb_info *sbi);
struct mvfs_view *mvfs_view_get(struct mvfs_sb_info *sbi, const char *tag,
				unsigned int len);
void mvfs_view_put(struct mvfs_view *view);
bool mvfs_view_nth(struct mvfs_sb_info *sbi, u64 *pos, char *tag);
u64 mvfs_view_root(struct mvfs_view *view, struct mvfs_entry *root);
struct mvfs_spec *mvfs_view_spec(struct mvfs_view *v, u64 *sel);
int mvfs_view_resolve(struct mvfs_sb_info *sbi, struct mvfs_view *v,
		      const char *path, struct mvfs_entry *e, u64 *rev,
		      u64 *sel);
int mvfs_rev_lookup(struct mvfs_sb_info *sbi, const char *spec,
		    unsigned int len, u64 *rev, bool *by_label);
int mvfs_resolve(struct mvfs_sb_info *sbi, u64 rev, const char *path,
		 struct mvfs_entry *e);

/* nameidx.c */
s64 mvfs_nameidx_find(const struct mvfs_nameidx *ix, const char *name,
		      u32 len);
int mvfs_nameidx_build(struct mvfs_nameidx *ix, const void *base,
		       size_t stride, u32 n);
void mvfs_nameidx_free(struct mvfs_nameidx *ix);

/* spec.c */
struct mvfs_spec *mvfs_spec_compile(struct mvfs_sb_info *sbi,
				    const struct mvfs_state *st,
				    const struct mvfs_cs_text *cs,
				    const char *tag, struct mvfs_spec *old);
void mvfs_spec_put(struct mvfs_spec *spec);
bool mvfs_spec_same(const struct mvfs_spec *a, const struct mvfs_spec *b);
int mvfs_spec_match(const struct mvfs_spec *spec, const char *path, u32 len);
void mvfs_spec_children(const struct mvfs_spec *spec, u32 i,
			const char *dir, u32 len, bool *some, bool *all);

/* revalidate.c */
int mvfs_elem_current(struct inode *inode);
void mvfs_dir_refresh(struct inode *dir);

/* select.c */
struct mvfs_dsel;

/*
 * May directory DIR show elements of a tree?  Not when it is a private
 * directory that was never an element: then mvfs_dsel_get() gives NULL,
 * and a lookup need not ask.
 */
static inline bool mvfs_dir_shows_tree(struct inode *dir)
{
	return MVFS_I(dir)->kind == MVFS_VIEW || READ_ONCE(MVFS_I(dir)->merge);
}

struct mvfs_dsel *mvfs_dsel_get(struct inode *dir);
void mvfs_dsel_put(struct mvfs_dsel *d);
bool mvfs_dsel_uniform(const struct mvfs_dsel *d, u64 *tree);
bool mvfs_dsel_empty(const struct mvfs_dsel *d);
unsigned int mvfs_dsel_nlink(const struct mvfs_dsel *d);
void mvfs_dsel_set_nlink(struct mvfs_dsel *d, unsigned int nlink);
int mvfs_dsel_iterate(struct mvfs_sb_info *sbi, struct mvfs_dsel *d,
		      mvfs_actor_t actor, void *priv);
int mvfs_lower_find(struct inode *dir, const char *name, unsigned int len,
		    struct mvfs_entry *e, u64 *rev, u64 *sel);
int mvfs_lower_iterate(struct inode *dir, mvfs_actor_t actor, void *priv);

/* inode.c */
extern const struct dentry_operations mvfs_dentry_ops;
struct inode *mvfs_new_inode(struct super_block *sb, enum mvfs_kind kind,
			     umode_t mode);
struct inode *mvfs_entry_inode(struct super_block *sb,
			       const struct mvfs_entry *e, const char *path,
			       struct mvfs_view *view, u64 rev);
struct inode *mvfs_view_inode(struct super_block *sb, struct mvfs_view *v);
struct inode *mvfs_upper_inode(struct super_block *sb, struct dentry *upper,
			       struct mvfs_view *view, char **path);
struct inode *mvfs_new_upper_inode(struct super_block *sb,
				   struct dentry *upper,
				   struct mvfs_view *view, char **path);
void mvfs_copyattr(struct inode *inode);
void mvfs_inode_attr(struct inode *inode, const struct mvfs_entry *e);
bool mvfs_inode_readonly(struct inode *inode);
int mvfs_permission(struct user_namespace *mnt_userns, struct inode *inode,
		    int mask);
int mvfs_update_time(struct inode *inode, struct timespec64 *now, int flags);
int mvfs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		 struct iattr *attr);
int mvfs_init_inodecache(void);
void mvfs_destroy_inodecache(void);
struct inode *mvfs_alloc_inode(struct super_block *sb);
void mvfs_free_inode(struct inode *inode);
void mvfs_evict_inode(struct inode *inode);
int mvfs_getattr(struct user_namespace *mnt_userns, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
int mvfs_upper_ino(struct super_block *sb, struct dentry *upper, u64 *ino);

/* names.c */
u64 mvfs_ino(struct mvfs_view *v, const char *dir, const char *name,
	     unsigned int len);
u64 mvfs_ino_dir(const char *tag, const char *dir);
u64 mvfs_ino_prefix(struct mvfs_view *v, const char *dir);
u64 mvfs_ino_child(u64 prefix, const char *name, unsigned int len);
unsigned long mvfs_names_stamp(struct mvfs_sb_info *sbi);
void mvfs_dentry_stamp(struct dentry *dentry, unsigned long stamp);
void mvfs_dentry_defer(struct dentry *dentry);
bool mvfs_dentry_deferred(struct dentry *dentry);
bool mvfs_negative_valid(struct dentry *dentry);

/* dir.c */
extern const struct inode_operations mvfs_dir_iops;
extern const struct inode_operations mvfs_dir_ro_iops;
extern const struct file_operations mvfs_dir_fops;
extern const struct inode_operations mvfs_top_iops;
extern const struct file_operations mvfs_top_fops;
char *mvfs_join(const char *dir, const char *name, unsigned int len);
char *mvfs_child_path(struct inode *dir, const char *name, unsigned int len);

/* hist.c */
extern const struct inode_operations mvfs_hist_iops;
extern const struct file_operations mvfs_hist_fops;
extern const struct inode_operations mvfs_branch_iops;
extern const struct file_operations mvfs_branch_fops;
struct inode *mvfs_version_at(struct inode *dir, const char *path,
			      const char *spec, unsigned int len,
			      struct mvfs_entry *e);
struct inode *mvfs_history(struct inode *dir, const char *path,
			   struct mvfs_entry *e);
struct inode *mvfs_branch_dir(struct inode *dir, const char *path,
			      const char *branch, unsigned int len);

/* private.c */
struct mvfs_origin {
	u64	rev;
	u64	ino;
	char	*path;		/* kfree() it */
};

/* The number a view shows for a private entry of its own (no origin). */
static inline u64 mvfs_ino_own(u64 upper_ino)
{
	return BIT_ULL(63) | upper_ino;
}

static inline struct dentry *mvfs_upper(struct inode *inode)
{
	/* Set once by copy-up with smp_store_release(), when complete. */
	return smp_load_acquire(&MVFS_I(inode)->upper);
}

bool mvfs_is_whiteout(struct dentry *d);
struct dentry *mvfs_priv_lookup(struct mvfs_sb_info *sbi, struct dentry *dir,
				const char *name, unsigned int len);
int mvfs_priv_area(struct mvfs_sb_info *sbi, const char *tag,
		   const char *which, struct dentry **out);
int mvfs_record_get(struct mvfs_sb_info *sbi, struct dentry *d,
		    const char *xname, struct mvfs_origin *o);
int mvfs_record_set(struct mvfs_sb_info *sbi, struct dentry *d,
		    const char *xname, u64 rev, u64 ino, const char *path);
int mvfs_record_drop(struct mvfs_sb_info *sbi, struct dentry *d,
		     const char *xname);
int mvfs_origin_ino(struct mvfs_sb_info *sbi, struct dentry *d, u64 *ino);

/* An entry's trusted.mvfs.origin (see mvfs_record_get()) */
static inline int mvfs_origin_get(struct mvfs_sb_info *sbi, struct dentry *d,
				  struct mvfs_origin *o)
{
	return mvfs_record_get(sbi, d, MVFS_XATTR_ORIGIN, o);
}

static inline int mvfs_origin_set(struct mvfs_sb_info *sbi, struct dentry *d,
				  u64 rev, u64 ino, const char *path)
{
	return mvfs_record_set(sbi, d, MVFS_XATTR_ORIGIN, rev, ino, path);
}

/* base.c */
int mvfs_base_of(struct inode *dir, struct dentry *dentry,
		 struct mvfs_origin *b);
void mvfs_base_link(struct mvfs_sb_info *sbi, struct dentry *old,
		    const struct mvfs_origin *b);
void mvfs_base_moved(struct mvfs_sb_info *sbi, struct dentry *d,
		     const struct mvfs_origin *b);
void mvfs_base_mark(struct mvfs_sb_info *sbi, struct dentry *d,
		    const struct mvfs_origin *b);
int mvfs_base_replacing(struct inode *ndir, struct dentry *nd,
			struct mvfs_origin *b);
bool mvfs_impure(struct mvfs_sb_info *sbi, struct dentry *udir);
int mvfs_impure_for(struct inode *dir, struct inode *inode);
void mvfs_impure_found(struct inode *dir, struct inode *inode);
const struct cred *mvfs_creds_as(struct mvfs_sb_info *sbi, kuid_t uid,
				 kgid_t gid);
int mvfs_do_whiteout(struct mvfs_sb_info *sbi, struct inode *dir,
		     struct dentry *d);
int mvfs_do_rename(struct mvfs_sb_info *sbi, struct inode *odir,
		   struct dentry *od, struct inode *ndir, struct dentry *nd,
		   unsigned int flags);
int mvfs_do_rmdir(struct mvfs_sb_info *sbi, struct inode *dir,
		  struct dentry *d);
int mvfs_do_unlink(struct mvfs_sb_info *sbi, struct inode *dir,
		   struct dentry *d);
int mvfs_clear_whiteouts(struct mvfs_sb_info *sbi, struct dentry *dir);
struct file *mvfs_priv_open(struct mvfs_sb_info *sbi, struct dentry *d,
			    int flags);
int mvfs_priv_iterate(struct mvfs_sb_info *sbi, struct dentry *dir,
		      struct dir_context *ctx);

/* privmove.c */
struct mvfs_wname {
	char		buf[24];	/* "#" kind, then hex */
	struct qstr	q;
};

int mvfs_view_work(struct inode *dir, struct dentry **work);
void mvfs_work_name(struct mvfs_sb_info *sbi, struct mvfs_wname *w, char kind);
int mvfs_priv_move(struct mvfs_sb_info *sbi, struct dentry *d1,
		   const struct qstr *n1, struct dentry *d2,
		   const struct qstr *n2, struct inode *want, bool replace);
int mvfs_work_whiteout(struct mvfs_sb_info *sbi, struct dentry *work,
		       struct mvfs_wname *w, const struct mvfs_origin *b);
void mvfs_work_drop(struct mvfs_sb_info *sbi, struct dentry *work,
		    const struct mvfs_wname *w);

/* copyup.c */
struct dentry *mvfs_view_top(struct dentry *dentry);
int mvfs_copy_up(struct dentry *dentry);

/* dirlist.c */
int mvfs_dirlist_build(struct inode *dir, struct mvfs_dirlist **out,
		       bool numbers);
void mvfs_dirlist_free(struct mvfs_dirlist *l);
int mvfs_dir_empty(struct dentry *dentry);
unsigned int mvfs_dir_nlink(struct inode *dir);

/* namei.c */
extern const struct inode_operations mvfs_file_iops;
extern const struct inode_operations mvfs_file_ro_iops;
extern const struct inode_operations mvfs_link_iops;
extern const struct inode_operations mvfs_link_ro_iops;
extern const struct inode_operations mvfs_special_iops;
int mvfs_create(struct user_namespace *mnt_userns, struct inode *dir,
		struct dentry *dentry, umode_t mode, bool excl);
int mvfs_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
	       struct dentry *dentry, umode_t mode);
int mvfs_mknod(struct user_namespace *mnt_userns, struct inode *dir,
	       struct dentry *dentry, umode_t mode, dev_t rdev);
int mvfs_symlink(struct user_namespace *mnt_userns, struct inode *dir,
		 struct dentry *dentry, const char *target);
int mvfs_link(struct dentry *old, struct inode *dir, struct dentry *dentry);
int mvfs_unlink(struct inode *dir, struct dentry *dentry);
int mvfs_rmdir(struct inode *dir, struct dentry *dentry);
int mvfs_lower_has(struct inode *dir, const struct qstr *name);

/* rename.c */
int mvfs_rename(struct user_namespace *mnt_userns, struct inode *odir,
		struct dentry *od, struct inode *ndir, struct dentry *nd,
		unsigned int flags);

/* retire.c */
long mvfs_ioc_priv(struct file *file, unsigned int cmd, void __user *uarg);

/* filecache.c */
bool mvfs_cached_ok(struct file *file);
int mvfs_cached_open(struct file *file);
void mvfs_cached_release(struct file *file);
ssize_t mvfs_write_cached(struct kiocb *iocb, struct iov_iter *from);

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
