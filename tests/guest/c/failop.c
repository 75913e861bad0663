// SPDX-License-Identifier: GPL-2.0
/*
 * failop N OP PATH [PATH2]: one system call with its Nth fault point
 * failing (the kernel's fail-nth: the Nth slab or page allocation that
 * failslab or fail_page_alloc may fail, counted in this thread), so that
 * a test can walk every allocation of the call.  OP: rename, exchange
 * (renameat2 RENAME_EXCHANGE), unlink, rmdir, creat (O_CREAT | O_EXCL,
 * 0644, then close), mkdir (0755), link (PATH to PATH2), stat (lstat).
 *
 * Prints "injected RESULT" when the Nth fault point was reached (the
 * failure was injected), "clean RESULT" when the call made fewer; RESULT
 * is "ok" or the errno's number.  Exit status 1 when fail-nth cannot be
 * used, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/fs.h>

static int op_run(const char *op, const char *a, const char *b)
{
	if (!strcmp(op, "rename") && b)
		return rename(a, b);
	if (!strcmp(op, "exchange") && b)
		return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
			       RENAME_EXCHANGE);
	if (!strcmp(op, "unlink"))
		return unlink(a);
	if (!strcmp(op, "rmdir"))
		return rmdir(a);
	if (!strcmp(op, "creat")) {
		int fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0644);

		return fd < 0 ? -1 : close(fd);
	}
	if (!strcmp(op, "mkdir"))
		return mkdir(a, 0755);
	if (!strcmp(op, "link") && b)
		return link(a, b);
	if (!strcmp(op, "stat")) {
		struct stat st;

		return lstat(a, &st);
	}
	errno = EINVAL;
	return -2;
}

int main(int argc, char **argv)
{
	char buf[32], left[32];
	int fd, ret, err;
	ssize_t n;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: failop N OP PATH [PATH2]\n");
		return 2;
	}
	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0)
		return perror("failop: /proc/thread-self/fail-nth"), 1;
	snprintf(buf, sizeof(buf), "%d", atoi(argv[1]));
	if (write(fd, buf, strlen(buf)) != (ssize_t)strlen(buf))
		return perror("failop: fail-nth"), 1;
	ret = op_run(argv[2], argv[3], argc > 4 ? argv[4] : NULL);
	err = errno;
	n = pread(fd, left, sizeof(left) - 1, 0);
	if (n <= 0 || write(fd, "0", 1) != 1)
		return perror("failop: fail-nth"), 1;
	left[n] = '\0';
	if (ret == -2)
		return fprintf(stderr, "failop: bad OP %s\n", argv[2]), 2;
	printf("%s ", atoi(left) ? "clean" : "injected");
	if (ret)
		printf("%d\n", err);
	else
		printf("ok\n");
	return 0;
}
