// SPDX-License-Identifier: GPL-2.0
/*
 * waitfor [-t MS] FILE [CONTENT]: poll every 10 ms, for at most MS
 * milliseconds (3000), until FILE exists (without CONTENT) or holds
 * exactly CONTENT plus a newline; print the milliseconds it took and exit
 * 0, or print the last content and exit 1.  A poll costs an open and a
 * read, not a shell: what is measured is the filesystem's delay.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Does PATH hold WANT (NULL: exist)?  Its content goes to BUF. */
static int holds(const char *path, const char *want, char *buf, size_t size)
{
	ssize_t n = 0;
	int fd;

	buf[0] = '\0';
	if (!want)
		return access(path, F_OK) == 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 && (size_t)n == strlen(want) + 1 &&
	       !strncmp(buf, want, n - 1) && buf[n - 1] == '\n';
}

int main(int argc, char **argv)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000000L };
	long limit = 3000, t0;
	char buf[256];
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		limit = atol(argv[2]);
		i = 3;
	}
	if (argc - i < 1 || argc - i > 2) {
		fprintf(stderr, "usage: waitfor [-t MS] FILE [CONTENT]\n");
		return 2;
	}
	t0 = now_ms();
	while (!holds(argv[i], argv[i + 1], buf, sizeof(buf))) {
		if (now_ms() - t0 >= limit) {
			printf("timeout; last: %s\n", buf);
			return 1;
		}
		nanosleep(&tick, NULL);
	}
	printf("%ld\n", now_ms() - t0);
	return 0;
}
