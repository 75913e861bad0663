// SPDX-License-Identifier: GPL-2.0
/*
 * mkstore [-f FORMAT] DIR CASE [N]: write a small mvfs store into DIR
 * (made if missing), crafted byte by byte so that it can break the rules
 * of docs/FORMAT.md in the ways the module must refuse.  One revision
 * whose top holds file ("good\n", object 0x100), link (-> file) and sub
 * (an empty directory); one view, t, mode 0755, following the newest
 * revision (format 3: its spec "element * LATEST", at the pack's end;
 * formats 2 and 3: its area views/t).  FORMAT is 1, 2 or 3, by default
 * MVFS_FORMAT, what mvfs init writes.  CASE:
 *
 *   good      as above
 *   cycle     the top also holds self, a directory whose tree is the top's
 *   forward   sub's tree lies after the top's tree in the pack
 *   wrap      link's ref is 2^64 - 3, so that ref + size wraps
 *   huge      file's size is 2^63 (a negative i_size)
 *   reserved  file's entry has its reserved field set
 *   deep      the top also holds deep, a chain of N (default 2100)
 *             directories named d
 *   latin1    a label named "lab\xe9" (Latin-1, not a valid name)
 *   revs      N (default 2100) revisions, each with the good top
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <endian.h>
#include "mvfs_format.h"

static_assert(MVFS_FORMAT <= 3, "mkstore writes formats 1 to 3 only");

#define SPEC_LATEST	"element * LATEST\n"

static unsigned int format = MVFS_FORMAT;
static unsigned char *pack;
static size_t pack_len, pack_cap;

static __u64 put(const void *buf, size_t len)
{
	__u64 off = pack_len;

	if (pack_len + len > pack_cap) {
		pack_cap = (pack_len + len) * 2;
		pack = realloc(pack, pack_cap);
		if (!pack) {
			perror("mkstore");
			exit(1);
		}
	}
	memcpy(pack + pack_len, buf, len);
	pack_len += len;
	return off;
}

struct ent {
	const char *name;
	__u32 mode;
	__u64 size, ref;
	__u16 reserved;
};

/* The bytes of a tree of N entries, sorted by the caller. */
static size_t tree_bytes(const struct ent *e, int n, unsigned char *out)
{
	struct mvfs_tree_hdr h = { .magic = htole32(MVFS_TREE_MAGIC) };
	struct mvfs_entry_disk d;
	size_t at = sizeof(h) + n * sizeof(d), names = 0;
	int i;

	h.count = htole32(n);
	for (i = 0; i < n; i++)
		names += strlen(e[i].name);
	h.names_len = htole32(names);
	memcpy(out, &h, sizeof(h));
	names = 0;
	for (i = 0; i < n; i++) {
		memset(&d, 0, sizeof(d));
		d.name_off = htole32(names);
		d.name_len = htole16(strlen(e[i].name));
		d.reserved = htole16(e[i].reserved);
		d.mode = htole32(e[i].mode);
		d.mtime = htole64(1700000000);
		d.size = htole64(e[i].size);
		d.ref = htole64(e[i].ref);
		memcpy(out + sizeof(h) + i * sizeof(d), &d, sizeof(d));
		memcpy(out + at + names, e[i].name, strlen(e[i].name));
		names += strlen(e[i].name);
	}
	return at + names;
}

static __u64 put_tree(const struct ent *e, int n)
{
	unsigned char buf[4096];

	return put(buf, tree_bytes(e, n, buf));
}

