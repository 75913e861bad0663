/* SPDX-License-Identifier: GPL-2.0 */
/*
 * difftest_tree.h: compare the two whole trees: the same names, and for
 * each the same type, mode, owner, link count, size (but for
 * directories), content, symlink target, and the same names for the
 * same hard-linked file.  Included by difftest.c after difftest.h.
 */
#ifndef DIFFTEST_TREE_H
#define DIFFTEST_TREE_H

#include "difftest.h"

#define MAXNAMES 64

struct names {
	int n;
	char *name[MAXNAMES];
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(struct names *l)
{
	while (l->n)
		free(l->name[--l->n]);
}

/* A directory opened again: a new offset, to read it from the start. */
static int reopen_dir(int fd)
{
	return openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The sorted names of the directory open at fd, but . and ..; closes fd. */
static void list_dir(int fd, const char *path, struct names *l)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat st;

	if (!d)
		die("tree: opendir %s: %s", path, strerror(errno));
	l->n = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* As on ext2, readdir gives the number stat() does. */
		if (!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    st.st_ino != e->d_ino)
			die("tree: %s/%s: d_ino %llu, st_ino %llu", path,
			    e->d_name, (unsigned long long)e->d_ino,
			    (unsigned long long)st.st_ino);
		if (l->n == MAXNAMES)
			die("tree: more than %d names in %s", MAXNAMES, path);
		l->name[l->n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(l->name, l->n, sizeof(char *), cmp_name);
}

/* Hard links: the first path found for each inode that has several. */
struct link {
	ino_t ino;
	char path[PBUF];
};

#define MAXLINKS 256
static struct link links[2][MAXLINKS];
static int nlinks[2];

static const char *first_path(int s, ino_t ino, const char *path)
{
	int i;

	for (i = 0; i < nlinks[s]; i++)
		if (links[s][i].ino == ino)
			return links[s][i].path;
	if (nlinks[s] == MAXLINKS)
		die("tree: too many hard links");
	links[s][nlinks[s]].ino = ino;
	snprintf(links[s][nlinks[s]].path, PBUF, "%s", path);
	return links[s][nlinks[s]++].path;
}

static void cmp_content(int fa, int fb, const char *path)
{
	ssize_t n[2];
	off_t off = 0;

	do {
		n[0] = pread(fa, rbuf[0], MAXIO, off);
		n[1] = pread(fb, rbuf[1], MAXIO, off);
		if (n[0] < 0 || n[1] < 0)
			die("tree: read %s: %s", path, strerror(errno));
		if (n[0] != n[1] || memcmp(rbuf[0], rbuf[1], n[0]))
			die("tree: %s: the contents differ after byte %lld",
			    path, (long long)off);
		off += n[0];
	} while (n[0] > 0);
}

static void cmp_tree_dir(int fa, int fb, const char *path);

/* Compare the entries NAME of the directories fd[] (at PATH). */
static void cmp_entry(const int *fd, const char *path, const char *name)
{
	struct stat st[2];
	char p[PBUF], t[2][PBUF];
	int f[2], s;
	ssize_t n[2];

	snprintf(p, sizeof(p), "%s/%s", path, name);
	for (s = 0; s < 2; s++)
		if (fstatat(fd[s], name, &st[s], AT_SYMLINK_NOFOLLOW))
			die("tree: lstat %s: %s", p, strerror(errno));
	cmp_stat(p, &st[0], &st[1]);
	if (st[0].st_nlink > 1 && !S_ISDIR(st[0].st_mode) &&
	    strcmp(first_path(0, st[0].st_ino, p),
		   first_path(1, st[1].st_ino, p)))
		die("tree: %s is a hard link of %s on A, of %s on B", p,
		    first_path(0, st[0].st_ino, p),
		    first_path(1, st[1].st_ino, p));
	if (S_ISLNK(st[0].st_mode)) {
		for (s = 0; s < 2; s++)
			n[s] = readlinkat(fd[s], name, t[s], PBUF);
		if (n[0] != n[1] || n[0] < 0 || memcmp(t[0], t[1], n[0]))
			die("tree: %s: the symlink targets differ", p);
	}
	if (!S_ISREG(st[0].st_mode) && !S_ISDIR(st[0].st_mode))
		return;
	for (s = 0; s < 2; s++) {
		f[s] = openat(fd[s], name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (f[s] < 0)
			die("tree: open %s: %s", p, strerror(errno));
	}
	if (S_ISREG(st[0].st_mode))
		cmp_content(f[0], f[1], p);
	else
		cmp_tree_dir(f[0], f[1], p);
	close(f[0]);
	close(f[1]);
}

static void cmp_tree_dir(int fa, int fb, const char *path)
{
	struct names l[2];
	int i, fd[2] = { fa, fb };

	list_dir(reopen_dir(fa), path, &l[0]);
	list_dir(reopen_dir(fb), path, &l[1]);
	for (i = 0; i < l[0].n || i < l[1].n; i++) {
		if (i == l[0].n || i == l[1].n ||
		    strcmp(l[0].name[i], l[1].name[i]))
			die("tree: %s: the names differ: %s on A, %s on B",
			    path, i < l[0].n ? l[0].name[i] : "(end)",
			    i < l[1].n ? l[1].name[i] : "(end)");
	}
	for (i = 0; i < l[0].n; i++)
		cmp_entry(fd, path, l[0].name[i]);
	free_names(&l[0]);
	free_names(&l[1]);
}

/* Compare the two trees; dies at the first difference. */
static void cmp_trees(void)
{
	nlinks[0] = 0;
	nlinks[1] = 0;
	cmp_tree_dir(dfd[0], dfd[1], ".");
}

#endif /* DIFFTEST_TREE_H */
