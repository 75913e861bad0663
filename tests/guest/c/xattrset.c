// SPDX-License-Identifier: GPL-2.0
/*
 * xattrset FILE NAME VALUE: set an extended attribute (busybox has no
 * setfattr).  xattrset -x FILE NAME: remove one.  Exit status 0 when
 * done.
 */
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "-x")) {
		if (lremovexattr(argv[2], argv[3])) {
			perror("xattrset");
			return 1;
		}
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: xattrset FILE NAME VALUE | -x FILE NAME\n");
		return 2;
	}
	if (lsetxattr(argv[1], argv[2], argv[3], strlen(argv[3]), 0)) {
		perror("xattrset");
		return 1;
	}
	return 0;
}
