// SPDX-License-Identifier: GPL-2.0
/*
 * cs3 STORE OP ...: make a store format 3 byte by byte, and change what
 * only format 3 has, so that the module's reading of format 3 can be
 * tested apart from the tools, which write it too.  The state is
 * rewritten with a matching checksum; nothing is checked beyond what it
 * needs to find its records: a test may craft what it likes.
 *
 *   up                      a format 1 or 2 store becomes format 3: each
 *                           revision's parent is the one before it, on
 *                           main; views take the one-rule spec of their
 *                           selection (its text appended to the pack)
 *   setcs TAG FILE          view TAG's spec is FILE's bytes (appended)
 *   mkbranch NAME FROM      a branch record, starting from FROM
 *   onbranch REV NAME PARENT  revision REV is on branch NAME, from PARENT
 *
 * Exit status 0 when done, 1 when it failed, 2 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include "mvfs_format.h"

static unsigned char *st;
static size_t st_size;
static char path[4096];

static int load(const char *dir)
{
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, MVFS_STATE_FILE);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END))
		return -1;
	n = ftell(f);
	if (n < 64 || fseek(f, 0, SEEK_SET))
		return -1;
	st_size = n;
	st = malloc(st_size);
	if (!st || fread(st, 1, st_size, f) != st_size)
		return -1;
	fclose(f);
	return 0;
}

static struct mvfs_state_hdr *hdr(void)
{
	return (struct mvfs_state_hdr *)st;
}

/* Write the state with its size and checksum, by rename. */
static int save(const char *dir)
{
	char tmp[4200];
	FILE *f;

	hdr()->size = htole64(st_size);
	hdr()->checksum = 0;
	hdr()->checksum = htole64(mvfs_fnv64(MVFS_FNV64_INIT, st, st_size));
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, MVFS_STATE_TMP);
	f = fopen(tmp, "wb");
	if (!f || fwrite(st, 1, st_size, f) != st_size || fclose(f))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, MVFS_STATE_FILE);
	return rename(tmp, path);
}

/* Append LEN bytes to the pack at its committed length; their offset. */
static __u64 pack_put(const char *dir, const void *buf, size_t len)
{
	__u64 off = le64toh(hdr()->pack_len);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, MVFS_PACK_FILE);
	fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, buf, len, off) != (ssize_t)len ||
	    fsync(fd) || close(fd)) {
		perror("cs3: pack");
		exit(1);
	}
	hdr()->pack_len = htole64(off + len);
	return off;
}

static size_t off_labels(void)
{
	return 64 + (size_t)le32toh(hdr()->nrevs) *
		    sizeof(struct mvfs_rev3_disk);
}

static size_t off_views(void)
{
	return off_labels() + (size_t)le32toh(hdr()->nlabels) *
			      sizeof(struct mvfs_label_disk);
}

static size_t off_branches(void)
{
	return off_views() + (size_t)le32toh(hdr()->nviews) *
			     sizeof(struct mvfs_view3_disk);
}

/* The one-rule spec of a format 2 view record, into buf. */
static void view2_spec(const struct mvfs_view_disk *v, char *buf, size_t n)
{
	switch (le32toh(v->select)) {
	case MVFS_SEL_REV:
		snprintf(buf, n, "element * %llu\n",
			 (unsigned long long)le64toh(v->rev));
		break;
	case MVFS_SEL_LABEL:
		snprintf(buf, n, "element * %.64s\n", v->label);
		break;
	default:
		snprintf(buf, n, "element * LATEST\n");
	}
}

