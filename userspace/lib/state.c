// SPDX-License-Identifier: GPL-2.0
/*
 * state.c: the state file: reading and checking it, writing it whole,
 * and the names (view tags, labels, branches) its records hold.  In
 * memory the records are always format 3's: formats 1 and 2 are
 * converted as they are read and written.
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
#include "mvfs_spec.h"
#include "store_int.h"

/* Names: the rules are the uapi header's, written once. */

/**
 * mvfs_name_valid - is @name a valid view tag or label name
 * @name: NUL-terminated
 *
 * Return: true for 1..MVFS_NAME_MAX of [A-Za-z0-9._-], not "." or "..".
 */
bool mvfs_name_valid(const char *name)
{
	return mvfs_tag_valid(name, strlen(name));
}

/**
 * mvfs_name_check - check a view tag or label name, saying what is wrong
 * @kind: what the name is, for the message ("view tag", "label name")
 * @name: NUL-terminated
 *
 * Return: 0, or -EINVAL with a message.
 */
int mvfs_name_check(const char *kind, const char *name)
{
	if (mvfs_name_valid(name))
		return 0;
	return mvfs_err(-EINVAL, "bad %s \"%s\": %s", kind, name,
			"1 to 64 of A-Z a-z 0-9 . _ -, not . or ..");
}

/**
 * mvfs_entry_name_valid - may @name be the name of an entry in a tree
 * @name: the name, not necessarily NUL-terminated
 * @len: its length in bytes
 *
 * Return: true for 1..MVFS_ENTRY_NAME_MAX bytes without '/' or NUL, not
 * "." or "..".
 */
bool mvfs_entry_name_valid(const char *name, size_t len)
{
	return mvfs_entry_name_ok(name, len);
}

/* A NUL-padded name field of the state file, checked. */
bool mvfs_name_field_get(char *dst, const char *field)
{
	size_t len = strnlen(field, MVFS_NAME_FIELD);

	if (len > MVFS_NAME_MAX)
		return false;
	memcpy(dst, field, len);
	dst[len] = '\0';
	return mvfs_name_valid(dst);
}

/**
 * mvfs_name_field_set - fill a NUL-padded name field of the state
 * @field: MVFS_NAME_FIELD bytes
 * @name: a valid name
 */
void mvfs_name_field_set(char *field, const char *name)
{
	memset(field, 0, MVFS_NAME_FIELD);
	memcpy(field, name, strnlen(name, MVFS_NAME_MAX));
}

/* The state file. */

/* The header's magic, format, size and checksum; 0 or -EINVAL/-EIO. */
static int mvfs_state_check_hdr(struct mvfs_store *s, void *buf, size_t size)
{
	struct mvfs_state_hdr *h = buf;
	__u64 sum = le64toh(h->checksum);

	if (size < sizeof(*h) || le32toh(h->magic) != MVFS_STATE_MAGIC)
		return mvfs_err(-EINVAL, "store %s: not an mvfs state file",
				s->dir);
	if (le32toh(h->format) < MVFS_FORMAT_MIN ||
	    le32toh(h->format) > MVFS_FORMAT_TOOLS)
		return mvfs_bad_format(s, le32toh(h->format));
	if (le64toh(h->size) != size)
		return mvfs_err(-EIO, "store %s: state size %llu, file has %zu",
				s->dir, (__u64)le64toh(h->size), size);
	h->checksum = 0;
	if (mvfs_fnv64(MVFS_FNV64_INIT, buf, size) != sum)
		return mvfs_err(-EIO, "store %s: state checksum mismatch",
				s->dir);
	h->checksum = htole64(sum);
	if (mvfs_state_size(le32toh(h->format), le32toh(h->nrevs),
			    le32toh(h->nlabels), le32toh(h->nviews),
			    le32toh(h->nbranches)) != size)
		return mvfs_err(-EIO, "store %s: state counts and size differ",
				s->dir);
	return 0;
}

