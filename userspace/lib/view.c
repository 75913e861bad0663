// SPDX-License-Identifier: GPL-2.0
/*
 * view.c: views: their records in the state (their specs: spec.c), and
 * their private areas (format 2: views/TAG/upper and views/TAG/work,
 * root's, mode 0700).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "err.h"
#include "store_int.h"

/* Views. */

/**
 * mvfs_store_nviews - the number of views
 * @s: the store
 *
 * Return: how many views there are.
 */
unsigned int mvfs_store_nviews(const struct mvfs_store *s)
{
	return s->nviews;
}

/**
 * mvfs_store_view - describe view @i
 * @s: the store
 * @i: 0..mvfs_store_nviews() - 1
 * @vi: filled in; its spec is the store's, valid while it is open
 */
void mvfs_store_view(const struct mvfs_store *s, unsigned int i,
		     struct mvfs_view_info *vi)
{
	const struct mvfs_view3_disk *v = &s->views[i];

	memset(vi, 0, sizeof(*vi));
	mvfs_name_field_get(vi->tag, v->tag);
	vi->cs = s->specs[i];
	vi->uid = le32toh(v->uid);
	vi->gid = le32toh(v->gid);
	vi->mode = le32toh(v->mode);
}

/**
 * mvfs_view_find - the index of view @tag
 * @s: the store
 * @tag: NUL-terminated
 *
 * Return: the index, or -1 when there is no such view.
 */
int mvfs_view_find(const struct mvfs_store *s, const char *tag)
{
	return mvfs_names_find(&s->names[MVFS_NAMES_VIEWS], s->views,
			       sizeof(*s->views), s->nviews, tag);
}

/**
 * mvfs_store_view_get - describe view @tag
 * @s: the store
 * @tag: the view
 * @vi: filled in, as mvfs_store_view() does
 *
 * Return: 0, or -ENOENT with a message.
 */
int mvfs_store_view_get(const struct mvfs_store *s, const char *tag,
			struct mvfs_view_info *vi)
{
	int i = mvfs_view_find(s, tag);

	if (i < 0)
		return mvfs_err(-ENOENT, "no view \"%s\"", tag);
	mvfs_store_view(s, i, vi);
	return 0;
}

static int mvfs_view_check(const struct mvfs_store *s,
			   const struct mvfs_view_info *vi)
{
	int err = mvfs_name_check("view tag", vi->tag);

	if (err)
		return err;
	if (mvfs_view_find(s, vi->tag) >= 0)
		return mvfs_err(-EEXIST, "view %s exists", vi->tag);
	if (vi->mode > 0777)
		return mvfs_err(-EINVAL, "bad mode %o: permission bits only",
				vi->mode);
	return mvfs_store_spec_check(s, vi->cs);
}

/* Private areas, format 2: views/TAG/{upper,work}, root's alone. */

#define MVFS_AREA_PATH	(sizeof(MVFS_VIEWS_DIR) + MVFS_NAME_MAX + 8)

/*
 * mkdir PATH in the store, 0700, owned by root; an existing directory is
 * kept.  Anything else of that name (a symlink above all: chmod would
 * follow it) is refused.
 */
