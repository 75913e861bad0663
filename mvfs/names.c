// SPDX-License-Identifier: GPL-2.0
/*
 * names.c: what a view's names stand for: the inode number of an element
 * (a hash of the view's tag and the element's path, as romfs derives its
 * numbers from on-disk positions), and how long a lookup's answer holds
 * for a name that is not there (a negative dentry).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include "mvfs.h"

static u64 mvfs_ino_final(u64 h)
{
	h &= ~(1ULL << 63);
	return h > 1 ? h : 2;	/* 1 is /view */
}

/**
 * mvfs_ino_prefix - the hash of a directory's path, for its entries
 * @v: the view, or NULL for a fixed version
 * @dir: the element path of the directory ("" the top)
 *
 * A listing hashes its directory's path once, then each name with
 * mvfs_ino_child(): the numbers are mvfs_ino()'s.
 *
 * Return: the hash state.
 */
u64 mvfs_ino_prefix(struct mvfs_view *v, const char *dir)
{
	u64 h = MVFS_FNV64_INIT;

	if (v)
		h = mvfs_fnv64(h, v->rec.tag, strlen(v->rec.tag));
	h = mvfs_fnv64(h, "/", 1);
	h = mvfs_fnv64(h, dir, strlen(dir));
	if (*dir)
		h = mvfs_fnv64(h, "/", 1);
	return h;
}

/**
 * mvfs_ino_child - the inode number of an entry of a directory
 * @prefix: mvfs_ino_prefix() of the directory
 * @name: the entry's name
 * @len: its length
 *
 * Return: what mvfs_ino() gives for it.
 */
u64 mvfs_ino_child(u64 prefix, const char *name, unsigned int len)
{
	return mvfs_ino_final(mvfs_fnv64(prefix, name, len));
}

/**
 * mvfs_ino - the inode number of an element of a view
 * @v: the view, or NULL for a fixed version
 * @dir: the element path of its directory ("" the top)
 * @name: its name, or NULL for @dir itself
 * @len: the name's length
 *
 * Return: a number below 2^63; private entries that were never elements
 * take 2^63 plus their private inode number.
 */
u64 mvfs_ino(struct mvfs_view *v, const char *dir, const char *name,
	     unsigned int len)
{
	if (name)
		return mvfs_ino_child(mvfs_ino_prefix(v, dir), name, len);
	return mvfs_ino_dir(v ? v->rec.tag : NULL, dir);
}

/**
 * mvfs_ino_dir - mvfs_ino() of a directory, by its view's tag
 * @tag: the view's tag, or NULL for a fixed version
 * @dir: the element path of the directory ("" the top)
 *
 * Return: the number; a view's top is mvfs_ino_dir(tag, "").
 */
u64 mvfs_ino_dir(const char *tag, const char *dir)
{
	u64 h = MVFS_FNV64_INIT;

	if (tag)
		h = mvfs_fnv64(h, tag, strlen(tag));
	h = mvfs_fnv64(h, "/", 1);
	return mvfs_ino_final(mvfs_fnv64(h, dir, strlen(dir)));
}

/**
 * mvfs_names_stamp - what the names of every view depend on, now
 * @sbi: the mount
 *
 * A name can appear in a view without the VFS seeing it made only by a
 * reload (sbi->gen: a check-in, an import, a label or view moved) or by
 * a retire (sbi->ngen).  Both only grow, so their sum changes when
 * either does.  Read it before a lookup starts.
 *
 * Return: the stamp, never 0.
 */
unsigned long mvfs_names_stamp(struct mvfs_sb_info *sbi)
{
	unsigned long stamp;

	stamp = READ_ONCE(sbi->gen) + atomic64_read(&sbi->ngen) + 1;
	smp_rmb();	/* before what the lookup reads; pairs with a reload */
	return stamp;
}

/**
 * mvfs_dentry_stamp - remember the state a lookup's answer came from
 * @dentry: the dentry looked up (positive or not)
 * @stamp: mvfs_names_stamp() from before the lookup
 *
 * Every later change to the name in this mount goes through the VFS on
 * this dentry (create, rename, unlink), so a negative dentry stays right
 * while the stamp does.
 */
void mvfs_dentry_stamp(struct dentry *dentry, unsigned long stamp)
{
	WRITE_ONCE(dentry->d_fsdata, (void *)stamp);
}

/**
 * mvfs_dentry_defer - mark a dentry whose lookup is left to its create
 * @dentry: the dentry, unhashed (mvfs_lookup() returns NULL for it)
 *
 * It has no stamp: it is made, or dropped, before anyone else sees it.
 */
void mvfs_dentry_defer(struct dentry *dentry)
{
	WRITE_ONCE(dentry->d_fsdata, NULL);
}

/**
 * mvfs_dentry_deferred - was the lookup of this negative dentry left to
 * the create that is making it
 * @dentry: the dentry, negative, its parent locked
 *
 * Return: true if so (and the create must find out whether the name is
 * taken).
 */
bool mvfs_dentry_deferred(struct dentry *dentry)
{
	return d_unhashed(dentry) && !READ_ONCE(dentry->d_fsdata);
}

/**
 * mvfs_negative_valid - may a negative dentry be trusted (RCU-safe)
 * @dentry: the negative dentry
 *
 * Return: true while nothing since its lookup can have made its name.
 */
bool mvfs_negative_valid(struct dentry *dentry)
{
	unsigned long stamp = (unsigned long)READ_ONCE(dentry->d_fsdata);

	return stamp && stamp == mvfs_names_stamp(MVFS_SB(dentry->d_sb));
}
