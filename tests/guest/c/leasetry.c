// SPDX-License-Identifier: GPL-2.0
/*
 * leasetry FILE: open FILE read-only and try to take a read lease on it
 * (fcntl F_SETLEASE, F_RDLCK), and say what came of it: "leased" or the
 * errno's name.  The kernel grants no read lease on a file that is open
 * for writing (EAGAIN), as nfsd grants no delegation: that tells whether
 * anything holds the inode open for writing.  Exit status 1 when FILE
 * cannot be opened, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: leasetry FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (fcntl(fd, F_SETLEASE, F_RDLCK))
		printf("%s\n", strerrorname_np(errno));
	else
		printf("leased\n");
	return 0;
}
