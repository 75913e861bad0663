// SPDX-License-Identifier: GPL-2.0
/*
 * settime SEC NSEC PATH...: set the access and modification times of each
 * PATH, a symlink itself rather than its target, to SEC.NSEC (SEC may be
 * negative): busybox touch cannot give nanoseconds or a symlink's time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct timespec ts[2];
	int i, status = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: settime SEC NSEC PATH...\n");
		return 2;
	}
	ts[0].tv_sec = strtoll(argv[1], NULL, 10);
	ts[0].tv_nsec = strtol(argv[2], NULL, 10);
	ts[1] = ts[0];
	for (i = 3; i < argc; i++) {
		if (utimensat(AT_FDCWD, argv[i], ts, AT_SYMLINK_NOFOLLOW)) {
			fprintf(stderr, "settime: %s: %s\n", argv[i],
				strerror(errno));
			status = 1;
		}
	}
	return status;
}
