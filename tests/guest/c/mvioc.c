// SPDX-License-Identifier: GPL-2.0
/*
 * mvioc CMD [TAG]: issue one mvfs ioctl on /view (or $MVFS_ROOT) and print
 * its result, "0" or the errno's name: reload, idle TAG, pwv (prints the
 * tag too), setview TAG, register TAG DIR, unregister TAG [force],
 * privgen TAG PATH (prints the generation too), retire TAG PATH [force |
 * GEN REV].  TAG is taken byte for byte, so that a test can pass any byte.
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
	case EACCES: return "EACCES";
	case ENOTTY: return "ENOTTY";
	case ESTALE: return "ESTALE";
	default: return strerror(e);
	}
}

/* privgen TAG PATH, retire TAG PATH [force | GEN REV]. */
static int priv_ioctl(int fd, int argc, char **argv, unsigned long long *gen)
{
	struct mvfs_ioc_priv p;
	int retire = !strcmp(argv[1], "retire"), rc;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	strncpy(p.tag, argv[2], sizeof(p.tag) - 1);
	p.path = (unsigned long)argv[3];
	p.path_len = strlen(argv[3]);
	p.rev = 1;
	if (retire && argc == 5 && !strcmp(argv[4], "force")) {
		p.flags = MVFS_PRIV_FORCE;
	} else if (retire && argc == 6) {
		p.gen = strtoull(argv[4], NULL, 0);
		p.rev = strtoull(argv[5], NULL, 0);
	} else if (argc != 4) {
		errno = 0;
		return -2;
	}
	rc = ioctl(fd, retire ? MVFS_IOC_RETIRE : MVFS_IOC_PRIVGEN, &p);
	*gen = p.gen;
	return rc;
}

/* The commands that only root may give, and setview. */
static int view_ioctl(int fd, int argc, char **argv, struct mvfs_ioc_view *v,
		      unsigned long long *gen)
{
	const char *c = argv[1];

	if (!strcmp(c, "setview"))
		return ioctl(fd, MVFS_IOC_SETVIEW, v);
	if (!strcmp(c, "register") && argc == 4) {
		v->fd = open(argv[3], O_RDONLY | O_DIRECTORY);
		return ioctl(fd, MVFS_IOC_REGISTER, v);
	}
	if (!strcmp(c, "unregister")) {
		if (argc > 3 && !strcmp(argv[3], "force"))
			v->flags = MVFS_VIEW_FORCE;
		return ioctl(fd, MVFS_IOC_UNREGISTER, v);
	}
	if ((!strcmp(c, "privgen") || !strcmp(c, "retire")) && argc >= 4)
		return priv_ioctl(fd, argc, argv, gen);
	errno = 0;
	return -2;
}

int main(int argc, char **argv)
{
	const char *root = getenv("MVFS_ROOT") ? getenv("MVFS_ROOT") : "/view";
	unsigned long long gen = 0;
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
	else if (argc > 2)
		rc = view_ioctl(fd, argc, argv, &v, &gen);
	else
		goto usage;
	if (rc == -2)
		goto usage;
	e = rc ? errno : 0;
	if (!strcmp(argv[1], "pwv") && !rc)
		printf("0 %s\n", v.tag);
	else if (!strcmp(argv[1], "privgen") && !rc)
		printf("0 %llu\n", gen);
	else
		printf("%s\n", ename(e));
	return rc ? 1 : 0;
usage:
	fprintf(stderr, "usage: mvioc reload | idle TAG | pwv | setview TAG |\n"
		"       register TAG DIR | unregister TAG [force] |\n"
		"       privgen TAG PATH | retire TAG PATH [force | GEN REV]\n");
	return 2;
}
