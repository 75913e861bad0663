// SPDX-License-Identifier: GPL-2.0
/*
 * store_tree.c: reading the trees of the pack: their entries checked
 * against FORMAT.md's rules as they are decoded, a name found by binary
 * search, the entries listed in batches.  With store.c and
 * store_state.c, the module's only reader of the store's layout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "mvfs.h"
#include "store_int.h"

/*
 * What an entry may refer to.  Pack references point backwards: what a
 * tree refers to lies wholly below the tree (FORMAT.md), so that no chain
 * of directories can loop; a revision's root lies below pack_len.
 */

/* The bounds of the entries of the tree at TREE. */
static struct mvfs_bounds mvfs_tree_bounds(struct mvfs_sb_info *sbi,
					   u64 tree)
{
	return (struct mvfs_bounds){ .below = tree,
				     .objects = READ_ONCE(sbi->next_object) };
}

/* Does E refer within B?  Written so that no sum can wrap. */
static bool mvfs_entry_refs_ok(const struct mvfs_entry *e,
			       const struct mvfs_bounds *b)
{
	const u64 first = sizeof(struct mvfs_pack_hdr);

	if (b->below < first)
		return false;
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		return e->size <= U32_MAX && e->ref >= first &&
		       sizeof(struct mvfs_tree_hdr) <= b->below - first &&
		       e->ref <= b->below - sizeof(struct mvfs_tree_hdr);
	case S_IFLNK:
		return e->size > 0 && e->size < PATH_MAX && e->ref >= first &&
		       e->size <= b->below - first &&
		       e->ref <= b->below - e->size;
	case S_IFREG:
		return (e->ref == 0) == (e->size == 0) &&
		       e->size <= MAX_LFS_FILESIZE && e->ref < b->objects;
	default:
		return false;
	}
}

/*
 * Decode an entry; the name is filled in by the caller.  False when it
 * breaks a rule of FORMAT.md (the caller logs).
 */
bool mvfs_entry_decode(const struct mvfs_entry_disk *d, struct mvfs_entry *e,
		       const struct mvfs_bounds *b)
{
	e->mode = le32_to_cpu(d->mode) & (S_IFMT | 07777);
	e->uid = le32_to_cpu(d->uid);
	e->gid = le32_to_cpu(d->gid);
	e->mtime_nsec = le32_to_cpu(d->mtime_nsec);
	e->mtime = (s64)le64_to_cpu(d->mtime);
	e->size = le64_to_cpu(d->size);
	e->ref = le64_to_cpu(d->ref);
	e->name_len = 0;
	e->name[0] = '\0';
	return !d->reserved && !(le32_to_cpu(d->mode) & ~(S_IFMT | 07777)) &&
	       e->mtime_nsec < NSEC_PER_SEC && mvfs_entry_refs_ok(e, b);
}

/* Read and check the header of the tree at TREE. */
static int mvfs_tree_hdr(struct mvfs_sb_info *sbi, u64 tree, u32 *count,
			 u32 *names_len)
{
	u64 pack_len = READ_ONCE(sbi->pack_len);
	struct mvfs_tree_hdr hdr;
	u64 span;
	int err;

	if (tree > pack_len)
		return mvfs_corrupt(sbi, "tree", tree);
	err = mvfs_read_at(sbi->pack, &hdr, sizeof(hdr), tree);
	if (err)
		return mvfs_pack_read_failed(sbi, err, "tree", tree);
	*count = le32_to_cpu(hdr.count);
	*names_len = le32_to_cpu(hdr.names_len);
	/* At most 2^38: no wrap. */
	span = sizeof(hdr) + (u64)*count * sizeof(struct mvfs_entry_disk) +
	       *names_len;
	if (le32_to_cpu(hdr.magic) != MVFS_TREE_MAGIC || hdr.reserved ||
	    span > pack_len - tree)
		return mvfs_corrupt(sbi, "tree", tree);
	return 0;
}

/* Read entry INDEX of a tree whose header said COUNT and NAMES_LEN. */
static int mvfs_tree_entry(struct mvfs_sb_info *sbi, u64 tree, u32 count,
			   u32 names_len, u32 index, struct mvfs_entry *e)
{
	struct mvfs_bounds bounds = mvfs_tree_bounds(sbi, tree);
	struct mvfs_entry_disk d;
	u64 off = tree + sizeof(struct mvfs_tree_hdr) + (u64)index * sizeof(d);
	u64 names = tree + sizeof(struct mvfs_tree_hdr) + (u64)count * sizeof(d);
	u32 name_off;
	int err;

	err = mvfs_read_at(sbi->pack, &d, sizeof(d), off);
	if (err)
		return mvfs_pack_read_failed(sbi, err, "entry", off);
	if (!mvfs_entry_decode(&d, e, &bounds))
		return mvfs_corrupt(sbi, "entry", off);
	name_off = le32_to_cpu(d.name_off);
	e->name_len = le16_to_cpu(d.name_len);
	if ((u64)name_off + e->name_len > names_len ||
	    e->name_len > MVFS_ENTRY_NAME_MAX)
		return mvfs_corrupt(sbi, "entry name", off);
	err = mvfs_read_at(sbi->pack, e->name, e->name_len, names + name_off);
	if (err)
		return mvfs_pack_read_failed(sbi, err, "entry name", off);
	e->name[e->name_len] = '\0';
	if (!mvfs_entry_name_ok(e->name, e->name_len))
		return mvfs_corrupt(sbi, "entry name", off);
	return 0;
}

