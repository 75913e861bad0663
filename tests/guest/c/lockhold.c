// SPDX-License-Identifier: GPL-2.0
/*
 * lockhold FILE: take the store writers' lock as the mvfs tools do (an
 * OFD write lock on the whole of FILE, "PID@HOST COMMAND" written into
 * it), say "held", and keep it until killed: a writer whose machine dies
 * with the lock held (tests/guest/nfs-b).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char host[65] = "?", buf[160];
	int fd, len;

	if (argc != 2) {
		fprintf(stderr, "usage: lockhold FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0 || fcntl(fd, F_OFD_SETLKW, &fl)) {
		perror(argv[1]);
		return 1;
	}
	gethostname(host, sizeof(host) - 1);
	len = snprintf(buf, sizeof(buf), "%ld@%s lockhold\n", (long)getpid(),
		       host);
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != len) {
		perror(argv[1]);
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause();
}
