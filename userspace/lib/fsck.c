// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.c: mvfs fsck, the checker of every rule of docs/FORMAT.md.
 *
 * As e2fsck, in passes: the state (its header as a reader checks it, then
 * every record), the trees of every revision and the objects they refer
 * to (fsck_tree.c), the pack, the index and objects/ (fsck_files.c), and
 * the private areas of format 2.  Each problem is one line on stdout,
 * "store DIR: WHAT".  --repair removes what is garbage by the rules
 * (bytes past the committed ends, objects no revision refers to, leftover
 * temporary files, areas of no view) and makes missing view areas; it
 * never removes or changes committed history, and removes no object while
 * some tree could not be read (its objects would look unreferenced).
 *
 * The writers' lock is held throughout, so that a running import's bytes
 * are not taken for garbage.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "err.h"
#include "fsck.h"

/**
 * mvfs_fsck_problem - report one problem, on a line of its own
 * @f: the check
 * @fmt: printf format, without the store or a newline
 */
void mvfs_fsck_problem(struct mvfs_fsck *f, const char *fmt, ...)
{
	va_list ap;

	f->problems++;
	printf("store %s: ", f->s->dir);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/**
 * mvfs_fsck_repaired - report the outcome of repairing the last problem
 * @f: the check
 * @err: 0, or why the repair failed
 * @what: what was done ("removed")
 */
void mvfs_fsck_repaired(struct mvfs_fsck *f, int err, const char *what)
{
	if (err) {
		printf("  not repaired: %s\n", strerror(-err));
		return;
	}
	f->repaired++;
	printf("  repaired: %s\n", what);
}

static size_t mvfs_map_slot(const struct mvfs_map *m, __u64 key)
{
	size_t mask = m->nslots - 1, i;

	i = (key * 0x9e3779b97f4a7c15ULL) >> 20 & mask;
	while (m->keys[i] && m->keys[i] != key + 1)
		i = (i + 1) & mask;
	return i;
}

/**
 * mvfs_map_get - look @key up
 * @m: the map
 * @key: the key
 * @val: set to its value when found, if not NULL
 *
 * Return: true when found.
 */
bool mvfs_map_get(const struct mvfs_map *m, __u64 key, __u64 *val)
{
	size_t i;

	if (!m->nslots)
		return false;
	i = mvfs_map_slot(m, key);
	if (!m->keys[i])
		return false;
	if (val)
		*val = m->vals[i];
	return true;
}

static int mvfs_map_grow(struct mvfs_map *m)
{
	struct mvfs_map new = { .nslots = m->nslots ? m->nslots * 2 : 1024 };
	size_t i, j;

	new.keys = calloc(new.nslots, sizeof(*new.keys));
	new.vals = calloc(new.nslots, sizeof(*new.vals));
	if (!new.keys || !new.vals) {
		free(new.keys);
		free(new.vals);
		return mvfs_err(-ENOMEM, "out of memory");
	}
	for (i = 0; i < m->nslots; i++) {
		if (!m->keys[i])
			continue;
		j = mvfs_map_slot(&new, m->keys[i] - 1);
		new.keys[j] = m->keys[i];
		new.vals[j] = m->vals[i];
	}
	new.n = m->n;
	free(m->keys);
	free(m->vals);
	*m = new;
	return 0;
}

/**
 * mvfs_map_put - set @key to @val
 * @m: the map
 * @key: the key, below U64_MAX
 * @val: its value
 *
 * Return: 0 or -ENOMEM.
 */
int mvfs_map_put(struct mvfs_map *m, __u64 key, __u64 val)
{
	size_t i;
	int err;

	if ((m->n + 1) * 2 > m->nslots) {
		err = mvfs_map_grow(m);
		if (err)
			return err;
	}
	i = mvfs_map_slot(m, key);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key + 1;
	m->vals[i] = val;
	return 0;
}

static void mvfs_map_free(struct mvfs_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* The state's records: what a reader checks, and the rest of the rules. */

static void mvfs_fsck_revs(struct mvfs_fsck *f)
{
	const struct mvfs_store *s = f->s;
	const struct mvfs_rev_disk *r;
	__u64 off;
	__u32 i, len;

	for (i = 0; i < s->nrevs; i++) {
		r = &s->revs[i].r;
		if (!S_ISDIR(le32toh(r->root.mode)))
			mvfs_fsck_problem(f, "revision %u: root is not a directory",
					  i + 1);
		if (r->root.name_off || r->root.name_len || r->root.reserved)
			mvfs_fsck_problem(f, "revision %u: root has a name or reserved bits",
					  i + 1);
		off = le64toh(r->msg_off);
		len = le32toh(r->msg_len);
		if (off > s->pack_len || len > s->pack_len - off)
			mvfs_fsck_problem(f, "revision %u: message at %llu+%u past pack_len %llu",
					  i + 1, off, len, s->pack_len);
		if (le64toh(s->revs[i].parent) > i ||
		    le64toh(s->revs[i].merge) > i)
			mvfs_fsck_problem(f, "revision %u: parent or merge not below it",
					  i + 1);
		if (le32toh(s->revs[i].branch) >= s->nbranches ||
		    s->revs[i].reserved)
			mvfs_fsck_problem(f, "revision %u: no branch %u, or reserved bits",
					  i + 1, le32toh(s->revs[i].branch));
	}
}

static void mvfs_fsck_labels(struct mvfs_fsck *f)
{
	const struct mvfs_store *s = f->s;
	char name[MVFS_NAME_MAX + 1];
	__u64 rev;
	__u32 i;

	for (i = 0; i < s->nlabels; i++) {
		rev = le64toh(s->labels[i].rev);
		if (!mvfs_name_field_get(name, s->labels[i].name))
			mvfs_fsck_problem(f, "label record %u: bad name", i);
		if (!rev || rev > s->nrevs)
			mvfs_fsck_problem(f, "label %.64s: no revision %llu",
					  s->labels[i].name, rev);
	}
}

static void mvfs_fsck_views(struct mvfs_fsck *f)
{
	const struct mvfs_store *s = f->s;
	const struct mvfs_view3_disk *v;
	char tag[MVFS_NAME_MAX + 1];
	__u32 i;

	for (i = 0; i < s->nviews; i++) {
		v = &s->views[i];
		if (!mvfs_name_field_get(tag, v->tag))
			mvfs_fsck_problem(f, "view record %u: bad tag", i);
		if (le32toh(v->mode) > 0777)
			mvfs_fsck_problem(f, "view %.64s: mode %o", v->tag,
					  le32toh(v->mode));
		if (s->specs[i] && mvfs_store_spec_check(s, s->specs[i]))
			mvfs_fsck_problem(f, "view %.64s: spec: %s", v->tag,
					  mvfs_errmsg(-EINVAL));
	}
}

static void mvfs_fsck_branches(struct mvfs_fsck *f)
{
	const struct mvfs_store *s = f->s;
	char name[MVFS_NAME_MAX + 1];
	__u64 from;
	__u32 i;

	for (i = 0; i < s->nbranches; i++) {
		from = le64toh(s->branches[i].from);
		if (!mvfs_name_field_get(name, s->branches[i].name))
			mvfs_fsck_problem(f, "branch record %u: bad name", i);
		else if (!i && (strcmp(name, MVFS_MAIN_BRANCH) || from))
			mvfs_fsck_problem(f, "branch record 0 is not main from 0");
		else if (i && (!from || from > s->nrevs))
			mvfs_fsck_problem(f, "branch %s: from no revision %llu",
					  name, from);
	}
}

/*
 * A name that WHAT records (each of SIZE bytes, its name first) give more
 * than once: a problem for each record after the first.  Sorted, not
 * compared pairwise: a store may hold hundreds of thousands of labels.
 */
static int mvfs_fsck_twice(struct mvfs_fsck *f, const char *what,
			   const void *recs, size_t size, __u32 n)
{
	__u32 *ord = mvfs_names_sort(recs, size, n), k;
	const char *a, *b;

	if (!ord)
		return mvfs_err(-ENOMEM, "out of memory");
	for (k = 1; k < n; k++) {
		a = (const char *)recs + (size_t)ord[k - 1] * size;
		b = (const char *)recs + (size_t)ord[k] * size;
		if (!strncmp(a, b, MVFS_NAME_FIELD))
			mvfs_fsck_problem(f, "%s %.64s: twice", what, b);
	}
	free(ord);
	return 0;
}

/* Open the store as a writer would, but without its checks and trims. */
static int mvfs_fsck_open(struct mvfs_fsck *f, const char *dir)
{
	int flags = f->flags & MVFS_FSCK_REPAIR ? O_RDWR : O_RDONLY;
	struct mvfs_store *s;
	int err;

	s = mvfs_store_alloc(dir);
	if (!s)
		return mvfs_err(-ENOMEM, "out of memory");
	f->s = s;
	s->write = true;	/* for the lock only */
	err = mvfs_store_lock_dir(s);
	if (!err)
		err = mvfs_state_read(s);
	if (err)
		return err;
	/* Not there or not a file (-errno): the passes say so. */
	s->pack_fd = mvfs_open_file(s->dfd, MVFS_PACK_FILE, flags);
	s->index_fd = mvfs_open_file(s->dfd, MVFS_INDEX_FILE, flags);
	if (s->pack_fd >= 0 && mvfs_specs_load(s))
		mvfs_fsck_problem(f, "%s", mvfs_errmsg(-EIO));
	return 0;
}

static int mvfs_fsck_passes(struct mvfs_fsck *f)
{
	const struct mvfs_store *s = f->s;
	int err;

	mvfs_fsck_revs(f);
	mvfs_fsck_labels(f);
	mvfs_fsck_views(f);
	mvfs_fsck_branches(f);
	err = mvfs_fsck_twice(f, "label", s->labels, sizeof(*s->labels),
			      s->nlabels);
	if (!err)
		err = mvfs_fsck_twice(f, "view", s->views, sizeof(*s->views),
				      s->nviews);
	if (!err)
		err = mvfs_fsck_twice(f, "branch", s->branches,
				      sizeof(*s->branches), s->nbranches);
	if (!err)
		err = mvfs_fsck_pack(f);
	if (!err)
		err = mvfs_fsck_trees(f);
	if (!err)
		err = mvfs_fsck_index(f);
	if (!err)
		err = mvfs_fsck_objects(f);
	if (!err)
		err = mvfs_fsck_areas(f);
	return err;
}

/**
 * mvfs_store_fsck - check a store against every rule of its format
 * @dir: the store directory
 * @flags: MVFS_FSCK_REPAIR, MVFS_FSCK_FULL
 * @problems: set to the number of problems found
 * @left: set to how many of them are not repaired
 *
 * Prints each problem on stdout.  A state that a reader refuses is one
 * problem, and the end of the check: nothing else can be read without it.
 *
 * Return: 0 when the check ran (whatever it found), or -errno.
 */
int mvfs_store_fsck(const char *dir, unsigned int flags,
		    unsigned int *problems, unsigned int *left)
{
	struct mvfs_fsck f = { .flags = flags };
	int err;

	if (flags & MVFS_FSCK_REPAIR)
		umask(022);
	err = mvfs_fsck_open(&f, dir);
	if (err == -EIO || err == -EINVAL) {
		printf("%s\n", mvfs_errmsg(err));
		f.problems++;
		err = 0;
	} else if (!err) {
		err = mvfs_fsck_passes(&f);
	}
	*problems = f.problems;
	*left = f.problems - f.repaired;
	mvfs_map_free(&f.trees);
	mvfs_map_free(&f.links);
	mvfs_map_free(&f.objects);
	mvfs_store_close(f.s);
	return err;
}
