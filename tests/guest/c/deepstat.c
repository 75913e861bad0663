// SPDX-License-Identifier: GPL-2.0
/*
 * deepstat DIR NAME N LEAF: chdir to DIR, then to NAME N times (one
 * component at a time: the path would not fit in PATH_MAX), then lstat
 * LEAF there.  Prints "ok" when the lstat succeeds, else the errno's
 * name (ELOOP, ENOENT, EIO, or its number).  Exit status 1 when the
 * walk down failed (named on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *errno_name(int e)
{
	static char num[16];

	switch (e) {
	case ELOOP:
		return "ELOOP";
	case ENOENT:
		return "ENOENT";
	case EIO:
		return "EIO";
	default:
		snprintf(num, sizeof(num), "%d", e);
		return num;
	}
}

int main(int argc, char **argv)
{
	struct stat st;
	long i, n;

	if (argc != 5) {
		fprintf(stderr, "usage: deepstat DIR NAME N LEAF\n");
		return 2;
	}
	n = atol(argv[3]);
	if (chdir(argv[1])) {
		fprintf(stderr, "deepstat: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (chdir(argv[2])) {
			fprintf(stderr, "deepstat: level %ld: %s\n", i + 1,
				strerror(errno));
			return 1;
		}
	}
	puts(lstat(argv[4], &st) ? errno_name(errno) : "ok");
	return 0;
}
