// SPDX-License-Identifier: GPL-2.0
/*
 * select.c: the tree as a view's config spec selects it, for the tools:
 * which rule and revision select an element path, what the view shows
 * there, and a directory's entries (the union of the trees of the rules
 * that select its children, each name from its own rule's revision), as
 * the module shows them (mvfs/select.c).
 */
#include <endian.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "mvfs_spec.h"
#include "select.h"

/*
 * What rule R selects now: 0 nothing (no such revision, label or branch
 * yet), and then the rule is passed over.
 */
static __u64 mvfs_sel_resolve(struct mvfs_store *s, const char *cs,
			      const struct mvfs_rule *r)
{
	char name[MVFS_NAME_MAX + 1];
	int b;

	memcpy(name, cs + r->name, r->name_len);
	name[r->name_len] = '\0';
	switch (r->kind) {
	case MVFS_SEL_REV:
		return r->rev <= mvfs_store_nrevs(s) ? r->rev : 0;
	case MVFS_SEL_LABEL:
		return mvfs_store_label_rev(s, name);
	default:
		b = r->name_len ? mvfs_store_branch_find(s, name) : 0;
		return b < 0 ? 0 : mvfs_store_branch_head(s, b);
	}
}

/**
 * mvfs_sel_make - compile view @tag's spec against the store as it is
 * @s: the store, open
 * @cs: the spec, NUL-terminated, valid; kept by reference
 * @sel: filled in; mvfs_sel_free() it
 *
 * Return: 0, -ENOMEM, or -EINVAL for a spec that does not parse.
 */
int mvfs_sel_make(struct mvfs_store *s, const char *cs, struct mvfs_sel *sel)
{
	__u32 pos = 0, line = 0, len = strlen(cs);
	struct mvfs_rule r;
	const char *why;
	int ret;

	memset(sel, 0, sizeof(*sel));
	sel->s = s;
	sel->cs = cs;
	sel->r = calloc(MVFS_SPEC_RULES_MAX, sizeof(*sel->r));
	sel->rev = calloc(MVFS_SPEC_RULES_MAX, sizeof(*sel->rev));
	if (!sel->r || !sel->rev)
		return mvfs_err(-ENOMEM, "out of memory");
	while ((ret = mvfs_spec_next(cs, len, &pos, &line, &r, &why)) == 1 &&
	       sel->n < MVFS_SPEC_RULES_MAX) {
		sel->rev[sel->n] = mvfs_sel_resolve(s, cs, &r);
		sel->r[sel->n++] = r;
	}
	if (ret < 0)
		return mvfs_err(-EINVAL, "line %u: %s", line, why);
	return 0;
}

/**
 * mvfs_sel_free - free what mvfs_sel_make() allocated
 * @sel: the selection
 */
void mvfs_sel_free(struct mvfs_sel *sel)
{
	free(sel->r);
	free(sel->rev);
	memset(sel, 0, sizeof(*sel));
}

/**
 * mvfs_sel_rule - the rule that selects element @path
 * @sel: the selection
 * @path: an element path, "" the top
 *
 * A rule that names no revision (a label or a branch that does not
 * exist yet, a number past the newest) is passed over, as ClearCase
 * passes over a rule that selects no version of an element, and as the
 * module does (mvfs_spec_match()): so "element * dev/LATEST" then
 * "element * REL1 -mkbranch dev" shows REL1 until the first check-in
 * makes dev (docs/FORMAT.md).
 *
 * Return: the rule's index, or -1 when no rule matches.
 */
int mvfs_sel_rule(const struct mvfs_sel *sel, const char *path)
{
	__u32 i, len = strlen(path);

	for (i = 0; i < sel->n; i++)
		if (sel->rev[i] &&
		    mvfs_pattern_match(sel->cs + sel->r[i].pat,
				       sel->r[i].pat_len, path, len))
			return i;
	return -1;
}

/**
 * mvfs_sel_rev - the revision that view shows element @path from
 * @sel: the selection
 * @path: an element path
 *
 * Return: the revision, 0 when nothing selects it.
 */
__u64 mvfs_sel_rev(const struct mvfs_sel *sel, const char *path)
{
	int i = mvfs_sel_rule(sel, path);

	return i < 0 ? 0 : sel->rev[i];
}

