// SPDX-License-Identifier: GPL-2.0
/*
 * timeit CMD [ARG...]: run CMD with its standard output sent to /dev/null
 * and print how long it took, in nanoseconds of CLOCK_MONOTONIC, on a
 * line of its own.  The exit status is CMD's; when CMD fails nothing is
 * printed (the guest's busybox date has no %N, hence this helper).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long start, end;
	int wstatus, fd;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: timeit CMD [ARG...]\n");
		return 2;
	}
	fflush(stdout);
	start = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 1;
	}
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "timeit: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR) {
			perror("timeit: waitpid");
			return 1;
		}
	end = now_ns();
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	if (WEXITSTATUS(wstatus))
		return WEXITSTATUS(wstatus);
	printf("%lld\n", end - start);
	return 0;
}
