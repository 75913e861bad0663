// SPDX-License-Identifier: GPL-2.0
/*
 * spec.c: config specs (mvfs_spec.h, docs/FORMAT.md "Format 3"): their
 * text in the pack, their checks against the state, and the one-rule
 * specs that stand for the selections of formats 1 and 2.
 *
 * A spec is installed whole or not at all: every line parses, it has at
 * most MVFS_SPEC_RULES_MAX rules, and every revision, label and branch it
 * names exists (a branch may also be one that a -mkbranch of the same
 * spec will make).  What is wrong is said with its line number.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* asprintf(), syncfs() */
#endif
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "mvfs_spec.h"
#include "store_int.h"

/**
 * mvfs_spec_from_v2 - the spec of a format 1 or 2 view's selection
 * @s: the store
 * @v: the view record, checked
 * @cs: set to the spec (free it)
 *
 * Return: 0 or -ENOMEM.
 */
int mvfs_spec_from_v2(const struct mvfs_store *s,
		      const struct mvfs_view_disk *v, char **cs)
{
	char label[MVFS_NAME_MAX + 1];
	int n;

	switch (le32toh(v->select)) {
	case MVFS_SEL_REV:
		n = asprintf(cs, "element * %llu\n",
			     (unsigned long long)le64toh(v->rev));
		break;
	case MVFS_SEL_LABEL:
		mvfs_name_field_get(label, v->label);
		n = asprintf(cs, "element * %s\n", label);
		break;
	default:
		n = asprintf(cs, "element * %s\n", MVFS_SPEC_LATEST);
		break;
	}
	if (n < 0) {
		*cs = NULL;
		return mvfs_err(-ENOMEM, "store %s: out of memory", s->dir);
	}
	return 0;
}

/**
 * mvfs_spec_one - is @cs one rule "element * SELECTOR", no -mkbranch
 * @cs: a spec, NUL-terminated
 * @sel: set to what the selector is: a revision, a label, LATEST
 * @label: set to the label, MVFS_NAME_MAX + 1 bytes
 * @rev: set to the revision
 *
 * Return: true if so; BRANCH/LATEST of a branch other than main is not.
 */
bool mvfs_spec_one(const char *cs, enum mvfs_select *sel, char *label,
		   __u64 *rev)
{
	__u32 pos = 0, line = 0, n = strlen(cs);
	struct mvfs_rule r, more;
	const char *why;

	if (mvfs_spec_next(cs, n, &pos, &line, &r, &why) != 1 ||
	    mvfs_spec_next(cs, n, &pos, &line, &more, &why) != 0 ||
	    r.pat_len != 1 || cs[r.pat] != '*' || r.mkb_len)
		return false;
	*sel = r.kind;
	*rev = r.rev;
	*label = '\0';
	if (r.kind == MVFS_SEL_LATEST)
		return !r.name_len ||
		       mvfs_spec_eq(cs + r.name, r.name_len, MVFS_MAIN_BRANCH);
	if (r.kind == MVFS_SEL_LABEL) {
		memcpy(label, cs + r.name, r.name_len);
		label[r.name_len] = '\0';
	}
	return true;
}

/**
 * mvfs_spec_to_v2 - a format 1 or 2 view record's selection from a spec
 * @s: the store
 * @cs: the spec
 * @v: its select, label and rev are set
 *
 * Return: 0, or -EINVAL when only format 3 can hold the spec.
 */
int mvfs_spec_to_v2(const struct mvfs_store *s, const char *cs,
		    struct mvfs_view_disk *v)
{
	char label[MVFS_NAME_MAX + 1];
	enum mvfs_select sel;
	__u64 rev;

	if (!mvfs_spec_one(cs, &sel, label, &rev))
		return mvfs_err(-EINVAL, "store %s: format %u: %s; %s",
				s->dir, s->format,
				"a view selects by one rule \"element * LATEST|REV|LABEL\"",
				"mvfs upgrade makes it format 3");
	v->select = htole32(sel);
	v->rev = htole64(sel == MVFS_SEL_REV ? rev : 0);
	memset(v->label, 0, sizeof(v->label));
	if (sel == MVFS_SEL_LABEL)
		mvfs_name_field_set(v->label, label);
	return 0;
}

