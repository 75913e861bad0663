// SPDX-License-Identifier: GPL-2.0
/*
 * mmaphold FILE READY GO: map FILE shared and read-only, create READY,
 * wait (at most 60 s) until GO exists, then print the mapping's bytes.
 * For a test that changes what FILE's name shows in between: a mapping
 * keeps the pages of the file it was made from.  Exit status 1 on any
 * failure (said on stderr), 2 on bad usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct stat st;
	char *map;
	int fd, i;

	if (argc != 4) {
		fprintf(stderr, "usage: mmaphold FILE READY GO\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
		perror(argv[1]);
		return 1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	fd = open(argv[2], O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || close(fd)) {
		perror(argv[2]);
		return 1;
	}
	for (i = 0; i < 600 && access(argv[3], F_OK); i++)
		usleep(100000);
	if (i == 600) {
		fprintf(stderr, "mmaphold: no %s after 60 s\n", argv[3]);
		return 1;
	}
	return fwrite(map, 1, st.st_size, stdout) == (size_t)st.st_size &&
	       !fflush(stdout) ? 0 : 1;
}
