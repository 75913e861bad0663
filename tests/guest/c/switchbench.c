// SPDX-License-Identifier: GPL-2.0
/*
 * switchbench TAG N: the cost of entering a view against chroot(2).
 *
 * N times each, interleaved in rounds: a child that enters view TAG by
 * MVFS_IOC_SETVIEW and execs a trivial program, and a child that does
 * chroot()+chdir() into the same view root (/run/mvfs/TAG) and execs the
 * same program.  Prints the median per-switch time of each, in ns, and
 * their ratio.  Run as root, with TAG started.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "mvfs_ioctl.h"

#define ROUNDS	9

static const char *tag;
static char root[256];
static char *const argv_true[] = { "/tests/bin/showid", NULL };

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void enter_view(void)
{
	struct mvfs_ioc_view arg;
	int fd;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	snprintf(arg.tag, sizeof(arg.tag), "%s", tag);
	fd = open("/view", O_RDONLY | O_DIRECTORY);
	if (fd < 0 || ioctl(fd, MVFS_IOC_SETVIEW, &arg))
		_exit(100);
	close(fd);
}

static void enter_chroot(void)
{
	if (chroot(root) || chdir("/"))
		_exit(101);
}

/* N children that switch with HOW and exec; ns per child. */
static long long run(void (*how)(void), int n)
{
	long long t0 = now();
	int i, status;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid == 0) {
			how();
			if (!freopen("/dev/null", "w", stdout))
				_exit(102);
			execv(argv_true[0], argv_true);
			_exit(103);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "switchbench: a child failed (%d)\n",
				WEXITSTATUS(status));
			exit(1);
		}
	}
	return (now() - t0) / n;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long long v[ROUNDS], c[ROUNDS];
	int i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: switchbench TAG N\n");
		return 2;
	}
	tag = argv[1];
	n = atoi(argv[2]);
	snprintf(root, sizeof(root), "/run/mvfs/%s", tag);
	for (i = 0; i < ROUNDS; i++) {
		v[i] = run(enter_view, n);
		c[i] = run(enter_chroot, n);
	}
	qsort(v, ROUNDS, sizeof(v[0]), cmp);
	qsort(c, ROUNDS, sizeof(c[0]), cmp);
	printf("view-switch-ns %lld chroot-ns %lld ratio %.2f\n",
	       v[ROUNDS / 2], c[ROUNDS / 2],
	       (double)v[ROUNDS / 2] / c[ROUNDS / 2]);
	return 0;
}
