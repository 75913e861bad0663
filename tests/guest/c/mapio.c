// SPDX-License-Identifier: GPL-2.0
/*
 * mapio: one mapping of a file, for tests of what mmap gives.
 *
 *   mapio store FILE OFF TEXT [READY GO]: open FILE O_RDWR, map it
 *	shared (then create READY and wait, at most 60 s, until GO exists),
 *	store TEXT at OFF through the mapping (it must lie inside the
 *	file), then munmap and close, with no msync and no write(): the
 *	store reaches the file through the page cache alone.
 *   mapio peek FILE: open FILE O_RDONLY, map a page of it private and
 *	read-only, print "mapped SIZE" and the bytes up to its end.
 *   mapio pwritev2 FILE OFF TEXT FLAG: pwritev2() of TEXT at OFF (-1: at
 *	the file offset, after a seek to 1) with RWF_FLAG (none, append,
 *	dsync, sync), then print the file's bytes.
 *
 * Exit status 1 on any failure (said on stderr), 2 on bad usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int fail(const char *what, const char *name)
{
	perror(name);
	fprintf(stderr, "mapio: %s failed\n", what);
	return 1;
}

/* FILE opened with FLAGS and its size in *ST, or -1 (said on stderr). */
static int open_stat(const char *name, int flags, struct stat *st)
{
	int fd = open(name, flags);

	if (fd >= 0 && !fstat(fd, st))
		return fd;
	fail("open", name);
	return -1;
}

static int do_store(const char *name, long off, const char *text,
		    const char *ready, const char *go)
{
	size_t len = strlen(text);
	struct stat st;
	char *map;
	int fd;

	fd = open_stat(name, O_RDWR, &st);
	if (fd < 0)
		return 1;
	if (off < 0 || off + len > (size_t)st.st_size) {
		fprintf(stderr, "mapio: %s: %ld+%zu is past its end\n", name,
			off, len);
		return 1;
	}
	map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (map == MAP_FAILED)
		return fail("mmap", name);
	if (ready) {
		int i;

		if (close(open(ready, O_WRONLY | O_CREAT, 0644)))
			return fail("create", ready);
		for (i = 0; i < 600 && access(go, F_OK); i++)
			usleep(100000);
	}
	memcpy(map + off, text, len);
	if (munmap(map, st.st_size) || close(fd))
		return fail("munmap", name);
	return 0;
}

static int do_peek(const char *name)
{
	struct stat st;
	char *map;
	int fd;

	fd = open_stat(name, O_RDONLY, &st);
	if (fd < 0)
		return 1;
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return fail("mmap", name);
	printf("mapped %lld ", (long long)st.st_size);
	fwrite(map, 1, st.st_size < 4096 ? st.st_size : 4096, stdout);
	printf("\n");
	return munmap(map, 4096) ? fail("munmap", name) : 0;
}

static int do_pwritev2(const char *name, long off, char *text,
		       const char *flag)
{
	static const struct { const char *name; int rwf; } flags[] = {
		{ "none", 0 }, { "append", RWF_APPEND }, { "dsync", RWF_DSYNC },
		{ "sync", RWF_SYNC },
	};
	struct iovec iov = { .iov_base = text, .iov_len = strlen(text) };
	char buf[4096];
	ssize_t n;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (!strcmp(flag, flags[i].name))
			break;
	if (i == ARRAY_SIZE(flags))
		return 2;
	fd = open(name, O_RDWR);
	if (fd < 0 || lseek(fd, 1, SEEK_SET) != 1)
		return fail("open", name);
	if (pwritev2(fd, &iov, 1, off, flags[i].rwf) != (ssize_t)iov.iov_len)
		return fail("pwritev2", name);
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return fail("pread", name);
	fwrite(buf, 1, n, stdout);
	printf("\n");
	return close(fd) ? fail("close", name) : 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	if ((argc == 5 || argc == 7) && !strcmp(argv[1], "store"))
		rc = do_store(argv[2], atol(argv[3]), argv[4],
			      argc == 7 ? argv[5] : NULL, argv[6]);
	else if (argc == 3 && !strcmp(argv[1], "peek"))
		rc = do_peek(argv[2]);
	else if (argc == 6 && !strcmp(argv[1], "pwritev2"))
		rc = do_pwritev2(argv[2], atol(argv[3]), argv[4], argv[5]);
	if (rc == 2)
		fprintf(stderr, "%s\n%s\n",
			"usage: mapio store FILE OFF TEXT [READY GO] | mapio peek FILE |",
			"       mapio pwritev2 FILE OFF TEXT none|append|dsync|sync");
	return rc;
}