/**
 * mvfs_sel_lookup - element @path as the view shows it
 * @sel: the selection
 * @path: an element path
 * @e: filled in (without a name)
 *
 * Return: 0; -ENOENT when the view shows nothing there; -errno.
 */
int mvfs_sel_lookup(const struct mvfs_sel *sel, const char *path,
		    struct mvfs_entry_info *e)
{
	__u64 rev = mvfs_sel_rev(sel, path);
	int err;

	if (!rev)
		return -ENOENT;
	err = mvfs_store_lookup(sel->s, rev, path, e);
	return err == -ENOTDIR ? -ENOENT : err;
}

static int mvfs_sel_name_cmp(const void *a, const void *b)
{
	const struct mvfs_entry_info *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Add to *ENTS the entries of DIR in REV that REV selects. */
static int mvfs_sel_add(const struct mvfs_sel *sel, const char *dir,
			__u64 rev, struct mvfs_entry_info **ents, __u64 *n)
{
	struct mvfs_entry_info d, *v = NULL, *nv;
	__u64 count = 0, i;
	char *child;
	int err;

	err = mvfs_store_lookup(sel->s, rev, dir, &d);
	if (err == -ENOENT || err == -ENOTDIR || (!err && !S_ISDIR(d.mode)))
		return 0;
	if (!err)
		err = mvfs_store_list(sel->s, &d, &v);
	count = err ? 0 : d.size;
	nv = err ? NULL : realloc(*ents, (*n + count + 1) * sizeof(*nv));
	if (!err && !nv)
		err = mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; !err && i < count; i++) {
		*ents = nv;
		child = malloc(strlen(dir) + strlen(v[i].name) + 2);
		if (!child) {
			err = mvfs_err(-ENOMEM, "out of memory");
			break;
		}
		strcpy(child, dir);
		strcat(strcat(child, *dir ? "/" : ""), v[i].name);
		if (mvfs_sel_rev(sel, child) == rev) {
			nv[(*n)++] = v[i];
			v[i].name = NULL;
		}
		free(child);
	}
	if (nv)
		*ents = nv;
	mvfs_store_list_free(v, count);
	return err;
}

/* The rule that selects every path, if the first that applies does. */
static int mvfs_sel_all(const struct mvfs_sel *sel)
{
	const struct mvfs_rule *r;
	__u32 i;

	for (i = 0; i < sel->n && !sel->rev[i]; i++)
		;
	if (i == sel->n)
		return -1;
	r = &sel->r[i];
	if ((r->pat_len == 1 && sel->cs[r->pat] == '*') ||
	    mvfs_is_dots(sel->cs + r->pat, r->pat_len))
		return i;
	return -1;
}

/**
 * mvfs_sel_list - the entries the view shows in directory @dir
 * @sel: the selection
 * @dir: an element path
 * @ents: set to the entries, sorted by name; mvfs_store_list_free() them
 * @n: set to their number
 *
 * Return: 0 or -errno.
 */
int mvfs_sel_list(const struct mvfs_sel *sel, const char *dir,
		  struct mvfs_entry_info **ents, __u64 *n)
{
	struct mvfs_entry_info d;
	__u32 i, j;
	int err = 0;

	*ents = NULL;
	*n = 0;
	i = mvfs_sel_all(sel);
	if ((int)i >= 0) {	/* one tree, as with a one-rule spec */
		err = mvfs_store_find(sel->s, sel->rev[i], dir, &d);
		if (err <= 0 || !S_ISDIR(d.mode))
			return err < 0 ? err : 0;
		err = mvfs_store_list(sel->s, &d, ents);
		*n = err ? 0 : d.size;
		return err;
	}
	for (i = 0; !err && i < sel->n; i++) {
		for (j = 0; j < i && sel->rev[j] != sel->rev[i]; j++)
			;
		if (sel->rev[i] && j == i)
			err = mvfs_sel_add(sel, dir, sel->rev[i], ents, n);
	}
	if (err) {
		mvfs_store_list_free(*ents, *n);
		*ents = NULL;
		*n = 0;
	} else if (*n) {
		qsort(*ents, *n, sizeof(**ents), mvfs_sel_name_cmp);
	}
	return err;
}
