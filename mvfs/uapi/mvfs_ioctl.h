/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mvfs_ioctl.h: the control interface of an mvfs mount, shared by the
 * module and the tools.  Issued on the mount's root directory (/view).
 */
#ifndef _UAPI_MVFS_IOCTL_H
#define _UAPI_MVFS_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MVFS_IOC_MAGIC		0xB9

/*
 * Re-read the store's state file after a tool changed it (a new revision,
 * a label, a view made or removed).  No argument.  0, or -EIO when the new
 * state is unreadable or corrupt (the old one stays in force).
 */
#define MVFS_IOC_RELOAD		_IO(MVFS_IOC_MAGIC, 1)

#define MVFS_IOC_TAG_FIELD	72

/* The argument of every other command; version 1 is 88 bytes. */
struct mvfs_ioc_view {
	__u32	size;		/* sizeof(struct mvfs_ioc_view) */
	__u32	flags;		/* MVFS_VIEW_* */
	__s32	fd;		/* REGISTER: the root, open O_RDONLY */
	__u32	reserved;	/* 0 */
	char	tag[MVFS_IOC_TAG_FIELD];	/* NUL-terminated */
};

#define MVFS_VIEW_FORCE		0x1	/* UNREGISTER even when busy */

/*
 * Make the directory behind fd the root of view tag (CAP_SYS_ADMIN).  The
 * root must be a mount root whose "vob" is /view/TAG of this mount.  The
 * caller's own root is recorded as the system root the view leads back
 * to.  -ENOENT: no such view; -EEXIST: already registered; -EINVAL: the
 * directory is not such a view root.
 */
#define MVFS_IOC_REGISTER	_IOW(MVFS_IOC_MAGIC, 2, struct mvfs_ioc_view)

/*
 * Forget the root of view tag (CAP_SYS_ADMIN).  -EBUSY while processes are
 * set to it or files of the view are open, unless MVFS_VIEW_FORCE.
 */
#define MVFS_IOC_UNREGISTER	_IOW(MVFS_IOC_MAGIC, 3, struct mvfs_ioc_view)

/*
 * Set the calling process to view tag: its root becomes the view's root
 * and its working directory the same path there, or /vob.  An empty tag
 * returns it to the system root.  -ENOENT: no such registered view;
 * -EACCES: the caller may not use it; -EPERM: the caller's root is
 * neither a system root nor a view root (a chroot jail).
 */
#define MVFS_IOC_SETVIEW	_IOW(MVFS_IOC_MAGIC, 4, struct mvfs_ioc_view)

/* Fill tag with the caller's view, "" when it is set to none. */
#define MVFS_IOC_PWV		_IOWR(MVFS_IOC_MAGIC, 5, struct mvfs_ioc_view)

/*
 * 0 when view tag may be removed: not registered, no file of it open.
 * -EBUSY otherwise.
 */
#define MVFS_IOC_IDLE		_IOW(MVFS_IOC_MAGIC, 6, struct mvfs_ioc_view)

/*
 * Check-in and uncheckout: the tools read a view's private entries from
 * the store (views/TAG/upper), write the new revision, reload, then ask the
 * module to retire exactly the entries they read and that have not changed
 * since, so that a write racing with a check-in is never lost.
 */
struct mvfs_ioc_priv {
	__u32	size;		/* sizeof(struct mvfs_ioc_priv) */
	__u32	flags;		/* MVFS_PRIV_* */
	__u64	path;		/* user pointer: the element path, no NUL */
	__u32	path_len;	/* 0 is the top of the tree */
	__u32	reserved;	/* 0 */
	__u64	gen;		/* PRIVGEN: out; RETIRE: what PRIVGEN said */
	__u64	rev;		/* RETIRE: the revision that holds it now */
	char	tag[MVFS_IOC_TAG_FIELD];	/* NUL-terminated */
};

#define MVFS_PRIV_FORCE		0x1	/* RETIRE whatever its generation */

/*
 * The generation of view tag's private entry at path (CAP_SYS_ADMIN): a
 * number that changes with every change made to it through the view.
 * An entry open for writing (a shared writable mapping keeps it so) may
 * change without a trace: it moves to a new generation at each PRIVGEN,
 * so that a RETIRE with the number said before keeps it.  -ENOENT when
 * the view has no private entry there.
 */
#define MVFS_IOC_PRIVGEN	_IOWR(MVFS_IOC_MAGIC, 7, struct mvfs_ioc_priv)

/*
 * Retire view tag's private entry at path (CAP_SYS_ADMIN), now that
 * revision rev holds it: a file, symlink or whiteout is removed from the
 * private area, a directory too when it is empty, else it becomes a copy
 * of the element at path in rev.  The view then shows rev there.
 * -ESTALE when the entry changed since PRIVGEN said gen, or is open for
 * writing: it stays, its origin moved to rev; or when it was removed
 * since: its whiteout stays, standing on rev.  Gen 0 says a removal was
 * read: a copy found there came since, and keeps its origin as it is.
 * MVFS_PRIV_FORCE drops it whatever its generation (uncheckout), -EBUSY
 * if open for writing.
 */
#define MVFS_IOC_RETIRE		_IOW(MVFS_IOC_MAGIC, 8, struct mvfs_ioc_priv)

#endif /* _UAPI_MVFS_IOCTL_H */