/* Revision N's links: parent and merge below N, an existing branch. */
static bool mvfs_rev_links_ok(const struct mvfs_store *s, __u32 i)
{
	const struct mvfs_rev3_disk *r = &s->revs[i];

	return le64toh(r->parent) <= i && le64toh(r->merge) <= i &&
	       le32toh(r->branch) < s->nbranches && !r->reserved;
}

/**
 * mvfs_state_check_revs - check the revision records of the state
 * @s: the store, its state read
 *
 * Return: 0, or -EIO with a message.
 */
int mvfs_state_check_revs(struct mvfs_store *s)
{
	struct mvfs_entry_info root;
	const struct mvfs_rev_disk *r;
	__u32 i;

	for (i = 0; i < s->nrevs; i++) {
		r = &s->revs[i].r;
		mvfs_entry_decode(&r->root, &root);
		if (!S_ISDIR(root.mode) ||
		    root.ref < sizeof(struct mvfs_pack_hdr) ||
		    !mvfs_range_ok(root.ref, sizeof(struct mvfs_tree_hdr),
				   s->pack_len) ||
		    !mvfs_range_ok(le64toh(r->msg_off), le32toh(r->msg_len),
				   s->pack_len) || !mvfs_rev_links_ok(s, i))
			return mvfs_corrupt(s, "revision", i + 1);
	}
	return 0;
}

/* Format 3's view and branch records. */
static int mvfs_state_check_v3(struct mvfs_store *s)
{
	const struct mvfs_view3_disk *v;
	const struct mvfs_branch_disk *b;
	char name[MVFS_NAME_MAX + 1];
	__u32 i, len;

	for (i = 0; i < s->nviews; i++) {
		v = &s->views[i];
		len = le32toh(v->cs_len);
		if (!mvfs_name_field_get(name, v->tag) ||
		    le32toh(v->mode) > 0777 || v->reserved || !len ||
		    len > MVFS_SPEC_MAX || len > s->pack_len ||
		    le64toh(v->cs_off) > s->pack_len - len)
			return mvfs_corrupt(s, "view", i);
	}
	for (i = 0; i < s->nbranches; i++) {
		b = &s->branches[i];
		if (!mvfs_name_field_get(name, b->name) ||
		    (!i && (strcmp(name, MVFS_MAIN_BRANCH) || b->from)) ||
		    (i && (!b->from || le64toh(b->from) > s->nrevs ||
			   !strcmp(name, MVFS_MAIN_BRANCH))))
			return mvfs_corrupt(s, "branch", i);
	}
	return 0;
}

/**
 * mvfs_state_check_names - check the label, view and branch records
 * @s: the store, its state read
 *
 * Formats 1 and 2 had their view records checked when they were read.
 *
 * Return: 0, or -EIO with a message.
 */
int mvfs_state_check_names(struct mvfs_store *s)
{
	char name[MVFS_NAME_MAX + 1];
	__u64 rev;
	__u32 i;

	for (i = 0; i < s->nlabels; i++) {
		rev = le64toh(s->labels[i].rev);
		if (!mvfs_name_field_get(name, s->labels[i].name) ||
		    !rev || rev > s->nrevs)
			return mvfs_corrupt(s, "label", i);
	}
	return s->format >= 3 ? mvfs_state_check_v3(s) : 0;
}

/* A format 1 or 2 view record, checked, as format 3's and its spec. */
static int mvfs_state_view_v2(struct mvfs_store *s, __u32 i,
			      const struct mvfs_view_disk *v)
{
	char name[MVFS_NAME_MAX + 1];
	__u32 sel = le32toh(v->select);

	if (!mvfs_name_field_get(name, v->tag) || le32toh(v->mode) > 0777 ||
	    sel < MVFS_SEL_REV || sel > MVFS_SEL_LATEST ||
	    (sel == MVFS_SEL_REV && le64toh(v->rev) > s->nrevs) ||
	    (sel == MVFS_SEL_LABEL && !mvfs_name_field_get(name, v->label)))
		return mvfs_corrupt(s, "view", i);
	memcpy(s->views[i].tag, v->tag, MVFS_NAME_FIELD);
	s->views[i].uid = v->uid;
	s->views[i].gid = v->gid;
	s->views[i].mode = v->mode;
	return mvfs_spec_from_v2(s, v, &s->specs[i]);
}

