// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c: the merge a view has pending: views/TAG/merge holds the
 * revision that mvfs merge merged into the view's private area, and the
 * view's next check-in records it as the new revision's merge.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checkin.h"
#include "err.h"

#define MVFS_MERGE_FILE	"merge"

static char *mvfs_merge_path(const char *store_dir, const char *tag)
{
	char *p;

	if (asprintf(&p, "%s/%s/%s/%s", store_dir, MVFS_VIEWS_DIR, tag,
		     MVFS_MERGE_FILE) < 0)
		return NULL;
	return p;
}

/**
 * mvfs_merge_pending - the revision merged into view @tag, not yet
 *	checked in
 * @store_dir: the store
 * @tag: the view
 * @rev: set to it; 0 none
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_merge_pending(const char *store_dir, const char *tag, __u64 *rev)
{
	char *path = mvfs_merge_path(store_dir, tag), buf[32];
	ssize_t len = 0;
	char *end;
	int fd, err = 0;

	*rev = 0;
	if (!path)
		return mvfs_err(-ENOMEM, "out of memory");
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		err = mvfs_err(-errno, "%s: %s", path, strerror(errno));
	if (fd >= 0) {
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		*rev = strtoull(buf, &end, 10);
		if (end == buf || (*end && *end != '\n'))
			err = mvfs_err(-EIO, "%s: not a revision number", path);
	}
	free(path);
	return err;
}

/**
 * mvfs_merge_set - record that revision @rev was merged into view @tag
 * @store_dir: the store
 * @tag: the view
 * @rev: the revision
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_merge_set(const char *store_dir, const char *tag, __u64 rev)
{
	char *path = mvfs_merge_path(store_dir, tag);
	FILE *f;
	int err = 0;

	if (!path)
		return mvfs_err(-ENOMEM, "out of memory");
	f = fopen(path, "we");
	if (!f || fprintf(f, "%llu\n", rev) < 0 || fflush(f) ||
	    fsync(fileno(f)))
		err = mvfs_err(-errno, "%s: %s", path, strerror(errno));
	if (f && fclose(f) && !err)
		err = mvfs_err(-errno, "%s: %s", path, strerror(errno));
	free(path);
	return err;
}

/**
 * mvfs_merge_done - the pending merge was checked in: forget it
 * @store_dir: the store
 * @tag: the view
 */
void mvfs_merge_done(const char *store_dir, const char *tag)
{
	char *path = mvfs_merge_path(store_dir, tag);

	if (path)
		unlink(path);
	free(path);
}
