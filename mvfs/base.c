// SPDX-License-Identifier: GPL-2.0
/*
 * base.c: the revision a view's removal or replacement of an element
 * stands on (trusted.mvfs.base, docs/FORMAT.md).
 *
 * A check-in refuses a change to an element that another revision
 * changed since the view took it ("out of date").  A copy knows the
 * revision it was copied from (its origin); a whiteout, or a new file
 * saved over an element by a rename (as `sed -i` saves), did not: the
 * tools took its directory's origin, and at the top of a view the view's
 * selection at check-in time, which in a LATEST view has moved past
 * another view's check-in, whose change was then lost.  A copy of
 * another element moved over one was judged as of its own copy: too
 * early or too late for the element it replaced.  So the module
 * records, on the whiteout or on the entry that replaced the element,
 * the revision the view showed that element from when it was removed or
 * replaced, and its path.  Best effort: where it cannot be recorded (no
 * room for the xattr, a store without xattrs), the tools take the old
 * rule.  One record an inode: of a hard link's names, one has it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"

/* Take record O (read with result ERR) into B if it names B's path. */
static int mvfs_base_take(struct mvfs_origin *b, struct mvfs_origin *o,
			  int err)
{
	if (!err && !strcmp(o->path, b->path))
		b->rev = o->rev;
	if (!err)
		kfree(o->path);
	/* None, or a malformed one (logged): the tools' rule. */
	return err == -ENODATA || err == -EIO ? 0 : err;
}

/**
 * mvfs_base_of - what a removal or replacement of an element stands on
 * @dir: a directory of a view, its lock held (the VFS's)
 * @dentry: the name in @dir, an element of the tree at it (negative
 *          when the view removed it)
 * @b: set to the element's path (allocated: kfree() it) and the revision
 *     the view shows it from: its copy's origin, the record of an entry
 *     already moved or saved over it or of its whiteout, or the tree's;
 *     0 when unknown (an entry moved there with no record of it, no
 *     rule selecting it any more)
 *
 * Return: 0, or -ENOMEM, -EIO (the store), -errno.
 */
int mvfs_base_of(struct inode *dir, struct dentry *dentry,
		 struct mvfs_origin *b)
{
	struct mvfs_sb_info *sbi = MVFS_SB(dir->i_sb);
	struct inode *inode = d_inode(dentry);
	struct dentry *upper = inode ? mvfs_upper(inode) : NULL;
	struct mvfs_origin o = {};
	struct mvfs_entry *e;
	int err;

	b->rev = 0;
	b->path = mvfs_child_path(dir, dentry->d_name.name,
				  dentry->d_name.len);
	if (!b->path)
		return -ENOMEM;
	if (upper) {
		/* A copy of this element, or what replaced it. */
		err = mvfs_origin_get(sbi, upper, &o);
		if (!err && strcmp(o.path, b->path)) {
			kfree(o.path);
			err = -ENODATA;
		}
		if (err == -ENODATA)
			err = mvfs_record_get(sbi, upper, MVFS_XATTR_BASE, &o);
		return mvfs_base_take(b, &o, err);
	}
	if (!inode && mvfs_upper(dir)) {
		/*
		 * Removed already: its whiteout's record, or none (the view
		 * showed nothing there since; not the tree's revision now).
		 */
		upper = mvfs_priv_lookup(sbi, mvfs_upper(dir),
					 dentry->d_name.name,
					 dentry->d_name.len);
		if (IS_ERR(upper))
			return PTR_ERR(upper);
		err = mvfs_is_whiteout(upper) ?
		      mvfs_record_get(sbi, upper, MVFS_XATTR_BASE, &o) : 1;
		dput(upper);
		if (err <= 0)
			return mvfs_base_take(b, &o, err);
	}
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	err = mvfs_lower_find(dir, dentry->d_name.name, dentry->d_name.len, e,
			      &b->rev, NULL);
	kfree(e);
	if (err)
		b->rev = 0;
	return err == -ENOENT ? 0 : err;
}

