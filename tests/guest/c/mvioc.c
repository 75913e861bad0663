// SPDX-License-Identifier: GPL-2.0
/*
 * mvioc CMD [TAG]: issue one mvfs ioctl on /view (or $MVFS_ROOT) and print
 * its result, "0" or the errno's name: reload, idle TAG, pwv (prints the
 * tag too).  TAG is taken byte for byte, so that a test can pass any byte.
 * Exit status 0 when the ioctl succeeded, 1 when it failed, 2 for usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "mvfs_ioctl.h"

static const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case EIO: return "EIO";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	const char *root = getenv("MVFS_ROOT") ? getenv("MVFS_ROOT") : "/view";
	struct mvfs_ioc_view v;
	int fd, rc, e;

	if (argc < 2)
		goto usage;
	fd = open(root, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(root);
		return 1;
	}
	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	if (argc > 2)
		strncpy(v.tag, argv[2], sizeof(v.tag) - 1);
	if (!strcmp(argv[1], "reload"))
		rc = ioctl(fd, MVFS_IOC_RELOAD);
	else if (!strcmp(argv[1], "idle") && argc == 3)
		rc = ioctl(fd, MVFS_IOC_IDLE, &v);
	else if (!strcmp(argv[1], "pwv"))
		rc = ioctl(fd, MVFS_IOC_PWV, &v);
	else
		goto usage;
	e = rc ? errno : 0;
	if (!strcmp(argv[1], "pwv") && !rc)
		printf("0 %s\n", v.tag);
	else
		printf("%s\n", ename(e));
	return rc ? 1 : 0;
usage:
	fprintf(stderr, "usage: mvioc reload | idle TAG | pwv\n");
	return 2;
}
