/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store_int.h: what store.c (files, objects), store_tree.c (trees) and
 * store_state.c (the state file) share.  Together they are the module's only reader
 * of the store's layout; nothing else includes this.
 */
#ifndef _MVFS_STORE_INT_H
#define _MVFS_STORE_INT_H

#include "mvfs.h"

/* What an entry may refer to (FORMAT.md: references point backwards). */
struct mvfs_bounds {
	u64	below;		/* pack bytes: [16, below) */
	u64	objects;	/* object numbers: below this */
};

/*
 * A store file that could not be reached for a reason that is not the
 * store's layout (the disk failed a read, or mvfs_err_transient()): the
 * error is passed on, where any other means "not an mvfs store".
 */
static inline bool mvfs_store_unreachable(int err)
{
	return err == -EIO || mvfs_err_transient(err);
}

struct file *mvfs_open(struct mvfs_sb_info *sbi, const char *name);
int mvfs_read_at(struct file *file, void *buf, size_t len, u64 pos);
int mvfs_state_corrupt(struct mvfs_sb_info *sbi, const char *what, u32 n);
int mvfs_corrupt(struct mvfs_sb_info *sbi, const char *what, u64 off);
int mvfs_pack_read_failed(struct mvfs_sb_info *sbi, int err, const char *what,
			  u64 off);
bool mvfs_entry_decode(const struct mvfs_entry_disk *d, struct mvfs_entry *e,
		       const struct mvfs_bounds *b);

#endif /* _MVFS_STORE_INT_H */