/*
 * Formats 1 and 2 in format 3's records: one line of revisions on main,
 * each the parent of the next; views whose specs are one rule.
 */
static int mvfs_state_parse_v2(struct mvfs_store *s, const char *p)
{
	const struct mvfs_rev_disk *r = (const void *)p;
	const struct mvfs_view_disk *v;
	__u32 i;
	int err = 0;

	for (i = 0; i < s->nrevs; i++) {
		s->revs[i].r = r[i];
		s->revs[i].parent = htole64(i);
	}
	p += (size_t)s->nrevs * sizeof(*r);
	memcpy(s->labels, p, (size_t)s->nlabels * sizeof(*s->labels));
	v = (const void *)(p + (size_t)s->nlabels * sizeof(*s->labels));
	for (i = 0; !err && i < s->nviews; i++)
		err = mvfs_state_view_v2(s, i, &v[i]);
	return err ? err : mvfs_branch_main(s);
}

static void mvfs_state_parse_v3(struct mvfs_store *s, const char *p)
{
	size_t revs = (size_t)s->nrevs * sizeof(*s->revs);
	size_t labels = (size_t)s->nlabels * sizeof(*s->labels);
	size_t views = (size_t)s->nviews * sizeof(*s->views);

	memcpy(s->revs, p, revs);
	memcpy(s->labels, p + revs, labels);
	memcpy(s->views, p + revs + labels, views);
	memcpy(s->branches, p + revs + labels + views,
	       (size_t)s->nbranches * sizeof(*s->branches));
}

/* Take the counts and records of a checked state file. */
static int mvfs_state_parse(struct mvfs_store *s, const void *buf)
{
	const struct mvfs_state_hdr *h = buf;
	int i;

	s->format = le32toh(h->format);
	s->pack_len = le64toh(h->pack_len);
	s->next_object = le64toh(h->next_object);
	s->index_len = le64toh(h->index_len);
	s->nrevs = le32toh(h->nrevs);
	s->nlabels = le32toh(h->nlabels);
	s->nviews = le32toh(h->nviews);
	s->nbranches = le32toh(h->nbranches);
	for (i = 0; i < MVFS_NAMES_KINDS; i++)
		mvfs_names_forget(&s->names[i]);
	if (s->pack_len < sizeof(struct mvfs_pack_hdr) || !s->next_object ||
	    s->index_len % sizeof(struct mvfs_index_rec) ||
	    (s->format < 3 && s->nbranches) || (s->format >= 3 && !s->nbranches))
		return mvfs_corrupt(s, "state header", 0);
	s->revs = calloc(s->nrevs + 1, sizeof(*s->revs));
	s->labels = calloc(s->nlabels + 1, sizeof(*s->labels));
	s->views = calloc(s->nviews + 1, sizeof(*s->views));
	s->specs = calloc(s->nviews + 1, sizeof(*s->specs));
	s->branches = calloc(s->nbranches + 1, sizeof(*s->branches));
	if (!s->revs || !s->labels || !s->views || !s->specs || !s->branches)
		return mvfs_err(-ENOMEM, "out of memory");
	if (s->format < 3)
		return mvfs_state_parse_v2(s, (const char *)(h + 1));
	mvfs_state_parse_v3(s, (const char *)(h + 1));
	return 0;
}

