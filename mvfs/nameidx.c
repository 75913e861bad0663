// SPDX-License-Identifier: GPL-2.0
/*
 * nameidx.c: find a label, a branch or a view of a state by its name in
 * constant time.  A state may hold most of a million names (all that fit
 * in MVFS_STATE_MAX); a reload resolves every rule of every view's config
 * spec, and finds every view it had, by name: searched one by one, a
 * hostile state held the state lock for hours.
 *
 * A table of indexes, open addressing with linear probing, at most half
 * full; the hash is keyed anew for each table, so that names chosen to
 * collide cannot be written into a store.
 */
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include "mvfs.h"

/* The name of entry I: the NUL-terminated name at the head of each. */
static const char *mvfs_nameidx_name(const struct mvfs_nameidx *ix, u32 i)
{
	return ix->base + (size_t)i * ix->stride;
}

static u32 mvfs_nameidx_slot(const struct mvfs_nameidx *ix, const char *name,
			     u32 len)
{
	return siphash(name, len, &ix->key) & ix->mask;
}

/**
 * mvfs_nameidx_find - the first entry of a name
 * @ix: the index
 * @name: the name (not NUL-terminated)
 * @len: its length
 *
 * Return: the lowest index of an entry of that name, or -1.
 */
s64 mvfs_nameidx_find(const struct mvfs_nameidx *ix, const char *name,
		      u32 len)
{
	const char *s;
	u32 slot, i;

	if (!ix->slots)
		return -1;
	for (slot = mvfs_nameidx_slot(ix, name, len); ix->slots[slot];
	     slot = (slot + 1) & ix->mask) {
		i = ix->slots[slot] - 1;
		s = mvfs_nameidx_name(ix, i);
		if (!strncmp(s, name, len) && !s[len])
			return i;
	}
	return -1;
}

/**
 * mvfs_nameidx_build - index the names of an array
 * @ix: the index to make
 * @base: the array; each entry starts with a NUL-terminated name
 * @stride: the size of an entry
 * @n: the number of entries
 *
 * A name given more than once is found at its first entry, as a search
 * from the start would find it.  @base must stay while @ix is used.
 *
 * Return: 0 or -ENOMEM.
 */
int mvfs_nameidx_build(struct mvfs_nameidx *ix, const void *base,
		       size_t stride, u32 n)
{
	const char *s;
	u32 i, slot, len;

	*ix = (struct mvfs_nameidx){ .base = base, .stride = stride };
	if (!n)
		return 0;
	ix->mask = roundup_pow_of_two((size_t)n * 2) - 1;
	ix->slots = kvcalloc((size_t)ix->mask + 1, sizeof(*ix->slots),
			     GFP_KERNEL);
	if (!ix->slots)
		return -ENOMEM;
	get_random_bytes(&ix->key, sizeof(ix->key));
	for (i = 0; i < n; i++) {
		s = mvfs_nameidx_name(ix, i);
		len = strlen(s);
		slot = mvfs_nameidx_slot(ix, s, len);
		while (ix->slots[slot] &&
		       strcmp(mvfs_nameidx_name(ix, ix->slots[slot] - 1), s))
			slot = (slot + 1) & ix->mask;
		if (!ix->slots[slot])	/* else the first of two stays */
			ix->slots[slot] = i + 1;
		if (!(i % 4096))
			cond_resched();
	}
	return 0;
}

/**
 * mvfs_nameidx_free - free what mvfs_nameidx_build() made
 * @ix: the index
 */
void mvfs_nameidx_free(struct mvfs_nameidx *ix)
{
	kvfree(ix->slots);
	ix->slots = NULL;
}
