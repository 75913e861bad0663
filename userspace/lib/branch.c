// SPDX-License-Identifier: GPL-2.0
/*
 * branch.c: branches (format 3): lines of revisions from a base.  Record
 * 0 is main, from revision 0; a branch's newest revision is the highest
 * numbered one on it, or, while it has none, the revision it starts from.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "err.h"
#include "mvfs_spec.h"
#include "store_int.h"

/**
 * mvfs_branch_main - the branches of a format 1 or 2 store: main alone
 * @s: the store, its state being read
 *
 * Return: 0.
 */
int mvfs_branch_main(struct mvfs_store *s)
{
	memset(s->branches, 0, sizeof(*s->branches));
	mvfs_name_field_set(s->branches[0].name, MVFS_MAIN_BRANCH);
	s->nbranches = 1;
	return 0;
}

/**
 * mvfs_branch_find - the index of branch @name
 * @s: the store
 * @name: NUL-terminated
 *
 * Return: the index, or -1 when there is no such branch.
 */
int mvfs_branch_find(const struct mvfs_store *s, const char *name)
{
	return mvfs_names_find(&s->names[MVFS_NAMES_BRANCHES], s->branches,
			       sizeof(*s->branches), s->nbranches, name);
}

/**
 * mvfs_store_branch_find - the index of branch @name, quietly
 * @s: the store
 * @name: NUL-terminated
 *
 * Return: the index, or -1 when there is no such branch.
 */
int mvfs_store_branch_find(const struct mvfs_store *s, const char *name)
{
	return mvfs_branch_find(s, name);
}

/**
 * mvfs_store_nbranches - the number of branches, main included
 * @s: the store
 *
 * Return: at least 1.
 */
unsigned int mvfs_store_nbranches(const struct mvfs_store *s)
{
	return s->nbranches;
}

/**
 * mvfs_store_branch_head - a branch's newest revision (BRANCH/LATEST)
 * @s: the store
 * @b: the branch's index
 *
 * Return: the revision; 0 for main without revisions.
 */
__u64 mvfs_store_branch_head(const struct mvfs_store *s, unsigned int b)
{
	__u32 i;

	for (i = s->nrevs; i > 0; i--)
		if (le32toh(s->revs[i - 1].branch) == b)
			return i;
	return le64toh(s->branches[b].from);
}

/**
 * mvfs_store_branch_name - the name of branch @i, alone
 * @s: the store
 * @i: 0..mvfs_store_nbranches() - 1
 * @name: filled in (MVFS_NAME_MAX + 1 bytes)
 *
 * For a caller that names the branch of each of many revisions.
 */
void mvfs_store_branch_name(const struct mvfs_store *s, unsigned int i,
			    char *name)
{
	mvfs_name_field_get(name, s->branches[i].name);
}

/**
 * mvfs_store_branches - describe every branch
 * @s: the store
 *
 * The revisions are read once for all of them.
 *
 * Return: mvfs_store_nbranches() descriptions, by index (free() them), or
 * NULL, with a message, out of memory.
 */
struct mvfs_branch_info *mvfs_store_branches(const struct mvfs_store *s)
{
	struct mvfs_branch_info *bi = calloc(s->nbranches, sizeof(*bi));
	__u32 i, b;

	if (!bi) {
		mvfs_err(-ENOMEM, "out of memory");
		return NULL;
	}
	for (i = 0; i < s->nbranches; i++) {
		mvfs_name_field_get(bi[i].name, s->branches[i].name);
		bi[i].from = le64toh(s->branches[i].from);
		bi[i].head = bi[i].from;
	}
	for (i = 0; i < s->nrevs; i++) {
		b = le32toh(s->revs[i].branch);
		if (b < s->nbranches) {	/* as the state's check made sure */
			bi[b].head = i + 1;
			bi[b].nrevs++;
		}
	}
	return bi;
}

/**
 * mvfs_store_branch_index - the index of branch @name, saying why not
 * @s: the store
 * @name: the branch
 *
 * Return: the index, or -ENOENT with a message.
 */
int mvfs_store_branch_index(const struct mvfs_store *s, const char *name)
{
	int b = mvfs_branch_find(s, name);

	return b < 0 ? mvfs_err(-ENOENT, "no branch \"%s\"", name) : b;
}

/**
 * mvfs_branch_append - add a branch record, not committed
 * @s: a store of format 3
 * @name: a new, valid name
 * @from: an existing revision
 *
 * Return: its index; -EEXIST when a label has the name; -errno.
 */
