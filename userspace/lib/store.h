/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h: the tools' access to an mvfs store.
 *
 * store.c alone knows the layout of a store (mvfs_format.h,
 * docs/FORMAT.md).  Its callers see revisions, labels, views and tree
 * entries in host byte order, and change the store only through the calls
 * below, each of which is one atomic commit of the state file.
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message.
 */
#ifndef MVFS_STORE_H
#define MVFS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "mvfs_format.h"

#define MVFS_STORE_DEFAULT	"/var/lib/mvfs"

struct mvfs_store;

/* An element of a tree, or the top directory of a revision. */
struct mvfs_entry_info {
	char	*name;		/* NUL-terminated; NULL for a top directory */
	__u32	mode;		/* as st_mode */
	__u32	uid;
	__u32	gid;
	__u32	mtime_nsec;
	__s64	mtime;
	__u64	size;		/* bytes; target length; number of entries */
	__u64	ref;		/* what holds the content; 0 for empty files */
};

struct mvfs_rev_info {
	__u64			num;
	__s64			time;	/* of the import */
	__u32			author;	/* uid of the importer */
	__u64			parent;	/* made from; 0 none */
	__u64			merge;	/* merged into it; 0 none */
	unsigned int		branch;	/* its branch's index; 0 main */
	struct mvfs_entry_info	root;
};

struct mvfs_branch_info {
	char	name[MVFS_NAME_MAX + 1];
	__u64	from;		/* the revision it starts from; 0 main */
	__u64	head;		/* its newest revision (BRANCH/LATEST) */
	__u64	nrevs;		/* revisions on it */
};

/* Where a new revision goes: its branch, and a merge it records. */
struct mvfs_rev_place {
	const char	*branch;	/* NULL: main */
	__u64		from;		/* a branch to make starts here */
	__u64		merge;		/* 0: none */
};

struct mvfs_label_info {
	char	name[MVFS_NAME_MAX + 1];
	__u64	rev;
};

struct mvfs_view_info {
	char		tag[MVFS_NAME_MAX + 1];
	const char	*cs;	/* its config spec, NUL-terminated */
	__u32		uid;
	__u32		gid;
	__u32		mode;	/* permission bits, 0..0777 */
};

bool mvfs_name_valid(const char *name);
int mvfs_name_check(const char *kind, const char *name);

int mvfs_store_init(const char *dir, unsigned int format);
int mvfs_store_upgrade(struct mvfs_store *s, unsigned int *was);
unsigned int mvfs_store_format(const struct mvfs_store *s);
void mvfs_store_set_wait(unsigned int seconds);

#define MVFS_FSCK_REPAIR	0x1	/* remove garbage and orphans */
#define MVFS_FSCK_FULL		0x2	/* also hash every object */
int mvfs_store_fsck(const char *dir, unsigned int flags,
		    unsigned int *problems, unsigned int *left);
int mvfs_store_open(const char *dir, bool write, struct mvfs_store **sp);
void mvfs_store_close(struct mvfs_store *s);

/* Revisions, 1..mvfs_store_nrevs(). */
__u64 mvfs_store_nrevs(const struct mvfs_store *s);
void mvfs_store_rev(const struct mvfs_store *s, __u64 rev,
		    struct mvfs_rev_info *ri);
int mvfs_store_rev_msg(struct mvfs_store *s, __u64 rev, char **msg);
int mvfs_store_lookup(struct mvfs_store *s, __u64 rev, const char *path,
		      struct mvfs_entry_info *e);
int mvfs_store_readlink(struct mvfs_store *s, const struct mvfs_entry_info *e,
			char *buf);
int mvfs_store_find(struct mvfs_store *s, __u64 rev, const char *path,
		    struct mvfs_entry_info *e);
int mvfs_store_lookup_child(struct mvfs_store *s,
			    const struct mvfs_entry_info *dir,
			    const char *name, struct mvfs_entry_info *e);
int mvfs_store_list(struct mvfs_store *s, const struct mvfs_entry_info *dir,
		    struct mvfs_entry_info **ents);
void mvfs_store_list_free(struct mvfs_entry_info *ents, __u64 count);

/* Labels. */
unsigned int mvfs_store_nlabels(const struct mvfs_store *s);
void mvfs_store_label(const struct mvfs_store *s, unsigned int i,
		      struct mvfs_label_info *li);
__u64 mvfs_store_label_rev(const struct mvfs_store *s, const char *name);
int mvfs_store_set_label(struct mvfs_store *s, const char *name, __u64 rev,
			 bool replace);

/* Views, and their config specs (spec.c). */
unsigned int mvfs_store_nviews(const struct mvfs_store *s);
void mvfs_store_view(const struct mvfs_store *s, unsigned int i,
		     struct mvfs_view_info *vi);
int mvfs_store_view_get(const struct mvfs_store *s, const char *tag,
			struct mvfs_view_info *vi);
int mvfs_store_add_view(struct mvfs_store *s,
			const struct mvfs_view_info *vi);
int mvfs_store_remove_view(struct mvfs_store *s, const char *tag);
int mvfs_store_spec_check(const struct mvfs_store *s, const char *cs);
int mvfs_store_set_spec(struct mvfs_store *s, const char *tag,
			const char *cs);
bool mvfs_spec_one(const char *cs, enum mvfs_select *sel, char *label,
		   __u64 *rev);
bool mvfs_spec_names_branch(const char *cs, const char *name);

/* Branches (branch.c); index 0 is main. */
unsigned int mvfs_store_nbranches(const struct mvfs_store *s);
struct mvfs_branch_info *mvfs_store_branches(const struct mvfs_store *s);
__u64 mvfs_store_branch_head(const struct mvfs_store *s, unsigned int b);
void mvfs_store_branch_name(const struct mvfs_store *s, unsigned int i,
			    char *name);
int mvfs_store_branch_index(const struct mvfs_store *s, const char *name);
int mvfs_store_branch_find(const struct mvfs_store *s, const char *name);
int mvfs_store_add_branch(struct mvfs_store *s, const char *name,
			  __u64 from);
int mvfs_store_remove_branch(struct mvfs_store *s, const char *name);

/*
 * Building a revision: mvfs_store_begin(), then the contents bottom up
 * (files and symlinks, then the tree of each directory), then
 * mvfs_store_commit_rev() with the top directory, or mvfs_store_abort()
 * to take back everything written since mvfs_store_begin().
 */
bool mvfs_entry_name_valid(const char *name, size_t len);
bool mvfs_store_is_store_dir(const struct mvfs_store *s,
			     const struct stat *st);
bool mvfs_store_durable(const struct mvfs_store *s);
int mvfs_store_sync(struct mvfs_store *s);
int mvfs_store_begin(struct mvfs_store *s);
int mvfs_store_put_file(struct mvfs_store *s, int fd, __u64 size,
			__u64 *ref);
int mvfs_store_put_symlink(struct mvfs_store *s, const char *target,
			   size_t len, __u64 *ref);
int mvfs_store_put_tree(struct mvfs_store *s, struct mvfs_entry_info *ents,
			__u32 count, __u64 *ref);
int mvfs_store_put_tree_edit(struct mvfs_store *s,
			     const struct mvfs_entry_info *base,
			     struct mvfs_entry_info *ch, __u32 nch,
			     struct mvfs_entry_info *dir);
int mvfs_store_commit_rev(struct mvfs_store *s,
			  const struct mvfs_entry_info *root, const char *msg,
			  const struct mvfs_rev_place *pl, __u64 *rev);
void mvfs_store_abort(struct mvfs_store *s);

#endif /* MVFS_STORE_H */
