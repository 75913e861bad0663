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

#endif /* _UAPI_MVFS_IOCTL_H */
