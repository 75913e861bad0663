// SPDX-License-Identifier: GPL-2.0
/*
 * iocheck [-s SEED] [-n OPS] [-m MAXSIZE] FILE: random I/O on FILE
 * (created if missing; an existing file's content is kept and checked
 * too), its content checked against a copy in memory after every
 * operation.  The operations: write() after lseek(), pwrite(), a write
 * through a second descriptor opened O_APPEND, ftruncate() that shrinks
 * or extends, writes through a MAP_SHARED mapping then msync(), read()
 * and pread() and reads through a mapping at random offsets and lengths,
 * fsync(), fdatasync(), and closing and opening the file again.
 *
 * After each operation, st_size and the bytes around what it touched,
 * plus a random window, are compared with the copy; every 500 operations
 * and at the end, the whole file.  Exit status 1 at the first
 * difference, with the seed and the operation's number.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXLEN (128 * 1024)	/* the longest single read or write */

static const char *path;
static unsigned long long seed;
static long opno;
static int fd = -1;
static unsigned char *model;	/* what the file must hold */
static unsigned char *buf;
static size_t size, maxsize;
static __u64 rng;

static __u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static size_t rn(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void fail(const char *what, const char *how)
{
	fprintf(stderr, "iocheck: %s: seed %llu op %ld: %s%s%s\n", path, seed,
		opno, what, how ? ": " : "", how ? how : "");
	fprintf(stderr, "  replay: iocheck -s %llu -n %ld FILE\n", seed, opno);
	exit(1);
}

static void sys_fail(const char *what)
{
	fail(what, strerror(errno));
}

static void fill(unsigned char *p, size_t n)
{
	size_t i;
	__u64 x = 0;

	for (i = 0; i < n; i++) {
		if (i % 8 == 0)
			x = rnd();
		p[i] = (unsigned char)(x >> (i % 8 * 8));
	}
}

/* A random range inside [0, limit): *off and a length up to MAXLEN. */
static size_t range(size_t limit, size_t *off)
{
	size_t len;

	*off = rn(limit);
	len = rn(rn(8) ? 8192 : MAXLEN) + 1;
	return *off + len > limit ? limit - *off : len;
}

/* --- checks ------------------------------------------------------------ */

static void check_size(void)
{
	struct stat st;

	if (fstat(fd, &st))
		sys_fail("fstat");
	if ((size_t)st.st_size != size) {
		fprintf(stderr, "iocheck: st_size %lld, expected %zu\n",
			(long long)st.st_size, size);
		fail("wrong size", NULL);
	}
}

static void compare(const unsigned char *got, size_t off, size_t len,
		    const char *how)
{
	size_t i;

	if (!memcmp(got, model + off, len))
		return;
	for (i = 0; got[i] == model[off + i]; i++)
		;
	fprintf(stderr, "iocheck: %s: byte %zu is %#x, expected %#x\n", how,
		off + i, got[i], model[off + i]);
	fail("wrong content", NULL);
}

/* pread [off, off + len) and compare it; past EOF, it must read 0. */
static void check_range(size_t off, size_t len)
{
	ssize_t n;
	size_t want = off >= size ? 0 : off + len > size ? size - off : len;

	n = pread(fd, buf, len, off);
	if (n < 0)
		sys_fail("pread");
	if ((size_t)n != want) {
		fprintf(stderr, "iocheck: pread %zu at %zu: %zd, expected %zu\n",
			len, off, n, want);
		fail("short or long read", NULL);
	}
	compare(buf, off, want, "pread");
}

static void check_all(void)
{
	size_t off;

	check_size();
	for (off = 0; off < size; off += MAXLEN)
		check_range(off, MAXLEN);
	check_range(size, 1);
}

/* --- operations -------------------------------------------------------- */

static void extend_model(size_t end)
{
	if (end > size)
		memset(model + size, 0, end - size);
	if (end > size)
		size = end;
}

static void do_write(int positional)
{
	size_t off, len = range(maxsize, &off);
	ssize_t n;

	fill(buf, len);
	if (positional) {
		n = pwrite(fd, buf, len, off);
	} else {
		if (lseek(fd, off, SEEK_SET) != (off_t)off)
			sys_fail("lseek");
		n = write(fd, buf, len);
	}
	if (n != (ssize_t)len)
		sys_fail(positional ? "pwrite" : "write");
	extend_model(off + len);
	memcpy(model + off, buf, len);
	check_range(off > 4096 ? off - 4096 : 0, len + 8192);
}

static void do_append(void)
{
	size_t len = rn(8192) + 1, off = size;
	int afd;

	if (size + len > maxsize)
		return;
	afd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (afd < 0)
		sys_fail("open O_APPEND");
	fill(buf, len);
	if (write(afd, buf, len) != (ssize_t)len)
		sys_fail("write O_APPEND");
	close(afd);
	extend_model(off + len);
	memcpy(model + off, buf, len);
	check_range(off > 4096 ? off - 4096 : 0, len + 8192);
}

static void do_truncate(void)
{
	size_t old = size, len = rn(8) ? rn(maxsize + 1) : rn(size + 1);

	if (ftruncate(fd, len))
		sys_fail("ftruncate");
	if (len > size)
		extend_model(len);
	size = len;
	check_range(len > 8192 ? len - 8192 : 0, 16384);
	if (old < len)
		check_range(old > 100 ? old - 100 : 0, 200);
}

/* Write through a shared mapping of the pages over a range, then msync. */
static void do_mmap_write(void)
{
	size_t off, len, moff, mlen;
	unsigned char *p;

	if (!size)
		return;
	len = range(size, &off);
	moff = off & ~4095UL;
	mlen = off + len - moff;
	p = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, moff);
	if (p == MAP_FAILED)
		sys_fail("mmap");
	compare(p, moff, mlen, "mmap before the write");
	fill(model + off, len);
	memcpy(p + (off - moff), model + off, len);
	if (msync(p, mlen, MS_SYNC))
		sys_fail("msync");
	munmap(p, mlen);
	check_range(moff, mlen + 4096);
}

