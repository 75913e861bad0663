// SPDX-License-Identifier: GPL-2.0
/*
 * statefill FILE: add labels to an mvfs state file (of at least one
 * revision) until one more label would make it larger than
 * MVFS_STATE_MAX, the most a reader takes; the checksum is recomputed.
 * Labels are named fNNNNNNN and name revision 1.  Prints the new size.
 *
 * statefill -v N FILE: add N views instead, each a copy of the state's
 * first view record (its selection, owner and mode; in format 3 its
 * config spec's text) named vNNNNNNN.  Prints the new size.
 *
 * statefill -r N FILE: add N revisions instead (format 3, a branch
 * besides main), each a copy of the newest one's tree and message, on
 * the second branch record, each made from the one before.  Prints the
 * new size.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mvfs_format.h"

/*
 * Make room for ADD records of RSIZE bytes at offset AT of the state in
 * BUF (SIZE bytes, allocated for the grown file), and return them.
 */
static char *grow(char *buf, size_t size, size_t at, size_t add,
		  size_t rsize)
{
	memmove(buf + at + add * rsize, buf + at, size - at);
	return buf + at;
}

/* Fix the header of the state in BUF (SIZE bytes) and write it. */
static int finish(int fd, char *buf, size_t size)
{
	struct mvfs_state_hdr *h = (struct mvfs_state_hdr *)buf;

	h->size = htole64(size);
	h->checksum = 0;
	h->checksum = htole64(mvfs_fnv64(MVFS_FNV64_INIT, buf, size));
	if (pwrite(fd, buf, size, 0) != (ssize_t)size || fsync(fd) ||
	    close(fd))
		return 1;
	printf("%zu\n", size);
	return 0;
}

/* -r: N revisions on branch 1 after the newest, in BUF (SIZE bytes). */
static int fill_revs(int fd, char *buf, size_t size, size_t n)
{
	struct mvfs_state_hdr *h = (struct mvfs_state_hdr *)buf;
	size_t nrevs = le32toh(h->nrevs), i;
	struct mvfs_rev3_disk *r;

	if (le32toh(h->format) < 3 || le32toh(h->nbranches) < 2 ||
	    size + n * sizeof(*r) > MVFS_STATE_MAX)
		return 1;
	r = (struct mvfs_rev3_disk *)grow(buf, size,
					  mvfs_state_size(3, nrevs, 0, 0, 0),
					  n, sizeof(*r));
	for (i = 0; i < n; i++) {
		r[i] = r[-1];
		r[i].parent = htole64(nrevs + i);
		r[i].merge = 0;
		r[i].branch = htole32(1);
	}
	h->nrevs = htole32(nrevs + n);
	return finish(fd, buf, size + n * sizeof(*r));
}

static int fill(const char *name, size_t views, size_t revs)
{
	struct mvfs_state_hdr *h;
	struct mvfs_label_disk *l;
	size_t size, add, at, i, vsize, nlabels, nviews;
	unsigned int format;
	struct stat st;
	char *buf, *v;
	int fd;

	fd = open(name, O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		return 1;
	size = st.st_size;
	buf = calloc(1, MVFS_STATE_MAX);
	if (!buf || size > MVFS_STATE_MAX ||
	    pread(fd, buf, size, 0) != (ssize_t)size)
		return 1;
	h = (struct mvfs_state_hdr *)buf;
	format = le32toh(h->format);
	nlabels = le32toh(h->nlabels);
	nviews = le32toh(h->nviews);
	if (!le32toh(h->nrevs) || (views && !nviews))
		return 1;
	if (revs)
		return fill_revs(fd, buf, size, revs);
	if (views) {
		vsize = format < 3 ? sizeof(struct mvfs_view_disk) :
				     sizeof(struct mvfs_view3_disk);
		if (size + views * vsize > MVFS_STATE_MAX)
			return 1;
		at = mvfs_state_size(format, le32toh(h->nrevs), nlabels,
				     nviews, 0);
		v = grow(buf, size, at, views, vsize);
		for (i = 0; i < views; i++) {
			/* The first record: the tag starts each one. */
			memcpy(v + i * vsize, v - nviews * vsize, vsize);
			memset(v + i * vsize, 0, MVFS_NAME_FIELD);
			snprintf(v + i * vsize, MVFS_NAME_FIELD, "v%07zu", i);
		}
		h->nviews = htole32(nviews + views);
		return finish(fd, buf, size + views * vsize);
	}
	add = (MVFS_STATE_MAX - size) / sizeof(*l);
	at = mvfs_state_size(format, le32toh(h->nrevs), nlabels, 0, 0);
	l = (struct mvfs_label_disk *)grow(buf, size, at, add, sizeof(*l));
	for (i = 0; i < add; i++) {
		snprintf(l[i].name, sizeof(l[i].name), "f%07zu", i);
		l[i].rev = htole64(1);
	}
	h->nlabels = htole32(nlabels + add);
	return finish(fd, buf, size + add * sizeof(*l));
}

int main(int argc, char **argv)
{
	size_t views = 0, revs = 0, n = 0;
	char *end;

	if (argc == 4 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "-r"))) {
		n = strtoul(argv[2], &end, 10);
		if (*end || !n)
			goto usage;
		if (argv[1][1] == 'v')
			views = n;
		else
			revs = n;
		argv += 2;
		argc -= 2;
	}
	if (argc != 2)
		goto usage;
	if (fill(argv[1], views, revs)) {
		fprintf(stderr, "statefill: %s: cannot fill\n", argv[1]);
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: statefill [-v N | -r N] FILE\n");
	return 2;
}
