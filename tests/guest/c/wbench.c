// SPDX-License-Identifier: GPL-2.0
/*
 * wbench: the write side of `make bench`, one process per timed run, so
 * that a view and an ext2 directory are driven by the same system calls.
 *
 * wbench seq SIZE FILE: create FILE (O_EXCL: a new file), write SIZE
 *	bytes to it in 1 MiB write()s, fsync() it; print the bytes written.
 *	Each 4 KiB block starts with its offset, so that a block written at
 *	the wrong place changes the file's md5.
 * wbench append FILE: open FILE O_WRONLY|O_APPEND, write one byte "x",
 *	close; print FILE's size after it (an element's first write: the
 *	copy-up).
 * wbench files COUNT SIZE DIR: make DIR, then COUNT files of SIZE bytes,
 *	100 a subdirectory (DIR/dI/fJ, each open/write/close); print COUNT.
 * wbench build DIR < NAMES: for each NAME, read DIR/NAME whole, write
 *	what was read to DIR/NAME.o.tmp, then rename that to DIR/NAME.o (a
 *	compiler's output beside its source); print "COUNT BYTES".
 * wbench read [-r N] DIR < NAMES: open and read each DIR/NAME whole, N
 *	times over; print "COUNT BYTES" of one pass.
 *
 * Exit status 1 on any failure (named on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK	(1024 * 1024)
#define BLOCK	4096
#define PER_DIR	100

static char *buf;

static int fail(const char *what, const char *name)
{
	fprintf(stderr, "wbench: %s %s: %s\n", what, name, strerror(errno));
	return 1;
}

static int bad_usage(void)
{
	fprintf(stderr,
		"usage: wbench seq SIZE FILE | wbench append FILE |\n"
		"       wbench files COUNT SIZE DIR | wbench build DIR < NAMES |\n"
		"       wbench read [-r N] DIR < NAMES\n");
	return 2;
}

/* Write LEN bytes of BUF at the current offset of FD. */
static int write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Stamp each 4 KiB block of BUF (LEN bytes) with its offset in the file. */
static void stamp(unsigned long long off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += BLOCK) {
		unsigned long long o = off + i;

		memcpy(buf + i, &o, sizeof(o));
	}
}

static int do_seq(unsigned long long size, const char *name)
{
	unsigned long long done = 0;
	size_t len;
	int fd;

	fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fail("cannot create", name);
	while (done < size) {
		len = size - done < CHUNK ? size - done : CHUNK;
		stamp(done, len);
		if (write_all(fd, buf, len))
			return fail("cannot write", name);
		done += len;
	}
	if (fsync(fd) || close(fd))
		return fail("cannot fsync or close", name);
	printf("%llu\n", done);
	return 0;
}

static int do_append(const char *name)
{
	struct stat st;
	int fd;

	fd = open(name, O_WRONLY | O_APPEND);
	if (fd < 0)
		return fail("cannot open", name);
	if (write_all(fd, "x", 1))
		return fail("cannot write", name);
	if (fstat(fd, &st) || close(fd))
		return fail("cannot stat or close", name);
	printf("%llu\n", (unsigned long long)st.st_size);
	return 0;
}

static int do_files(unsigned long count, size_t size, const char *dir)
{
	char name[4096];
	unsigned long i;
	size_t off;
	int fd;

	if (size > CHUNK) {
		errno = EINVAL;
		return fail("file size over 1 MiB", "");
	}
	if (mkdir(dir, 0755))
		return fail("cannot mkdir", dir);
	for (i = 0; i < count; i++) {
		if (i % PER_DIR == 0) {
			snprintf(name, sizeof(name), "%s/d%lu", dir, i / PER_DIR);
			if (mkdir(name, 0755))
				return fail("cannot mkdir", name);
		}
		snprintf(name, sizeof(name), "%s/d%lu/f%lu", dir, i / PER_DIR,
			 i % PER_DIR);
		for (off = 0; off < size; off += BLOCK)
			memcpy(buf + off, &i, sizeof(i));
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return fail("cannot create", name);
		if (write_all(fd, buf, size) || close(fd))
			return fail("cannot write", name);
	}
	printf("%lu\n", count);
	return 0;
}

