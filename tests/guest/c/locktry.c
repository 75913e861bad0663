// SPDX-License-Identifier: GPL-2.0
/*
 * locktry FILE: try an OFD write lock on the whole of FILE without
 * waiting, and say what came of it: "locked" or the errno's name.  With
 * lockhold holding FILE's inode through another name, EAGAIN tells that
 * both names lead to one inode: locks are kept per inode.  Exit status
 * 1 when FILE cannot be opened, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: locktry FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (fcntl(fd, F_OFD_SETLK, &fl))
		printf("%s\n", strerrorname_np(errno));
	else
		printf("locked\n");
	return 0;
}
