// SPDX-License-Identifier: GPL-2.0
/*
 * mkdata SIZE SEED FILE: write FILE (created, or truncated) with SIZE
 * bytes that depend on SEED and on their offset, so that a byte read at
 * the wrong offset, or from another file, shows.
 *
 * mkdata -n COUNT SIZE SEED PREFIX: write PREFIX0 ... PREFIX<COUNT-1>, the
 * file i with seed SEED + i (a large directory in one process).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK	(1024 * 1024)

static __u64 word(__u64 seed, __u64 index)
{
	__u64 x = seed * 0x9e3779b97f4a7c15ULL + index + 1;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int write_file(const char *name, unsigned long long size,
		      __u64 seed, __u64 *buf)
{
	unsigned long long done = 0;
	size_t len, i;
	ssize_t n;
	int fd;

	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		goto fail;
	while (done < size) {
		len = size - done < CHUNK ? size - done : CHUNK;
		for (i = 0; i < (len + 7) / 8; i++)
			buf[i] = word(seed, done / 8 + i);
		n = write(fd, buf, len);
		if (n != (ssize_t)len)
			goto fail_close;
		done += len;
	}
	if (close(fd))
		goto fail;
	return 0;
fail_close:
	close(fd);
fail:
	fprintf(stderr, "mkdata: %s: %s\n", name, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long size, seed, count = 0, i;
	__u64 *buf = malloc(CHUNK);
	char name[4096];
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		count = strtoull(optarg, NULL, 0);
	}
	if (optind != argc - 3 || !buf)
		goto usage;
	size = strtoull(argv[optind], NULL, 0);
	seed = strtoull(argv[optind + 1], NULL, 0);
	if (!count)
		return write_file(argv[optind + 2], size, seed, buf);
	for (i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "%s%llu", argv[optind + 2], i);
		if (write_file(name, size, seed + i, buf))
			return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: mkdata [-n COUNT] SIZE SEED FILE|PREFIX\n");
	return 2;
}