int mvfs_branch_append(struct mvfs_store *s, const char *name, __u64 from)
{
	struct mvfs_branch_disk *b;

	if (s->format < 3)
		return mvfs_err(-EINVAL, "store %s: format %u has no branches: %s",
				s->dir, s->format, "run mvfs upgrade first");
	/* NAME@@X names a label or a branch: one namespace for both. */
	if (mvfs_store_label_rev(s, name))
		return mvfs_err(-EEXIST, "bad branch name \"%s\": a label has it",
				name);
	b = realloc(s->branches, (s->nbranches + 1) * sizeof(*b));
	if (!b)
		return mvfs_err(-ENOMEM, "out of memory");
	s->branches = b;
	mvfs_name_field_set(b[s->nbranches].name, name);
	b[s->nbranches].from = htole64(from);
	return s->nbranches++;
}

static int mvfs_branch_name_check(const struct mvfs_store *s,
				  const char *name)
{
	int err = mvfs_name_check("branch name", name);

	/* NAME@@7 reads 7 as a revision number, never as a branch. */
	if (!err && strspn(name, "0123456789") == strlen(name))
		err = mvfs_err(-EINVAL, "bad branch name \"%s\": a number",
			       name);
	if (!err && mvfs_branch_find(s, name) >= 0)
		err = mvfs_err(-EEXIST, "branch %s exists", name);
	return err;
}

/**
 * mvfs_store_add_branch - make branch @name, starting from @from
 * @s: a store open for writing, format 3
 * @name: the branch; the tag rules apply
 * @from: an existing revision
 *
 * Return: 0; -EINVAL bad name or format; -EEXIST; -ENOENT; -errno.
 */
int mvfs_store_add_branch(struct mvfs_store *s, const char *name,
			  __u64 from)
{
	int err = mvfs_branch_name_check(s, name);

	if (!err)
		err = mvfs_check_rev(s, from);
	if (!err)
		err = mvfs_branch_append(s, name, from);
	if (err < 0)
		return err;
	err = mvfs_state_write(s);
	if (err) {
		s->nbranches--;
		mvfs_names_forget(&s->names[MVFS_NAMES_BRANCHES]);
	}
	return err;
}

/* Why branch B may not go: 0 when it may. */
static int mvfs_branch_used(const struct mvfs_store *s, __u32 b)
{
	const char *name = s->branches[b].name;
	char tag[MVFS_NAME_MAX + 1];
	__u32 i;

	if (!b)
		return mvfs_err(-EBUSY, "branch %s cannot be removed",
				MVFS_MAIN_BRANCH);
	for (i = 0; i < s->nrevs; i++)
		if (le32toh(s->revs[i].branch) == b)
			return mvfs_err(-EBUSY, "branch %.64s holds revision %u: %s",
					name, i + 1,
					"revisions are never removed");
	for (i = 0; i < s->nviews; i++)
		if (mvfs_spec_names_branch(s->specs[i], name)) {
			mvfs_name_field_get(tag, s->views[i].tag);
			return mvfs_err(-EBUSY, "branch %.64s is used by view %s",
					name, tag);
		}
	return 0;
}

/**
 * mvfs_store_remove_branch - remove branch @name
 * @s: a store open for writing
 * @name: the branch
 *
 * Refused for main, for a branch that holds revisions (they are never
 * removed) and for one a view's spec names.
 *
 * Return: 0; -ENOENT; -EBUSY; -errno.
 */
int mvfs_store_remove_branch(struct mvfs_store *s, const char *name)
{
	struct mvfs_branch_disk gone;
	int b = mvfs_store_branch_index(s, name), err;
	size_t after;

	if (b < 0)
		return b;
	err = mvfs_branch_used(s, b);
	if (err)
		return err;
	gone = s->branches[b];
	after = (s->nbranches - b - 1) * sizeof(gone);
	memmove(&s->branches[b], &s->branches[b + 1], after);
	s->nbranches--;
	mvfs_names_forget(&s->names[MVFS_NAMES_BRANCHES]);
	mvfs_branch_shift(s, b, -1);
	err = mvfs_state_write(s);
	if (err) {
		mvfs_branch_shift(s, b, 1);
		memmove(&s->branches[b + 1], &s->branches[b], after);
		s->branches[b] = gone;
		s->nbranches++;
		mvfs_names_forget(&s->names[MVFS_NAMES_BRANCHES]);
	}
	return err;
}

/**
 * mvfs_branch_shift - move the branch fields of revisions past @b
 * @s: the store
 * @b: a branch that holds no revision
 * @by: -1 when it goes, 1 to undo that
 */
void mvfs_branch_shift(struct mvfs_store *s, __u32 b, int by)
{
	__u32 i, rb;

	for (i = 0; i < s->nrevs; i++) {
		rb = le32toh(s->revs[i].branch);
		if (rb > b || (by > 0 && rb == b))
			s->revs[i].branch = htole32(rb + by);
	}
}
