// SPDX-License-Identifier: GPL-2.0
/*
 * rev.c: revisions: building one (begin, contents, commit or abort)
 * and reading them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* syncfs() */
#endif
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "err.h"
#include "store_int.h"

/* Building a revision. */

/**
 * mvfs_store_begin - start building a revision
 * @s: a store open for writing
 *
 * Return: 0 or -errno.
 */
int mvfs_store_begin(struct mvfs_store *s)
{
	int err;

	if (!s->write || s->building)
		return mvfs_err(-EINVAL, "store %s: not open for a revision",
				s->dir);
	s->buf = malloc(MVFS_IO_BUF);
	s->buf2 = malloc(MVFS_IO_BUF);
	if (!s->buf || !s->buf2)
		return mvfs_err(-ENOMEM, "out of memory");
	s->building = true;
	s->pack_end = s->pack_len;
	s->obj_end = s->next_object;
	err = mvfs_index_load(s);
	if (err)
		mvfs_store_abort(s);
	return err;
}

/* End building a revision, keeping what was written. */
static void mvfs_build_end(struct mvfs_store *s)
{
	mvfs_index_free(&s->index);
	free(s->buf);
	free(s->buf2);
	s->buf = NULL;
	s->buf2 = NULL;
	s->building = false;
}

/**
 * mvfs_store_abort - take back what was written for an uncommitted revision
 * @s: the store; nothing happens unless a revision is being built
 */
void mvfs_store_abort(struct mvfs_store *s)
{
	char path[MVFS_OBJ_PATH_LEN];
	__u64 n;

	if (!s->building)
		return;
	/* If this fails, the next writer trims: the garbage rule. */
	mvfs_trim_files(s);
	for (n = mvfs_object_next(s->next_object); n < s->obj_end;
	     n = mvfs_object_next(n + 1)) {
		mvfs_object_path(path, n);
		unlinkat(s->dfd, path, 0);
		/* and its objects/XX if that is empty now */
		*strrchr(path, '/') = '\0';
		unlinkat(s->dfd, path, AT_REMOVEDIR);
	}
	mvfs_build_end(s);
}

static int mvfs_rev_append(struct mvfs_store *s,
			   const struct mvfs_entry_info *root, __u64 msg_off,
			   __u32 msg_len)
{
	struct mvfs_rev3_disk *revs, *r;

	if (s->nrevs == UINT32_MAX)
		return mvfs_err(-EOVERFLOW, "store %s: too many revisions",
				s->dir);
	revs = realloc(s->revs, (s->nrevs + 1) * sizeof(*revs));
	if (!revs)
		return mvfs_err(-ENOMEM, "out of memory");
	s->revs = revs;
	r = &revs[s->nrevs];
	memset(r, 0, sizeof(*r));
	mvfs_entry_encode(root, 0, 0, &r->r.root);
	r->r.time = htole64((__u64)time(NULL));
	r->r.msg_off = htole64(msg_off);
	r->r.msg_len = htole32(msg_len);
	r->r.author = htole32(getuid());
	return 0;
}

/*
 * make torture builds the tools once more with -DMVFS_TEST_SKIP_FSYNC=1,
 * for its proof that the power-cut campaign (tests/torture/powercut)
 * catches a commit whose objects and trees were never made durable.
 * Never set in the tools that are installed.
 */
#ifndef MVFS_TEST_SKIP_FSYNC
#define MVFS_TEST_SKIP_FSYNC 0
#endif

/**
 * mvfs_commit_built - commit what was built, and the state in memory
 * @s: the store, building
 * @rev: a revision was built: its record, past nrevs, becomes the newest
 *
 * Makes everything written durable (syncfs), then commits the state.
 * On failure, what was written is taken back (what cannot be, the next
 * writer trims).
 *
 * Return: 0 or -errno, and then nothing is committed.
 */
int mvfs_commit_built(struct mvfs_store *s, bool rev)
{
	__u64 old_pack = s->pack_len, old_next = s->next_object;
	__u64 old_index = s->index_len, index_add;
	int err;

	err = mvfs_index_flush(s, &index_add);
	if (!err && !MVFS_TEST_SKIP_FSYNC && syncfs(s->dfd))
		err = mvfs_err(-errno, "store %s: sync: %s", s->dir,
			       strerror(errno));
	if (err)
		goto out_abort;
	if (rev && mvfs_fault("crash-before-state"))
		_exit(9);
	s->pack_len = s->pack_end;
	s->next_object = s->obj_end;
	s->index_len += index_add;
	s->nrevs += rev;
	err = mvfs_state_write(s);
	/*
	 * mvfs_state_write() fails only when the state was not replaced:
	 * then nothing is committed and everything written is taken back.
	 */
	if (err) {
		s->pack_len = old_pack;
		s->next_object = old_next;
		s->index_len = old_index;
		s->nrevs -= rev;
		goto out_abort;
	}
	mvfs_isort_update(s);
	mvfs_build_end(s);
	return 0;

out_abort:
	mvfs_store_abort(s);
	return err;
}

/* Set the new revision's branch, parent and merge; make its branch. */
static int mvfs_rev_place(struct mvfs_store *s, const struct mvfs_rev_place *pl)
{
	struct mvfs_rev3_disk *r = &s->revs[s->nrevs];
	int b = pl && pl->branch ? mvfs_branch_find(s, pl->branch) : 0;

	if (b < 0 && !pl->from)
		return mvfs_err(-ENOENT, "no branch \"%s\"", pl->branch);
	if (b < 0)
		b = mvfs_branch_append(s, pl->branch, pl->from);
	if (b < 0)
		return b;
	if (b && s->format < 3)
		return mvfs_err(-EINVAL, "store %s: format %u has no branches",
				s->dir, s->format);
	r->branch = htole32(b);
	r->parent = htole64(mvfs_store_branch_head(s, b));
	r->merge = htole64(pl ? pl->merge : 0);
	return 0;
}