static int mvfs_state_read_file(struct mvfs_store *s, void **bufp,
				size_t *sizep)
{
	struct stat st;
	void *buf = NULL;
	int fd, err;

	fd = mvfs_open_file(s->dfd, MVFS_STATE_FILE, O_RDONLY);
	if (fd == -ENOENT)
		return mvfs_err(-ENOENT, "store %s: %s: run mvfs init",
				s->dir, "not an mvfs store (no state file)");
	if (fd < 0)
		return mvfs_err(fd, "store %s: %s: %s", s->dir,
				MVFS_STATE_FILE, fd == -EIO || fd == -ELOOP ?
				"not a regular file" : strerror(-fd));
	err = fstat(fd, &st) ? -errno : 0;
	if (!err && (st.st_size < (off_t)sizeof(struct mvfs_state_hdr) ||
		     (__u64)st.st_size > MVFS_STATE_MAX))
		err = mvfs_err(-EIO, "store %s: state has a bad size %lld",
			       s->dir, (long long)st.st_size);
	if (!err) {
		buf = malloc(st.st_size);
		err = buf ? mvfs_pread(fd, buf, st.st_size, 0) : -ENOMEM;
	}
	if (err) {
		free(buf);
		err = mvfs_err_prefix(err, "store %s: %s", s->dir,
				      MVFS_STATE_FILE);
		goto out_close;
	}
	*bufp = buf;
	*sizep = st.st_size;
out_close:
	close(fd);
	return err;
}

/**
 * mvfs_state_read - read and check the state file's header and take its records
 * @s: the store
 *
 * Return: 0, -ENOENT for no state, -EINVAL for another format, -EIO.
 */
int mvfs_state_read(struct mvfs_store *s)
{
	size_t size = 0;
	void *buf = NULL;
	int err;

	err = mvfs_state_read_file(s, &buf, &size);
	if (err)
		return err;
	err = mvfs_state_check_hdr(s, buf, size);
	if (!err)
		err = mvfs_state_parse(s, buf);
	free(buf);
	return err;
}

/* Formats 1 and 2: the records after the header, at P. */
static int mvfs_state_image_v2(const struct mvfs_store *s, char *p)
{
	struct mvfs_view_disk *v;
	__u32 i;
	int err = 0;

	if (s->nbranches > 1)
		return mvfs_err(-EINVAL, "store %s: format %u has no branches: %s",
				s->dir, s->format, "mvfs upgrade first");
	for (i = 0; i < s->nrevs; i++)
		memcpy(p + i * sizeof(s->revs->r), &s->revs[i].r,
		       sizeof(s->revs->r));
	p += (size_t)s->nrevs * sizeof(s->revs->r);
	memcpy(p, s->labels, (size_t)s->nlabels * sizeof(*s->labels));
	v = (void *)(p + (size_t)s->nlabels * sizeof(*s->labels));
	for (i = 0; !err && i < s->nviews; i++) {
		memcpy(v[i].tag, s->views[i].tag, MVFS_NAME_FIELD);
		v[i].uid = s->views[i].uid;
		v[i].gid = s->views[i].gid;
		v[i].mode = s->views[i].mode;
		err = mvfs_spec_to_v2(s, s->specs[i], &v[i]);
	}
	return err;
}

static void mvfs_state_image_v3(const struct mvfs_store *s, char *p)
{
	size_t revs = (size_t)s->nrevs * sizeof(*s->revs);
	size_t labels = (size_t)s->nlabels * sizeof(*s->labels);
	size_t views = (size_t)s->nviews * sizeof(*s->views);

	memcpy(p, s->revs, revs);
	memcpy(p + revs, s->labels, labels);
	memcpy(p + revs + labels, s->views, views);
	memcpy(p + revs + labels + views, s->branches,
	       (size_t)s->nbranches * sizeof(*s->branches));
}