/**
 * mvfs_specs_load - read the spec of every view of a format 3 store
 * @s: the store, its state and pack open
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int mvfs_specs_load(struct mvfs_store *s)
{
	__u32 i, len;
	int err = 0;

	for (i = 0; !err && s->format >= 3 && i < s->nviews; i++) {
		len = le32toh(s->views[i].cs_len);
		if (!len || len > MVFS_SPEC_MAX || len > s->pack_len ||
		    le64toh(s->views[i].cs_off) > s->pack_len - len)
			return mvfs_corrupt(s, "view spec", i);
		s->specs[i] = malloc(len + 1);
		if (!s->specs[i])
			return mvfs_err(-ENOMEM, "out of memory");
		err = mvfs_pack_read(s, s->specs[i], len,
				     le64toh(s->views[i].cs_off));
		s->specs[i][len] = '\0';
		if (!err && strlen(s->specs[i]) != len)
			err = mvfs_corrupt(s, "view spec", i);
	}
	return err;
}

/* Does rule R of CS name branch NAME (BRANCH/LATEST, -mkbranch)? */
static bool mvfs_rule_names(const char *cs, const struct mvfs_rule *r,
			    const char *name)
{
	return (r->kind == MVFS_SEL_LATEST && r->name_len &&
		mvfs_spec_eq(cs + r->name, r->name_len, name)) ||
	       (r->mkb_len && mvfs_spec_eq(cs + r->mkb, r->mkb_len, name));
}

/**
 * mvfs_spec_names_branch - does a spec name branch @name
 * @cs: a spec, NUL-terminated, valid
 * @name: the branch
 *
 * Return: true when a rule selects @name/LATEST or makes it (-mkbranch).
 */
bool mvfs_spec_names_branch(const char *cs, const char *name)
{
	__u32 pos = 0, line = 0, n = strlen(cs);
	struct mvfs_rule r;
	const char *why;

	while (mvfs_spec_next(cs, n, &pos, &line, &r, &why) == 1)
		if (mvfs_rule_names(cs, &r, name))
			return true;
	return false;
}

/* Is branch NAME (LEN bytes) one that a -mkbranch of CS makes? */
static bool mvfs_spec_makes(const char *cs, const char *name, __u32 len)
{
	__u32 pos = 0, line = 0, n = strlen(cs);
	struct mvfs_rule r;
	const char *why;

	while (mvfs_spec_next(cs, n, &pos, &line, &r, &why) == 1)
		if (r.mkb_len == len && !memcmp(cs + r.mkb, name, len))
			return true;
	return false;
}

/* Does what rule R names exist?  0, or -ENOENT saying what does not. */
static int mvfs_rule_exists(const struct mvfs_store *s, const char *cs,
			    const struct mvfs_rule *r)
{
	char name[MVFS_NAME_MAX + 1];

	memcpy(name, cs + r->name, r->name_len);
	name[r->name_len] = '\0';
	if (r->kind == MVFS_SEL_REV && r->rev > s->nrevs)
		return mvfs_err(-ENOENT, "line %u: no revision %llu (the newest is %u)",
				r->line, (unsigned long long)r->rev, s->nrevs);
	if (r->kind == MVFS_SEL_LABEL && !mvfs_store_label_rev(s, name))
		return mvfs_err(-ENOENT, "line %u: no label \"%s\"", r->line,
				name);
	if (r->kind == MVFS_SEL_LATEST && r->name_len &&
	    mvfs_branch_find(s, name) < 0 &&
	    !mvfs_spec_makes(cs, name, r->name_len))
		return mvfs_err(-ENOENT, "line %u: no branch \"%s\" (%s)",
				r->line, name,
				"mvfs mkbranch makes it, or -mkbranch in the spec");
	if (r->mkb_len) {
		memcpy(name, cs + r->mkb, r->mkb_len);
		name[r->mkb_len] = '\0';
		if (mvfs_store_label_rev(s, name))
			return mvfs_err(-EINVAL, "line %u: -mkbranch %s: a label has that name",
					r->line, name);
	}
	return 0;
}

