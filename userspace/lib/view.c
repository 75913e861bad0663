// SPDX-License-Identifier: GPL-2.0
/*
 * view.c: views: their records in the state, and their private areas
 * (format 2: views/TAG/upper and views/TAG/work, root's, mode 0700).
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
 * @vi: filled in
 */
void mvfs_store_view(const struct mvfs_store *s, unsigned int i,
		     struct mvfs_view_info *vi)
{
	const struct mvfs_view_disk *v = &s->views[i];

	memset(vi, 0, sizeof(*vi));
	mvfs_name_field_get(vi->tag, v->tag);
	vi->select = le32toh(v->select);
	if (vi->select == MVFS_SEL_LABEL)
		mvfs_name_field_get(vi->label, v->label);
	vi->rev = le64toh(v->rev);
	vi->uid = le32toh(v->uid);
	vi->gid = le32toh(v->gid);
	vi->mode = le32toh(v->mode);
}

/**
 * mvfs_store_view_rev - the revision a view selects now
 * @s: the store
 * @vi: the view
 *
 * Return: the revision, or 0 when it selects none (no revision yet, or a
 * label that does not exist).
 */
__u64 mvfs_store_view_rev(const struct mvfs_store *s,
			  const struct mvfs_view_info *vi)
{
	switch (vi->select) {
	case MVFS_SEL_REV:
		return vi->rev;
	case MVFS_SEL_LABEL:
		return mvfs_store_label_rev(s, vi->label);
	case MVFS_SEL_LATEST:
		return s->nrevs;
	}
	return 0;
}

static int mvfs_view_find(const struct mvfs_store *s, const char *tag)
{
	__u32 i;

	for (i = 0; i < s->nviews; i++)
		if (!strncmp(s->views[i].tag, tag, MVFS_NAME_FIELD))
			return i;
	return -1;
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
	switch (vi->select) {
	case MVFS_SEL_REV:
		return mvfs_check_rev(s, vi->rev);
	case MVFS_SEL_LABEL:
		if (!mvfs_store_label_rev(s, vi->label))
			return mvfs_err(-ENOENT, "no label \"%s\"", vi->label);
		return 0;
	case MVFS_SEL_LATEST:
		return 0;
	}
	return mvfs_err(-EINVAL, "bad selection %d", vi->select);
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

/* A new area for view TAG: what an old view of that tag left goes. */
static int mvfs_view_area_new(struct mvfs_store *s, const char *tag)
{
	int err;

	mvfs_view_area_remove(s, tag);
	err = mvfs_view_area_make(s, tag);
	if (!err && syncfs(s->dfd))
		err = mvfs_err(-errno, "store %s: sync: %s", s->dir,
			       strerror(errno));
	return err;
}

/* Commit a new view record. */
static int mvfs_view_add(struct mvfs_store *s, const struct mvfs_view_info *vi)
{
	struct mvfs_view_disk *views, *v;
	int err;

	views = realloc(s->views, (s->nviews + 1) * sizeof(*views));
	if (!views)
		return mvfs_err(-ENOMEM, "out of memory");
	s->views = views;
	v = &views[s->nviews];
	memset(v, 0, sizeof(*v));
	mvfs_name_field_set(v->tag, vi->tag);
	if (vi->select == MVFS_SEL_LABEL)
		mvfs_name_field_set(v->label, vi->label);
	if (vi->select == MVFS_SEL_REV)
		v->rev = htole64(vi->rev);
	v->select = htole32(vi->select);
	v->uid = htole32(vi->uid);
	v->gid = htole32(vi->gid);
	v->mode = htole32(vi->mode);
	s->nviews++;
	err = mvfs_state_write(s);
	if (err)
		s->nviews--;
	return err;
}

/**
 * mvfs_store_add_view - make a view, and its private area (format 2)
 * @s: a store open for writing
 * @vi: the view; its tag must be new, and the revision or label it
 *	selects must exist
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
	struct mvfs_view_disk gone;
	int i = mvfs_view_find(s, tag), err;
	size_t after;

	if (i < 0)
		return mvfs_err(-ENOENT, "no view \"%s\"", tag);
	gone = s->views[i];
	after = (s->nviews - i - 1) * sizeof(gone);
	memmove(&s->views[i], &s->views[i + 1], after);
	s->nviews--;
	err = mvfs_state_write(s);
	if (err) {
		memmove(&s->views[i + 1], &s->views[i], after);
		s->views[i] = gone;
		s->nviews++;
		return err;
	}
	if (s->format >= 2)
		mvfs_view_area_remove(s, tag);
	return 0;
}
