// SPDX-License-Identifier: GPL-2.0
/*
 * xattrset FILE NAME VALUE: set an extended attribute (busybox has no
 * setfattr).  Exit status 0 when set.
 */
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: xattrset FILE NAME VALUE\n");
		return 2;
	}
	if (lsetxattr(argv[1], argv[2], argv[3], strlen(argv[3]), 0)) {
		perror("xattrset");
		return 1;
	}
	return 0;
}
