// SPDX-License-Identifier: GPL-2.0
/*
 * retire.c: MVFS_IOC_PRIVGEN and MVFS_IOC_RETIRE, the module's part of a
 * check-in and of an uncheckout (mvfs_ioctl.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "err.h"
#include "mvfs_ioctl.h"
#include "priv.h"

static int mvfs_priv_ioctl(const char *vmnt, unsigned long cmd,
			   struct mvfs_ioc_priv *a, const char *tag,
			   const char *path)
{
	int fd, err = 0;

	a->size = sizeof(*a);
	a->path = (__u64)(unsigned long)path;
	a->path_len = strlen(path);
	snprintf(a->tag, sizeof(a->tag), "%s", tag);
	fd = open(vmnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return mvfs_err(-errno, "%s: %s", vmnt, strerror(errno));
	if (ioctl(fd, cmd, a))
		err = -errno;
	close(fd);
	return err;
}

/**
 * mvfs_priv_gen - the generation of a view's private entry
 * @vmnt: where mvfs is mounted
 * @tag: the view
 * @path: the entry's element path
 * @gen: set to its generation (0 for a whiteout)
 *
 * Return: 0; -ENOENT when the module sees no private entry there; -errno.
 */
int mvfs_priv_gen(const char *vmnt, const char *tag, const char *path,
		  __u64 *gen)
{
	struct mvfs_ioc_priv a = { 0 };
	int err;

	err = mvfs_priv_ioctl(vmnt, MVFS_IOC_PRIVGEN, &a, tag, path);
	if (err)
		return mvfs_err(err, "%s: the view's private entry: %s", path,
				strerror(-err));
	*gen = a.gen;
	return 0;
}

/**
 * mvfs_priv_retire - let a view's private entry go
 * @vmnt: where mvfs is mounted
 * @tag: the view
 * @path: the entry's element path
 * @gen: what mvfs_priv_gen() said before it was read
 * @rev: the revision that holds it now
 * @flags: MVFS_PRIV_FORCE to drop it whatever its generation
 *
 * Return: 0; -ESTALE when it changed meanwhile (it stays private); -EBUSY
 * (forced) when it is open for writing; -errno.  No message for -ESTALE.
 */
int mvfs_priv_retire(const char *vmnt, const char *tag, const char *path,
		     __u64 gen, __u64 rev, __u32 flags)
{
	struct mvfs_ioc_priv a = { .gen = gen, .rev = rev, .flags = flags };
	int err;

	err = mvfs_priv_ioctl(vmnt, MVFS_IOC_RETIRE, &a, tag, path);
	if (err && err != -ESTALE)
		return mvfs_err(err, "%s: %s", path, strerror(-err));
	return err;
}
