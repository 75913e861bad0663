// SPDX-License-Identifier: GPL-2.0
/*
 * names.c: finding a label, branch or view record by its name.
 *
 * Each kind of record holds its name in its first MVFS_NAME_FIELD bytes,
 * and a name given twice (a corrupt state) is found at its first record.
 * A few finds read the records in order.  A command that finds many (a
 * config spec's rules for each of many views, lsview, fsck) would read
 * them all each time: the labels of a large store number in the hundreds
 * of thousands.  From its MVFS_NAMES_SCANS-th find on, a table keeps the
 * records' order by name (then by position), and a find is a binary
 * search in it.  Records are only appended while a table is kept: one
 * covers the first x->n of them, and the newer ones are read in order.
 * Anything that takes records away or puts others in their place calls
 * mvfs_names_forget(); a table that covers more records than there are
 * now is dropped when it is next used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bound.h"
#include "store_int.h"

/* Finds that read the records before a table is made. */
#define MVFS_NAMES_SCANS	8

struct mvfs_names_recs {
	const char	*base;
	size_t		size;
	const __u32	*ord;	/* for a search: the table */
	const char	*key;	/* and the name */
};

static const char *mvfs_names_at(const struct mvfs_names_recs *r, __u32 i)
{
	return r->base + (size_t)i * r->size;
}

static int mvfs_names_order(const void *a, const void *b, void *arg)
{
	__u32 i = *(const __u32 *)a, j = *(const __u32 *)b;
	int c = strncmp(mvfs_names_at(arg, i), mvfs_names_at(arg, j),
			MVFS_NAME_FIELD);

	return c ? c : (i > j) - (i < j);
}

/**
 * mvfs_names_sort - the order of records by name, then by position
 * @recs: the records, each with its name field first
 * @size: the size of one
 * @n: how many
 *
 * Equal names are next to each other, the first record first.
 *
 * Return: @n record indexes (free() them), or NULL when out of memory.
 */
__u32 *mvfs_names_sort(const void *recs, size_t size, __u32 n)
{
	struct mvfs_names_recs r = { .base = recs, .size = size };
	__u32 *ord = malloc(((size_t)n + 1) * sizeof(*ord));
	__u32 i;

	if (!ord)
		return NULL;
	for (i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(*ord), mvfs_names_order, &r);
	return ord;
}

/**
 * mvfs_names_forget - drop the table of one kind of records
 * @x: the table
 *
 * For a change that takes records away or reorders them.
 */
void mvfs_names_forget(struct mvfs_names *x)
{
	free(x->ord);
	memset(x, 0, sizeof(*x));
}

static bool mvfs_names_below(const void *arg, size_t i)
{
	const struct mvfs_names_recs *r = arg;

	return strncmp(mvfs_names_at(r, r->ord[i]), r->key,
		       MVFS_NAME_FIELD) < 0;
}

/* The first of records [FROM, TO) named NAME, in order; -1 if none. */
static long mvfs_names_scan(const struct mvfs_names_recs *r, __u32 from,
			    __u32 to, const char *name)
{
	__u32 i;

	for (i = from; i < to; i++)
		if (!strncmp(mvfs_names_at(r, i), name, MVFS_NAME_FIELD))
			return i;
	return -1;
}

/**
 * mvfs_names_find - the first record named @name
 * @x: the table kept for these records
 * @recs: the records, each with its name field first
 * @size: the size of one
 * @n: how many there are now
 * @name: NUL-terminated
 *
 * Return: its index, or -1 when no record has the name.
 */
long mvfs_names_find(struct mvfs_names *x, const void *recs, size_t size,
		     __u32 n, const char *name)
{
	struct mvfs_names_recs r = { .base = recs, .size = size, .key = name };
	size_t i;

	if (x->ord && x->n > n)
		mvfs_names_forget(x);
	if (!x->ord && x->scans < MVFS_NAMES_SCANS) {
		x->scans++;
		return mvfs_names_scan(&r, 0, n, name);
	}
	if (!x->ord) {
		/* Out of memory: read them in order, then. */
		x->ord = mvfs_names_sort(recs, size, n);
		if (!x->ord)
			return mvfs_names_scan(&r, 0, n, name);
		x->n = n;
	}
	r.ord = x->ord;
	i = mvfs_bound(x->n, mvfs_names_below, &r);
	if (i < x->n &&
	    !strncmp(mvfs_names_at(&r, x->ord[i]), name, MVFS_NAME_FIELD))
		return x->ord[i];
	return mvfs_names_scan(&r, x->n, n, name);
}