static int op_up(const char *dir)
{
	__u32 nrevs = le32toh(hdr()->nrevs), nlabels = le32toh(hdr()->nlabels);
	__u32 nviews = le32toh(hdr()->nviews), i;
	const unsigned char *p = st + 64;
	struct mvfs_rev3_disk *r;
	struct mvfs_view3_disk *v;
	struct mvfs_branch_disk *b;
	unsigned char *out, *o;
	char spec[128];
	size_t size;

	if (le32toh(hdr()->format) > 2)
		return fprintf(stderr, "cs3: format 3 already\n"), 1;
	size = mvfs_state_size(3, nrevs, nlabels, nviews, 1);
	out = calloc(1, size);
	if (!out)
		return 1;
	memcpy(out, st, 64);
	o = out + 64;
	for (i = 0; i < nrevs; i++, p += sizeof(struct mvfs_rev_disk)) {
		r = (struct mvfs_rev3_disk *)o;
		memcpy(&r->r, p, sizeof(r->r));
		r->parent = htole64(i);
		o += sizeof(*r);
	}
	memcpy(o, p, (size_t)nlabels * sizeof(struct mvfs_label_disk));
	o += (size_t)nlabels * sizeof(struct mvfs_label_disk);
	p += (size_t)nlabels * sizeof(struct mvfs_label_disk);
	for (i = 0; i < nviews; i++, p += sizeof(struct mvfs_view_disk)) {
		const struct mvfs_view_disk *v2 = (const void *)p;

		v = (struct mvfs_view3_disk *)o;
		memcpy(v->tag, v2->tag, sizeof(v->tag));
		view2_spec(v2, spec, sizeof(spec));
		v->cs_off = htole64(pack_put(dir, spec, strlen(spec)));
		v->cs_len = htole32(strlen(spec));
		v->uid = v2->uid;
		v->gid = v2->gid;
		v->mode = v2->mode;
		o += sizeof(*v);
	}
	b = (struct mvfs_branch_disk *)o;
	strcpy(b->name, MVFS_MAIN_BRANCH);
	memcpy(out, st, 64);
	((struct mvfs_state_hdr *)out)->pack_len = hdr()->pack_len;
	((struct mvfs_state_hdr *)out)->format = htole32(3);
	((struct mvfs_state_hdr *)out)->nbranches = htole32(1);
	free(st);
	st = out;
	st_size = size;
	return 0;
}

static struct mvfs_view3_disk *view_of(const char *tag)
{
	struct mvfs_view3_disk *v = (void *)(st + off_views());
	__u32 i;

	for (i = 0; i < le32toh(hdr()->nviews); i++)
		if (!strncmp(v[i].tag, tag, sizeof(v[i].tag)))
			return &v[i];
	return NULL;
}

static int op_setcs(const char *dir, const char *tag, const char *file)
{
	struct mvfs_view3_disk *v = view_of(tag);
	static char buf[1 << 20];
	size_t n;
	FILE *f;

	if (!v)
		return fprintf(stderr, "cs3: no view %s\n", tag), 1;
	f = fopen(file, "rb");
	if (!f)
		return perror(file), 1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	v->cs_off = htole64(pack_put(dir, buf, n));
	v->cs_len = htole32(n);
	return 0;
}

static long branch_index(const char *name)
{
	struct mvfs_branch_disk *b = (void *)(st + off_branches());
	__u32 i;

	for (i = 0; i < le32toh(hdr()->nbranches); i++)
		if (!strncmp(b[i].name, name, sizeof(b[i].name)))
			return i;
	return -1;
}

static int op_mkbranch(const char *name, const char *from)
{
	struct mvfs_branch_disk b = { .from = htole64(strtoull(from, NULL,
							       10)) };

	strncpy(b.name, name, sizeof(b.name) - 1);
	st = realloc(st, st_size + sizeof(b));
	if (!st)
		return 1;
	memcpy(st + st_size, &b, sizeof(b));
	st_size += sizeof(b);
	hdr()->nbranches = htole32(le32toh(hdr()->nbranches) + 1);
	return 0;
}

static int op_onbranch(const char *rev, const char *name, const char *parent)
{
	unsigned long long n = strtoull(rev, NULL, 10);
	struct mvfs_rev3_disk *r = (void *)(st + 64);
	long b = branch_index(name);

	if (b < 0 || !n || n > le32toh(hdr()->nrevs))
		return fprintf(stderr, "cs3: no branch %s or rev %s\n", name,
			       rev), 1;
	r[n - 1].branch = htole32(b);
	r[n - 1].parent = htole64(strtoull(parent, NULL, 10));
	return 0;
}

int main(int argc, char **argv)
{
	int err;

	if (argc < 3)
		goto usage;
	if (load(argv[1]))
		return fprintf(stderr, "cs3: cannot read %s\n", path), 1;
	if (!strcmp(argv[2], "up") && argc == 3)
		err = op_up(argv[1]);
	else if (le32toh(hdr()->format) != 3)
		return fprintf(stderr, "cs3: not format 3 (run up)\n"), 1;
	else if (!strcmp(argv[2], "setcs") && argc == 5)
		err = op_setcs(argv[1], argv[3], argv[4]);
	else if (!strcmp(argv[2], "mkbranch") && argc == 5)
		err = op_mkbranch(argv[3], argv[4]);
	else if (!strcmp(argv[2], "onbranch") && argc == 6)
		err = op_onbranch(argv[3], argv[4], argv[5]);
	else
		goto usage;
	if (!err && save(argv[1]))
		return perror("cs3: state"), 1;
	return err;
usage:
	fprintf(stderr, "usage: cs3 STORE up | setcs TAG FILE |\n"
		"           mkbranch NAME FROM | onbranch REV NAME PARENT\n");
	return 2;
}