static int mvfs_mkdir_private(struct mvfs_store *s, const char *path)
{
	struct stat st;
	int err = 0;

	if (mkdirat(s->dfd, path, 0700) && errno != EEXIST)
		err = -errno;
	if (!err && fstatat(s->dfd, path, &st, AT_SYMLINK_NOFOLLOW))
		err = -errno;
	if (!err && !S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	if (!err && (fchownat(s->dfd, path, 0, 0, AT_SYMLINK_NOFOLLOW) ||
		     fchmodat(s->dfd, path, 0700, 0)))
		err = -errno;
	if (err)
		return mvfs_err(err, "store %s: %s: %s", s->dir, path,
				strerror(-err));
	return 0;
}

/**
 * mvfs_views_dir_make - make views/ if it is missing
 * @s: a store open for writing
 *
 * Return: 0 or -errno.
 */
int mvfs_views_dir_make(struct mvfs_store *s)
{
	if (mkdirat(s->dfd, MVFS_VIEWS_DIR, 0755) && errno != EEXIST)
		return mvfs_err(-errno, "store %s: %s: %s", s->dir,
				MVFS_VIEWS_DIR, strerror(errno));
	return 0;
}

/**
 * mvfs_view_area_make - make what is missing of view @tag's private area
 * @s: a store open for writing
 * @tag: a valid tag
 *
 * Return: 0 or -errno.
 */
int mvfs_view_area_make(struct mvfs_store *s, const char *tag)
{
	static const char * const parts[] = {
		"", "/" MVFS_UPPER_DIR, "/" MVFS_WORK_DIR,
	};
	char path[MVFS_AREA_PATH];
	unsigned int i;
	int err;

	err = mvfs_views_dir_make(s);
	for (i = 0; !err && i < ARRAY_SIZE(parts); i++) {
		snprintf(path, sizeof(path), "%s/%s%s", MVFS_VIEWS_DIR, tag,
			 parts[i]);
		err = mvfs_mkdir_private(s, path);
	}
	return err;
}

/* Remove view TAG's area, all of it; a failure is only a warning. */
static void mvfs_view_area_remove(struct mvfs_store *s, const char *tag)
{
	char path[MVFS_AREA_PATH];
	int err;

	snprintf(path, sizeof(path), "%s/%s", MVFS_VIEWS_DIR, tag);
	err = mvfs_remove_tree(s->dfd, path);
	if (err)
		fprintf(stderr, "mvfs: warning: store %s: %s: %s %s\n",
			s->dir, path, strerror(-err),
			"(it belongs to no view: mvfs fsck --repair removes it)");
}

/*
 * A new area for view TAG: what an old view of that tag left goes, its
 * release synced before the new directories may take its inodes (as in
 * mvfs_state_write()).
 */
static int mvfs_view_area_new(struct mvfs_store *s, const char *tag)
{
	int err = 0;

	mvfs_view_area_remove(s, tag);
	if (syncfs(s->dfd))
		err = mvfs_err(-errno, "store %s: sync: %s", s->dir,
			       strerror(errno));
	if (!err)
		err = mvfs_view_area_make(s, tag);
	if (!err && syncfs(s->dfd))
		err = mvfs_err(-errno, "store %s: sync: %s", s->dir,
			       strerror(errno));
	return err;
}

/* Grow the views and their specs by one, zeroed. */
static int mvfs_views_grow(struct mvfs_store *s)
{
	struct mvfs_view3_disk *views;
	char **specs;

	views = realloc(s->views, (s->nviews + 1) * sizeof(*views));
	if (views)
		s->views = views;
	specs = realloc(s->specs, (s->nviews + 1) * sizeof(*specs));
	if (specs)
		s->specs = specs;
	if (!views || !specs)
		return mvfs_err(-ENOMEM, "out of memory");
	memset(&views[s->nviews], 0, sizeof(*views));
	specs[s->nviews] = NULL;
	return 0;
}

/* Commit a new view record, its spec in the pack (format 3). */
static int mvfs_view_add(struct mvfs_store *s, const struct mvfs_view_info *vi)
{
	struct mvfs_view3_disk *v;
	int err;

	err = mvfs_views_grow(s);
	if (err)
		return err;
	v = &s->views[s->nviews];
	mvfs_name_field_set(v->tag, vi->tag);
	v->uid = htole32(vi->uid);
	v->gid = htole32(vi->gid);
	v->mode = htole32(vi->mode);
	s->specs[s->nviews] = strdup(vi->cs);
	if (!s->specs[s->nviews])
		return mvfs_err(-ENOMEM, "out of memory");
	err = s->format >= 3 ? mvfs_spec_store(s, vi->cs, v) : 0;
	s->nviews++;
	if (!err)
		err = s->format >= 3 ? mvfs_commit_built(s, false) :
				       mvfs_state_write(s);
	if (err) {
		s->nviews--;
		free(s->specs[s->nviews]);
		mvfs_names_forget(&s->names[MVFS_NAMES_VIEWS]);
	}
	return err;
}

/**
 * mvfs_store_add_view - make a view, and its private area (format 2)
 * @s: a store open for writing
 * @vi: the view; its tag must be new, and its spec valid (what it names
 *	exists)
 *
 * The area is made, and made durable, before the view's record is
 * committed: a crash leaves an area of no view, which the next mkview of
 * that tag replaces and mvfs fsck --repair removes.
 *
 * Return: 0; -EINVAL for a bad tag or mode; -EEXIST when the tag is taken;
 * -ENOENT for no such revision or label; -errno.
 */
int mvfs_store_add_view(struct mvfs_store *s, const struct mvfs_view_info *vi)
{
	int err;

	err = mvfs_view_check(s, vi);
	if (err || s->format < 2)
		return err ? err : mvfs_view_add(s, vi);
	err = mvfs_view_area_new(s, vi->tag);
	if (!err)
		err = mvfs_view_add(s, vi);
	if (err)
		mvfs_view_area_remove(s, vi->tag);
	return err;
}

/**
 * mvfs_store_remove_view - remove a view and its private area
 * @s: a store open for writing
 * @tag: the view's tag
 *
 * The record goes first: once it is committed the area belongs to no
 * view, and an area that cannot be removed is only garbage (a warning;
 * mvfs fsck --repair removes it).
 *
 * Return: 0; -ENOENT when there is no such view; -errno.
 */
int mvfs_store_remove_view(struct mvfs_store *s, const char *tag)
{
	struct mvfs_view3_disk gone;
	int i = mvfs_view_find(s, tag), err;
	char *spec;
	size_t after;

	if (i < 0)
		return mvfs_err(-ENOENT, "no view \"%s\"", tag);
	gone = s->views[i];
	spec = s->specs[i];
	after = s->nviews - i - 1;
	memmove(&s->views[i], &s->views[i + 1], after * sizeof(gone));
	memmove(&s->specs[i], &s->specs[i + 1], after * sizeof(spec));
	s->nviews--;
	mvfs_names_forget(&s->names[MVFS_NAMES_VIEWS]);
	err = mvfs_state_write(s);
	if (err) {
		memmove(&s->views[i + 1], &s->views[i], after * sizeof(gone));
		memmove(&s->specs[i + 1], &s->specs[i], after * sizeof(spec));
		s->views[i] = gone;
		s->specs[i] = spec;
		s->nviews++;
		mvfs_names_forget(&s->names[MVFS_NAMES_VIEWS]);
		return err;
	}
	free(spec);
	if (s->format >= 2)
		mvfs_view_area_remove(s, tag);
	return 0;
}
