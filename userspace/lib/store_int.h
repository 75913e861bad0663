/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store_int.h: what the files of the store library share, and nothing
 * outside lib/ includes.  Together they are all the tools know of the
 * store's layout (mvfs_format.h, docs/FORMAT.md):
 *
 *   atomic.c   whole reads and writes, new files made O_EXCL, the
 *              write-new-then-rename commit of a file
 *   store.c    opening (checks, trimming), closing, mvfs init, upgrade
 *   lock.c     the store's writer lock and who holds it
 *   state.c    reading, checking and writing the state file; names
 *   index.c    the index of content hashes, for dedup
 *   index_sorted.c  index.sorted: the index's records sorted by hash
 *   object.c   objects: numbering, copying in, finding equal content
 *   pack.c     the pack: reading, appending, symlink targets
 *   tree.c     trees: serializing, reading (and keeping), lookups
 *   rev.c      building and committing revisions, reading them
 *   label.c    labels
 *   branch.c   branches (format 3)
 *   spec.c     config specs: their text in the pack, checks against the
 *              state, the one-rule specs of formats 1 and 2
 *   view.c     views and their private areas
 *   names.c    finding a label, branch or view by name
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message
 * unless the comment says otherwise.
 */
#ifndef MVFS_STORE_INT_H
#define MVFS_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/types.h>
#include "mvfs_format.h"
#include "store.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The newest format the tools read, write and upgrade to.  MVFS_FORMAT,
 * what mvfs init makes (and the newest it makes), is at most this and at
 * most the newest the module reads: a next format is read here before
 * init writes it.
 */
#define MVFS_FORMAT_TOOLS	3

#define MVFS_IO_BUF		(1024 * 1024)	/* bytes per read */
#define MVFS_TMP_PREFIX		"tmp."
#define MVFS_LOCK_FILE		"lock"	/* who holds the writer lock */
#define MVFS_LOCK_WAIT		60	/* seconds, by default */

/* The index in memory: content hash to object or tree, for dedup. */
struct mvfs_index_ent {
	__u64	hash;
	__u64	ref;		/* object number, or pack offset | TREE */
};

/*
 * index.sorted as a writer uses it (index_sorted.c): the records it
 * covers are not read into struct mvfs_index; a lookup reads the bucket
 * of its hash, or, after MVFS_ISORT_READS of them, the covered records
 * are read whole and sorted in memory.
 */
struct mvfs_isort {
	int			fd;		/* -1: none, or read whole */
	__u64			records;	/* index records it covers */
	__u32			fanout[MVFS_ISORT_FANOUT];
	size_t			reads;		/* buckets read */
	bool			whole;		/* all[] holds them */
	struct mvfs_index_ent	*all;		/* sorted by hash */
	size_t			nall;
	struct mvfs_index_ent	*hits;		/* the last bucket's matches */
	size_t			nhits;
	size_t			hits_cap;
};

/* The records past index.sorted's, and those a revision adds. */
struct mvfs_index {
	struct mvfs_index_ent	*recs;
	size_t			nrecs;
	size_t			cap;
	size_t			first_new;	/* not yet in the index file */
	__u32			*slots;		/* recs index + 1; 0 empty */
	size_t			nslots;		/* a power of two; 0: none yet */
	size_t			lookups;	/* made while there was none */
	struct mvfs_isort	isort;
};

/* Where a lookup is: the sorted copy's matches, then the records. */
struct mvfs_index_pos {
	const struct mvfs_index_ent	*sorted;
	size_t				nsorted;
	size_t				pos;
};

/* Lookups that scan the records before the index builds its table. */
#define MVFS_INDEX_SCAN		16

/*
 * Records past index.sorted's that a writer reads and scans; a commit that
 * leaves more makes the copy anew.  Below that many records in all, a
 * store has no copy.
 */
#define MVFS_ISORT_TAIL		4096