/**
 * mvfs_store_commit_rev - make the built revision the newest one
 * @s: the store, after mvfs_store_begin() and the contents
 * @root: the top directory: its metadata, the number of entries as size
 *	and its tree as ref
 * @msg: the message, NUL-terminated
 * @pl: its branch (made from pl->from if it does not exist) and the
 *	revision merged into it; NULL: on main, no merge
 * @rev: set to the new revision's number
 *
 * Its parent is the newest revision of its branch.  On failure, the
 * revision is abandoned and what it wrote taken back.
 *
 * Return: 0 or -errno.
 */
int mvfs_store_commit_rev(struct mvfs_store *s,
			  const struct mvfs_entry_info *root, const char *msg,
			  const struct mvfs_rev_place *pl, __u64 *rev)
{
	__u32 nbranches = s->nbranches;
	size_t msg_len = strlen(msg);
	__u64 msg_off = s->pack_end;
	int err = 0;

	if (!s->building)
		return mvfs_err(-EINVAL, "store %s: no revision built", s->dir);
	if (msg_len > UINT32_MAX)
		err = mvfs_err(-E2BIG, "message too long");
	if (!err && msg_len)
		err = mvfs_pack_append(s, msg, msg_len, &msg_off);
	if (!err)
		err = mvfs_rev_append(s, root, msg_off, msg_len);
	if (!err)
		err = mvfs_rev_place(s, pl);
	if (!err)
		err = mvfs_commit_built(s, true);
	else
		mvfs_store_abort(s);
	if (err) {
		s->nbranches = nbranches;
		mvfs_names_forget(&s->names[MVFS_NAMES_BRANCHES]);
		return err;
	}
	*rev = s->nrevs;
	return 0;
}

/**
 * mvfs_store_is_store_dir - is @st the store's own directory
 * @s: the store
 * @st: a directory's stat, from an import's walk
 *
 * Return: true if so: importing it would import the store into itself.
 */
bool mvfs_store_is_store_dir(const struct mvfs_store *s, const struct stat *st)
{
	return st->st_dev == s->dir_st.st_dev && st->st_ino == s->dir_st.st_ino;
}

/**
 * mvfs_store_durable - whether what was committed is sure to survive a crash
 * @s: the store
 *
 * Return: false once a commit's sync of the store directory failed (the
 * commit stands, as every reader sees it, but a power cut may undo it).
 */
bool mvfs_store_durable(const struct mvfs_store *s)
{
	return !s->not_durable;
}

/**
 * mvfs_store_sync - make everything written to the store's disk durable
 * @s: the store
 *
 * mvfs_sync_disk() on the store's directory.
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_store_sync(struct mvfs_store *s)
{
	int err = mvfs_sync_disk(s->dfd);

	if (err)
		return mvfs_err(err, "store %s: sync: %s", s->dir,
				strerror(-err));
	return 0;
}

/* Revisions. */

/**
 * mvfs_store_nrevs - the number of the newest revision
 * @s: the store
 *
 * Return: the newest revision, 0 when there is none.
 */
__u64 mvfs_store_nrevs(const struct mvfs_store *s)
{
	return s->nrevs;
}

/**
 * mvfs_store_rev - describe a revision
 * @s: the store
 * @rev: 1..mvfs_store_nrevs()
 * @ri: filled in
 */
void mvfs_store_rev(const struct mvfs_store *s, __u64 rev,
		    struct mvfs_rev_info *ri)
{
	const struct mvfs_rev3_disk *r = &s->revs[rev - 1];

	ri->num = rev;
	ri->time = (__s64)le64toh(r->r.time);
	ri->author = le32toh(r->r.author);
	ri->parent = le64toh(r->parent);
	ri->merge = le64toh(r->merge);
	ri->branch = le32toh(r->branch);
	mvfs_entry_decode(&r->r.root, &ri->root);
}

/**
 * mvfs_store_rev_msg - read a revision's message
 * @s: the store
 * @rev: 1..mvfs_store_nrevs()
 * @msg: set to the message, NUL-terminated; free() it
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int mvfs_store_rev_msg(struct mvfs_store *s, __u64 rev, char **msg)
{
	const struct mvfs_rev_disk *r = &s->revs[rev - 1].r;
	size_t len = le32toh(r->msg_len);
	char *buf;
	int err;

	buf = malloc(len + 1);
	if (!buf)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_pack_read(s, buf, len, le64toh(r->msg_off));
	if (err)
		goto out_free;
	buf[len] = '\0';
	*msg = buf;
	return 0;

out_free:
	free(buf);
	return err;
}

/**
 * mvfs_check_rev - is @rev an existing revision, saying why not
 * @s: the store
 * @rev: the number
 *
 * Return: 0, or -ENOENT with a message.
 */
int mvfs_check_rev(const struct mvfs_store *s, __u64 rev)
{
	if (!s->nrevs)
		return mvfs_err(-ENOENT, "no revision %llu: there are none yet",
				rev);
	if (!rev || rev > s->nrevs)
		return mvfs_err(-ENOENT, "no revision %llu (the newest is %u)",
				rev, s->nrevs);
	return 0;
}
