// SPDX-License-Identifier: GPL-2.0
/*
 * iocmp FILE [REF]: check that FILE reads the same through read(), pread()
 * at awkward offsets and mmap() as REF does through read() (REF defaults
 * to FILE itself, which still compares mmap() with read()):
 *
 *  - sequential read() of FILE, then pread() of chunks that straddle page
 *    boundaries, against REF;
 *  - a shared read-only mapping of the whole of FILE, and a private one
 *    starting at its second page;
 *  - the bytes past the end of file in the last page of a mapping are 0;
 *  - a write to a private writable mapping changes the mapping only,
 *    never the file.
 *
 * Prints what differs on stderr; exit status 0 when everything matched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *name;
static int status;

static void fail(const char *what)
{
	fprintf(stderr, "iocmp: %s: %s\n", name, what);
	status = 1;
}

/* Read the whole file into memory with read(), in odd-sized pieces. */
static unsigned char *slurp(int fd, size_t size)
{
	unsigned char *data = malloc(size + 1);
	size_t got = 0;
	ssize_t n;

	if (!data)
		return NULL;
	while (got <= size) {
		n = read(fd, data + got, size + 1 - got < 65537 ?
			 size + 1 - got : 65537);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	if (got != size) {
		fail(got > size ? "read() returns more than st_size" :
		     "read() returns less than st_size");
		free(data);
		return NULL;
	}
	return data;
}

static void check_pread(int fd, const unsigned char *ref, size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE), off, len;
	unsigned char chunk[3 * 4096 + 7];
	unsigned int seed = 1;
	ssize_t n;
	int i;

	for (i = 0; i < 200; i++) {
		seed = seed * 1103515245 + 12345;
		off = size ? (seed >> 4) % size : 0;
		if (i & 1)
			off = off - off % page + page - 3;
		if (off > size)
			off = size;
		len = (seed >> 8) % sizeof(chunk) + 1;
		n = pread(fd, chunk, len, off);
		if (off + len > size)
			len = size - off;
		if (n < 0 || (size_t)n != len) {
			fail("pread() returns a wrong count");
			return;
		}
		if (memcmp(chunk, ref + off, n)) {
			fail("pread() at an offset returns other bytes");
			return;
		}
	}
}

static void check_mmap(int fd, const unsigned char *ref, size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t mapped = (size + page - 1) & ~(page - 1);
	unsigned char *map, old;
	size_t i;

	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fail("mmap(MAP_SHARED, PROT_READ) fails");
		return;
	}
	if (memcmp(map, ref, size))
		fail("a shared mapping holds other bytes than read()");
	for (i = size; i < mapped; i++)
		if (map[i]) {
			fail("the last page of a mapping is not 0 past EOF");
			break;
		}
	munmap(map, size);

	if (size > page) {
		map = mmap(NULL, size - page, PROT_READ, MAP_PRIVATE, fd, page);
		if (map == MAP_FAILED)
			fail("mmap() at an offset of one page fails");
		else if (memcmp(map, ref + page, size - page))
			fail("a mapping at an offset holds other bytes");
		if (map != MAP_FAILED)
			munmap(map, size - page);
	}

	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fail("mmap(MAP_PRIVATE, PROT_WRITE) fails");
		return;
	}
	old = map[size / 2];
	map[size / 2] = ~old;
	if (map[size / 2] == old)
		fail("a write to a private mapping does not stick");
	munmap(map, size);
	if (pread(fd, &old, 1, size / 2) != 1 || old != ref[size / 2])
		fail("a write to a private mapping reached the file");
}

int main(int argc, char **argv)
{
	unsigned char *ref, *data;
	struct stat st, rst;
	int fd, rfd;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: iocmp FILE [REF]\n");
		return 2;
	}
	name = argv[1];
	fd = open(argv[1], O_RDONLY);
	rfd = open(argv[argc - 1], O_RDONLY);
	if (fd < 0 || rfd < 0 || fstat(fd, &st) || fstat(rfd, &rst)) {
		fail("cannot open or stat FILE or REF");
		return 1;
	}
	if (st.st_size != rst.st_size) {
		fail("st_size differs from REF's");
		return 1;
	}
	ref = slurp(rfd, st.st_size);
	data = ref ? slurp(fd, st.st_size) : NULL;
	if (!data)
		return 1;
	if (memcmp(data, ref, st.st_size))
		fail("read() returns other bytes than REF");
	check_pread(fd, ref, st.st_size);
	if (st.st_size)
		check_mmap(fd, ref, st.st_size);
	if (!status)
		printf("%s: %lld bytes match\n", name, (long long)st.st_size);
	return status;
}
