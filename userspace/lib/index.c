// SPDX-License-Identifier: GPL-2.0
/*
 * index.c: the index of content hashes, in memory and on disk.  Only
 * records below the committed ends count; new ones are appended to the
 * file just before a revision is committed.
 *
 * The hash table is built on the first lookups past MVFS_INDEX_SCAN:
 * until then a lookup scans the records.  A check-in of a few files
 * makes a few lookups, and scanning 100,000 records a few times costs
 * less than hashing them all, so that its cost hardly grows with the
 * store; an import makes many and gets the table.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "store_int.h"

/**
 * mvfs_index_free - free the index in memory
 * @ix: the index
 */
void mvfs_index_free(struct mvfs_index *ix)
{
	free(ix->recs);
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}

/* The index in memory. */

static int mvfs_index_rehash(struct mvfs_index *ix, size_t nslots)
{
	__u32 *slots = calloc(nslots, sizeof(*slots));
	size_t i, j, mask = nslots - 1;

	if (!slots)
		return mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; i < ix->nrecs; i++) {
		for (j = ix->recs[i].hash & mask; slots[j]; j = (j + 1) & mask)
			;
		slots[j] = i + 1;
	}
	free(ix->slots);
	ix->slots = slots;
	ix->nslots = nslots;
	return 0;
}

/**
 * mvfs_index_add - add a record to the index in memory
 * @ix: the index
 * @hash: the content hash
 * @ref: object number, or pack offset | MVFS_INDEX_TREE
 *
 * Return: 0 or -ENOMEM.
 */
int mvfs_index_add(struct mvfs_index *ix, __u64 hash, __u64 ref)
{
	struct mvfs_index_ent *recs;
	size_t mask, j;
	int err;

	if (ix->nrecs == ix->cap) {
		recs = realloc(ix->recs, (ix->cap * 2 + 64) * sizeof(*recs));
		if (!recs)
			return mvfs_err(-ENOMEM, "out of memory");
		ix->recs = recs;
		ix->cap = ix->cap * 2 + 64;
	}
	if (!ix->nslots) {	/* no table yet: lookups scan */
		ix->recs[ix->nrecs].hash = hash;
		ix->recs[ix->nrecs++].ref = ref;
		return 0;
	}
	if ((ix->nrecs + 1) * 2 > ix->nslots) {
		err = mvfs_index_rehash(ix, ix->nslots * 2);
		if (err)
			return err;
	}
	ix->recs[ix->nrecs].hash = hash;
	ix->recs[ix->nrecs].ref = ref;
	mask = ix->nslots - 1;
	for (j = hash & mask; ix->slots[j]; j = (j + 1) & mask)
		;
	ix->slots[j] = ++ix->nrecs;
	return 0;
}

/**
 * mvfs_index_start - where a lookup of @hash starts
 * @ix: the index
 * @hash: the content hash
 *
 * Builds the hash table on the lookup past MVFS_INDEX_SCAN (without
 * memory for it, lookups go on scanning).
 *
 * Return: the position to give mvfs_index_next().
 */
size_t mvfs_index_start(struct mvfs_index *ix, __u64 hash)
{
	size_t nslots = 256;

	if (!ix->nslots && ++ix->lookups > MVFS_INDEX_SCAN) {
		while (nslots < ix->nrecs * 2)
			nslots *= 2;
		mvfs_index_rehash(ix, nslots);
	}
	return ix->nslots ? hash & (ix->nslots - 1) : 0;
}

/*
 * The next record after *POS with hash HASH, or NULL; start with *POS
 * from mvfs_index_start().  Records of both kinds are returned.
 */
const struct mvfs_index_ent *mvfs_index_next(const struct mvfs_index *ix,
					     __u64 hash, size_t *pos)
{
	const struct mvfs_index_ent *r;
	size_t mask = ix->nslots - 1;

	while (!ix->nslots && *pos < ix->nrecs) {
		r = &ix->recs[(*pos)++];
		if (r->hash == hash)
			return r;
	}
	while (ix->nslots && ix->slots[*pos]) {
		r = &ix->recs[ix->slots[*pos] - 1];
		*pos = (*pos + 1) & mask;
		if (r->hash == hash)
			return r;
	}
	return NULL;
}

/* Is a record committed, and so safe to dedup against? */
static bool mvfs_index_rec_valid(const struct mvfs_store *s, __u64 ref)
{
	__u64 off = ref & ~MVFS_INDEX_TREE;

	if (ref & MVFS_INDEX_TREE)
		return off >= sizeof(struct mvfs_pack_hdr) && off < s->pack_len;
	return ref && ref < s->next_object;
}

/**
 * mvfs_index_load - read the committed records of the index file
 * @s: a store, building a revision
 *
 * Return: 0 or -errno.
 */
int mvfs_index_load(struct mvfs_store *s)
{
	const struct mvfs_index_rec *r = (const void *)s->buf;
	size_t per = MVFS_IO_BUF / sizeof(*r), n, i;
	struct mvfs_index *ix = &s->index;
	__u64 off, ref;
	int err;

	/* One allocation for the committed records, and some new ones. */
	ix->cap = s->index_len / sizeof(*r) + 64;
	ix->recs = malloc(ix->cap * sizeof(*ix->recs));
	if (!ix->recs)
		return mvfs_err(-ENOMEM, "out of memory");
	for (off = 0; off < s->index_len; off += n * sizeof(*r)) {
		n = (s->index_len - off) / sizeof(*r);
		if (n > per)
			n = per;
		err = mvfs_pread(s->index_fd, s->buf, n * sizeof(*r), off);
		if (err)
			return mvfs_err(err == -ENODATA ? -EIO : err,
					"store %s: cannot read %s", s->dir,
					MVFS_INDEX_FILE);
		for (i = 0; i < n; i++) {
			ref = le64toh(r[i].ref);
			if (!mvfs_index_rec_valid(s, ref))
				continue;
			err = mvfs_index_add(&s->index, le64toh(r[i].hash),
					     ref);
			if (err)
				return err;
		}
	}
	s->index.first_new = s->index.nrecs;
	return 0;
}

/* Append the index records made since begin to the index file. */
int mvfs_index_flush(struct mvfs_store *s, __u64 *len)
{
	const struct mvfs_index *ix = &s->index;
	size_t n = ix->nrecs - ix->first_new, i;
	struct mvfs_index_rec *r;
	int err;

	*len = n * sizeof(*r);
	if (!n)
		return 0;
	r = calloc(n, sizeof(*r));
	if (!r)
		return mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		r[i].hash = htole64(ix->recs[ix->first_new + i].hash);
		r[i].ref = htole64(ix->recs[ix->first_new + i].ref);
	}
	err = mvfs_pwrite(s->index_fd, r, *len, s->index_len);
	free(r);
	if (err)
		return mvfs_err(err, "store %s: %s: %s", s->dir,
				MVFS_INDEX_FILE, strerror(-err));
	return 0;
}
