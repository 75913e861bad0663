// SPDX-License-Identifier: GPL-2.0
/*
 * walk [-r N] DIR: what `find DIR -exec stat` does, without the processes
 * and the printing: read every directory under DIR and lstat() every
 * entry, N times over (default 1).  Prints the number of entries seen in
 * one pass; exit status 1 when anything failed.
 *
 * walk -l DIR: lstat() DIR/NAME for every NAME read from standard input,
 * one a line: path lookups rather than a readdir.  Prints the number
 * found; exit status 1 when one is missing (the first few are named on
 * stderr).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int status;

static void fail(const char *what, const char *name)
{
	fprintf(stderr, "walk: %s %s: %s\n", what, name, strerror(errno));
	status = 1;
}

static unsigned long walk(int dirfd)
{
	unsigned long count = 0;
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd;

	dir = fdopendir(dirfd);
	if (!dir) {
		fail("cannot read a directory", "");
		close(dirfd);
		return 0;
	}
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		count++;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			fail("cannot stat", de->d_name);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		fd = openat(dirfd, de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			fail("cannot open", de->d_name);
		else
			count += walk(fd);
	}
	closedir(dir);
	return count;
}

static int lookups(const char *dir)
{
	unsigned long found = 0, missing = 0;
	char line[4096], path[8192];
	struct stat st;
	size_t len;

	while (fgets(line, sizeof(line), stdin)) {
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, line);
		if (!lstat(path, &st))
			found++;
		else if (missing++ < 5)
			fail("cannot stat", path);
	}
	printf("%lu\n", found);
	return missing ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	int rounds = 1, fd, opt;

	while ((opt = getopt(argc, argv, "r:l")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'l':
			if (optind != argc - 1)
				goto usage;
			return lookups(argv[optind]);
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || rounds < 1)
		goto usage;
	while (rounds--) {
		fd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fail("cannot open", argv[optind]);
			return 1;
		}
		count = walk(fd);
	}
	printf("%lu\n", count);
	return status;
usage:
	fprintf(stderr, "usage: walk [-r N] DIR | walk -l DIR < NAMES\n");
	return 2;
}
