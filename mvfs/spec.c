// SPDX-License-Identifier: GPL-2.0
/*
 * spec.c: a view's config spec (uapi/mvfs_spec.h, docs/FORMAT.md "Config
 * specs"), compiled at each reload: its rules parsed once (the parser and
 * the pattern matcher are the uapi header's, shared with the tools), their
 * selectors resolved against the state in force.  And what the selection
 * of a directory (select.c) asks of a spec: which rule selects a path, and
 * which rules can select some, or every, child of a directory.
 *
 * A spec that does not parse makes its view select nothing, with one
 * rate-limited log line: the tools refuse such a spec, so only a crafted
 * store has one, and the module only has to survive it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>
#include "mvfs.h"

static void mvfs_spec_release(struct kref *ref)
{
	struct mvfs_spec *spec = container_of(ref, struct mvfs_spec, ref);

	kfree(spec->text);
	kfree(spec);
}

/**
 * mvfs_spec_put - drop a reference to a compiled spec
 * @spec: the spec, or NULL
 */
void mvfs_spec_put(struct mvfs_spec *spec)
{
	if (spec)
		kref_put(&spec->ref, mvfs_spec_release);
}

/* The revision rule R of TEXT selects in ST; 0 none (yet). */
static u64 mvfs_rule_resolve(const struct mvfs_state *st, const char *text,
			     const struct mvfs_rule *r)
{
	const char *name = text + r->name;
	s64 i;

	switch (r->kind) {
	case MVFS_SEL_REV:
		return r->rev <= st->nrevs ? r->rev : 0;
	case MVFS_SEL_LABEL:
		i = mvfs_nameidx_find(&st->label_idx, name, r->name_len);
		return i < 0 ? 0 : st->labels[i].rev;
	default:
		if (!r->name_len)
			return st->branches[0].head;	/* main */
		i = mvfs_nameidx_find(&st->branch_idx, name, r->name_len);
		return i < 0 ? 0 : st->branches[i].head;
	}
}

static struct mvfs_spec *mvfs_spec_alloc(const struct mvfs_cs_text *cs,
					 u32 nrules)
{
	struct mvfs_spec *spec;

	spec = kzalloc(struct_size(spec, rules, nrules), GFP_KERNEL);
	if (!spec)
		return NULL;
	kref_init(&spec->ref);
	spec->text = kmemdup(cs->text, cs->len, GFP_KERNEL);
	if (!spec->text) {
		kfree(spec);
		return NULL;
	}
	spec->len = cs->len;
	spec->nrules = nrules;
	return spec;
}

/* Count the rules of CS: 0 and *n, or -1 with *line and *why. */
static int mvfs_spec_count(const struct mvfs_cs_text *cs, u32 *n, u32 *line,
			   const char **why)
{
	struct mvfs_rule r;
	u32 pos = 0;
	int ret;

	*n = 0;
	*line = 0;
	while ((ret = mvfs_spec_next(cs->text, cs->len, &pos, line, &r,
				     why)) == 1) {
		if (++*n > MVFS_SPEC_RULES_MAX) {
			*why = "more than 256 rules";
			return -1;
		}
	}
	return ret;
}

/* Parse CS into a new spec; a spec that fails selects nothing. */
static struct mvfs_spec *mvfs_spec_parse(struct mvfs_sb_info *sbi,
					 const struct mvfs_cs_text *cs,
					 const char *tag)
{
	struct mvfs_spec *spec;
	const char *why = NULL;
	u32 n, line, pos = 0, i;
	int ret = -1;

	if (cs->len > MVFS_SPEC_MAX)
		why = "over 65536 bytes";
	else
		ret = mvfs_spec_count(cs, &n, &line, &why);
	if (ret < 0) {
		if (mvfs_log_ok(sbi))
			pr_err("store %s: view %s: config spec line %u: %s; the view selects nothing\n",
			       sbi->store_name, tag, line, why);
		spec = mvfs_spec_alloc(cs, 0);
		if (spec)
			spec->bad = true;
		return spec;
	}
	spec = mvfs_spec_alloc(cs, n);
	if (!spec)
		return NULL;
	line = 0;
	for (i = 0; i < n; i++)
		mvfs_spec_next(cs->text, cs->len, &pos, &line,
			       &spec->rules[i].r, &why);
	return spec;
}

/**
 * mvfs_spec_compile - compile a view's config spec against a state
 * @sbi: the mount, for messages
 * @st: the state being taken up, for labels, branches and revisions
 * @cs: the spec's text
 * @tag: the view's tag, for messages
 * @old: the view's spec so far, or NULL: when its text is the same, its
 *       rules are taken as they are (no parse, no second message)
 *
 * Caller holds sbi->state_lock for writing (@old does not change).
 *
 * Return: the spec (mvfs_spec_put() it), or NULL when out of memory.
 */
struct mvfs_spec *mvfs_spec_compile(struct mvfs_sb_info *sbi,
				    const struct mvfs_state *st,
				    const struct mvfs_cs_text *cs,
				    const char *tag, struct mvfs_spec *old)
{
	struct mvfs_spec *spec;
	u32 i;

	lockdep_assert_held_write(&sbi->state_lock);
	if (old && old->len == cs->len &&
	    !memcmp(old->text, cs->text, cs->len)) {
		spec = mvfs_spec_alloc(cs, old->nrules);
		if (!spec)
			return NULL;
		spec->bad = old->bad;
		for (i = 0; i < old->nrules; i++)
			spec->rules[i].r = old->rules[i].r;
	} else {
		spec = mvfs_spec_parse(sbi, cs, tag);
		if (!spec)
			return NULL;
	}
	for (i = 0; i < spec->nrules; i++)
		spec->rules[i].rev = mvfs_rule_resolve(st, spec->text,
						       &spec->rules[i].r);
	return spec;
}

