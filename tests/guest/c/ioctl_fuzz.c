// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl_fuzz [N]: N (default 20000) malformed ioctls on /view: wrong
 * sizes, bad pointers, unterminated and overlong tags, bad characters,
 * unknown flags and commands.  Every call must fail with a plain error
 * and none may change the caller's root; the console scan of make check
 * catches any kernel report.  TAP on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mvfs_ioctl.h"

static unsigned long rnd(void)
{
	return ((unsigned long)random() << 31) ^ random();
}

/* A tag that cannot name a view: bad characters, overlong or unended. */
static void bad_tag(char *tag)
{
	size_t i, len = rnd() % (MVFS_IOC_TAG_FIELD + 1);

	for (i = 0; i < MVFS_IOC_TAG_FIELD; i++)
		tag[i] = (char)(rnd() % 256);
	switch (rnd() % 4) {
	case 0:		/* no NUL at all */
		memset(tag, 'a' + (int)(rnd() % 26), MVFS_IOC_TAG_FIELD);
		break;
	case 1:		/* longer than 64 */
		memset(tag, 'b', 70);
		tag[70] = '\0';
		break;
	case 2:		/* a bad character somewhere */
		if (len < 2)
			len = 2;
		memset(tag, 'c', len - 1);
		tag[rnd() % (len - 1)] = "/ @\n*"[rnd() % 5];
		tag[len - 1] = '\0';
		break;
	default:	/* random bytes, terminated */
		tag[len % MVFS_IOC_TAG_FIELD] = '\0';
		tag[0] = '/';
		break;
	}
}

static const unsigned long cmds[] = {
	MVFS_IOC_REGISTER, MVFS_IOC_UNREGISTER, MVFS_IOC_SETVIEW,
	MVFS_IOC_PWV, MVFS_IOC_IDLE,
};

/* One malformed call; returns its errno (0 if it succeeded). */
static int one(int fd)
{
	struct mvfs_ioc_view arg;
	unsigned long cmd = cmds[rnd() % 5];
	void *p = &arg;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.fd = (int)(rnd() % 64) - 8;
	bad_tag(arg.tag);
	switch (rnd() % 8) {
	case 0:
		arg.size = (__u32)rnd() % 256;
		if (arg.size == sizeof(arg))
			arg.size++;
		break;
	case 1:
		arg.reserved = (__u32)rnd() | 1;
		break;
	case 2:
		arg.flags = (__u32)rnd() | 0x2;
		break;
	case 3:
		p = (void *)(uintptr_t)(rnd() % 4096);
		break;
	case 4:
		p = (void *)(uintptr_t)(0xffff800000000000UL + rnd());
		break;
	case 5:
		cmd = _IOC(rnd() % 4, MVFS_IOC_MAGIC, rnd() % 256,
			   rnd() % 512);
		break;
	case 6:
		cmd = (unsigned int)rnd();
		break;
	default:
		break;
	}
	if (cmd == MVFS_IOC_RELOAD)
		cmd = MVFS_IOC_RELOAD + 0x100;
	return ioctl(fd, cmd, p) ? errno : 0;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 20000;
	long ok = 0, bad = 0, counts[256] = { 0 };
	struct stat before, after;
	int fd, e, moved;

	srandom(12345);
	fd = open("/view", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || stat("/", &before)) {
		printf("not ok 1 - open /view: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		e = one(fd);
		if (e == EINVAL || e == EFAULT || e == ENOTTY || e == ENOENT ||
		    e == EBADF || e == EPERM)
			ok++;
		else
			bad++;
		counts[e & 255]++;
	}
	close(fd);
	moved = stat("/", &after) || before.st_ino != after.st_ino ||
		before.st_dev != after.st_dev;
	printf("# EINVAL %ld, EFAULT %ld, ENOTTY %ld, ENOENT %ld\n",
	       counts[EINVAL], counts[EFAULT], counts[ENOTTY], counts[ENOENT]);
	printf("# EBADF %ld, EPERM %ld, success %ld\n", counts[EBADF],
	       counts[EPERM], counts[0]);
	printf("%sok 1 - %ld malformed ioctls all failed cleanly (%ld did not)\n",
	       bad ? "not " : "", n, bad);
	printf("%sok 2 - the fuzzer's root did not move\n", moved ? "not " : "");
	printf("1..2\n");
	return bad || moved ? 1 : 0;
}
