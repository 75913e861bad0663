// SPDX-License-Identifier: GPL-2.0
/*
 * statefix FILE: verify an mvfs store's state file as the format says
 * (mvfs_format.h): magic, format, the size field against the file's size,
 * the checksum, mvfs_fnv64 of the whole file with the checksum field read
 * as 0, and that the records of the format fill the file; format 3: the
 * branch record main first, and the reserved fields of its revision and
 * view records 0.  Prints what it found; exit status 0 when all of it
 * holds.
 *
 * statefix -f FORMAT FILE, statefix -m MAGIC FILE: rewrite the format
 * number or the magic in place and store a checksum that matches, to make
 * a state that is well formed but not one a reader may accept.
 *
 * statefix -w OFFSET:WIDTH:VALUE FILE: write VALUE as a little-endian
 * integer of WIDTH (1, 2, 4 or 8) bytes at OFFSET, then store a checksum
 * that matches, so that the checks after the checksum are reached.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <endian.h>
#include "mvfs_format.h"

/* The newest format whose records verify() knows. */
#define STATEFIX_FORMAT_MAX	3

static unsigned char *data;
static size_t size;

static int load(const char *name)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(name, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	size = st.st_size;
	data = malloc(size + 1);
	if (!data)
		return -1;
	n = read(fd, data, size);
	close(fd);
	return n == (ssize_t)size ? 0 : -1;
}

static int save(const char *name)
{
	ssize_t n;
	int fd;

	fd = open(name, O_WRONLY);
	if (fd < 0)
		return -1;
	n = pwrite(fd, data, size, 0);
	if (fsync(fd) || close(fd))
		return -1;
	return n == (ssize_t)size ? 0 : -1;
}

static __u64 checksum(void)
{
	const size_t at = offsetof(struct mvfs_state_hdr, checksum);
	static const unsigned char zero[8];
	__u64 h = MVFS_FNV64_INIT;

	h = mvfs_fnv64(h, data, at);
	h = mvfs_fnv64(h, zero, sizeof(zero));
	return mvfs_fnv64(h, data + at + 8, size - at - 8);
}

/*
 * Format 3's records, in a file that they fill: record 0 of the branches
 * is main from 0; the reserved fields of revisions and views are 0.
 */
static int verify_v3(const struct mvfs_state_hdr *hdr)
{
	const struct mvfs_rev3_disk *r = (const void *)(hdr + 1);
	__u32 nrevs = le32toh(hdr->nrevs), nviews = le32toh(hdr->nviews);
	const struct mvfs_view3_disk *v;
	const struct mvfs_branch_disk *b;
	int bad = 0;
	__u32 i;

	v = (const void *)(data + mvfs_state_size(3, nrevs,
						  le32toh(hdr->nlabels), 0, 0));
	b = (const void *)(v + nviews);
	if (!hdr->nbranches || strncmp(b->name, MVFS_MAIN_BRANCH,
				       sizeof(b->name)) || b->from)
		bad = printf("branch record 0 is not main from 0\n");
	for (i = 0; i < nrevs; i++)
		if (r[i].reserved)
			bad = printf("revision %u: the reserved field is set\n",
				     i + 1);
	for (i = 0; i < nviews; i++)
		if (v[i].reserved)
			bad = printf("view record %u: the reserved field is set\n",
				     i + 1);
	return bad;
}

/* Check each rule of the header on its own and say which fail. */
static int verify(struct mvfs_state_hdr *hdr)
{
	int bad = 0, known = 1, fills = 0;

	printf("magic %#x format %u size %llu (file %zu) checksum %#llx\n",
	       le32toh(hdr->magic), le32toh(hdr->format),
	       (unsigned long long)le64toh(hdr->size), size,
	       (unsigned long long)le64toh(hdr->checksum));
	if (le32toh(hdr->magic) != MVFS_STATE_MAGIC)
		bad = printf("bad magic\n");
	if (le32toh(hdr->format) < MVFS_FORMAT_MIN ||
	    le32toh(hdr->format) > STATEFIX_FORMAT_MAX)
		known = 0;
	if (!known)
		bad = printf("not a format %d to %d state\n", MVFS_FORMAT_MIN,
			     STATEFIX_FORMAT_MAX);
	if (le64toh(hdr->size) != size)
		bad = printf("the size field is wrong\n");
	if (le64toh(hdr->checksum) != checksum())
		bad = printf("the checksum is wrong (computed %#llx)\n",
			     (unsigned long long)checksum());
	/* The records' sizes depend on the format: only a known one. */
	if (known &&
	    mvfs_state_size(le32toh(hdr->format), le32toh(hdr->nrevs),
			    le32toh(hdr->nlabels), le32toh(hdr->nviews),
			    le32toh(hdr->nbranches)) == size)
		fills = 1;
	else if (known)
		bad = printf("the records do not fill the file\n");
	if (known && le32toh(hdr->format) < 3 && hdr->nbranches)
		bad = printf("the reserved field is set\n");
	if (fills && le32toh(hdr->format) == 3 && verify_v3(hdr))
		bad = 1;
	if (!bad)
		printf("valid\n");
	return !!bad;
}

/* -w OFFSET:WIDTH:VALUE: write a little-endian integer. */
static int poke(const char *spec)
{
	unsigned long long off, width, value;
	int i;

	if (sscanf(spec, "%llu:%llu:%lli", &off, &width, &value) != 3 ||
	    (width != 1 && width != 2 && width != 4 && width != 8) ||
	    off + width > size)
		return -1;
	for (i = 0; i < (int)width; i++)
		data[off + i] = (unsigned char)(value >> (8 * i));
	return 0;
}

int main(int argc, char **argv)
{
	long format = -1, magic = -1;
	struct mvfs_state_hdr *hdr;
	const char *w = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "f:m:w:")) != -1) {
		switch (opt) {
		case 'w':
			w = optarg;
			break;
		case 'f':
			format = strtol(optarg, NULL, 0);
			break;
		case 'm':
			magic = strtol(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	if (load(argv[optind])) {
		fprintf(stderr, "statefix: cannot read %s\n", argv[optind]);
		return 1;
	}
	if (size < sizeof(*hdr)) {
		printf("%zu bytes: shorter than a state header\n", size);
		return 1;
	}
	hdr = (struct mvfs_state_hdr *)data;
	if (format < 0 && magic < 0 && !w)
		return verify(hdr);
	if (w && poke(w)) {
		fprintf(stderr, "statefix: bad -w %s\n", w);
		return 2;
	}
	if (format >= 0)
		hdr->format = htole32(format);
	if (magic >= 0)
		hdr->magic = htole32(magic);
	hdr->checksum = htole64(checksum());
	if (save(argv[optind])) {
		fprintf(stderr, "statefix: cannot write %s: %s\n",
			argv[optind], strerror(errno));
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: statefix [-f FORMAT] [-m MAGIC] [-w OFF:WIDTH:VALUE] FILE\n");
	return 2;
}
