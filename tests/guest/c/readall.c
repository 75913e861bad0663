// SPDX-License-Identifier: GPL-2.0
/*
 * readall FILE...: read each FILE from start to end with read() into a
 * 1 MiB buffer, the way a sequential reader does, and print the number of
 * bytes read in all.  For the benchmark's throughput figures.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_SIZE	(1024 * 1024)

int main(int argc, char **argv)
{
	unsigned long long total = 0;
	char *buf = malloc(BUF_SIZE);
	ssize_t n;
	int i, fd;

	if (argc < 2 || !buf) {
		fprintf(stderr, "usage: readall FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		fd = open(argv[i], O_RDONLY);
		if (fd < 0)
			goto fail;
		while ((n = read(fd, buf, BUF_SIZE)) > 0)
			total += n;
		if (n < 0)
			goto fail;
		close(fd);
	}
	printf("%llu\n", total);
	return 0;
fail:
	fprintf(stderr, "readall: %s: %s\n", argv[i], strerror(errno));
	return 1;
}
