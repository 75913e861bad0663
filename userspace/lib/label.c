// SPDX-License-Identifier: GPL-2.0
/*
 * label.c: labels, names of revisions.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "store_int.h"

/* Labels. */

/**
 * mvfs_store_nlabels - the number of labels
 * @s: the store
 *
 * Return: how many labels there are.
 */
unsigned int mvfs_store_nlabels(const struct mvfs_store *s)
{
	return s->nlabels;
}

/**
 * mvfs_store_label - describe label @i
 * @s: the store
 * @i: 0..mvfs_store_nlabels() - 1
 * @li: filled in
 */
void mvfs_store_label(const struct mvfs_store *s, unsigned int i,
		      struct mvfs_label_info *li)
{
	mvfs_name_field_get(li->name, s->labels[i].name);
	li->rev = le64toh(s->labels[i].rev);
}

static struct mvfs_label_disk *mvfs_label_find(const struct mvfs_store *s,
					       const char *name)
{
	long i = mvfs_names_find(&s->names[MVFS_NAMES_LABELS], s->labels,
				 sizeof(*s->labels), s->nlabels, name);

	return i < 0 ? NULL : &s->labels[i];
}

/**
 * mvfs_store_label_rev - the revision a label names
 * @s: the store
 * @name: the label
 *
 * Return: the revision, or 0 when there is no such label.
 */
__u64 mvfs_store_label_rev(const struct mvfs_store *s, const char *name)
{
	const struct mvfs_label_disk *l = mvfs_label_find(s, name);

	return l ? le64toh(l->rev) : 0;
}

static int mvfs_label_append(struct mvfs_store *s, const char *name,
			     __u64 rev)
{
	struct mvfs_label_disk *labels;
	int err;

	labels = realloc(s->labels, (s->nlabels + 1) * sizeof(*labels));
	if (!labels)
		return mvfs_err(-ENOMEM, "out of memory");
	s->labels = labels;
	mvfs_name_field_set(labels[s->nlabels].name, name);
	labels[s->nlabels].rev = htole64(rev);
	s->nlabels++;
	err = mvfs_state_write(s);
	if (err) {
		s->nlabels--;
		mvfs_names_forget(&s->names[MVFS_NAMES_LABELS]);
	}
	return err;
}

/**
 * mvfs_store_set_label - make label @name name revision @rev
 * @s: a store open for writing
 * @name: the label; must be a valid name
 * @rev: an existing revision
 * @replace: move the label if it exists
 *
 * Return: 0; -EINVAL for a bad name; -ENOENT for no such revision;
 * -EEXIST when the label exists and @replace is false, or a branch has
 * the name; -errno.
 */
int mvfs_store_set_label(struct mvfs_store *s, const char *name, __u64 rev,
			 bool replace)
{
	struct mvfs_label_disk *l;
	__le64 old;
	int err;

	err = mvfs_name_check("label name", name);
	if (err)
		return err;
	/* NAME@@123 reads 123 as a revision number, never as a label. */
	if (strspn(name, "0123456789") == strlen(name))
		return mvfs_err(-EINVAL, "bad label name \"%s\": a number",
				name);
	err = mvfs_check_rev(s, rev);
	if (err)
		return err;
	l = mvfs_label_find(s, name);
	/* NAME@@X names a label or a branch: one namespace for both. */
	if (!l && mvfs_store_branch_find(s, name) >= 0)
		return mvfs_err(-EEXIST, "bad label name \"%s\": a branch has it",
				name);
	if (!l)
		return mvfs_label_append(s, name, rev);
	if (!replace)
		return mvfs_err(-EEXIST, "label %s exists (revision %llu)",
				name, (__u64)le64toh(l->rev));
	old = l->rev;
	l->rev = htole64(rev);
	err = mvfs_state_write(s);
	if (err)
		l->rev = old;
	return err;
}
