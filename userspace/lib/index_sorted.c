// SPDX-License-Identifier: GPL-2.0
/*
 * index_sorted.c: index.sorted, the index's records sorted by hash, so
 * that a writer finds a hash by reading one bucket of it, not the whole
 * index: a check-in's few lookups then cost the same in a store of
 * 1,000 objects and in one of 1,000,000.
 *
 * It is a cache, tools only, made from the index and never trusted: an
 * entry it gives is checked as an index record is (a ref within the
 * committed lengths, then equal bytes), and a copy whose header does not
 * match the index beside it is removed.  So a stale or damaged copy costs
 * dedup, never data, and the store may lose it at any time
 * (docs/FORMAT.md, "index.sorted").
 *
 * A writer opens it at mvfs_store_begin() and reads into memory only the
 * index records past those it covers (index.c).  A commit that leaves
 * more than MVFS_ISORT_TAIL records past it makes it anew: its entries
 * merged with the sorted new ones, written to index.sorted.tmp, synced,
 * renamed over it.  That is O(records), once every MVFS_ISORT_TAIL
 * records; an import of many files pays it in its own commit.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "err.h"
#include "store_int.h"

/* The header and the fanout: where the entries start. */
#define MVFS_ISORT_HDR_LEN \
	(sizeof(struct mvfs_isort_hdr) + MVFS_ISORT_FANOUT * sizeof(__le32))

/* The order of the entries: by hash, then by ref. */
static int mvfs_ent_cmp(const void *a, const void *b)
{
	const struct mvfs_index_ent *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->ref > y->ref) - (x->ref < y->ref);
}

/* Does header H (with its fanout) of the copy open as FD fit the index? */
static bool mvfs_isort_valid(struct mvfs_store *s, int fd,
			     const struct mvfs_isort_hdr *h)
{
	const __le32 *fan = (const void *)(h + 1);
	__u64 records = le64toh(h->records), entries = le64toh(h->entries);
	struct mvfs_index_rec last;
	struct stat st;
	__u32 prev = 0;
	unsigned int i;

	if (le32toh(h->magic) != MVFS_ISORT_MAGIC ||
	    le32toh(h->version) != MVFS_ISORT_VERSION || h->reserved ||
	    !records || records > s->index_len / sizeof(last) ||
	    entries > records || entries > UINT32_MAX || fstat(fd, &st) ||
	    (__u64)st.st_size != MVFS_ISORT_HDR_LEN + entries * sizeof(last))
		return false;
	for (i = 0; i < MVFS_ISORT_FANOUT; i++) {
		if (le32toh(fan[i]) < prev)
			return false;
		prev = le32toh(fan[i]);
	}
	if (prev != entries ||
	    mvfs_pread(s->index_fd, &last, sizeof(last),
		       (records - 1) * sizeof(last)))
		return false;
	return last.hash == h->last_hash && last.ref == h->last_ref;
}

/**
 * mvfs_isort_open - open index.sorted for the lookups of a revision
 * @s: a store, building a revision (s->buf is free)
 *
 * Sets s->index.isort; without a copy that fits the index, it covers no
 * record (and a copy that does not fit is removed).
 */
void mvfs_isort_open(struct mvfs_store *s)
{
	struct mvfs_isort *is = &s->index.isort;
	const struct mvfs_isort_hdr *h = (const void *)s->buf;
	const __le32 *fan = (const void *)(h + 1);
	unsigned int i;
	int fd;

	memset(is, 0, sizeof(*is));
	is->fd = -1;
	fd = mvfs_open_file(s->dfd, MVFS_ISORT_FILE, O_RDONLY);
	if (fd == -ENOENT)
		return;
	if (fd < 0 || mvfs_pread(fd, s->buf, MVFS_ISORT_HDR_LEN, 0) ||
	    !mvfs_isort_valid(s, fd, h)) {
		if (fd >= 0)
			close(fd);
		unlinkat(s->dfd, MVFS_ISORT_FILE, 0);
		return;
	}
	for (i = 0; i < MVFS_ISORT_FANOUT; i++)
		is->fanout[i] = le32toh(fan[i]);
	is->records = le64toh(h->records);
	is->fd = fd;
}

/**
 * mvfs_isort_free - close index.sorted, free what was read of it
 * @is: the copy
 */
