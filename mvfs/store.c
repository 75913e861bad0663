// SPDX-License-Identifier: GPL-2.0
/*
 * store.c: all the module knows of the store's layout (uapi/mvfs_format.h,
 * docs/FORMAT.md), with store_tree.c (the trees) and store_state.c (the
 * state file).  The rest of mvfs reaches the store through the calls
 * below and theirs, whose return contracts are written above each.
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
#include <linux/sched/signal.h>
#include <linux/string.h>
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

/*
 * Read exactly LEN bytes at POS: 0, or -EIO (short read) or -errno.  A
 * read that a fatal signal cut short (the page cache stops at a page it
 * would have to wait for) is -EINTR: the store is not to blame for it.
 */
int mvfs_read_at(struct file *file, void *buf, size_t len, u64 pos)
{
	loff_t p = pos;
	ssize_t n = kernel_read(file, buf, len, &p);

	if (n < 0)
		return n;
	if (n == len)
		return 0;
	return fatal_signal_pending(current) ? -EINTR : -EIO;
}

/* A record of the pack breaks a rule: -EIO, and one line logged. */
int mvfs_corrupt(struct mvfs_sb_info *sbi, const char *what, u64 off)
{
	if (mvfs_log_ok(sbi))
		pr_err("store %s: corrupt %s at %llu\n", sbi->store_name, what, off);
	return -EIO;
}

/*
 * A read of the pack failed: a short read (-EIO) means that a record runs
 * past the end, a corrupt store; anything else (out of memory, a fatal
 * signal) is no fault of the store and comes back as it is, unlogged.
 */
int mvfs_pack_read_failed(struct mvfs_sb_info *sbi, int err, const char *what,
			  u64 off)
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
 * our format; -EIO or -ESTALE when it or its pack cannot be reached or
 * read (mvfs_store_unreachable()); -ENOMEM or -EINTR (not logged) when
 * memory ran out or a fatal signal came on the way.  Logs one line on
 * any other failure.
 */
int mvfs_store_open(struct mvfs_sb_info *sbi, const char *dir)
{
	struct mvfs_pack_hdr hdr;
	struct file *pack;
	int err;

	err = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &sbi->store);
	if (err == -ENOMEM || err == -EINTR)
		return err;
	if (mvfs_store_unreachable(err)) {
		pr_err("store=%s: cannot be reached: %d\n", dir, err);
		return err;
	}
	if (err) {
		pr_err("store=%s: not a directory (%d)\n", dir, err);
		return -EINVAL;
	}
	if (sbi->store.dentry->d_sb->s_magic == MVFS_MAGIC) {
		pr_err("store=%s: a store cannot live on mvfs\n", dir);
		err = -EINVAL;
		goto out_put;
	}
	/*
	 * Private files on ext2 are written through their cache (filecache.c);
	 * ext2's own driver: without it, ext4 may call itself ext2.
	 */
	sbi->store_ext2 = IS_ENABLED(CONFIG_EXT2_FS) &&
			  !strcmp(sbi->store.dentry->d_sb->s_type->name, "ext2");
	pack = mvfs_open(sbi, MVFS_PACK_FILE);
	err = PTR_ERR_OR_ZERO(pack);
	if (err == -ENOMEM || err == -EINTR)
		goto out_put;
	if (mvfs_store_unreachable(err)) {
		pr_err("store=%s: cannot open %s: %d\n", dir, MVFS_PACK_FILE,
		       err);
		goto out_put;
	}
	if (err) {
		pr_err("store=%s: no mvfs store here (no regular %s: %d; run mvfs init)\n",
		       dir, MVFS_PACK_FILE, err);
		err = -EINVAL;
		goto out_put;
	}
	err = mvfs_read_at(pack, &hdr, sizeof(hdr), 0);
	if (err == -ENOMEM || err == -EINTR)
		goto out_fput;
	/* A read the disk failed is no proof that this is not a store. */
	if (err && i_size_read(file_inode(pack)) >= sizeof(hdr)) {
		pr_err("store=%s: cannot read %s: %d\n", dir, MVFS_PACK_FILE,
		       err);
		goto out_fput;
	}
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
		if (mvfs_log_ok(sbi))
			pr_err("store %s: object %s missing (%ld)\n",
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
