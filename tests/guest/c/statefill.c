// SPDX-License-Identifier: GPL-2.0
/*
 * statefill FILE: add labels to an mvfs state file (of at least one
 * revision) until one more label would make it larger than
 * MVFS_STATE_MAX, the most a reader takes; the checksum is recomputed.
 * Labels are named fNNNNNNN and name revision 1.  Prints the new size.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mvfs_format.h"

static int fill(const char *name)
{
	struct mvfs_state_hdr *h;
	struct mvfs_label_disk *l;
	size_t size, add, at, n, i;
	struct stat st;
	char *buf;
	int fd;

	fd = open(name, O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		return 1;
	size = st.st_size;
	add = (MVFS_STATE_MAX - size) / sizeof(*l);
	buf = calloc(1, size + add * sizeof(*l));
	if (!buf || pread(fd, buf, size, 0) != (ssize_t)size)
		return 1;
	h = (struct mvfs_state_hdr *)buf;
	if (!le32toh(h->nrevs))
		return 1;
	at = mvfs_state_size(le32toh(h->format), le32toh(h->nrevs),
			     le32toh(h->nlabels), 0, 0);
	n = size - at;
	memmove(buf + at + add * sizeof(*l), buf + at, n);
	l = (struct mvfs_label_disk *)(buf + at);
	for (i = 0; i < add; i++) {
		snprintf(l[i].name, sizeof(l[i].name), "f%07zu", i);
		l[i].rev = htole64(1);
	}
	size += add * sizeof(*l);
	h->nlabels = htole32(le32toh(h->nlabels) + add);
	h->size = htole64(size);
	h->checksum = 0;
	h->checksum = htole64(mvfs_fnv64(MVFS_FNV64_INIT, buf, size));
	if (pwrite(fd, buf, size, 0) != (ssize_t)size || fsync(fd) ||
	    close(fd))
		return 1;
	printf("%zu\n", size);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: statefill FILE\n");
		return 2;
	}
	if (fill(argv[1])) {
		fprintf(stderr, "statefill: %s: cannot fill\n", argv[1]);
		return 1;
	}
	return 0;
}
