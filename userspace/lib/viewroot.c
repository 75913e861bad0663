// SPDX-License-Identifier: GPL-2.0
/*
 * viewroot.c: the view roots of DESIGN.md, "Mount trees are built in user
 * space".  A view root is MVFS_VIEWROOTS/TAG: a recursive bind of / made
 * under a parent marked unbindable (so view roots never contain each
 * other and the mount count stays linear in the number of views), with
 * /view/TAG bound nosuid,nodev over its /vob.  It is then registered with
 * the module, which alone may switch a process into it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "err.h"
#include "viewroot.h"

/**
 * mvfs_view_ioctl - issue an MVFS_IOC_* with a struct mvfs_ioc_view
 * @vmnt: where mvfs is mounted
 * @cmd: the command
 * @tag: the view's tag ("" for none)
 * @flags: MVFS_VIEW_*
 * @fd: for MVFS_IOC_REGISTER, else -1
 * @out: if not NULL, receives the argument as the module left it
 *
 * Return: 0 or -errno, with no message set: callers say what failed.
 */
int mvfs_view_ioctl(const char *vmnt, unsigned long cmd, const char *tag,
		    __u32 flags, int fd, struct mvfs_ioc_view *out)
{
	struct mvfs_ioc_view arg;
	int vfd, err = 0;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.flags = flags;
	arg.fd = fd;
	if (strlen(tag) >= sizeof(arg.tag))
		return -EINVAL;
	strcpy(arg.tag, tag);
	vfd = open(vmnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (vfd < 0)
		return -errno;
	if (ioctl(vfd, cmd, &arg) < 0)
		err = -errno;
	close(vfd);
	if (!err && out)
		*out = arg;
	return err;
}

/* Mount a tmpfs at MVFS_VIEWROOTS unless there is one, unbindable. */
static int mvfs_roots_parent(void)
{
	struct stat here, up;

	if (mkdir(MVFS_VIEWROOTS, 0755) && errno != EEXIST)
		return mvfs_err(-errno, "mkdir %s: %s", MVFS_VIEWROOTS,
				strerror(errno));
	if (stat(MVFS_VIEWROOTS, &here) || stat(MVFS_VIEWROOTS "/..", &up))
		return mvfs_err(-errno, "stat %s: %s", MVFS_VIEWROOTS,
				strerror(errno));
	if (here.st_dev == up.st_dev &&
	    mount("mvfs-roots", MVFS_VIEWROOTS, "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0755"))
		return mvfs_err(-errno, "mount tmpfs on %s: %s", MVFS_VIEWROOTS,
				strerror(errno));
	if (mount(NULL, MVFS_VIEWROOTS, NULL, MS_UNBINDABLE, NULL))
		return mvfs_err(-errno, "make %s unbindable: %s", MVFS_VIEWROOTS,
				strerror(errno));
	return 0;
}

/* Bind / and VMNT/TAG into ROOT. */
static int mvfs_root_build(const char *vmnt, const char *tag,
			   const char *root)
{
	char src[PATH_MAX], vob[PATH_MAX + 8];

	snprintf(src, sizeof(src), "%s/%s", vmnt, tag);
	snprintf(vob, sizeof(vob), "%s/vob", root);
	if (mount("/", root, NULL, MS_BIND | MS_REC, NULL))
		return mvfs_err(-errno, "bind / on %s: %s", root,
				strerror(errno));
	if (mkdir(vob, 0755) && errno != EEXIST)
		return mvfs_err(-errno, "mkdir %s: %s", vob,
				strerror(errno));
	if (mount(src, vob, NULL, MS_BIND, NULL))
		return mvfs_err(-errno, "bind %s on %s: %s", src, vob,
				strerror(errno));
	if (mount(NULL, vob, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV,
		  NULL))
		return mvfs_err(-errno, "remount %s nosuid,nodev: %s", vob,
				strerror(errno));
	return 0;
}

static void mvfs_root_undo(const char *root)
{
	umount2(root, MNT_DETACH);
	rmdir(root);
}

/**
 * mvfs_viewroot_start - build view TAG's root and register it (root only)
 * @vmnt: where mvfs is mounted
 * @tag: the view
 *
 * Return: 0, or -errno with a message (-EEXIST: already started).
 */
int mvfs_viewroot_start(const char *vmnt, const char *tag)
{
	char root[PATH_MAX];
	int fd, err;

	err = mvfs_roots_parent();
	if (err)
		return err;
	snprintf(root, sizeof(root), "%s/%s", MVFS_VIEWROOTS, tag);
	if (mkdir(root, 0755)) {
		if (errno == EEXIST)
			return mvfs_err(-EEXIST, "view %s is already started",
					tag);
		return mvfs_err(-errno, "mkdir %s: %s", root, strerror(errno));
	}
	err = mvfs_root_build(vmnt, tag, root);
	if (err)
		goto out_undo;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = mvfs_err(-errno, "open %s: %s", root, strerror(errno));
		goto out_undo;
	}
	err = mvfs_view_ioctl(vmnt, MVFS_IOC_REGISTER, tag, 0, fd, NULL);
	close(fd);
	if (err) {
		mvfs_err(err, "register the root of view %s: %s", tag,
			 strerror(-err));
		goto out_undo;
	}
	return 0;

out_undo:
	mvfs_root_undo(root);
	return err;
}