void mvfs_isort_free(struct mvfs_isort *is)
{
	if (is->fd >= 0)
		close(is->fd);
	free(is->all);
	free(is->hits);
	memset(is, 0, sizeof(*is));
	is->fd = -1;
}

static int mvfs_isort_hit(struct mvfs_isort *is, __u64 hash, __u64 ref)
{
	struct mvfs_index_ent *v;

	if (is->nhits == is->hits_cap) {
		v = realloc(is->hits, (is->hits_cap + 4) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		is->hits = v;
		is->hits_cap += 4;
	}
	is->hits[is->nhits].hash = hash;
	is->hits[is->nhits++].ref = ref;
	return 0;
}

/* The valid entries of HASH in its bucket, into is->hits: 0 or -errno. */
static int mvfs_isort_bucket(struct mvfs_store *s, __u64 hash)
{
	struct mvfs_isort *is = &s->index.isort;
	unsigned int b = hash >> 56;
	__u32 lo = b ? is->fanout[b - 1] : 0, n = is->fanout[b] - lo;
	struct mvfs_index_rec *r;
	size_t i, a = 0, z = n;
	__u64 ref;
	int err;

	is->nhits = 0;
	if (!n)
		return 0;
	r = malloc((size_t)n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = mvfs_pread(is->fd, r, (size_t)n * sizeof(*r),
			 MVFS_ISORT_HDR_LEN + (__u64)lo * sizeof(*r));
	while (!err && a < z) {		/* the first entry of HASH or above */
		i = a + (z - a) / 2;
		if (le64toh(r[i].hash) < hash)
			a = i + 1;
		else
			z = i;
	}
	for (i = a; !err && i < n && le64toh(r[i].hash) == hash; i++) {
		ref = le64toh(r[i].ref);
		if (mvfs_index_rec_valid(s, ref))
			err = mvfs_isort_hit(is, hash, ref);
	}
	free(r);
	return err;
}

/* The records the copy covers, from the index itself, sorted in memory. */
static int mvfs_isort_read_all(struct mvfs_store *s)
{
	struct mvfs_isort *is = &s->index.isort;
	int err;

	err = mvfs_index_read(s, 0, is->records, &is->all, &is->nall);
	if (err)
		return err;
	qsort(is->all, is->nall, sizeof(*is->all), mvfs_ent_cmp);
	close(is->fd);
	is->fd = -1;
	is->whole = true;
	return 0;
}

/**
 * mvfs_isort_find - the entries of index.sorted with hash @hash
 * @s: a store, building a revision
 * @hash: the content hash
 * @v: set to the entries, valid until the next lookup
 * @n: set to their number
 *
 * Reads the bucket of @hash; after MVFS_ISORT_READS lookups, or when a
 * bucket cannot be read, the records the copy covers are read from the
 * index whole and sorted in memory.  Only valid records are given.
 *
 * Return: 0 or -errno.
 */
int mvfs_isort_find(struct mvfs_store *s, __u64 hash,
		    const struct mvfs_index_ent **v, size_t *n)
{
	struct mvfs_isort *is = &s->index.isort;
	size_t a = 0, z, i;
	int err;

	*v = NULL;
	*n = 0;
	if (!is->whole && is->fd < 0)
		return 0;
	if (!is->whole && ++is->reads <= MVFS_ISORT_READS &&
	    !mvfs_isort_bucket(s, hash)) {
		*v = is->hits;
		*n = is->nhits;
		return 0;
	}
	if (!is->whole) {
		err = mvfs_isort_read_all(s);
		if (err)
			return err;
	}
	for (z = is->nall; a < z;) {
		i = a + (z - a) / 2;
		if (is->all[i].hash < hash)
			a = i + 1;
		else
			z = i;
	}
	*v = is->all + a;
	while (a + *n < is->nall && is->all[a + *n].hash == hash)
		(*n)++;
	return 0;
}

/* The copy's valid entries, in memory, if they are sorted: 0 or -errno. */
static int mvfs_isort_old(struct mvfs_store *s, struct mvfs_index_ent **v,
			  size_t *n)
{
	struct mvfs_isort *is = &s->index.isort;
	size_t count = is->fanout[MVFS_ISORT_FANOUT - 1], i;
	struct mvfs_index_rec *r = NULL;
	struct mvfs_index_ent e;
	int err = 0;

	*n = 0;
	*v = malloc((is->whole ? is->nall : count) * sizeof(**v) + 1);
	if (!*v || (!is->whole && is->fd < 0))
		return -ENOENT;
	if (is->whole) {
		memcpy(*v, is->all, is->nall * sizeof(**v));
		*n = is->nall;
		return 0;
	}
	r = malloc(count * sizeof(*r) + 1);
	err = r ? mvfs_pread(is->fd, r, count * sizeof(*r),
			     MVFS_ISORT_HDR_LEN) : -ENOMEM;
	for (i = 0; !err && i < count; i++) {
		e.hash = le64toh(r[i].hash);
		e.ref = le64toh(r[i].ref);
		if (*n && mvfs_ent_cmp(&(*v)[*n - 1], &e) > 0)
			err = -EIO;	/* not sorted: made anew whole */
		else if (mvfs_index_rec_valid(s, e.ref))
			(*v)[(*n)++] = e;
	}
	free(r);
	return err;
}

/* Write a copy of the first TOTAL records: the merge of A and B. */
static void mvfs_isort_write(struct mvfs_store *s, __u64 total,
			     const struct mvfs_index_ent *a, size_t na,
			     const struct mvfs_index_ent *b, size_t nb)
{
	size_t n = na + nb, len, i = 0, j = 0, k;
	__u32 count[MVFS_ISORT_FANOUT] = { 0 }, sum = 0;
	const struct mvfs_index_ent *e;
	struct mvfs_index_rec last, *r;
	struct mvfs_isort_hdr *h;
	__le32 *fan;

	if (n > UINT32_MAX || mvfs_pread(s->index_fd, &last, sizeof(last),
					 (total - 1) * sizeof(last)))
		return;
	len = MVFS_ISORT_HDR_LEN + n * sizeof(*r);
	h = calloc(1, len);
	if (!h)
		return;
	fan = (__le32 *)(h + 1);
	r = (struct mvfs_index_rec *)(fan + MVFS_ISORT_FANOUT);
	for (k = 0; k < n; k++) {
		if (j == nb || (i < na && mvfs_ent_cmp(&a[i], &b[j]) <= 0))
			e = &a[i++];
		else
			e = &b[j++];
		r[k].hash = htole64(e->hash);
		r[k].ref = htole64(e->ref);
		count[e->hash >> 56]++;
	}
	for (k = 0; k < MVFS_ISORT_FANOUT; k++) {
		sum += count[k];
		fan[k] = htole32(sum);
	}
	h->magic = htole32(MVFS_ISORT_MAGIC);
	h->version = htole32(MVFS_ISORT_VERSION);
	h->records = htole64(total);
	h->entries = htole64(n);
	h->last_hash = last.hash;
	h->last_ref = last.ref;
	/* A failure is not reported (above): the old copy stays, or none. */
	mvfs_replace_file(s->dfd, MVFS_ISORT_FILE, MVFS_ISORT_TMP,
			  MVFS_ISORT_OLD, h, len);
	free(h);
}

/**
 * mvfs_isort_update - make index.sorted anew if too many records are past it
 * @s: a store, building, whose revision was just committed
 *
 * When more than MVFS_ISORT_TAIL committed records are past the copy's
 * (all of them, without a copy), writes a copy of them all.  A failure
 * changes nothing that a writer relies on, so it is not reported: the
 * copy stays as it was, or is gone.
 */
void mvfs_isort_update(struct mvfs_store *s)
{
	struct mvfs_isort *is = &s->index.isort;
	__u64 total = s->index_len / sizeof(struct mvfs_index_rec), from = 0;
	struct mvfs_index_ent *old = NULL, *tail = NULL;
	size_t nold = 0, ntail = 0;

	if (total - is->records <= MVFS_ISORT_TAIL)
		return;
	if (!mvfs_isort_old(s, &old, &nold))
		from = is->records;
	else
		nold = 0;
	if (!mvfs_index_read(s, from, total, &tail, &ntail)) {
		qsort(tail, ntail, sizeof(*tail), mvfs_ent_cmp);
		mvfs_isort_write(s, total, old, nold, tail, ntail);
	}
	free(old);
	free(tail);
}