/* Buckets of index.sorted read before the covered records are read whole. */
#define MVFS_ISORT_READS	256

/*
 * The trees a command read lately, by pack offset (tree.c): committed
 * bytes never change.  At most MVFS_TREE_CACHE of them, and about
 * MVFS_TREE_CACHE_MAX bytes (the last one read is kept whatever its size).
 */
#define MVFS_TREE_CACHE		16
#define MVFS_TREE_CACHE_MAX	(32 << 20)
struct mvfs_tree_slot {
	__u64	ref;
	char	*buf;		/* the whole tree; NULL: an empty slot */
	size_t	len;
};

/* names.c: the records of one kind, by name, once a command finds many. */
struct mvfs_names {
	__u32	*ord;	/* record indexes by name, then position; or NULL */
	__u32	n;	/* the records it covers: the first n */
	__u32	scans;	/* finds that read the records, before it */
};

__u32 *mvfs_names_sort(const void *recs, size_t size, __u32 n);
long mvfs_names_find(struct mvfs_names *x, const void *recs, size_t size,
		     __u32 n, const char *name);
void mvfs_names_forget(struct mvfs_names *x);

enum {
	MVFS_NAMES_LABELS,
	MVFS_NAMES_VIEWS,
	MVFS_NAMES_BRANCHES,
	MVFS_NAMES_KINDS
};

struct mvfs_store {
	char			*dir;		/* as given, for messages */
	int			dfd;		/* the store directory */
	int			lfd;		/* "lock", locked by a writer */
	int			pack_fd;
	int			index_fd;	/* -1 unless writable */
	bool			write;
	bool			not_durable;	/* the last commit's dir sync failed */
	struct stat		dir_st;

	/*
	 * The committed state, in format 3's records whatever the format
	 * (state.c converts formats 1 and 2 when it reads and writes).
	 */
	__u32			format;		/* 1, 2: views/; 3: branches */
	__u64			pack_len;
	__u64			next_object;
	__u64			index_len;
	__u32			nrevs;
	__u32			nlabels;
	__u32			nviews;
	__u32			nbranches;	/* at least 1: main */
	struct mvfs_rev3_disk	*revs;		/* revision N at [N - 1] */
	struct mvfs_label_disk	*labels;
	struct mvfs_view3_disk	*views;
	char			**specs;	/* view i's spec, NUL-ended */
	struct mvfs_branch_disk	*branches;
	/*
	 * Labels, views and branches by name (names.c), [MVFS_NAMES_*]: a
	 * cache that a find through a const store may fill.
	 */
	struct mvfs_names	*names;

	/* A revision being built: what lies past the committed ends. */
	bool			building;
	__u64			pack_end;
	__u64			obj_end;	/* above the objects made */
	struct mvfs_index	index;
	char			*buf;		/* MVFS_IO_BUF bytes each */
	char			*buf2;

	struct mvfs_tree_slot	trees[MVFS_TREE_CACHE];
	unsigned int		tree_next;	/* the slot to take next */
	size_t			tree_bytes;
};

/* atomic.c */
int mvfs_pread(int fd, void *buf, size_t len, __u64 off);
int mvfs_pwrite(int fd, const void *buf, size_t len, __u64 off);
ssize_t mvfs_pread_upto(int fd, void *buf, size_t len, __u64 off);
int mvfs_write_new(int dfd, const char *name, const void *buf, size_t len);
int mvfs_sync_disk(int dfd);
int mvfs_rename_keep(int dfd, const char *tmp, const char *name,
		     const char *old);
void mvfs_kept_drop(int dfd, const char *old);
int mvfs_replace_file(int dfd, const char *name, const char *tmp,
		      const char *old, const void *buf, size_t len);
int mvfs_open_file(int dfd, const char *name, int flags);
int mvfs_remove_tree(int dfd, const char *name);

/* lock.c */
int mvfs_lock_take(struct mvfs_store *s);

