// SPDX-License-Identifier: GPL-2.0
/*
 * store.c: all the module knows of the store's layout (uapi/mvfs_format.h,
 * docs/FORMAT.md).  The rest of mvfs reaches the store through the calls
 * below, whose return contracts are written above each.
 *
 * Every read goes through kernel_read() on a file of the store's ext2
 * filesystem, so it is served from that file's page cache; nothing is
 * cached twice.  Everything read is checked before it is used: a corrupt
 * store gives -EIO and one log line, never a wild offset.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include "mvfs.h"
#include "store_int.h"

/*
 * Walk NAME ('/'-separated, relative) down from the store directory one
 * component at a time, as overlayfs walks its layers: no symlink is
 * followed and no mount is crossed, each step checked for search
 * permission.  0 and @out (path_put() it), or -errno (-ELOOP for a
 * symlink on the way, -ENOENT, -ENOTDIR).
 */
static int mvfs_store_walk(struct mvfs_sb_info *sbi, const char *name,
			   struct path *out)
{
	struct dentry *d = dget(sbi->store.dentry), *next;
	const char *end;
	int err = 0;

	for (;;) {
		end = strchrnul(name, '/');
		next = lookup_one_len_unlocked(name, d, end - name);
		dput(d);
		if (IS_ERR(next))
			return PTR_ERR(next);
		d = next;
		if (d_is_negative(d)) {
			err = -ENOENT;
			break;
		}
		if (!*end)
			break;
		if (!d_can_lookup(d)) {
			err = d_is_symlink(d) ? -ELOOP : -ENOTDIR;
			break;
		}
		name = end + 1;
	}
	if (err) {
		dput(d);
		return err;
	}
	out->mnt = mntget(sbi->store.mnt);
	out->dentry = d;
	return 0;
}

/*
 * Open NAME, a regular file under the store directory, with the mounter's
 * credentials.  The store is trusted no more than a disk image: the walk
 * follows no symlink (mvfs_store_walk()), and anything but a regular file
 * is refused before it is opened, so that a FIFO or a device named like a
 * store file never blocks or reaches a driver.
 *
 * Return: the file, or ERR_PTR(-ELOOP) for a symlink, -EINVAL for another
 * type that is not a regular file, the walk's or the open's error.
 */
struct file *mvfs_open(struct mvfs_sb_info *sbi, const char *name)
{
	const struct cred *old = override_creds(sbi->creds);
	struct file *file;
	struct path path;
	int err;

	err = mvfs_store_walk(sbi, name, &path);
	if (err) {
		file = ERR_PTR(err);
		goto out_revert;
	}
	if (!d_is_reg(path.dentry))
		file = ERR_PTR(d_is_symlink(path.dentry) ? -ELOOP : -EINVAL);
	else if (path_permission(&path, MAY_READ))
		file = ERR_PTR(-EACCES);
	else
		file = dentry_open(&path, O_RDONLY | O_LARGEFILE | O_NOATIME,
				   current_cred());
	path_put(&path);
out_revert:
	revert_creds(old);
	pr_debug("open %s/%s: %d\n", sbi->store_name, name,
		 PTR_ERR_OR_ZERO(file));
	return file;
}

/* Read exactly LEN bytes at POS: 0, or -EIO (short read) or -errno. */
int mvfs_read_at(struct file *file, void *buf, size_t len, u64 pos)
{
	loff_t p = pos;
	ssize_t n = kernel_read(file, buf, len, &p);

	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}

static int mvfs_corrupt(struct mvfs_sb_info *sbi, const char *what, u64 off)
{
	pr_err_ratelimited("store %s: corrupt %s at %llu\n",
			   sbi->store_name, what, off);
	return -EIO;
}

/*
 * A read of the pack failed: a short read (-EIO) means that a record runs
 * past the end, a corrupt store; anything else (out of memory, a fatal
 * signal) is no fault of the store and comes back as it is, unlogged.
 */
static int mvfs_pack_read_failed(struct mvfs_sb_info *sbi, int err,
				 const char *what, u64 off)
{
	return err == -EIO ? mvfs_corrupt(sbi, what, off) : err;
}

/*
 * A record of the state file breaks a rule.  Only mount and RELOAD (both
 * privileged) read the state, so this is logged every time: each refused
 * mount or reload says why, in one line.
 */
int mvfs_state_corrupt(struct mvfs_sb_info *sbi, const char *what, u32 n)
{
	pr_err("store %s: %s is corrupt: %s record %u\n", sbi->store_name,
	       MVFS_STATE_FILE, what, n);
	return -EIO;
}

/**
 * mvfs_store_open - attach the store directory @dir to @sbi
 * @sbi: the mount's private data; ->creds must be set
 * @dir: the path given with store=
 *
 * Return: 0; -EINVAL when @dir is not a directory holding an mvfs store of
 * our format; -EIO when its pack is unreadable; -ENOMEM (not logged) when
 * memory ran out on the way.  Logs one line on any other failure.
 */
