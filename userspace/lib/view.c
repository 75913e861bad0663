// SPDX-License-Identifier: GPL-2.0
/*
 * view.c: views: their records in the state.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

/**
 * mvfs_store_add_view - make a view
 * @s: a store open for writing
 * @vi: the view; its tag must be new, and the revision or label it
 *	selects must exist
 *
 * Return: 0; -EINVAL for a bad tag or mode; -EEXIST when the tag is taken;
 * -ENOENT for no such revision or label; -errno.
 */
int mvfs_store_add_view(struct mvfs_store *s, const struct mvfs_view_info *vi)
{
	struct mvfs_view_disk *views, *v;
	int err;

	err = mvfs_view_check(s, vi);
	if (err)
		return err;
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
 * mvfs_store_remove_view - remove a view
 * @s: a store open for writing
 * @tag: the view's tag
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
	}
	return err;
}