static int write_file(const char *dir, const char *name, const void *buf,
		      size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd)) {
		fprintf(stderr, "mkstore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Revision I + 1 of the top TOP at BUF + *N: its parent is I, on main. */
static void put_rev(unsigned char *buf, size_t *n, __u32 i, __u64 top,
		    __u32 top_size)
{
	struct mvfs_rev3_disk r = { 0 };

	r.r.root.mode = htole32(S_IFDIR | 0755);
	r.r.root.size = htole64(top_size);
	r.r.root.ref = htole64(top);
	r.parent = htole64(i);
	if (format < 3) {
		memcpy(buf + *n, &r.r, sizeof(r.r));
		*n += sizeof(r.r);
	} else {
		memcpy(buf + *n, &r, sizeof(r));
		*n += sizeof(r);
	}
}

/* View t, mode 0755, following the newest revision; format 3: SPEC. */
static void put_view(unsigned char *buf, size_t *n, __u64 spec)
{
	struct mvfs_view3_disk v3 = { .tag = "t" };
	struct mvfs_view_disk v = { .tag = "t" };

	if (format < 3) {
		v.select = htole32(MVFS_SEL_LATEST);
		v.mode = htole32(0755);
		memcpy(buf + *n, &v, sizeof(v));
		*n += sizeof(v);
	} else {
		v3.cs_off = htole64(spec);
		v3.cs_len = htole32(strlen(SPEC_LATEST));
		v3.mode = htole32(0755);
		memcpy(buf + *n, &v3, sizeof(v3));
		*n += sizeof(v3);
	}
}

/*
 * The state: NREVS revisions of the top TOP, LABEL if set, view t (its
 * spec at pack offset SPEC), format 3: the branch main.
 */
static int write_state(const char *dir, __u64 top, __u32 top_size,
		       const char *label, __u32 nrevs, __u64 spec)
{
	struct mvfs_state_hdr h = { .magic = htole32(MVFS_STATE_MAGIC) };
	struct mvfs_branch_disk b = { .name = MVFS_MAIN_BRANCH };
	struct mvfs_label_disk l = { 0 };
	__u32 nbranches = format < 3 ? 0 : 1;
	size_t n = 0, size = mvfs_state_size(format, nrevs, label ? 1 : 0, 1,
					     nbranches);
	unsigned char *buf = malloc(size);
	__u32 i;
	int err;

	if (!buf)
		return perror("mkstore"), -1;
	h.format = htole32(format);
	h.pack_len = htole64(pack_len);
	h.next_object = htole64(0x200);
	h.nrevs = htole32(nrevs);
	h.nlabels = htole32(label ? 1 : 0);
	h.nviews = htole32(1);
	h.nbranches = htole32(nbranches);
	h.size = htole64(size);
	n = sizeof(h);
	for (i = 0; i < nrevs; i++)
		put_rev(buf, &n, i, top, top_size);
	if (label) {
		strcpy(l.name, label);
		l.rev = htole64(1);
		memcpy(buf + n, &l, sizeof(l));
		n += sizeof(l);
	}
	put_view(buf, &n, spec);
	if (nbranches) {
		memcpy(buf + n, &b, sizeof(b));
		n += sizeof(b);
	}
	memcpy(buf, &h, sizeof(h));
	h.checksum = htole64(mvfs_fnv64(MVFS_FNV64_INIT, buf, n));
	memcpy(buf, &h, sizeof(h));
	err = write_file(dir, MVFS_STATE_FILE, buf, n);
	free(buf);
	return err;
}

/* DIR, objects/00 with object 0x100, an empty index; views/t from 2. */
static int make_dirs(const char *dir)
{
	static const char * const dirs[] = {
		"", "/objects", "/objects/00", "/views", "/views/t",
		"/views/t/upper", "/views/t/work",
	};
	unsigned int i, n = format < 2 ? 3 : 7;
	char path[4096];

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s%s", dir, dirs[i]);
		if (mkdir(path, i < 4 ? 0755 : 0700) && errno != EEXIST)
			return perror("mkstore: mkdir"), -1;
	}
	if (write_file(dir, "objects/00/100", "good\n", 5) ||
	    write_file(dir, MVFS_INDEX_FILE, "", 0))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct mvfs_pack_hdr ph = { .magic = htole32(MVFS_PACK_MAGIC),
				    .format = htole32(MVFS_PACK_FORMAT) };
	struct ent top[5], chain = { "d", S_IFDIR | 0755, 0, 0, 0 };
	unsigned char scratch[4096];
	const char *dir, *c;
	__u64 empty, target, top_off, spec;
	int n = 0, i, depth, opt;

	while ((opt = getopt(argc, argv, "f:")) != -1) {
		format = opt == 'f' ? strtoul(optarg, NULL, 10) : 0;
		if (format < 1 || format > 3)
			goto usage;
	}
	if (argc - optind < 2)
		goto usage;
	dir = argv[optind];
	c = argv[optind + 1];
	depth = argc - optind > 2 ? atoi(argv[optind + 2]) : 2100;
	if (make_dirs(dir))
		return 1;
	put(&ph, sizeof(ph));
	empty = put_tree(NULL, 0);
	target = put("file", 4);
	top[n++] = (struct ent){ "deep", S_IFDIR | 0755, 0, 0, 0 };
	if (!strcmp(c, "deep")) {
		chain.ref = empty;
		for (i = 1; i < depth; i++) {
			chain.size = 1;
			chain.ref = put_tree(&chain, 1);
		}
		top[0].size = 1;
		top[0].ref = put_tree(&chain, 1);
	} else {
		n = 0;
	}
	top[n++] = (struct ent){ "file", S_IFREG | 0644, 5, 0x100, 0 };
	top[n++] = (struct ent){ "link", S_IFLNK | 0777, 4, target, 0 };
	if (!strcmp(c, "cycle"))
		top[n++] = (struct ent){ "self", S_IFDIR | 0755, 5, 0, 0 };
	top[n++] = (struct ent){ "sub", S_IFDIR | 0755, 0, empty, 0 };
	top_off = pack_len;
	for (i = 0; i < n; i++) {
		if (!strcmp(top[i].name, "self"))
			top[i].ref = top_off;
		if (!strcmp(c, "forward") && !strcmp(top[i].name, "sub"))
			top[i].ref = top_off + tree_bytes(top, n, scratch);
		if (!strcmp(c, "wrap") && !strcmp(top[i].name, "link"))
			top[i].ref = ~0ULL - 2;
		if (!strcmp(c, "huge") && !strcmp(top[i].name, "file"))
			top[i].size = 1ULL << 63;
		if (!strcmp(c, "reserved") && !strcmp(top[i].name, "file"))
			top[i].reserved = 1;
	}
	put_tree(top, n);
	if (!strcmp(c, "forward"))
		put_tree(NULL, 0);
	spec = format < 3 ? 0 : put(SPEC_LATEST, strlen(SPEC_LATEST));
	if (write_file(dir, MVFS_PACK_FILE, pack, pack_len))
		return 1;
	return write_state(dir, top_off, n,
			   !strcmp(c, "latin1") ? "lab\xe9" : NULL,
			   !strcmp(c, "revs") ? depth : 1, spec) ? 1 : 0;
usage:
	fprintf(stderr, "usage: mkstore [-f 1|2|3] DIR CASE [N]\n");
	return 2;
}
