// SPDX-License-Identifier: GPL-2.0
/*
 * storecorrupt STORE KIND: break one rule of docs/FORMAT.md in the top
 * tree of the newest revision (which needs at least two entries, the
 * second a symlink, the third a directory, in name order), or in the
 * state, its checksum recomputed so that only that rule is broken:
 *
 *   unsorted  swap the names of entries 0 and 1
 *   dupname   entry 1 takes entry 0's name
 *   badname   entry 0's name gets a '/'
 *   cycle     entry 2 (a directory) points at the top tree itself
 *   linkrange entry 1 (a symlink) points past pack_len
 *   reserved  entry 0's reserved field is not 0
 *   labelrev  label 0 names a revision that does not exist
 *
 * Exit status 0 when done.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mvfs_format.h"

static int sfd, pfd;
static char *state;
static size_t state_size;

static int load_state(void)
{
	struct stat st;

	if (fstat(sfd, &st))
		return -1;
	state_size = st.st_size;
	state = malloc(state_size);
	return pread(sfd, state, state_size, 0) == (ssize_t)state_size ? 0 : -1;
}

static int save_state(void)
{
	struct mvfs_state_hdr *h = (void *)state;

	h->checksum = 0;
	h->checksum = htole64(mvfs_fnv64(MVFS_FNV64_INIT, state, state_size));
	return pwrite(sfd, state, state_size, 0) == (ssize_t)state_size &&
	       !fsync(sfd) ? 0 : -1;
}

/* The top tree of the newest revision: its offset and first entries. */
static int top_tree(__u64 *ref, struct mvfs_tree_hdr *h,
		    struct mvfs_entry_disk *e)
{
	struct mvfs_state_hdr *sh = (void *)state;
	struct mvfs_rev_disk *r = (void *)(sh + 1);
	__u32 n = le32toh(sh->nrevs);

	if (!n)
		return -1;
	*ref = le64toh(r[n - 1].root.ref);
	if (pread(pfd, h, sizeof(*h), *ref) != sizeof(*h) ||
	    le32toh(h->count) < 3)
		return -1;
	return pread(pfd, e, 3 * sizeof(*e), *ref + sizeof(*h)) ==
	       3 * sizeof(*e) ? 0 : -1;
}

static int corrupt_tree(const char *kind)
{
	struct mvfs_state_hdr *sh = (void *)state;
	struct mvfs_entry_disk e[3], t;
	struct mvfs_tree_hdr h;
	__u64 ref, names;
	char c = '/';

	if (top_tree(&ref, &h, e))
		return -1;
	names = ref + sizeof(h) + le32toh(h.count) * sizeof(e[0]);
	if (!strcmp(kind, "unsorted")) {
		t = e[0];
		e[0].name_off = e[1].name_off;
		e[0].name_len = e[1].name_len;
		e[1].name_off = t.name_off;
		e[1].name_len = t.name_len;
	} else if (!strcmp(kind, "dupname")) {
		e[1].name_off = e[0].name_off;
		e[1].name_len = e[0].name_len;
	} else if (!strcmp(kind, "badname")) {
		if (pwrite(pfd, &c, 1, names + le32toh(e[0].name_off)) != 1)
			return -1;
	} else if (!strcmp(kind, "cycle")) {
		e[2].ref = htole64(ref);
	} else if (!strcmp(kind, "linkrange")) {
		e[1].ref = htole64(le64toh(sh->pack_len) + 100);
	} else if (!strcmp(kind, "reserved")) {
		e[0].reserved = htole16(1);
	} else {
		return -1;
	}
	if (pwrite(pfd, e, sizeof(e), ref + sizeof(h)) != sizeof(e))
		return -1;
	return fsync(pfd);
}

int main(int argc, char **argv)
{
	struct mvfs_state_hdr *sh;
	struct mvfs_label_disk *l;
	char path[4096];
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: storecorrupt STORE KIND\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/state", argv[1]);
	sfd = open(path, O_RDWR);
	snprintf(path, sizeof(path), "%s/pack", argv[1]);
	pfd = open(path, O_RDWR);
	if (sfd < 0 || pfd < 0 || load_state())
		return 1;
	sh = (void *)state;
	if (!strcmp(argv[2], "labelrev")) {
		l = (void *)(state + mvfs_state_size(le32toh(sh->format),
						 le32toh(sh->nrevs), 0, 0, 0));
		if (!le32toh(sh->nlabels))
			return 1;
		l->rev = htole64(le32toh(sh->nrevs) + 7);
		err = save_state();
	} else {
		err = corrupt_tree(argv[2]);
	}
	if (err)
		fprintf(stderr, "storecorrupt: %s: failed\n", argv[2]);
	return err ? 1 : 0;
}
