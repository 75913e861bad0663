// SPDX-License-Identifier: GPL-2.0
/*
 * fsck_views.c: the private areas of format 2: views/TAG/upper and
 * views/TAG/work for every view, and no directory in views/ of a tag no
 * view has.  --repair makes a missing area and removes an area of no
 * view.  What an area holds is the module's (it may be in use): only the
 * module's rules apply to it, and they are not checked here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "err.h"
#include "fsck.h"

/* Is PATH in the store a directory (not a symlink to one)? */
static bool mvfs_fsck_is_dir(struct mvfs_store *s, const char *path)
{
	struct stat st;

	return !fstatat(s->dfd, path, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode);
}

static void mvfs_fsck_area(struct mvfs_fsck *f, const char *tag)
{
	char path[sizeof(MVFS_VIEWS_DIR) + MVFS_NAME_MAX + 8];
	char up[sizeof(path) + 8], work[sizeof(path) + 8];

	snprintf(path, sizeof(path), "%s/%s", MVFS_VIEWS_DIR, tag);
	snprintf(up, sizeof(up), "%s/%s", path, MVFS_UPPER_DIR);
	snprintf(work, sizeof(work), "%s/%s", path, MVFS_WORK_DIR);
	if (mvfs_fsck_is_dir(f->s, up) && mvfs_fsck_is_dir(f->s, work))
		return;
	mvfs_fsck_problem(f, "view %s: no private area (%s/{%s,%s})", tag,
			  path, MVFS_UPPER_DIR, MVFS_WORK_DIR);
	if (f->flags & MVFS_FSCK_REPAIR)
		mvfs_fsck_repaired(f, mvfs_view_area_make(f->s, tag), "made");
}

static bool mvfs_fsck_is_view(const struct mvfs_store *s, const char *tag)
{
	return mvfs_view_find(s, tag) >= 0;
}

static void mvfs_fsck_area_extra(struct mvfs_fsck *f, int dfd,
				 const char *name)
{
	if (mvfs_fsck_is_view(f->s, name))
		return;
	mvfs_fsck_problem(f, "%s/%s: area of no view (garbage)",
			  MVFS_VIEWS_DIR, name);
	if (f->flags & MVFS_FSCK_REPAIR)
		mvfs_fsck_repaired(f, mvfs_remove_tree(dfd, name), "removed");
}

/**
 * mvfs_fsck_areas - format 2: the private area of every view, no other
 * @f: the check
 *
 * Return: 0.
 */
int mvfs_fsck_areas(struct mvfs_fsck *f)
{
	char tag[MVFS_NAME_MAX + 1];
	struct dirent *de;
	__u32 i;
	DIR *d;
	int fd;

	if (f->s->format < 2)
		return 0;
	for (i = 0; i < f->s->nviews; i++)
		if (mvfs_name_field_get(tag, f->s->views[i].tag))
			mvfs_fsck_area(f, tag);
	fd = openat(f->s->dfd, MVFS_VIEWS_DIR,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		mvfs_fsck_problem(f, "%s: %s", MVFS_VIEWS_DIR, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			mvfs_fsck_area_extra(f, dirfd(d), de->d_name);
	closedir(d);
	return 0;
}

