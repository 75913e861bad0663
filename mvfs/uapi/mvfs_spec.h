/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mvfs_spec.h: config specs, the rules by which a view selects, for each
 * element, the revision it shows (store format 3).
 *
 * The module and the tools both parse a spec and match its patterns; this
 * is the one place that does either, so that the tools refuse exactly what
 * the module would.  docs/FORMAT.md says the same in prose.
 *
 * A spec is text, one rule a line; blank lines and lines whose first
 * non-blank character is '#' are ignored.  A rule is
 *
 *	element PATTERN SELECTOR [-mkbranch BRANCH]
 *
 * with its words separated by blanks (space, tab; a '\r' before the end
 * of the line is a blank too).  The first rule whose PATTERN matches an
 * element's path selects it; an element that no rule matches, or that the
 * selected revision lacks, is absent.  The view's own changes come first,
 * as ClearCase's "element * CHECKEDOUT": a spec does not name them.
 *
 * PATTERN is a path relative to the top of the tree, '/'-separated, 1 to
 * MVFS_PATTERN_MAX bytes, with no empty component, no "." or "..", and no
 * leading or trailing '/'.  In a component, '*' matches any run of bytes
 * and '?' any one byte; nothing else is special (no escapes).  A
 * component "..." matches any number of components, none included: "dir/..."
 * is dir and everything below it, "src/.../x.c" every x.c under src.
 * A pattern of one component other than "..." matches that name in any
 * directory ("*.c" is every .c file).  The top directory of the tree
 * matches only the patterns "*" and "...".
 *
 * SELECTOR is LATEST (the newest revision on main), BRANCH/LATEST (the
 * newest on BRANCH), a revision number (decimal, no sign, at least 1), or
 * a label; a word of digits is always a revision number.  Branch and label
 * names follow mvfs_tag_valid().
 */
#ifndef _UAPI_MVFS_SPEC_H
#define _UAPI_MVFS_SPEC_H

#include <linux/types.h>
#include "mvfs_format.h"

#define MVFS_SPEC_MAX		65536	/* bytes of text */
#define MVFS_SPEC_RULES_MAX	256	/* rules a spec may have */
#define MVFS_PATTERN_MAX	1024	/* bytes of a pattern */
#define MVFS_SPEC_LATEST	"LATEST"
#define MVFS_SPEC_MKBRANCH	"-mkbranch"

/* One rule, as offsets into the spec's text. */
struct mvfs_rule {
	__u32	line;		/* 1-based, for messages */
	__u32	kind;		/* enum mvfs_select */
	__u64	rev;		/* MVFS_SEL_REV */
	__u32	pat, pat_len;	/* the pattern */
	__u32	name, name_len;	/* label; branch of LATEST (0 len: main) */
	__u32	mkb, mkb_len;	/* -mkbranch's branch; 0 len: none */
};

static inline int mvfs_spec_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The word of S that starts at or after *pos before END: 0 when none. */
static inline int mvfs_spec_word(const char *s, __u32 end, __u32 *pos,
				 __u32 *w, __u32 *wlen)
{
	__u32 i = *pos;

	while (i < end && mvfs_spec_blank(s[i]))
		i++;
	if (i == end)
		return 0;
	*w = i;
	while (i < end && !mvfs_spec_blank(s[i]))
		i++;
	*wlen = i - *w;
	*pos = i;
	return 1;
}

static inline int mvfs_spec_eq(const char *s, __u32 len, const char *lit)
{
	__u32 i;

	for (i = 0; i < len; i++)
		if (!lit[i] || s[i] != lit[i])
			return 0;
	return lit[len] == '\0';
}

/* A pattern: see the top of this file.  Return NULL or what is wrong. */
static inline const char *mvfs_pattern_check(const char *p, __u32 len)
{
	__u32 i, c = 0;

	if (len == 0 || len > MVFS_PATTERN_MAX)
		return "pattern of 1 to 1024 bytes expected";
	for (i = 0; i <= len; i++) {
		if (i < len && p[i] != '/') {
			if (p[i] == '\0')
				return "NUL in pattern";
			continue;
		}
		if (i == c)
			return "empty component in pattern";
		if (i - c > MVFS_ENTRY_NAME_MAX)
			return "pattern component over 255 bytes";
		if (p[c] == '.' && (i - c == 1 || (i - c == 2 && p[c + 1] == '.')))
			return "\".\" or \"..\" in pattern";
		c = i + 1;
	}
	return (void *)0;
}