/**
 * mvfs_store_spec_check - may @cs be installed as a view's spec
 * @s: the store
 * @cs: the spec, NUL-terminated
 *
 * Return: 0, or -EINVAL/-ENOENT/-E2BIG with a message that names the
 * line.
 */
int mvfs_store_spec_check(const struct mvfs_store *s, const char *cs)
{
	size_t n = strlen(cs);
	__u32 pos = 0, line = 0, rules = 0;
	struct mvfs_rule r;
	const char *why = NULL;
	int ret, err = 0;

	if (!n || n > MVFS_SPEC_MAX)
		return mvfs_err(-E2BIG, "a spec holds 1 to %u bytes, not %zu",
				MVFS_SPEC_MAX, n);
	while (!err && (ret = mvfs_spec_next(cs, n, &pos, &line, &r,
					     &why)) == 1) {
		if (++rules > MVFS_SPEC_RULES_MAX)
			err = mvfs_err(-E2BIG, "line %u: more than %u rules",
				       line, MVFS_SPEC_RULES_MAX);
		else
			err = mvfs_rule_exists(s, cs, &r);
	}
	if (!err && ret < 0)
		err = mvfs_err(-EINVAL, "line %u: %s", line, why);
	if (!err && !rules)
		err = mvfs_err(-EINVAL, "no rule: the view would show nothing");
	return err;
}

/**
 * mvfs_spec_store - put a spec's text in the pack for a view record
 * @s: a store open for writing, building nothing
 * @cs: the spec, checked
 * @v: its cs_off and cs_len are set
 *
 * Format 3 only.  On success the store is building: mvfs_commit_built()
 * commits the pack bytes with the state, mvfs_store_abort() takes them
 * back.
 *
 * Return: 0 or -errno (and then nothing is being built).
 */
int mvfs_spec_store(struct mvfs_store *s, const char *cs,
		    struct mvfs_view3_disk *v)
{
	size_t len = strlen(cs);
	__u64 off;
	int err;

	err = mvfs_store_begin(s);
	if (!err)
		err = mvfs_pack_put(s, cs, len, &off);
	if (err) {
		mvfs_store_abort(s);
		return err;
	}
	v->cs_off = htole64(off);
	v->cs_len = htole32(len);
	return 0;
}

/**
 * mvfs_store_set_spec - give view @tag the spec @cs, atomically
 * @s: a store open for writing
 * @tag: the view
 * @cs: the spec, NUL-terminated
 *
 * Return: 0; -ENOENT no such view; -EINVAL/-E2BIG a bad spec (the view
 * keeps its old one); -errno.
 */
int mvfs_store_set_spec(struct mvfs_store *s, const char *tag, const char *cs)
{
	int i = mvfs_view_find(s, tag), err;
	struct mvfs_view3_disk old;
	char *text, *was;

	if (i < 0)
		return mvfs_err(-ENOENT, "no view \"%s\"", tag);
	err = mvfs_store_spec_check(s, cs);
	if (err)
		return err;
	text = strdup(cs);
	if (!text)
		return mvfs_err(-ENOMEM, "out of memory");
	old = s->views[i];
	was = s->specs[i];
	s->specs[i] = text;
	err = s->format >= 3 ? mvfs_spec_store(s, cs, &s->views[i]) : 0;
	if (!err)
		err = s->format >= 3 ? mvfs_commit_built(s, false) :
				       mvfs_state_write(s);
	if (err) {
		s->views[i] = old;
		s->specs[i] = was;
		free(text);
		return err;
	}
	free(was);
	return 0;
}
