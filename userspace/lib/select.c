// SPDX-License-Identifier: GPL-2.0
/*
 * select.c: the tree as a view's config spec selects it, for the tools:
 * which rule and revision select an element path, and what the view
 * shows there, as the module shows it (mvfs/select.c).
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