/**
 * mvfs_spec_same - do two specs select the same revisions everywhere
 * @a: a spec
 * @b: another, or NULL
 *
 * Return: true when their texts and every rule's revision are equal.
 */
bool mvfs_spec_same(const struct mvfs_spec *a, const struct mvfs_spec *b)
{
	u32 i;

	if (!b || a->len != b->len || a->nrules != b->nrules ||
	    memcmp(a->text, b->text, a->len))
		return false;
	for (i = 0; i < a->nrules; i++)
		if (a->rules[i].rev != b->rules[i].rev)
			return false;
	return true;
}

/**
 * mvfs_spec_match - the rule that selects an element
 * @spec: the spec
 * @path: the element's path from the top, '/'-separated; "" the top
 * @len: its length
 *
 * A rule that names no revision (its label or branch does not exist) is
 * passed over, as ClearCase passes over a rule that selects no version.
 *
 * Return: the index of the first rule that names a revision and whose
 * pattern matches, or -1.
 */
int mvfs_spec_match(const struct mvfs_spec *spec, const char *path, u32 len)
{
	const struct mvfs_rule *r;
	u32 i;

	for (i = 0; i < spec->nrules; i++) {
		r = &spec->rules[i].r;
		if (spec->rules[i].rev &&
		    mvfs_pattern_match(spec->text + r->pat, r->pat_len, path,
				       len))
			return i;
	}
	return -1;
}

/*
 * Does the glob component P match every name (1 to 255 bytes)?  Stars
 * alone do; one "?" with a star ("*?", "?*") does, every name having a
 * byte; a lone "?" matches one-byte names only, and "??" none shorter
 * than two.
 */
static bool mvfs_glob_all(const char *p, u32 len)
{
	u32 i, q = 0;

	for (i = 0; i < len; i++) {
		if (p[i] == '?')
			q++;
		else if (p[i] != '*')
			return false;
	}
	return q == 0 || (q == 1 && len > 1);
}

/*
 * Component P against a component of the subject: a real one (S, SLEN),
 * or the child (ANY), which stands for some name or, with ALL, for every
 * name.  Any glob component matches some name.
 */
static bool mvfs_child_comp(const char *p, u32 plen, const char *s, u32 slen,
			    bool any, bool all)
{
	if (!any)
		return mvfs_glob_match(p, plen, s, slen);
	return !all || mvfs_glob_all(p, plen);
}

/*
 * mvfs_pattern_match() of pattern P against "DIR/x", x standing for some
 * name (ALL false) or every name (ALL true).  The same walk as the uapi
 * matcher: components left to right, going back to the last "..." only;
 * that is exact for any per-component test, and x is the last component,
 * which only the last pattern component (or a trailing "...") can take,
 * whatever the alignment of DIR, so the answer holds for all x at once.
 * The subject's components are those of DIR, then x at byte AB.
 */
static bool mvfs_children_match(const char *p, u32 plen, const char *d,
				u32 dlen, bool all)
{
	u32 ab = dlen ? dlen + 1 : 0, send = ab + 1;
	u32 pi = 0, si = 0, pe, se, star = ~0U, mark = 0;

	if (mvfs_comp_end(p, plen, 0) == plen && !mvfs_is_dots(p, plen))
		return !all || mvfs_glob_all(p, plen);
	while (si < send) {
		pe = pi < plen ? mvfs_comp_end(p, plen, pi) : pi;
		se = si == ab ? ab : mvfs_comp_end(d, dlen, si);
		if (pi < plen && mvfs_is_dots(p + pi, pe - pi)) {
			star = pe < plen ? pe + 1 : plen;
			mark = si;
			pi = star;
		} else if (pi < plen &&
			   mvfs_child_comp(p + pi, pe - pi, d + si, se - si,
					   si == ab, all)) {
			pi = pe < plen ? pe + 1 : plen;
			si = se + 1;
		} else if (star == plen) {
			return true;	/* a trailing "..." takes the rest */
		} else if (star != ~0U) {
			pi = star;
			mark = (mark == ab ? ab : mvfs_comp_end(d, dlen, mark)) +
			       1;
			if (mark >= send)
				return false;
			si = mark;
		} else {
			return false;
		}
	}
	while (pi < plen) {
		pe = mvfs_comp_end(p, plen, pi);
		if (!mvfs_is_dots(p + pi, pe - pi))
			return false;
		pi = pe < plen ? pe + 1 : plen;
	}
	return true;
}

/**
 * mvfs_spec_children - can a rule select children of a directory
 * @spec: the spec
 * @i: the rule, below @spec->nrules (one that names a revision)
 * @dir: the directory's path from the top ("" the top)
 * @len: its length
 * @some: set when the rule's pattern matches some child's path
 * @all: set when it matches every child's path
 *
 * Computed once per directory and selection (select.c), so that lookups
 * and readdir of most directories match no pattern per name.  Both are
 * exact; were they not, @some erring towards true and @all towards false
 * would only cost time, never change what a view shows.
 */
void mvfs_spec_children(const struct mvfs_spec *spec, u32 i,
			const char *dir, u32 len, bool *some, bool *all)
{
	const struct mvfs_rule *r = &spec->rules[i].r;
	const char *p = spec->text + r->pat;

	*some = mvfs_children_match(p, r->pat_len, dir, len, false);
	*all = *some && mvfs_children_match(p, r->pat_len, dir, len, true);
}