#define MVFS_FIND_WHOLE	8192	/* a tree this small: find reads it whole */

/* Entry INDEX of a tree whose entries and names were read into BUF. */
static int mvfs_whole_entry(struct mvfs_sb_info *sbi, const void *buf,
			    u64 tree, u32 count, u32 names_len, u32 index,
			    struct mvfs_entry *e)
{
	struct mvfs_bounds bounds = mvfs_tree_bounds(sbi, tree);
	const struct mvfs_entry_disk *d = buf;
	const char *names = (const char *)(d + count);
	u64 off = tree + sizeof(struct mvfs_tree_hdr) +
		  (u64)index * sizeof(*d);
	u32 name_off;

	d += index;
	if (!mvfs_entry_decode(d, e, &bounds))
		return mvfs_corrupt(sbi, "entry", off);
	name_off = le32_to_cpu(d->name_off);
	e->name_len = le16_to_cpu(d->name_len);
	if ((u64)name_off + e->name_len > names_len ||
	    e->name_len > MVFS_ENTRY_NAME_MAX)
		return mvfs_corrupt(sbi, "entry name", off);
	memcpy(e->name, names + name_off, e->name_len);
	e->name[e->name_len] = '\0';
	if (!mvfs_entry_name_ok(e->name, e->name_len))
		return mvfs_corrupt(sbi, "entry name", off);
	return 0;
}

/*
 * A small tree's entries and names in one read (kfree them), so that a
 * binary search costs one read of the pack instead of two a step; NULL
 * for a larger tree, searched in place.
 */
static void *mvfs_tree_whole(struct mvfs_sb_info *sbi, u64 tree, u32 count,
			     u32 names_len, int *err)
{
	size_t size = (size_t)count * sizeof(struct mvfs_entry_disk) +
		      names_len;
	void *buf;

	*err = 0;
	if (size > MVFS_FIND_WHOLE)
		return NULL;
	buf = kmalloc(size ? size : 1, GFP_KERNEL);
	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = mvfs_read_at(sbi->pack, buf, size,
			    tree + sizeof(struct mvfs_tree_hdr));
	if (*err) {
		kfree(buf);
		*err = mvfs_pack_read_failed(sbi, *err, "tree", tree);
		return NULL;
	}
	return buf;
}

#define MVFS_BATCH	64		/* entries read at once by iterate */
#define MVFS_BATCH_NAMES	(16U << 10)	/* their names, when together */

/*
 * Small enough for the slab (a readdir allocates one): the names get a
 * buffer of their own, as large as the batch's names need.
 */
struct mvfs_batch {
	struct mvfs_entry_disk	d[MVFS_BATCH];
	char			*names;
	u32			names_size;
};

/* Make B's name buffer at least SIZE bytes; false when it cannot be. */
static bool mvfs_batch_names(struct mvfs_batch *b, u32 size)
{
	if (size <= b->names_size)
		return true;
	kfree(b->names);
	b->names = kmalloc(size, GFP_KERNEL);
	b->names_size = b->names ? size : 0;
	return b->names;
}

/* Decode entry I of a batch whose names (if read) start at NAMES_LO. */
static int mvfs_batch_entry(struct mvfs_sb_info *sbi, struct mvfs_batch *b,
			    const struct mvfs_bounds *bounds, unsigned int i,
			    u64 off, u64 names, u32 names_len, s64 names_lo,
			    struct mvfs_entry *e)
{
	u32 name_off = le32_to_cpu(b->d[i].name_off);
	int err;

	if (!mvfs_entry_decode(&b->d[i], e, bounds))
		return mvfs_corrupt(sbi, "entry", off);
	e->name_len = le16_to_cpu(b->d[i].name_len);
	if ((u64)name_off + e->name_len > names_len ||
	    e->name_len > MVFS_ENTRY_NAME_MAX)
		return mvfs_corrupt(sbi, "entry name", off);
	if (names_lo >= 0) {
		memcpy(e->name, b->names + name_off - names_lo, e->name_len);
	} else {
		err = mvfs_read_at(sbi->pack, e->name, e->name_len,
				   names + name_off);
		if (err)
			return mvfs_pack_read_failed(sbi, err, "entry name",
						     off);
	}
	e->name[e->name_len] = '\0';
	if (!mvfs_entry_name_ok(e->name, e->name_len))
		return mvfs_corrupt(sbi, "entry name", off);
	return 0;
}

