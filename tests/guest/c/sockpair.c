// SPDX-License-Identifier: GPL-2.0
/*
 * sockpair PATH: a Unix stream socket bound at PATH (bind(2) makes the
 * socket file), listened on; a child connects to PATH and sends a line,
 * which the parent accepts and reads back.  Prints "ok" and exits 0, or
 * says which call failed (with its errno) and exits 1; 2 on bad usage.
 * The socket file is left at PATH, for the caller to stat and remove.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

static const char msg[] = "through the socket file\n";

static int fail(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	return 1;
}

static int client(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    write(fd, msg, sizeof(msg) - 1) != sizeof(msg) - 1)
		return fail("connecting side: socket, connect or write");
	return close(fd) ? fail("connecting side: close") : 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[sizeof(msg)] = "";
	int fd, conn, status;
	ssize_t n, got = 0;
	pid_t pid;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: sockpair PATH (at most %zu bytes)\n",
			sizeof(sa.sun_path) - 1);
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return fail("socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fail("bind");
	if (listen(fd, 1))
		return fail("listen");
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0)
		_exit(client(&sa));
	conn = accept(fd, NULL, NULL);
	if (conn < 0)
		return fail("accept");
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(conn, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return fail("the child");
	if (strcmp(buf, msg)) {
		printf("read back \"%s\", not \"%s\"\n", buf, msg);
		return 1;
	}
	printf("ok\n");
	return 0;
}