/**
 * mvfs_base_mark - record a base on a whiteout or a replacing entry
 * @sbi: the mount
 * @d: the private entry (a whiteout, in work/ or made again, or the new
 *     entry); its parent's lock may be held, its own not
 * @b: from mvfs_base_of(); nothing is recorded when its revision is 0
 *
 * Best effort: a failure leaves no record (or an earlier one), and the
 * tools take the old rule.
 */
void mvfs_base_mark(struct mvfs_sb_info *sbi, struct dentry *d,
		    const struct mvfs_origin *b)
{
	int err;

	if (!b->rev || !b->path)
		return;
	err = mvfs_record_set(sbi, d, MVFS_XATTR_BASE, b->rev, 0, b->path);
	if (err && err != -EOPNOTSUPP && mvfs_log_fail_ok(sbi))
		pr_warn("store %s: no base revision on %pd: %d\n",
			sbi->store_name, d, err);
}

/**
 * mvfs_base_replacing - what an entry moved over ND's element stands on
 * @ndir: the new directory, locked (the VFS's)
 * @nd: the new name: an element there, or removed by the view
 * @b: set as by mvfs_base_of() (kfree() b->path), its revision 0 when
 *     nothing is to be recorded
 *
 * An entry renamed (or exchanged) over an element records, once it is
 * there, the revision the view showed that element from (mvfs_base_mark()
 * on its private entry): a new file without an origin (as `sed -i` saves
 * one), judged as a change of that element, and a copy of another
 * element, whose move is judged against what it landed on.
 *
 * Return: 0 or -errno.
 */
int mvfs_base_replacing(struct inode *ndir, struct dentry *nd,
			struct mvfs_origin *b)
{
	int err;

	b->rev = 0;
	err = mvfs_lower_has(ndir, &nd->d_name);
	if (err <= 0)
		return err;
	return mvfs_base_of(ndir, nd, b);
}

/**
 * mvfs_base_moved - after a rename or exchange put D over B's element
 * @sbi: the mount
 * @d: the private entry moved, its own lock not held
 * @b: from mvfs_base_replacing(): what it landed on, revision 0 if none
 *
 * Records B; where it landed on no element, drops a record left from an
 * earlier move, unless the inode has other names (the record is theirs
 * then, of one of them).  Best effort, as mvfs_base_mark().
 */
void mvfs_base_moved(struct mvfs_sb_info *sbi, struct dentry *d,
		     const struct mvfs_origin *b)
{
	if (b->rev)
		mvfs_base_mark(sbi, d, b);
	else if (d_is_dir(d) || d_inode(d)->i_nlink == 1)
		mvfs_record_drop(sbi, d, MVFS_XATTR_BASE);
}

/**
 * mvfs_base_link - a hard link made where the view removed an element
 * @sbi: the mount
 * @old: the view's entry linked, its inode locked (the VFS's), so that
 *       its name is stable
 * @b: the record of the whiteout the link replaced
 *
 * The record is the inode's, so of all its names: the link takes it
 * when the inode had one name, and no record naming that name's element
 * (a file saved over an element keeps its own).
 */
void mvfs_base_link(struct mvfs_sb_info *sbi, struct dentry *old,
		    const struct mvfs_origin *b)
{
	struct dentry *u = mvfs_upper(d_inode(old));
	struct mvfs_origin o = {};
	bool keep = false;
	char *path;
	int err;

	if (!b->rev || d_inode(u)->i_nlink != 2)
		return;
	err = mvfs_record_get(sbi, u, MVFS_XATTR_BASE, &o);
	if (!err) {
		path = mvfs_child_path(d_inode(old->d_parent),
				       old->d_name.name, old->d_name.len);
		keep = !path || !strcmp(o.path, path);
		kfree(path);
		kfree(o.path);
	} else if (err != -ENODATA && err != -EIO) {
		return;
	}
	if (!keep)
		mvfs_base_mark(sbi, u, b);
}