/**
 * mvfs_viewroot_end - unregister view TAG's root and unmount it
 * @vmnt: where mvfs is mounted
 * @tag: the view
 * @force: even while processes are set to it or its files are open
 *
 * Return: 0, or -errno with a message (-EBUSY: in use; -ENOENT: not
 * started).
 */
int mvfs_viewroot_end(const char *vmnt, const char *tag, bool force)
{
	char root[PATH_MAX];
	int err;

	err = mvfs_view_ioctl(vmnt, MVFS_IOC_UNREGISTER, tag,
			      force ? MVFS_VIEW_FORCE : 0, -1, NULL);
	if (err == -EBUSY)
		return mvfs_err(err, "view %s is in use: %s", tag,
				"processes are set to it or files are open (see dmesg); --force ends it anyway");
	if (err == -ENOENT)
		return mvfs_err(err, "view %s is not started", tag);
	if (err)
		return mvfs_err(err, "unregister view %s: %s", tag,
				strerror(-err));
	snprintf(root, sizeof(root), "%s/%s", MVFS_VIEWROOTS, tag);
	mvfs_root_undo(root);
	return 0;
}

/**
 * mvfs_viewroot_pwv - the caller's view
 * @vmnt: where mvfs is mounted
 * @tag: receives the tag, "" for none
 * @size: its size
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_viewroot_pwv(const char *vmnt, char *tag, size_t size)
{
	struct mvfs_ioc_view arg;
	int err;

	err = mvfs_view_ioctl(vmnt, MVFS_IOC_PWV, "", 0, -1, &arg);
	if (err)
		return mvfs_err(err, "ask %s for the current view: %s",
				vmnt, strerror(-err));
	snprintf(tag, size, "%s", arg.tag);
	return 0;
}

/**
 * mvfs_viewroot_idle - may view TAG be removed
 * @vmnt: where mvfs is mounted
 * @tag: the view
 *
 * Return: 0 when it is idle, or when no mvfs is mounted at @vmnt to ask;
 * -EBUSY with a message while it is started or files of it are open.
 */
int mvfs_viewroot_idle(const char *vmnt, const char *tag)
{
	int err = mvfs_view_ioctl(vmnt, MVFS_IOC_IDLE, tag, 0, -1, NULL);

	if (err == -EBUSY)
		return mvfs_err(err, "view %s is in use: %s", tag,
				"it is started or files of it are open (see dmesg)");
	return 0;
}
