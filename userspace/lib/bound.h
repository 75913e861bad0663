/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bound.h: the binary search that the tools' sorted tables share (names,
 * a command's paths, changes by path or by the element they were).
 */
#ifndef MVFS_BOUND_H
#define MVFS_BOUND_H

#include <stdbool.h>
#include <stddef.h>

/**
 * mvfs_bound - the first of @n sorted entries that is not below a key
 * @n: how many entries
 * @below: whether entry @i sorts below the key
 * @ctx: the table and the key, for @below
 *
 * Return: its index, or @n when every entry is below the key.
 */
static inline size_t mvfs_bound(size_t n,
				bool (*below)(const void *ctx, size_t i),
				const void *ctx)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (below(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif /* MVFS_BOUND_H */