/* Read NAMES from standard input, one a line, into a NULL-ended array. */
static char **read_names(void)
{
	size_t n = 0, cap = 1024, len;
	char line[4096], **names = malloc(cap * sizeof(*names));

	while (names && fgets(line, sizeof(line), stdin)) {
		len = strcspn(line, "\n");
		line[len] = 0;
		if (!len)
			continue;
		if (n + 1 >= cap) {
			cap *= 2;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				break;
		}
		names[n] = strdup(line);
		if (!names[n++])
			return NULL;
	}
	if (names)
		names[n] = NULL;
	return names;
}

/* Read FD whole into buf (at most CHUNK bytes); return the length or -1. */
static ssize_t read_whole(int fd)
{
	size_t len = 0;
	ssize_t n;

	while (len < CHUNK) {
		n = read(fd, buf + len, CHUNK - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return len;
		len += n;
	}
	errno = EFBIG;
	return -1;
}

static int do_build(const char *dir, char **names)
{
	unsigned long long bytes = 0;
	char src[4096], tmp[4106], out[4106];
	unsigned long count = 0;
	ssize_t len;
	int fd;

	for (; *names; names++) {
		snprintf(src, sizeof(src), "%s/%s", dir, *names);
		snprintf(tmp, sizeof(tmp), "%s/%s.o.tmp", dir, *names);
		snprintf(out, sizeof(out), "%s/%s.o", dir, *names);
		fd = open(src, O_RDONLY);
		if (fd < 0)
			return fail("cannot open", src);
		len = read_whole(fd);
		if (len < 0)
			return fail("cannot read", src);
		close(fd);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return fail("cannot create", tmp);
		if (write_all(fd, buf, len) || close(fd))
			return fail("cannot write", tmp);
		if (rename(tmp, out))
			return fail("cannot rename", tmp);
		count++;
		bytes += len;
	}
	printf("%lu %llu\n", count, bytes);
	return 0;
}

static int do_read(const char *dir, char **names, unsigned long passes)
{
	unsigned long long bytes = 0;
	unsigned long count = 0, p;
	char path[4096];
	char **n;
	ssize_t len;
	int fd;

	for (p = 0; p < passes; p++) {
		bytes = 0;
		count = 0;
		for (n = names; *n; n++) {
			snprintf(path, sizeof(path), "%s/%s", dir, *n);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				return fail("cannot open", path);
			len = read_whole(fd);
			if (len < 0)
				return fail("cannot read", path);
			close(fd);
			count++;
			bytes += len;
		}
	}
	printf("%lu %llu\n", count, bytes);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long passes = 1;
	const char *dir = NULL;
	char **names;

	buf = malloc(CHUNK);
	if (!buf || argc < 3)
		return bad_usage();
	memset(buf, 'w', CHUNK);
	if (!strcmp(argv[1], "seq") && argc == 4)
		return do_seq(strtoull(argv[2], NULL, 0), argv[3]);
	if (!strcmp(argv[1], "append") && argc == 3)
		return do_append(argv[2]);
	if (!strcmp(argv[1], "files") && argc == 5)
		return do_files(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0), argv[4]);
	if (!strcmp(argv[1], "read") && argc == 5 && !strcmp(argv[2], "-r")) {
		passes = strtoul(argv[3], NULL, 0);
		dir = argv[4];
	} else if (argc == 3) {
		dir = argv[2];
	}
	if ((strcmp(argv[1], "build") && strcmp(argv[1], "read")) || !dir ||
	    !passes)
		return bad_usage();
	names = read_names();
	if (!names)
		return fail("cannot read the names", "");
	if (!strcmp(argv[1], "build"))
		return do_build(dir, names);
	return do_read(dir, names, passes);
}