/* The state as a file image of SIZE bytes, checksum included. */
static int mvfs_state_image(const struct mvfs_store *s, size_t size,
			    void **img)
{
	struct mvfs_state_hdr *h;
	int err = 0;

	h = calloc(1, size);
	if (!h)
		return mvfs_err(-ENOMEM, "out of memory");
	h->magic = htole32(MVFS_STATE_MAGIC);
	h->format = htole32(s->format);
	h->size = htole64(size);
	h->pack_len = htole64(s->pack_len);
	h->next_object = htole64(s->next_object);
	h->index_len = htole64(s->index_len);
	h->nrevs = htole32(s->nrevs);
	h->nlabels = htole32(s->nlabels);
	h->nviews = htole32(s->nviews);
	if (s->format >= 3) {
		h->nbranches = htole32(s->nbranches);
		mvfs_state_image_v3(s, (char *)(h + 1));
	} else {
		err = mvfs_state_image_v2(s, (char *)(h + 1));
	}
	h->checksum = htole64(mvfs_fnv64(MVFS_FNV64_INIT, h, size));
	if (err)
		free(h);
	else
		*img = h;
	return err;
}

/* Warn that a committed change may not survive a crash. */
static void mvfs_state_not_durable(struct mvfs_store *s, int err)
{
	s->not_durable = true;
	fprintf(stderr,
		"mvfs: warning: store %s: the change is committed, but %s (%s): it may not survive a crash\n",
		s->dir, "syncing the store directory failed", strerror(-err));
}

/**
 * mvfs_state_write - commit the state in memory
 * @s: a store open for writing
 *
 * Writes state.tmp in full and syncs it, links state as state.old, renames
 * state.tmp over state, syncs the directory, unlinks state.old, then syncs
 * the store (the old state's release).  Whatever the
 * state refers to must be on disk already.  A
 * state larger than MVFS_STATE_MAX is refused: no reader would take it.
 *
 * Once the rename is done the change is committed: a failure to sync the
 * directory after it is only a warning, since saying "nothing changed"
 * would be false (the new state is what every reader sees now).
 *
 * Return: 0 when committed; -EFBIG; -errno when nothing changed.
 */
int mvfs_state_write(struct mvfs_store *s)
{
	__u64 size = mvfs_state_size(s->format, s->nrevs, s->nlabels,
				     s->nviews,
				     s->format >= 3 ? s->nbranches : 0);
	void *img = NULL;
	int err;

	if (size > MVFS_STATE_MAX)
		return mvfs_err(-EFBIG, "store %s: %s would be %llu bytes, %s %llu: refused",
				s->dir, MVFS_STATE_FILE, size,
				"over the most a reader takes,", MVFS_STATE_MAX);
	err = mvfs_state_image(s, size, &img);
	if (err)
		return err;
	err = mvfs_write_new(s->dfd, MVFS_STATE_TMP, img, size);
	free(img);
	/*
	 * The replaced state keeps a second name until the rename is on
	 * the disk: else a cut could leave "state" naming a free inode,
	 * which e2fsck clears (tests/guest/boot1b/63-upgrade-crash).
	 */
	if (!err)
		err = mvfs_rename_keep(s->dfd, MVFS_STATE_TMP, MVFS_STATE_FILE,
				       MVFS_STATE_OLD);
	if (err) {
		unlinkat(s->dfd, MVFS_STATE_TMP, 0);
		return mvfs_err(err, "store %s: cannot write %s: %s", s->dir,
				MVFS_STATE_FILE, strerror(-err));
	}
	err = mvfs_fault("dir-sync") ? -EIO : 0;
	if (!err && fsync(s->dfd))
		err = -errno;
	/* The rename is on the disk: the old state may go (else it stays). */
	if (!err)
		mvfs_kept_drop(s->dfd, MVFS_STATE_OLD);
	/*
	 * The replaced state's inode and blocks are free now: their release
	 * reaches the disk (and past its cache: the directory's fsync
	 * flushes it) before anything can take them (a view's area, a file
	 * or directory made in a view).  ext2 has no journal: after a cut,
	 * an entry naming a reused inode that still reads as the old file is
	 * a fault e2fsck -p leaves to a manual run.
	 */
	if (!err)
		err = mvfs_sync_disk(s->dfd);
	if (err)
		mvfs_state_not_durable(s, err);
	return 0;
}
