// SPDX-License-Identifier: GPL-2.0
/*
 * index.c: the index of content hashes, in memory and on disk.  Only
 * records below the committed ends count; new ones are appended to the
 * file just before a revision is committed.
 *
 * In memory are the records that index.sorted does not cover (all of
 * them in a store without one, index_sorted.c) and those a revision adds:
 * a lookup asks the sorted copy first, then these.  Their hash table is
 * built on the first lookups past MVFS_INDEX_SCAN: until then a lookup
 * scans them.  A check-in of a few files makes a few lookups, and scanning
 * a few thousand records a few times costs less than hashing them all;
 * an import makes many and gets the table.
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
	mvfs_isort_free(&ix->isort);
	free(ix->recs);
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
	ix->isort.fd = -1;
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
 * mvfs_index_start - start a lookup of @hash
 * @s: a store, building a revision
 * @hash: the content hash
 * @pos: set to where the lookup starts, for mvfs_index_next()
 *
 * Asks index.sorted for its records of @hash.  Builds the hash table of
 * the records in memory on the lookup past MVFS_INDEX_SCAN (without
 * memory for it, lookups go on scanning).
 *
 * Return: 0 or -errno.
 */
int mvfs_index_start(struct mvfs_store *s, __u64 hash,
		     struct mvfs_index_pos *pos)
{
	struct mvfs_index *ix = &s->index;
	size_t nslots = 256;

	if (!ix->nslots && ++ix->lookups > MVFS_INDEX_SCAN) {
		while (nslots < ix->nrecs * 2)
			nslots *= 2;
		mvfs_index_rehash(ix, nslots);
	}
	pos->pos = ix->nslots ? hash & (ix->nslots - 1) : 0;
	return mvfs_isort_find(s, hash, &pos->sorted, &pos->nsorted);
}

/*
 * The next record after *POS with hash HASH, or NULL; start with *POS
 * from mvfs_index_start().  Records of both kinds are returned.
 */
const struct mvfs_index_ent *mvfs_index_next(const struct mvfs_index *ix,
					     __u64 hash,
					     struct mvfs_index_pos *pos)
{
	const struct mvfs_index_ent *r;
	size_t mask = ix->nslots - 1;

	if (pos->nsorted) {
		pos->nsorted--;
		return pos->sorted++;
	}
	while (!ix->nslots && pos->pos < ix->nrecs) {
		r = &ix->recs[pos->pos++];
		if (r->hash == hash)
			return r;
	}
	while (ix->nslots && ix->slots[pos->pos]) {
		r = &ix->recs[ix->slots[pos->pos] - 1];
		pos->pos = (pos->pos + 1) & mask;
		if (r->hash == hash)
			return r;
	}
	return NULL;
}

/**
 * mvfs_index_rec_valid - is a record committed, so safe to dedup against
 * @s: the store
 * @ref: the record's ref
 *
 * Return: true for an object below next_object, or a pack offset past
 * the pack's header and below pack_len.
 */
bool mvfs_index_rec_valid(const struct mvfs_store *s, __u64 ref)
{
	__u64 off = ref & ~MVFS_INDEX_TREE;

	if (ref & MVFS_INDEX_TREE)
		return off >= sizeof(struct mvfs_pack_hdr) && off < s->pack_len;
	return ref && ref < s->next_object;
}

/**
 * mvfs_index_read - the valid records among index records @from..@to - 1
 * @s: a store, building a revision (s->buf is free)
 * @from: the first record
 * @to: past the last, at most index_len's
 * @ents: set to them, in the file's order, with room for @to - @from + 64
 *	(free it, also on failure)
 * @n: set to their number
 *
 * Return: 0 or -errno.
 */
int mvfs_index_read(struct mvfs_store *s, __u64 from, __u64 to,
		    struct mvfs_index_ent **ents, size_t *n)
{
	const struct mvfs_index_rec *r = (const void *)s->buf;
	size_t per = MVFS_IO_BUF / sizeof(*r), k, i;
	struct mvfs_index_ent *v;
	__u64 ref;
	int err;

	*n = 0;
	*ents = v = malloc((to - from + 64) * sizeof(*v));
	if (!v)
		return mvfs_err(-ENOMEM, "out of memory");
	for (; from < to; from += k) {
		k = to - from < per ? to - from : per;
		err = mvfs_pread(s->index_fd, s->buf, k * sizeof(*r),
				 from * sizeof(*r));
		if (err)
			return mvfs_err(err == -ENODATA ? -EIO : err,
					"store %s: cannot read %s", s->dir,
					MVFS_INDEX_FILE);
		for (i = 0; i < k; i++) {
			ref = le64toh(r[i].ref);
			if (!mvfs_index_rec_valid(s, ref))
				continue;
			v[*n].hash = le64toh(r[i].hash);
			v[(*n)++].ref = ref;
		}
	}
	return 0;
}

/**
 * mvfs_index_load - read the committed records index.sorted does not cover
 * @s: a store, building a revision
 *
 * Return: 0 or -errno.
 */
int mvfs_index_load(struct mvfs_store *s)
{
	struct mvfs_index *ix = &s->index;
	__u64 to = s->index_len / sizeof(struct mvfs_index_rec);
	int err;

	mvfs_isort_open(s);
	/* One allocation for the committed records, and some new ones. */
	err = mvfs_index_read(s, ix->isort.records, to, &ix->recs, &ix->nrecs);
	ix->cap = to - ix->isort.records + 64;
	ix->first_new = ix->nrecs;
	return err;
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
