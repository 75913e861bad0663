// SPDX-License-Identifier: GPL-2.0
/*
 * reserve.c: reserved checkouts.  The store's file "reserved" holds one
 * line per reservation, "TAG<TAB>PATH": only view TAG may check in the
 * element PATH until it does, or gives the reservation up.  No file is no
 * reservation.  The file is replaced whole: reserved.tmp is written and
 * synced, then renamed over it, and the directory synced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "err.h"
#include "reserve.h"
#include "store_int.h"

#define MVFS_RESV_FILE	"reserved"
#define MVFS_RESV_TMP	"reserved.tmp"
#define MVFS_RESV_OLD	"reserved.old"

static int mvfs_resv_oom(void)
{
	return mvfs_err(-ENOMEM, "out of memory");
}

/**
 * mvfs_resv_add - add a reservation to the list in memory
 * @r: the list
 * @tag: the view
 * @path: the element path; no TAB or newline in it
 *
 * Return: 0, -EINVAL for a path that cannot be kept, or -ENOMEM.
 */
int mvfs_resv_add(struct mvfs_resv *r, const char *tag, const char *path)
{
	char **t, **p;

	if (strpbrk(path, "\t\n"))
		return mvfs_err(-EINVAL, "%s: cannot reserve a path with a tab or a newline",
				path);
	t = realloc(r->tag, (r->n + 1) * sizeof(*t));
	if (t)
		r->tag = t;
	p = realloc(r->path, (r->n + 1) * sizeof(*p));
	if (p)
		r->path = p;
	if (!t || !p)
		return mvfs_resv_oom();
	r->tag[r->n] = strdup(tag);
	r->path[r->n] = strdup(path);
	r->n++;
	if (!r->tag[r->n - 1] || !r->path[r->n - 1])
		return mvfs_resv_oom();
	return 0;
}

/* Parse the file's lines into R. */
static int mvfs_resv_parse(struct mvfs_resv *r, FILE *f)
{
	char *line = NULL, *tab;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	while (!err && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		tab = strchr(line, '\t');
		if (!tab) {
			err = mvfs_err(-EIO, "%s: malformed line: %s",
				       MVFS_RESV_FILE, line);
			break;
		}
		*tab = '\0';
		err = mvfs_resv_add(r, line, tab + 1);
	}
	free(line);
	return err;
}

/**
 * mvfs_resv_read - read the reservations
 * @store_dir: the store
 * @r: filled in (mvfs_resv_free() it)
 *
 * Return: 0 or -errno.
 */
int mvfs_resv_read(const char *store_dir, struct mvfs_resv *r)
{
	char *name;
	FILE *f;
	int fd, err;

	memset(r, 0, sizeof(*r));
	if (asprintf(&name, "%s/%s", store_dir, MVFS_RESV_FILE) < 0)
		return mvfs_resv_oom();
	fd = mvfs_open_file(AT_FDCWD, name, O_RDONLY);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (fd >= 0 && !f) {
		err = -errno;
		close(fd);
		fd = err;
	}
	if (!f) {
		err = fd == -ENOENT ? 0 : mvfs_err(fd, "%s: %s", name,
						   strerror(-fd));
		free(name);
		return err;
	}
	err = mvfs_resv_parse(r, f);
	if (!err && ferror(f))
		err = mvfs_err(-EIO, "%s: read error", name);
	fclose(f);
	free(name);
	if (err)
		mvfs_resv_free(r);
	return err;
}

/**
 * mvfs_resv_free - free a list of reservations
 * @r: the list
 */
void mvfs_resv_free(struct mvfs_resv *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->tag[i]);
		free(r->path[i]);
	}
	free(r->tag);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

/**
 * mvfs_resv_holder - the view that reserved an element
 * @s: the store: reservations of views that no longer exist do not count
 * @r: the list
 * @path: the element path
 *
 * Return: the view's tag, or NULL when nobody holds it.
 */
const char *mvfs_resv_holder(const struct mvfs_store *s,
			     const struct mvfs_resv *r, const char *path)
{
	ssize_t i = mvfs_resv_other(s, r, path, NULL, false);

	return i < 0 ? NULL : r->tag[i];
}

/* Does reserved path RP fall to a change of PATH (UNDER: or below it)? */
static bool mvfs_resv_covers(const char *rp, const char *path, bool under)
{
	size_t n = strlen(path);

	if (!strcmp(rp, path))
		return true;
	return under && (!n || (!strncmp(rp, path, n) && rp[n] == '/'));
}

/**
 * mvfs_resv_other - a reservation that a change of @path runs into
 * @s: the store: reservations of views that no longer exist do not count
 * @r: the list
 * @path: the element path changed ("" the top)
 * @tag: the view changing it, whose own reservations do not count; NULL
 *	 for none
 * @under: also those of elements below @path (it is removed or moved)
 *
 * Return: the reservation's index in @r, or -1 when there is none.
 */
ssize_t mvfs_resv_other(const struct mvfs_store *s, const struct mvfs_resv *r,
			const char *path, const char *tag, bool under)
{
	struct mvfs_view_info vi;
	unsigned int v;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (!mvfs_resv_covers(r->path[i], path, under) ||
		    (tag && !strcmp(r->tag[i], tag)))
			continue;
		for (v = 0; v < mvfs_store_nviews(s); v++) {
			mvfs_store_view(s, v, &vi);
			if (!strcmp(vi.tag, r->tag[i]))
				return i;
		}
	}
	return -1;
}

/**
 * mvfs_resv_drop - remove view @tag's reservation of @path from the list
 * @r: the list
 * @tag: the view
 * @path: the element path
 *
 * Return: true when there was one.
 */
bool mvfs_resv_drop(struct mvfs_resv *r, const char *tag, const char *path)
{
	bool found = false;
	size_t i = 0;

	while (i < r->n) {
		if (strcmp(r->tag[i], tag) || strcmp(r->path[i], path)) {
			i++;
			continue;
		}
		free(r->tag[i]);
		free(r->path[i]);
		r->n--;
		r->tag[i] = r->tag[r->n];
		r->path[i] = r->path[r->n];
		found = true;
	}
	return found;
}

/* R's lines, in a buffer of *LEN bytes (free() it), or NULL. */
static char *mvfs_resv_image(const struct mvfs_resv *r, size_t *len)
{
	char *buf = NULL;
	size_t i;
	FILE *f;

	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	for (i = 0; i < r->n; i++)
		fprintf(f, "%s\t%s\n", r->tag[i], r->path[i]);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/**
 * mvfs_resv_write - replace the reservations, atomically
 * @store_dir: the store, open for writing (its lock held)
 * @r: the list
 *
 * Return: 0 or -errno.
 */
int mvfs_resv_write(const char *store_dir, const struct mvfs_resv *r)
{
	char *buf;
	size_t len;
	int dfd, err;

	dfd = open(store_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return mvfs_err(-errno, "%s: %s", store_dir, strerror(errno));
	buf = mvfs_resv_image(r, &len);
	err = buf ? mvfs_replace_file(dfd, MVFS_RESV_FILE, MVFS_RESV_TMP,
				      MVFS_RESV_OLD, buf, len) : -ENOMEM;
	free(buf);
	close(dfd);
	if (err)
		return mvfs_err(err, "store %s: cannot write %s: %s", store_dir,
				MVFS_RESV_FILE, strerror(-err));
	return 0;
}