static void do_mmap_read(void)
{
	size_t off, len, moff;
	unsigned char *p;

	if (!size)
		return;
	len = range(size, &off);
	moff = off & ~4095UL;
	p = mmap(NULL, off + len - moff, PROT_READ, MAP_SHARED, fd, moff);
	if (p == MAP_FAILED)
		sys_fail("mmap");
	compare(p + (off - moff), off, len, "mmap read");
	munmap(p, off + len - moff);
}

static void do_read(void)
{
	size_t off = rn(size + 100), len = rn(MAXLEN) + 1;
	size_t want = off >= size ? 0 : off + len > size ? size - off : len;
	ssize_t n;

	if (lseek(fd, off, SEEK_SET) != (off_t)off)
		sys_fail("lseek");
	n = read(fd, buf, len);
	if (n != (ssize_t)want)
		fail("read", n < 0 ? strerror(errno) : "wrong length");
	compare(buf, off, want, "read");
}

static void reopen(void)
{
	if (fd >= 0 && close(fd))
		sys_fail("close");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		sys_fail("open");
}

static void do_op(void)
{
	switch (rn(20)) {
	case 0: case 1: case 2: case 3:
		do_write(0);
		break;
	case 4: case 5: case 6: case 7:
		do_write(1);
		break;
	case 8:
		do_append();
		break;
	case 9: case 10:
		do_truncate();
		break;
	case 11: case 12: case 13:
		do_mmap_write();
		break;
	case 14: case 15:
		do_mmap_read();
		break;
	case 16: case 17:
		do_read();
		break;
	case 18:
		if (rn(2) ? fsync(fd) : fdatasync(fd))
			sys_fail("fsync");
		break;
	default:
		reopen();
	}
}

/* The file's content at the start: what the copy starts from. */
static void load(void)
{
	struct stat st;

	reopen();
	if (fstat(fd, &st))
		sys_fail("fstat");
	if ((size_t)st.st_size > maxsize)
		maxsize = st.st_size;
	model = malloc(maxsize + MAXLEN);
	buf = malloc(MAXLEN + 8192 + MAXLEN);
	if (!model || !buf)
		fail("out of memory", NULL);
	size = st.st_size;
	if (pread(fd, model, size, 0) != (ssize_t)size)
		fail("reading the file at the start", NULL);
}

int main(int argc, char **argv)
{
	long nops = 10000;
	size_t off, len;
	int c;

	seed = (unsigned long long)getpid() * 7919 + 1;
	maxsize = 4 << 20;
	while ((c = getopt(argc, argv, "s:n:m:")) != -1) {
		if (c == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 'n')
			nops = atol(optarg);
		else if (c == 'm')
			maxsize = strtoul(optarg, NULL, 0);
		else
			break;
	}
	if (c != -1 || argc - optind != 1 || maxsize < 4096) {
		fputs("usage: iocheck [-s SEED] [-n OPS] [-m MAXSIZE] FILE\n",
		      stderr);
		return 2;
	}
	path = argv[optind];
	rng = seed * 2 + 1;
	load();
	for (opno = 1; opno <= nops; opno++) {
		do_op();
		check_size();
		len = range(maxsize, &off);
		check_range(off, len);
		if (opno % 500 == 0)
			check_all();
	}
	opno = nops;
	check_all();
	close(fd);
	printf("iocheck: %s: seed %llu: %ld operations, %zu bytes at the end, ",
	       path, seed, nops, size);
	printf("the same content\n");
	return 0;
}
