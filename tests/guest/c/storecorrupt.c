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
 * storecorrupt STORE random SEED: one mutation, chosen and placed by
 * SEED (the torture campaign tests/torture/corrupt): a byte of the state
 * flipped with its checksum recomputed (or not), a byte of a tree, an
 * object or the index flipped, a directory entry pointing at its own
 * tree or forwards, a wrong size, a file truncated or missing, a symlink,
 * FIFO or device planted in place of a store file.  Prints one line,
 * "detect WHAT" when mvfs fsck --full must name the problem, "maybe
 * WHAT" when the change may still be a valid store (a revision's time).
 *
 * Exit status 0 when done.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

/*
 * Revision record I (from 0), its size that of the state's format; a
 * format 3 record (struct mvfs_rev3_disk) begins with the older one.
 */
static struct mvfs_rev_disk *rev_rec(__u32 i)
{
	struct mvfs_state_hdr *sh = (void *)state;
	size_t size = mvfs_state_size(le32toh(sh->format), 1, 0, 0, 0) -
		      sizeof(*sh);

	return (void *)(state + sizeof(*sh) + i * size);
}

/* The top tree of the newest revision: its offset and first entries. */
static int top_tree(__u64 *ref, struct mvfs_tree_hdr *h,
		    struct mvfs_entry_disk *e)
{
	struct mvfs_state_hdr *sh = (void *)state;
	__u32 n = le32toh(sh->nrevs);

	if (!n)
		return -1;
	*ref = le64toh(rev_rec(n - 1)->root.ref);
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

/* --- random mutations ---------------------------------------------- */

static const char *store;
static __u64 rs;

static __u64 rnd(__u64 n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return n ? rs % n : 0;
}

#define MAX_TREES	4096
static __u64 trees[MAX_TREES];	/* pack offsets of the reachable trees */
static unsigned int ntrees;
#define MAX_OBJS	4096
static __u64 objs[MAX_OBJS];	/* the objects the trees refer to */
static unsigned int nobjs;

static int read_entry(__u64 tree, __u32 i, struct mvfs_entry_disk *e)
{
	__u64 off = tree + sizeof(struct mvfs_tree_hdr) + i * sizeof(*e);

	return pread(pfd, e, sizeof(*e), off) == sizeof(*e) ? 0 : -1;
}

static __u32 tree_count(__u64 tree)
{
	struct mvfs_tree_hdr h;

	if (pread(pfd, &h, sizeof(h), tree) != sizeof(h))
		return 0;
	return le32toh(h.count);
}

/* Collect TREE and what it reaches (each tree once). */
static void walk(__u64 tree)
{
	struct mvfs_entry_disk e;
	__u32 i, n;

	for (i = 0; i < ntrees; i++)
		if (trees[i] == tree)
			return;
	if (ntrees == MAX_TREES)
		return;
	trees[ntrees++] = tree;
	n = tree_count(tree);
	for (i = 0; i < n && !read_entry(tree, i, &e); i++) {
		if (S_ISDIR(le32toh(e.mode)))
			walk(le64toh(e.ref));
		else if (S_ISREG(le32toh(e.mode)) && e.ref && nobjs < MAX_OBJS)
			objs[nobjs++] = le64toh(e.ref);
	}
}

static void walk_revs(void)
{
	struct mvfs_state_hdr *sh = (void *)state;
	__u32 i;

	for (i = 0; i < le32toh(sh->nrevs); i++)
		walk(le64toh(rev_rec(i)->root.ref));
}

static int flip(int fd, __u64 off)
{
	unsigned char c, mask = 1 + rnd(255);

	if (pread(fd, &c, 1, off) != 1)
		return -1;
	c ^= mask;
	return pwrite(fd, &c, 1, off) == 1 ? 0 : -1;
}

/* A byte of the state, its checksum recomputed unless RAW. */
static int mut_state(bool raw)
{
	__u64 off;

	do
		off = rnd(state_size);
	while (off >= 8 && off < 16);
	state[off] ^= 1 + rnd(255);
	/* Magic, format, size, counts and reserved: a reader refuses. */
	printf("%s state byte %llu flipped%s\n",
	       raw || off < 24 || (off >= 48 && off < 64) ? "detect" : "maybe",
	       (unsigned long long)off, raw ? ", checksum kept" : "");
	if (!raw)
		return save_state();
	return pwrite(sfd, state, state_size, 0) == (ssize_t)state_size ?
	       0 : -1;
}

/* A random entry of a random tree with at least one: its offset. */
static int pick_entry(__u64 *tree, __u32 *i, struct mvfs_entry_disk *e)
{
	int tries;

	for (tries = 0; tries < 64; tries++) {
		*tree = trees[rnd(ntrees)];
		if (!tree_count(*tree))
			continue;
		*i = rnd(tree_count(*tree));
		return read_entry(*tree, *i, e);
	}
	return -1;
}

static int write_entry(__u64 tree, __u32 i, struct mvfs_entry_disk *e)
{
	__u64 off = tree + sizeof(struct mvfs_tree_hdr) + i * sizeof(*e);

	return pwrite(pfd, e, sizeof(*e), off) == sizeof(*e) ? 0 : -1;
}

/* An entry: a byte, its ref (itself, forwards) or its size. */
static int mut_entry(unsigned int how)
{
	struct mvfs_entry_disk e;
	__u64 tree, ref;
	__u32 i;

	if (pick_entry(&tree, &i, &e))
		return -1;
	switch (how) {
	case 0:
		printf("detect tree %llu entry %u: a byte flipped\n",
		       (unsigned long long)tree, i);
		return flip(pfd, tree + sizeof(struct mvfs_tree_hdr) +
			    i * sizeof(e) + rnd(sizeof(e)));
	case 1:
		e.mode = htole32(S_IFDIR | 0755);
		e.ref = htole64(tree);
		printf("detect tree %llu entry %u: a directory of itself\n",
		       (unsigned long long)tree, i);
		break;
	case 2:
		ref = tree + 16 + rnd(le64toh(((struct mvfs_state_hdr *)state)->pack_len) - tree);
		e.ref = htole64(ref);
		printf("detect tree %llu entry %u: ref forwards to %llu\n",
		       (unsigned long long)tree, i, (unsigned long long)ref);
		break;
	default:
		e.size = htole64(le64toh(e.size) + 1 + rnd(3) * 4095);
		printf("detect tree %llu entry %u: size %llu\n",
		       (unsigned long long)tree, i,
		       (unsigned long long)le64toh(e.size));
		break;
	}
	return write_entry(tree, i, &e);
}

/* A store file by number: state, pack, index, an object, a view area. */
static int store_file(char *path, size_t len)
{
	char obj[MVFS_OBJ_PATH_LEN];

	switch (rnd(nobjs ? 6 : 5)) {
	case 0:
		return snprintf(path, len, "%s/state", store);
	case 1:
		return snprintf(path, len, "%s/pack", store);
	case 2:
		return snprintf(path, len, "%s/index", store);
	case 3:
		return snprintf(path, len, "%s/views/corrupt/upper", store);
	case 4:
		return snprintf(path, len, "%s/views/corrupt", store);
	}
	mvfs_object_path(obj, objs[rnd(nobjs)]);
	return snprintf(path, len, "%s/%s", store, obj);
}

/* Replace a store file with a symlink, a FIFO or a device; or remove
 * it; or truncate it.
 */
static int mut_file(unsigned int how)
{
	static const char * const what[] = {
		"a symlink to /dev/zero", "a FIFO", "the device /dev/zero",
		"a symlink to itself", "removed", "truncated"
	};
	char path[4096], cmd[8300];
	struct stat st;
	off_t len;

	store_file(path, sizeof(path));
	if (how == 5) {
		if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
			how = 4;
	}
	printf("detect %s: %s\n", path + strlen(store) + 1, what[how]);
	if (how == 5) {
		len = rnd(st.st_size);
		return truncate(path, len);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd))
		return -1;
	switch (how) {
	case 0:
		return symlink("/dev/zero", path);
	case 1:
		return mkfifo(path, 0644);
	case 2:
		return mknod(path, S_IFCHR | 0644, makedev(1, 5));
	case 3:
		return symlink(path, path);
	}
	return 0;
}