/* A selector into R.  Return NULL or what is wrong. */
static inline const char *mvfs_selector_parse(const char *s, __u32 w,
					      __u32 len, struct mvfs_rule *r)
{
	const __u32 latest = sizeof(MVFS_SPEC_LATEST) - 1;
	__u32 i;

	if (mvfs_spec_eq(s + w, len, MVFS_SPEC_LATEST)) {
		r->kind = MVFS_SEL_LATEST;
		return (void *)0;
	}
	if (len > latest + 1 && s[w + len - latest - 1] == '/' &&
	    mvfs_spec_eq(s + w + len - latest, latest, MVFS_SPEC_LATEST)) {
		r->kind = MVFS_SEL_LATEST;
		r->name = w;
		r->name_len = len - latest - 1;
		if (!mvfs_tag_valid(s + w, r->name_len))
			return "bad branch name in BRANCH/LATEST";
		return (void *)0;
	}
	for (i = 0; i < len && s[w + i] >= '0' && s[w + i] <= '9'; i++)
		;
	if (i == len) {
		r->kind = MVFS_SEL_REV;
		r->rev = 0;
		for (i = 0; i < len; i++) {
			if (r->rev > (~0ULL - 9) / 10)
				return "revision number too large";
			r->rev = r->rev * 10 + (s[w + i] - '0');
		}
		return r->rev ? (void *)0 : "revision 0 does not exist";
	}
	if (!mvfs_tag_valid(s + w, len))
		return "selector: LATEST, BRANCH/LATEST, a revision or a label";
	r->kind = MVFS_SEL_LABEL;
	r->name = w;
	r->name_len = len;
	return (void *)0;
}

/* The rule on the line [start, end) of S, if any: 1 a rule, 0 none. */
static inline int mvfs_spec_rule(const char *s, __u32 start, __u32 end,
				 struct mvfs_rule *r, const char **why)
{
	__u32 pos = start, w, len;
	const char *err;

	*r = (struct mvfs_rule){ 0 };
	*why = (void *)0;
	if (!mvfs_spec_word(s, end, &pos, &w, &len) || s[w] == '#')
		return 0;
	if (!mvfs_spec_eq(s + w, len, "element")) {
		*why = "rule must start with \"element\"";
		return 0;
	}
	if (!mvfs_spec_word(s, end, &pos, &r->pat, &r->pat_len)) {
		*why = "pattern and selector expected";
		return 0;
	}
	err = mvfs_pattern_check(s + r->pat, r->pat_len);
	if (!err && !mvfs_spec_word(s, end, &pos, &w, &len))
		err = "selector expected";
	if (!err)
		err = mvfs_selector_parse(s, w, len, r);
	if (!err && mvfs_spec_word(s, end, &pos, &w, &len)) {
		if (!mvfs_spec_eq(s + w, len, MVFS_SPEC_MKBRANCH))
			err = "only -mkbranch BRANCH may follow the selector";
		else if (!mvfs_spec_word(s, end, &pos, &r->mkb, &r->mkb_len))
			err = "-mkbranch needs a branch name";
		else if (!mvfs_tag_valid(s + r->mkb, r->mkb_len) ||
			 mvfs_spec_eq(s + r->mkb, r->mkb_len,
				      MVFS_MAIN_BRANCH))
			err = "bad branch name after -mkbranch";
		else if (mvfs_spec_word(s, end, &pos, &w, &len))
			err = "unexpected word after the branch name";
	}
	*why = err;
	return !err;
}

