/* SPDX-License-Identifier: GPL-2.0 */
/*
 * viewroot.h: view roots, built in user space and registered with the
 * module, and the ioctls on the mvfs mount that use them.
 *
 * Calls returning int give 0 or -errno; on failure, err.h holds a message.
 */
#ifndef MVFS_VIEWROOT_H
#define MVFS_VIEWROOT_H

#include <stdbool.h>
#include "mvfs_ioctl.h"

#define MVFS_VIEW_MOUNT		"/view"
#define MVFS_VIEWROOTS		"/run/mvfs"

const char *mvfs_view_mount(void);
int mvfs_view_ioctl(unsigned long cmd, const char *tag, __u32 flags, int fd,
		    struct mvfs_ioc_view *out);
int mvfs_viewroot_start(const char *tag);
int mvfs_viewroot_end(const char *tag, bool force);
int mvfs_viewroot_pwv(char *tag, size_t size);

#endif /* MVFS_VIEWROOT_H */