/* A byte of an object or of the index (only mvfs fsck --full sees it). */
static int mut_data(bool index)
{
	char path[4096], obj[MVFS_OBJ_PATH_LEN];
	struct stat st;
	int fd, err;
	__u64 off;

	if (index || !nobjs) {
		snprintf(path, sizeof(path), "%s/index", store);
	} else {
		mvfs_object_path(obj, objs[rnd(nobjs)]);
		snprintf(path, sizeof(path), "%s/%s", store, obj);
	}
	fd = open(path, O_RDWR);
	if (fd < 0 || fstat(fd, &st) || !st.st_size)
		return -1;
	/* Objects are 0444: open as root.  An index record's ref, flipped,
	 * may name what the rules ignore (past next_object or pack_len).
	 */
	off = rnd(st.st_size);
	printf("%s %s: byte %llu flipped\n",
	       index && off % 16 >= 8 ? "maybe" : "detect",
	       path + strlen(store) + 1, (unsigned long long)off);
	err = flip(fd, off);
	close(fd);
	return err;
}

static int mutate(const char *dir, const char *seed)
{
	unsigned int kind;

	store = dir;
	/* splitmix64 of the seed: near seeds give unrelated sequences. */
	rs = strtoull(seed, NULL, 10) + 0x9e3779b97f4a7c15ULL;
	rs = (rs ^ (rs >> 30)) * 0xbf58476d1ce4e5b9ULL;
	rs = (rs ^ (rs >> 27)) * 0x94d049bb133111ebULL;
	rs = (rs ^ (rs >> 31)) | 1;
	walk_revs();
	if (!ntrees)
		return -1;
	kind = rnd(13);
	if (kind < 3)
		return mut_state(kind == 2);
	if (kind < 7)
		return mut_entry(kind - 3);
	if (kind < 11)
		return mut_file(rnd(6));
	return mut_data(kind == 12);
}

int main(int argc, char **argv)
{
	struct mvfs_state_hdr *sh;
	struct mvfs_label_disk *l;
	char path[4096];
	int err;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[2], "random"))) {
		fprintf(stderr, "usage: storecorrupt STORE KIND | STORE random SEED\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/state", argv[1]);
	sfd = open(path, O_RDWR);
	snprintf(path, sizeof(path), "%s/pack", argv[1]);
	pfd = open(path, O_RDWR);
	if (sfd < 0 || pfd < 0 || load_state())
		return 1;
	sh = (void *)state;
	if (argc == 4) {
		err = mutate(argv[1], argv[3]);
	} else if (!strcmp(argv[2], "labelrev")) {
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