/*
 * Read N entries from FIRST into B, and their names too when they lie
 * within MVFS_BATCH_NAMES bytes (as the tools write them): the offset of
 * the first name read, or -1 when the names must be read one by one.
 */
static s64 mvfs_batch_read(struct mvfs_sb_info *sbi, struct mvfs_batch *b,
			   u64 tree, u32 count, u32 first, unsigned int n,
			   int *err)
{
	u64 ents = tree + sizeof(struct mvfs_tree_hdr);
	u64 names = ents + (u64)count * sizeof(b->d[0]);
	u64 lo = U64_MAX, hi = 0, o;
	unsigned int i;

	*err = mvfs_read_at(sbi->pack, b->d, n * sizeof(b->d[0]),
			    ents + (u64)first * sizeof(b->d[0]));
	if (*err)
		return -1;
	for (i = 0; i < n; i++) {
		o = le32_to_cpu(b->d[i].name_off);
		lo = min(lo, o);
		hi = max(hi, o + le16_to_cpu(b->d[i].name_len));
	}
	if (hi - lo > MVFS_BATCH_NAMES || !mvfs_batch_names(b, hi - lo) ||
	    mvfs_read_at(sbi->pack, b->names, hi - lo, names + lo))
		return -1;
	return lo;
}

/**
 * mvfs_store_iterate - call @actor on the entries of a tree, in order
 * @sbi: the mount
 * @tree: the tree's offset; 0 is the empty tree
 * @start: the index of the first entry wanted
 * @actor: called with each entry and its index; false stops
 * @priv: for @actor
 *
 * Reads the entries in batches, for readdir of large directories.
 *
 * Return: 0 (the end, or @actor stopped); -EIO when corrupt; -ENOMEM.
 */
int mvfs_store_iterate(struct mvfs_sb_info *sbi, u64 tree, u32 start,
		       mvfs_actor_t actor, void *priv)
{
	struct mvfs_bounds bounds = mvfs_tree_bounds(sbi, tree);
	u32 count, names_len, i;
	struct mvfs_batch *b;
	struct mvfs_entry *e;
	unsigned int n, j;
	u64 names, off;
	s64 lo;
	int err;

	if (!tree)
		return 0;
	err = mvfs_tree_hdr(sbi, tree, &count, &names_len);
	if (err || start >= count)
		return err;
	names = tree + sizeof(struct mvfs_tree_hdr) +
		(u64)count * sizeof(struct mvfs_entry_disk);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	err = -ENOMEM;
	if (!b || !e)
		goto out_free;
	for (i = start; i < count; i += n) {
		n = min_t(u32, MVFS_BATCH, count - i);
		lo = mvfs_batch_read(sbi, b, tree, count, i, n, &err);
		if (err) {
			err = mvfs_pack_read_failed(sbi, err, "tree", tree);
			goto out_free;
		}
		for (j = 0; j < n; j++) {
			off = tree + sizeof(struct mvfs_tree_hdr) +
			      (u64)(i + j) * sizeof(b->d[0]);
			err = mvfs_batch_entry(sbi, b, &bounds, j, off, names,
					       names_len, lo, e);
			if (err)
				goto out_free;
			if (!actor(priv, e, i + j))
				goto out_free;
		}
		cond_resched();
	}
out_free:
	kfree(e);
	if (b)
		kfree(b->names);
	kfree(b);
	return err;
}

static int mvfs_name_cmp(const struct mvfs_entry *e, const char *name,
			 unsigned int len)
{
	int c = memcmp(e->name, name, min_t(unsigned int, e->name_len, len));

	if (c)
		return c;
	return (int)e->name_len - (int)len;
}

/**
 * mvfs_store_find - look a name up in a tree
 * @sbi: the mount
 * @tree: the tree's offset; 0 is the empty tree
 * @name: the name, not NUL-terminated
 * @len: its length
 * @e: filled with the entry when found
 *
 * A binary search over the sorted entries: O(log n) reads of the pack,
 * whatever the number of revisions.
 *
 * Return: 0; -ENOENT when there is no such name; -EIO when corrupt.
 */
int mvfs_store_find(struct mvfs_sb_info *sbi, u64 tree, const char *name,
		    unsigned int len, struct mvfs_entry *e)
{
	u32 count, names_len, lo = 0, hi, mid;
	void *whole;
	int err, c;

	if (!tree || !mvfs_entry_name_ok(name, len))
		return -ENOENT;
	err = mvfs_tree_hdr(sbi, tree, &count, &names_len);
	if (err)
		return err;
	whole = mvfs_tree_whole(sbi, tree, count, names_len, &err);
	if (err)
		return err;
	hi = count;
	err = -ENOENT;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = whole ? mvfs_whole_entry(sbi, whole, tree, count,
					     names_len, mid, e) :
			    mvfs_tree_entry(sbi, tree, count, names_len, mid, e);
		if (c) {
			err = c;
			break;
		}
		c = mvfs_name_cmp(e, name, len);
		if (!c) {
			err = 0;
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	kfree(whole);
	return err;
}