int mvfs_store_open(struct mvfs_sb_info *sbi, const char *dir)
{
	struct mvfs_pack_hdr hdr;
	struct file *pack;
	int err;

	err = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &sbi->store);
	if (err == -ENOMEM)
		return err;
	if (err) {
		pr_err("store=%s: not a directory (%d)\n", dir, err);
		return -EINVAL;
	}
	if (sbi->store.dentry->d_sb->s_magic == MVFS_MAGIC) {
		pr_err("store=%s: a store cannot live on mvfs\n", dir);
		err = -EINVAL;
		goto out_put;
	}
	pack = mvfs_open(sbi, MVFS_PACK_FILE);
	err = PTR_ERR_OR_ZERO(pack);
	if (err == -ENOMEM)
		goto out_put;
	if (err) {
		pr_err("store=%s: no mvfs store here (no regular %s: %d; run mvfs init)\n",
		       dir, MVFS_PACK_FILE, err);
		err = -EINVAL;
		goto out_put;
	}
	err = mvfs_read_at(pack, &hdr, sizeof(hdr), 0);
	if (err == -ENOMEM)
		goto out_fput;
	if (err || le32_to_cpu(hdr.magic) != MVFS_PACK_MAGIC) {
		pr_err("store=%s: %s is not an mvfs pack\n", dir,
		       MVFS_PACK_FILE);
		err = -EINVAL;
		goto out_fput;
	}
	if (le32_to_cpu(hdr.format) != MVFS_PACK_FORMAT || hdr.reserved) {
		pr_err("store=%s: pack format %u (reserved %llu), this module reads %u\n",
		       dir, le32_to_cpu(hdr.format), le64_to_cpu(hdr.reserved),
		       MVFS_PACK_FORMAT);
		err = -EINVAL;
		goto out_fput;
	}
	sbi->pack = pack;
	return 0;

out_fput:
	fput(pack);
out_put:
	path_put(&sbi->store);
	sbi->store.dentry = NULL;
	return err;
}

/**
 * mvfs_store_close - release what mvfs_store_open() took
 * @sbi: the mount's private data
 */
void mvfs_store_close(struct mvfs_sb_info *sbi)
{
	if (sbi->pack)
		fput(sbi->pack);
	if (sbi->store.dentry)
		path_put(&sbi->store);
}

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

#define MVFS_BATCH	64		/* entries read at once by iterate */
#define MVFS_BATCH_NAMES	(16U << 10)	/* their names, when together */

struct mvfs_batch {
	struct mvfs_entry_disk	d[MVFS_BATCH];
	char			names[MVFS_BATCH_NAMES];
};

/* Decode entry I of a batch whose names (if read) start at NAMES_LO. */
static int mvfs_batch_entry(struct mvfs_sb_info *sbi, struct mvfs_batch *b,
			    const struct mvfs_bounds *bounds, unsigned int i,
			    u64 off, u64 names, u32 names_len, s64 names_lo,
			    struct mvfs_entry *e)
{
	u32 name_off = le32_to_cpu(b->d[i].name_off);

	if (!mvfs_entry_decode(&b->d[i], e, bounds))
		return mvfs_corrupt(sbi, "entry", off);
	e->name_len = le16_to_cpu(b->d[i].name_len);
	if ((u64)name_off + e->name_len > names_len ||
	    e->name_len > MVFS_ENTRY_NAME_MAX)
		return mvfs_corrupt(sbi, "entry name", off);
	if (names_lo >= 0)
		memcpy(e->name, b->names + name_off - names_lo, e->name_len);
	else if (mvfs_read_at(sbi->pack, e->name, e->name_len,
			      names + name_off))
		return mvfs_corrupt(sbi, "entry name", off);
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
	if (hi - lo > MVFS_BATCH_NAMES ||
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
	b = kvmalloc(sizeof(*b), GFP_KERNEL);
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
	kvfree(b);
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
	int err, c;

	if (!tree || !mvfs_entry_name_ok(name, len))
		return -ENOENT;
	err = mvfs_tree_hdr(sbi, tree, &count, &names_len);
	if (err)
		return err;
	hi = count;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		err = mvfs_tree_entry(sbi, tree, count, names_len, mid, e);
		if (err)
			return err;
		c = mvfs_name_cmp(e, name, len);
		if (!c)
			return 0;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/**
 * mvfs_store_link - read a symlink's target
 * @sbi: the mount
 * @e: a symlink entry
 *
 * Return: the NUL-terminated target (kfree it), or ERR_PTR(-EIO/-ENOMEM).
 */
char *mvfs_store_link(struct mvfs_sb_info *sbi, const struct mvfs_entry *e)
{
	char *target;
	int err;

	target = kmalloc(e->size + 1, GFP_KERNEL);
	if (!target)
		return ERR_PTR(-ENOMEM);
	err = mvfs_read_at(sbi->pack, target, e->size, e->ref);
	target[e->size] = '\0';
	if (!err && strlen(target) != e->size)
		err = mvfs_corrupt(sbi, "symlink", e->ref);
	if (err) {
		kfree(target);
		return ERR_PTR(err);
	}
	return target;
}

/**
 * mvfs_store_object - open the content of a regular file entry
 * @sbi: the mount
 * @e: a regular file entry with a non-zero ref
 *
 * Return: the object file, open read-only (fput it), ERR_PTR(-EIO) when
 * it is missing or its size is not the entry's, or ERR_PTR(-ENOMEM).
 */
struct file *mvfs_store_object(struct mvfs_sb_info *sbi,
			       const struct mvfs_entry *e)
{
	char name[MVFS_OBJ_PATH_LEN];
	struct file *file;

	mvfs_object_path(name, e->ref);
	file = mvfs_open(sbi, name);
	if (PTR_ERR(file) == -ENOMEM)
		return file;
	if (IS_ERR(file)) {
		pr_err_ratelimited("store %s: object %s missing (%ld)\n",
				   sbi->store_name, name, PTR_ERR(file));
		return ERR_PTR(-EIO);
	}
	if (!S_ISREG(file_inode(file)->i_mode) ||
	    i_size_read(file_inode(file)) != e->size) {
		fput(file);
		mvfs_corrupt(sbi, "object size", e->ref);
		return ERR_PTR(-EIO);
	}
	return file;
}