/* store.c */
struct mvfs_store *mvfs_store_alloc(const char *dir);
int mvfs_store_lock_dir(struct mvfs_store *s);
int mvfs_bad_format(const struct mvfs_store *s, __u32 format);
int mvfs_corrupt(const struct mvfs_store *s, const char *what, __u64 where);
int mvfs_trim_files(struct mvfs_store *s);

/* state.c */
bool mvfs_name_field_get(char *dst, const char *field);
void mvfs_name_field_set(char *field, const char *name);
int mvfs_state_read(struct mvfs_store *s);
int mvfs_state_check_revs(struct mvfs_store *s);
int mvfs_state_check_names(struct mvfs_store *s);
int mvfs_state_write(struct mvfs_store *s);

/* index.c */
void mvfs_index_free(struct mvfs_index *ix);
int mvfs_index_add(struct mvfs_index *ix, __u64 hash, __u64 ref);
int mvfs_index_start(struct mvfs_store *s, __u64 hash,
		     struct mvfs_index_pos *pos);
const struct mvfs_index_ent *mvfs_index_next(const struct mvfs_index *ix,
					     __u64 hash,
					     struct mvfs_index_pos *pos);
bool mvfs_index_rec_valid(const struct mvfs_store *s, __u64 ref);
int mvfs_index_read(struct mvfs_store *s, __u64 from, __u64 to,
		    struct mvfs_index_ent **ents, size_t *n);
int mvfs_index_load(struct mvfs_store *s);
int mvfs_index_flush(struct mvfs_store *s, __u64 *len);

/* index_sorted.c */
void mvfs_isort_open(struct mvfs_store *s);
void mvfs_isort_free(struct mvfs_isort *is);
int mvfs_isort_find(struct mvfs_store *s, __u64 hash,
		    const struct mvfs_index_ent **v, size_t *n);
void mvfs_isort_update(struct mvfs_store *s);

/* object.c */
__u64 mvfs_object_next(__u64 bound);
void mvfs_object_trim(struct mvfs_store *s);

/* view.c */
int mvfs_view_find(const struct mvfs_store *s, const char *tag);
int mvfs_view_area_make(struct mvfs_store *s, const char *tag);
int mvfs_views_dir_make(struct mvfs_store *s);

/* pack.c */
int mvfs_pack_read(struct mvfs_store *s, void *buf, size_t len, __u64 off);
int mvfs_pack_append(struct mvfs_store *s, const void *buf, size_t len,
		     __u64 *off);
int mvfs_pack_put(struct mvfs_store *s, const char *buf, size_t len,
		  __u64 *ref);
void mvfs_entry_decode(const struct mvfs_entry_disk *d,
		       struct mvfs_entry_info *e);
void mvfs_entry_encode(const struct mvfs_entry_info *e, __u32 name_off,
		       __u16 name_len, struct mvfs_entry_disk *d);

/* tree.c */
void mvfs_tree_cache_free(struct mvfs_store *s);

/* rev.c */
int mvfs_check_rev(const struct mvfs_store *s, __u64 rev);
int mvfs_commit_built(struct mvfs_store *s, bool rev);

/* branch.c */
int mvfs_branch_find(const struct mvfs_store *s, const char *name);
int mvfs_branch_main(struct mvfs_store *s);
int mvfs_branch_append(struct mvfs_store *s, const char *name, __u64 from);
void mvfs_branch_shift(struct mvfs_store *s, __u32 b, int by);

/* spec.c */
int mvfs_spec_from_v2(const struct mvfs_store *s,
		      const struct mvfs_view_disk *v, char **cs);
int mvfs_spec_to_v2(const struct mvfs_store *s, const char *cs,
		    struct mvfs_view_disk *v);
int mvfs_specs_load(struct mvfs_store *s);
int mvfs_spec_store(struct mvfs_store *s, const char *cs,
		    struct mvfs_view3_disk *v);

#endif /* MVFS_STORE_INT_H */