/**
 * mvfs_spec_next - the next rule of a spec
 * @s: the spec's text, @len bytes, at most MVFS_SPEC_MAX
 * @pos: where to go on from; 0 at the start
 * @line: the number of the line last read; 0 at the start
 * @r: filled with the rule
 * @why: set to what is wrong when the return is -1
 *
 * Return: 1 a rule (in @r, @r->line its line), 0 the end, -1 an error on
 * line *@line.  A whole spec is taken only when no line is wrong and it
 * has at most MVFS_SPEC_RULES_MAX rules (the caller counts them).
 */
static inline int mvfs_spec_next(const char *s, __u32 len, __u32 *pos,
				 __u32 *line, struct mvfs_rule *r,
				 const char **why)
{
	__u32 start, end;

	while (*pos < len) {
		start = *pos;
		for (end = start; end < len && s[end] != '\n'; end++)
			if (s[end] == '\0') {
				(*line)++;
				*why = "NUL in spec";
				return -1;
			}
		*pos = end < len ? end + 1 : end;
		(*line)++;
		if (mvfs_spec_rule(s, start, end, r, why)) {
			r->line = *line;
			return 1;
		}
		if (*why)
			return -1;
	}
	return 0;
}

/* Does one component C match the glob component P ('*', '?')? */
static inline int mvfs_glob_match(const char *p, __u32 plen, const char *c,
				  __u32 clen)
{
	__u32 pi = 0, ci = 0, star = ~0U, mark = 0;

	while (ci < clen) {
		if (pi < plen && (p[pi] == '?' || p[pi] == c[ci])) {
			pi++;
			ci++;
		} else if (pi < plen && p[pi] == '*') {
			star = pi++;
			mark = ci;
		} else if (star != ~0U) {
			pi = star + 1;
			ci = ++mark;
		} else {
			return 0;
		}
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* The end of the component that starts at I in S of LEN bytes. */
static inline __u32 mvfs_comp_end(const char *s, __u32 len, __u32 i)
{
	while (i < len && s[i] != '/')
		i++;
	return i;
}

static inline int mvfs_is_dots(const char *p, __u32 len)
{
	return len == 3 && p[0] == '.' && p[1] == '.' && p[2] == '.';
}

/**
 * mvfs_pattern_match - does a pattern match an element's path?
 * @p: the pattern (checked by mvfs_pattern_check()), @plen bytes
 * @s: the path, relative to the top, '/'-separated; @slen 0 is the top
 *
 * Components are matched left to right, "..." standing for any number of
 * components; a failed match goes back to the last "..." only, so the
 * cost is at most the product of the two lengths in components.
 */
static inline int mvfs_pattern_match(const char *p, __u32 plen,
				     const char *s, __u32 slen)
{
	__u32 pi = 0, si = 0, pe, se, star = ~0U, mark = 0, i;

	if (slen == 0)
		return (plen == 1 && p[0] == '*') || mvfs_is_dots(p, plen);
	if (mvfs_comp_end(p, plen, 0) == plen && !mvfs_is_dots(p, plen)) {
		for (i = slen; i > 0 && s[i - 1] != '/'; i--)
			;
		return mvfs_glob_match(p, plen, s + i, slen - i);
	}
	while (si < slen) {
		pe = pi < plen ? mvfs_comp_end(p, plen, pi) : pi;
		se = mvfs_comp_end(s, slen, si);
		if (pi < plen && mvfs_is_dots(p + pi, pe - pi)) {
			star = pe < plen ? pe + 1 : plen;
			mark = si;
			pi = star;
		} else if (pi < plen &&
			   mvfs_glob_match(p + pi, pe - pi, s + si, se - si)) {
			pi = pe < plen ? pe + 1 : plen;
			si = se < slen ? se + 1 : slen;
		} else if (star == plen) {
			return 1;	/* a trailing "..." takes the rest */
		} else if (star != ~0U) {
			pi = star;
			mark = mvfs_comp_end(s, slen, mark);
			if (mark == slen)
				return 0;
			si = ++mark;
		} else {
			return 0;
		}
	}
	while (pi < plen) {
		pe = mvfs_comp_end(p, plen, pi);
		if (!mvfs_is_dots(p + pi, pe - pi))
			return 0;
		pi = pe < plen ? pe + 1 : plen;
	}
	return 1;
}

#endif /* _UAPI_MVFS_SPEC_H */
