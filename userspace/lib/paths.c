// SPDX-License-Identifier: GPL-2.0
/*
 * paths.c: element paths, and the paths a command names: joining them,
 * their order (the private area's walk), and whether a path is at or
 * under one of a command's, found by binary search.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bound.h"
#include "priv.h"

/**
 * mvfs_path_join - DIR/NAME as an element path ("" is the top)
 * @dir: an element path
 * @name: a name
 *
 * Return: the path (free it), or NULL without memory.
 */
char *mvfs_path_join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s%s%s", dir, *dir ? "/" : "", name) < 0)
		return NULL;
	return p;
}

/**
 * mvfs_path_under - is element path @path @top or below it
 * @path: an element path
 * @top: an element path; "" is the whole tree
 *
 * Return: true if so.
 */
bool mvfs_path_under(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (!n)
		return true;
	return !strncmp(path, top, n) && (!path[n] || path[n] == '/');
}

struct mvfs_paths_key {
	char *const	*sorted;
	const char	*path;
};

static bool mvfs_paths_below(const void *arg, size_t i)
{
	const struct mvfs_paths_key *k = arg;

	return mvfs_path_order(k->sorted[i], k->path) < 0;
}

/* The first of the N paths SORTED (by mvfs_path_order()) not below PATH. */
static int mvfs_paths_bound(char *const *sorted, int n, const char *path)
{
	struct mvfs_paths_key k = { .sorted = sorted, .path = path };

	return mvfs_bound(n, mvfs_paths_below, &k);
}

/**
 * mvfs_paths_hold - is a path at or under one of a command's paths
 * @sorted: the command's element paths, by mvfs_path_order()
 * @n: how many
 * @path: an element path
 *
 * Each directory above @path is searched for, not each path compared:
 * a command given thousands of paths compared each change with all.
 *
 * Return: true if so.
 */
bool mvfs_paths_hold(char *const *sorted, int n, const char *path)
{
	const char *slash = path + strlen(path);
	char *dir;
	int i;
	bool in;

	if (!n)
		return false;
	if (!*sorted[0])
		return true;	/* "": the top, and all under it */
	dir = strdup(path);
	if (!dir)
		return true;	/* too much rather than too little */
	do {
		dir[slash - path] = '\0';
		i = mvfs_paths_bound(sorted, n, dir);
		in = i < n && !strcmp(sorted[i], dir);
		while (slash > path && *--slash != '/')
			;
	} while (!in && slash > path);
	free(dir);
	return in;
}

/**
 * mvfs_paths_under - is one of a command's paths at or under a path
 * @sorted: the command's element paths, by mvfs_path_order()
 * @n: how many
 * @path: an element path
 *
 * Those at or under @path come together in that order, from where
 * @path would be.
 *
 * Return: true if so.
 */
bool mvfs_paths_under(char *const *sorted, int n, const char *path)
{
	int i = mvfs_paths_bound(sorted, n, path);

	return i < n && mvfs_path_under(sorted[i], path);
}

/*
 * The order of the changes mvfs_priv_read() gives: by component, each
 * by name, a directory before what is in it ("a" < "a/b" < "a-c").
 * Return: below, equal to or above 0, as strcmp().
 */
int mvfs_path_order(const char *a, const char *b)
{
	unsigned int x, y;

	for (;; a++, b++) {
		/* The end of a path, then the end of a component, first. */
		x = !*a ? 0 : *a == '/' ? 1 : (unsigned char)*a + 1;
		y = !*b ? 0 : *b == '/' ? 1 : (unsigned char)*b + 1;
		if (x != y || !x)
			return (int)x - (int)y;
	}
}
