// SPDX-License-Identifier: GPL-2.0
/*
 * reload.c: ask the mvfs mounted at the view root to read its store's
 * state again (MVFS_IOC_RELOAD), after a tool changed it.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "mvfs_ioctl.h"
#include "reload.h"

/**
 * mvfs_reload - make the mount at @view_root see the committed state
 * @view_root: where mvfs is mounted (normally /view)
 *
 * Nothing mounted there, or something that is not mvfs, is not an error:
 * the store is read afresh at the next mount anyway.
 *
 * Return: 0 when reloaded or when there is no mvfs to tell; -errno when
 * the mount refused the new state.
 */
int mvfs_reload(const char *view_root)
{
	int fd, err = 0;

	fd = open(view_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (ioctl(fd, MVFS_IOC_RELOAD) && errno != ENOTTY)
		err = -errno;
	close(fd);
	return err;
}
