// SPDX-License-Identifier: GPL-2.0
/*
 * manifest DIR: describe the tree under DIR, one line per entry, so that
 * two trees print the same text exactly when they hold the same names,
 * types, metadata and content.  DIR itself is not described.
 *
 *   PATH TYPE MODE UID GID SIZE MTIME CONTENT   (separated by tabs)
 *
 * PATH is relative to DIR; the names of each directory are sorted bytewise
 * and a directory's entries follow it, whatever order readdir gives.  TYPE
 * is f, d, l, p, s, c or b; MODE the permission bits in octal, setuid,
 * setgid and sticky included; SIZE is "-" for a directory (its size is the
 * filesystem's business); MTIME is seconds.nanoseconds; CONTENT is a hash
 * of a regular file's bytes, "-> TARGET" for a symlink, "-" otherwise.
 *
 * Every name readdir gives is listed, "." and ".." aside: hidden names
 * too.  When readdir's d_type for a name disagrees with lstat's type, a
 * line "PATH<TAB>d_type X, lstat Y" follows the entry's, so that the
 * listing differs from the source's.
 *
 * Exit status 1 when anything could not be read or d_type disagreed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_SIZE	(1024 * 1024)
#define PATH_SIZE	65536

static char path[PATH_SIZE];
static unsigned char *buf;
static int status;

static void fail(const char *what, const char *name)
{
	fprintf(stderr, "manifest: %s %s: %s\n", what, name, strerror(errno));
	status = 1;
}

static __u64 mix(__u64 h, __u64 w)
{
	h ^= w;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* Fill buf from fd; a short count only at end of file. */
static ssize_t fill(int fd)
{
	ssize_t got = 0, n;

	while (got < BUF_SIZE) {
		n = read(fd, buf + got, BUF_SIZE - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/* A hash of the bytes of a regular file, in words of 8 bytes. */
static int hash_file(int dirfd, const char *name, __u64 *hash)
{
	__u64 h = 0x6d76667374657374ULL, total = 0, w;
	ssize_t n, i;
	int fd, err = 0;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do {
		n = fill(fd);
		if (n < 0) {
			err = -1;
			break;
		}
		for (i = 0; i + 8 <= n; i += 8) {
			memcpy(&w, buf + i, 8);
			h = mix(h, w);
		}
		for (; i < n; i++)
			h = mix(h, buf[i] | 0x100);
		total += n;
	} while (n == BUF_SIZE);
	close(fd);
	*hash = mix(h, total);
	return err;
}

static int by_name_after_type(const void *a, const void *b)
{
	return strcmp(*(char * const *)a + 1, *(char * const *)b + 1);
}

/*
 * The names in dirfd, sorted, without "." and ".."; NULL on error.  Each
 * is stored after one byte that holds readdir's d_type for it.
 */
static char **read_names(int dirfd, size_t *count)
{
	char **names = NULL, **bigger;
	size_t len;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dir;
	int fd;

	fd = dup(dirfd);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			bigger = realloc(names, cap * sizeof(*names));
			if (!bigger)
				abort();
			names = bigger;
		}
		len = strlen(de->d_name);
		names[n] = malloc(len + 2);
		if (!names[n])
			abort();
		names[n][0] = (char)de->d_type;
		memcpy(names[n++] + 1, de->d_name, len + 1);
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), by_name_after_type);
	*count = n;
	return names ? names : calloc(1, sizeof(*names));
}

static char type_of(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return 'f';
	case S_IFDIR:
		return 'd';
	case S_IFLNK:
		return 'l';
	case S_IFIFO:
		return 'p';
	case S_IFSOCK:
		return 's';
	case S_IFCHR:
		return 'c';
	case S_IFBLK:
		return 'b';
	}
	return '?';
}

static void print_content(int dirfd, const char *name, const struct stat *st)
{
	char target[PATH_SIZE];
	__u64 hash;
	ssize_t n;

	if (S_ISREG(st->st_mode)) {
		if (hash_file(dirfd, name, &hash)) {
			fail("cannot read", path);
			printf("unreadable\n");
			return;
		}
		printf("%016llx\n", (unsigned long long)hash);
	} else if (S_ISLNK(st->st_mode)) {
		n = readlinkat(dirfd, name, target, sizeof(target) - 1);
		if (n < 0) {
			fail("cannot read the link", path);
			n = 0;
		}
		target[n] = 0;
		printf("-> %s\n", target);
	} else {
		printf("-\n");
	}
}

static void describe(int dirfd, const char *name, const struct stat *st)
{
	printf("%s\t%c\t%04o\t%u\t%u\t", path, type_of(st->st_mode),
	       (unsigned int)(st->st_mode & 07777), (unsigned int)st->st_uid,
	       (unsigned int)st->st_gid);
	if (S_ISDIR(st->st_mode))
		printf("-\t");
	else
		printf("%lld\t", (long long)st->st_size);
	printf("%lld.%09ld\t", (long long)st->st_mtim.tv_sec,
	       (long)st->st_mtim.tv_nsec);
	print_content(dirfd, name, st);
}

/* Say so when readdir's d_type disagrees with what lstat found. */
static void check_dtype(unsigned char d_type, const struct stat *st)
{
	mode_t want = DTTOIF(d_type);

	if (d_type == DT_UNKNOWN || want == (st->st_mode & S_IFMT))
		return;
	printf("%s\td_type %c, lstat %c\n", path, type_of(want),
	       type_of(st->st_mode));
	fprintf(stderr, "manifest: %s: readdir's d_type is %c, lstat's %c\n",
		path, type_of(want), type_of(st->st_mode));
	status = 1;
}

/* Describe the entries of dirfd, whose path relative to the top is path. */
static void walk(int dirfd)
{
	size_t len = strlen(path), count = 0, i;
	struct stat st;
	char **names;
	const char *name;
	int fd;

	names = read_names(dirfd, &count);
	if (!names) {
		fail("cannot list", len ? path : ".");
		return;
	}
	for (i = 0; i < count; i++) {
		name = names[i] + 1;
		if (len + strlen(name) + 2 > sizeof(path)) {
			errno = ENAMETOOLONG;
			fail("path too long under", path);
			free(names[i]);
			continue;
		}
		sprintf(path + len, "%s%s", len ? "/" : "", name);
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			fail("cannot stat", path);
		} else {
			describe(dirfd, name, &st);
			check_dtype((unsigned char)names[i][0], &st);
			if (S_ISDIR(st.st_mode)) {
				fd = openat(dirfd, name, O_RDONLY |
					    O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
				if (fd < 0) {
					fail("cannot open", path);
				} else {
					walk(fd);
					close(fd);
				}
			}
		}
		path[len] = 0;
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: manifest DIR\n");
		return 2;
	}
	buf = malloc(BUF_SIZE);
	if (!buf)
		return 1;
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fail("cannot open", argv[1]);
		return 1;
	}
	walk(fd);
	close(fd);
	if (fflush(stdout))
		status = 1;
	return status;
}
