// SPDX-License-Identifier: GPL-2.0
/*
 * statrace N DIR FILE: a child lstat()s DIR N times while this process
 * opens FILE (read-only) again and again until the child is done; print
 * how many of the opens succeeded.  A stat of DIR refreshes its inode
 * (/view/TAG from its view's record): a lookup through DIR at that moment
 * checks DIR's mode without refreshing it, and must never see a passing
 * state, such as the revision's mode in place of a 0700 view's.
 *
 * Exit status 1 when the child cannot be made, 2 on bad usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long i, n, opened = 0;
	struct stat st;
	pid_t pid;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: statrace N DIR FILE\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	pid = fork();
	if (pid < 0) {
		perror("statrace: fork");
		return 1;
	}
	if (!pid) {
		for (i = 0; i < n; i++)
			lstat(argv[2], &st);
		_exit(0);
	}
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		fd = open(argv[3], O_RDONLY);
		if (fd >= 0) {
			opened++;
			close(fd);
		}
	}
	printf("%lu\n", opened);
	return 0;
}
