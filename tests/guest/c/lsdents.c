// SPDX-License-Identifier: GPL-2.0
/*
 * lsdents [-t] DIR [BUFSIZE]: list DIR with getdents64() into a small
 * buffer (default 512 bytes, so that a large directory takes many calls,
 * each resuming where the last one stopped), print the names one a line,
 * then rewind with lseek(fd, 0, SEEK_SET), list it again and require the
 * same names in the same order.  Exit status 1 when they differ.
 *
 * With -t each name follows its d_type and a tab: f, d, l, p, s, c, b, or
 * ? for DT_UNKNOWN, so that two listings compare types too.
 *
 * With -x CMD, CMD runs (system()) after the first getdents64() call, and
 * the listing is not read again: for a test that changes the directory
 * while it is being listed.
 *
 * With -i each entry's d_ino must be the st_ino lstat() gives (but for
 * ..), as on ext2: each that is not is named on stderr, and the exit
 * status is 1.  Not with -x, whose change may remove a name listed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct dirent64_raw {
	__u64	d_ino;
	__s64		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

static char type_char(unsigned char d_type)
{
	switch (d_type) {
	case DT_REG:
		return 'f';
	case DT_DIR:
		return 'd';
	case DT_LNK:
		return 'l';
	case DT_FIFO:
		return 'p';
	case DT_SOCK:
		return 's';
	case DT_CHR:
		return 'c';
	case DT_BLK:
		return 'b';
	}
	return '?';
}

static int check_ino, bad_ino;

/* With -i: is DE's d_ino the st_ino of its name in the directory FD? */
static void ino_check(int fd, const struct dirent64_raw *de)
{
	struct stat st;

	if (!strcmp(de->d_name, ".."))
		return;
	if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
		fprintf(stderr, "lsdents: lstat %s: %s\n", de->d_name,
			strerror(errno));
		bad_ino = 1;
	} else if (st.st_ino != de->d_ino) {
		fprintf(stderr, "lsdents: %s: d_ino %llu, st_ino %llu\n",
			de->d_name, (unsigned long long)de->d_ino,
			(unsigned long long)st.st_ino);
		bad_ino = 1;
	}
}

/* One pass over the directory: the number of entries and a hash of the
 * names in order; prints them when print is set (2: with their type).
 * -1 on error.
 */
static long pass(int fd, size_t bufsize, int print, __u64 *hash,
		 const char *cmd)
{
	struct dirent64_raw *de;
	long count = 0, n, off;
	char *buf = malloc(bufsize);
	const char *c;

	*hash = 0xcbf29ce484222325ULL;
	if (!buf)
		return -1;
	while ((n = syscall(SYS_getdents64, fd, buf, bufsize)) > 0) {
		for (off = 0; off < n; off += de->d_reclen) {
			de = (struct dirent64_raw *)(buf + off);
			for (c = de->d_name; ; c++) {
				*hash = (*hash ^ (unsigned char)*c) *
					0x100000001b3ULL;
				if (!*c)
					break;
			}
			if (check_ino)
				ino_check(fd, de);
			if (print == 2)
				printf("%c\t", type_char(de->d_type));
			if (print)
				printf("%s\n", de->d_name);
			count++;
		}
		if (cmd && system(cmd)) {
			fprintf(stderr, "lsdents: %s failed\n", cmd);
			free(buf);
			return -1;
		}
		cmd = NULL;
	}
	free(buf);
	return n < 0 ? -1 : count;
}

int main(int argc, char **argv)
{
	int print = 1, fd;
	const char *cmd = NULL;
	size_t bufsize;
	__u64 first, second;
	long n1, n2;

	if (argc > 1 && !strcmp(argv[1], "-i")) {
		check_ino = 1;
		argv++;
		argc--;
	}
	if (argc > 1 && !strcmp(argv[1], "-t")) {
		print = 2;
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "-x")) {
		cmd = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || argc > 3 || (check_ino && cmd)) {
		fprintf(stderr, "usage: lsdents [-i] [-t] [-x CMD] DIR [BUFSIZE]\n");
		return 2;
	}
	bufsize = argc > 2 ? strtoul(argv[2], NULL, 0) : 512;
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		fprintf(stderr, "lsdents: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n1 = pass(fd, bufsize, print, &first, cmd);
	if (cmd)
		return n1 < 0;
	check_ino = 0;
	if (lseek(fd, 0, SEEK_SET) != 0) {
		fprintf(stderr, "lsdents: rewind: %s\n", strerror(errno));
		return 1;
	}
	n2 = pass(fd, bufsize, 0, &second, NULL);
	if (n1 < 0 || n2 < 0) {
		fprintf(stderr, "lsdents: getdents64: %s\n", strerror(errno));
		return 1;
	}
	if (n1 != n2 || first != second) {
		fprintf(stderr, "lsdents: %ld entries, then %ld after a rewind, %s\n",
			n1, n2, first == second ? "same names" : "other names");
		return 1;
	}
	if (fflush(stdout))
		return 1;
	return bad_ino;
}
