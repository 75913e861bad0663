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
#include <stddef.h>
#include "mvfs_ioctl.h"

#define MVFS_VIEWROOTS		"/run/mvfs"

/* @vmnt, first of every call, is where mvfs is mounted (/view). */
int mvfs_view_ioctl(const char *vmnt, unsigned long cmd, const char *tag,
		    __u32 flags, int fd, struct mvfs_ioc_view *out);
int mvfs_viewroot_start(const char *vmnt, const char *tag);
int mvfs_viewroot_end(const char *vmnt, const char *tag, bool force);
int mvfs_viewroot_pwv(const char *vmnt, char *tag, size_t size);
int mvfs_viewroot_idle(const char *vmnt, const char *tag);

#endif /* MVFS_VIEWROOT_H */
