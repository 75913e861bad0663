// SPDX-License-Identifier: GPL-2.0
/*
 * store.c: all the tools know of the store's layout (mvfs_format.h,
 * docs/FORMAT.md).  The rest of the tools reach the store through the
 * calls declared in store.h.
 *
 * A store opened for writing is locked (flock on its directory) for as
 * long as it is open, so that two commands never commit over each other.
 * Readers take no lock: the state file is replaced by rename(), and the
 * bytes it commits never change afterwards.
 *
 * Files are made with the store's own modes (state, pack and index 0644,
 * objects 0444, directories 0755): the umask is set to 022 while a store
 * is written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* syncfs() */
#endif
#include <assert.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "err.h"
#include "store.h"

#define MVFS_IO_BUF		(1024 * 1024)	/* bytes per read */
#define MVFS_TMP_PREFIX		"tmp."
#define MVFS_OBJ_PATH_MAX	(sizeof(MVFS_OBJECTS_DIR) + 24)

static_assert(sizeof(struct mvfs_state_hdr) == 64, "state header");
static_assert(sizeof(struct mvfs_entry_disk) == 48, "entry");
static_assert(sizeof(struct mvfs_tree_hdr) == 16, "tree header");
static_assert(sizeof(struct mvfs_rev_disk) == 72, "revision");
static_assert(sizeof(struct mvfs_label_disk) == 80, "label");
static_assert(sizeof(struct mvfs_view_disk) == 168, "view");
static_assert(sizeof(struct mvfs_pack_hdr) == 16, "pack header");
static_assert(sizeof(struct mvfs_index_rec) == 16, "index record");

/* The index in memory: content hash to object or tree, for dedup. */
struct mvfs_index_ent {
	__u64	hash;
	__u64	ref;		/* object number, or pack offset | TREE */
};

struct mvfs_index {
	struct mvfs_index_ent	*recs;
	size_t			nrecs;
	size_t			cap;
	size_t			first_new;	/* not yet in the index file */
	__u32			*slots;		/* recs index + 1; 0 empty */
	size_t			nslots;		/* a power of two */
};

struct mvfs_store {
	char			*dir;		/* as given, for messages */
	int			dfd;		/* the store directory */
	int			pack_fd;
	int			index_fd;	/* -1 unless writable */
	bool			write;
	struct stat		dir_st;

	/* The committed state, as the state file has it. */
	__u64			pack_len;
	__u64			next_object;
	__u64			index_len;
	__u32			nrevs;
	__u32			nlabels;
	__u32			nviews;
	struct mvfs_rev_disk	*revs;		/* revision N at [N - 1] */
	struct mvfs_label_disk	*labels;
	struct mvfs_view_disk	*views;

	/* A revision being built: what lies past the committed ends. */
	bool			building;
	__u64			pack_end;
	__u64			obj_end;	/* above the objects made */
	struct mvfs_index	index;
	char			*buf;		/* MVFS_IO_BUF bytes each */
	char			*buf2;
};

/* Low-level I/O: whole buffers or an error. */

static int mvfs_pread(int fd, void *buf, size_t len, __u64 off)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		buf = (char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

static int mvfs_pwrite(int fd, const void *buf, size_t len, __u64 off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf = (const char *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Read up to LEN bytes at OFF; stops short only at the end of the file. */
static ssize_t mvfs_pread_upto(int fd, void *buf, size_t len, __u64 off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

static int mvfs_pack_read(struct mvfs_store *s, void *buf, size_t len,
			  __u64 off)
{
	int err = mvfs_pread(s->pack_fd, buf, len, off);

	if (err)
		return mvfs_err(err == -ENODATA ? -EIO : err,
				"store %s: %s: read %zu bytes at %llu: %s",
				s->dir, MVFS_PACK_FILE, len, off,
				strerror(err == -ENODATA ? EIO : -err));
	return 0;
}

static int mvfs_bad_format(const struct mvfs_store *s, __u32 format)
{
	return mvfs_err(-EINVAL, "store %s: format %u, this tool reads %u",
			s->dir, format, MVFS_FORMAT);
}

static int mvfs_corrupt(const struct mvfs_store *s, const char *what,
			__u64 where)
{
	return mvfs_err(-EIO, "store %s: corrupt %s (%llu)", s->dir, what,
			where);
}

/* Names. */

static bool mvfs_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/**
 * mvfs_name_valid - is @name a valid view tag or label name
 * @name: NUL-terminated
 *
 * Return: true for 1..MVFS_NAME_MAX of [A-Za-z0-9._-], not "." or "..".
 */
bool mvfs_name_valid(const char *name)
{
	size_t len = strlen(name), i;

	if (len == 0 || len > MVFS_NAME_MAX)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!mvfs_name_char(name[i]))
			return false;
	return true;
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
	if (len == 0 || len > MVFS_ENTRY_NAME_MAX)
		return false;
	if (memchr(name, '/', len) || memchr(name, '\0', len))
		return false;
	return !(name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')));
}

/* A NUL-padded name field of the state file, checked. */
static bool mvfs_name_field_get(char *dst, const char *field)
{
	size_t len = strnlen(field, MVFS_NAME_FIELD);

	if (len > MVFS_NAME_MAX)
		return false;
	memcpy(dst, field, len);
	dst[len] = '\0';
	return mvfs_name_valid(dst);
}

static void mvfs_name_field_set(char *field, const char *name)
{
	memset(field, 0, MVFS_NAME_FIELD);
	memcpy(field, name, strnlen(name, MVFS_NAME_MAX));
}

/* Entries between disk and host order. */

static void mvfs_entry_decode(const struct mvfs_entry_disk *d,
			      struct mvfs_entry_info *e)
{
	e->name = NULL;
	e->mode = le32toh(d->mode);
	e->uid = le32toh(d->uid);
	e->gid = le32toh(d->gid);
	e->mtime_nsec = le32toh(d->mtime_nsec);
	e->mtime = (__s64)le64toh(d->mtime);
	e->size = le64toh(d->size);
	e->ref = le64toh(d->ref);
}

static void mvfs_entry_encode(const struct mvfs_entry_info *e,
			      __u32 name_off, __u16 name_len,
			      struct mvfs_entry_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->name_off = htole32(name_off);
	d->name_len = htole16(name_len);
	d->mode = htole32(e->mode);
	d->uid = htole32(e->uid);
	d->gid = htole32(e->gid);
	d->mtime_nsec = htole32(e->mtime_nsec);
	d->mtime = htole64((__u64)e->mtime);
	d->size = htole64(e->size);
	d->ref = htole64(e->ref);
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
	    le32toh(h->format) > MVFS_FORMAT)
		return mvfs_bad_format(s, le32toh(h->format));
	if (le64toh(h->size) != size)
		return mvfs_err(-EIO, "store %s: state size %llu, file has %zu",
				s->dir, (__u64)le64toh(h->size), size);
	h->checksum = 0;
	if (mvfs_fnv64(MVFS_FNV64_INIT, buf, size) != sum)
		return mvfs_err(-EIO, "store %s: state checksum mismatch",
				s->dir);
	h->checksum = htole64(sum);
	if (mvfs_state_size(le32toh(h->nrevs), le32toh(h->nlabels),
			    le32toh(h->nviews)) != size)
		return mvfs_err(-EIO, "store %s: state counts and size differ",
				s->dir);
	return 0;
}

static int mvfs_state_check_revs(struct mvfs_store *s)
{
	struct mvfs_entry_info root;
	__u64 msg_end;
	__u32 i;

	for (i = 0; i < s->nrevs; i++) {
		mvfs_entry_decode(&s->revs[i].root, &root);
		msg_end = le64toh(s->revs[i].msg_off) +
			  le32toh(s->revs[i].msg_len);
		if (!S_ISDIR(root.mode) ||
		    root.ref < sizeof(struct mvfs_pack_hdr) ||
		    root.ref + sizeof(struct mvfs_tree_hdr) > s->pack_len ||
		    msg_end > s->pack_len)
			return mvfs_corrupt(s, "revision", i + 1);
	}
	return 0;
}

static int mvfs_state_check_names(struct mvfs_store *s)
{
	char name[MVFS_NAME_MAX + 1];
	__u64 rev;
	__u32 i, sel;

	for (i = 0; i < s->nlabels; i++) {
		rev = le64toh(s->labels[i].rev);
		if (!mvfs_name_field_get(name, s->labels[i].name) ||
		    !rev || rev > s->nrevs)
			return mvfs_corrupt(s, "label", i);
	}
	for (i = 0; i < s->nviews; i++) {
		sel = le32toh(s->views[i].select);
		if (!mvfs_name_field_get(name, s->views[i].tag) ||
		    le32toh(s->views[i].mode) > 0777 ||
		    sel < MVFS_SEL_REV || sel > MVFS_SEL_LATEST ||
		    (sel == MVFS_SEL_REV &&
		     le64toh(s->views[i].rev) > s->nrevs) ||
		    (sel == MVFS_SEL_LABEL &&
		     !mvfs_name_field_get(name, s->views[i].label)))
			return mvfs_corrupt(s, "view", i);
	}
	return 0;
}

static void *mvfs_dup(const void *src, size_t len)
{
	void *p = malloc(len ? len : 1);

	if (p)
		memcpy(p, src, len);
	return p;
}

/* Take the counts and records of a checked state file. */
static int mvfs_state_parse(struct mvfs_store *s, const void *buf)
{
	const struct mvfs_state_hdr *h = buf;
	const char *p = (const char *)(h + 1);
	size_t revs, labels, views;

	s->pack_len = le64toh(h->pack_len);
	s->next_object = le64toh(h->next_object);
	s->index_len = le64toh(h->index_len);
	s->nrevs = le32toh(h->nrevs);
	s->nlabels = le32toh(h->nlabels);
	s->nviews = le32toh(h->nviews);
	if (s->pack_len < sizeof(struct mvfs_pack_hdr) || !s->next_object ||
	    s->index_len % sizeof(struct mvfs_index_rec))
		return mvfs_corrupt(s, "state header", 0);
	revs = (size_t)s->nrevs * sizeof(*s->revs);
	labels = (size_t)s->nlabels * sizeof(*s->labels);
	views = (size_t)s->nviews * sizeof(*s->views);
	s->revs = mvfs_dup(p, revs);
	s->labels = mvfs_dup(p + revs, labels);
	s->views = mvfs_dup(p + revs + labels, views);
	if (!s->revs || !s->labels || !s->views)
		return mvfs_err(-ENOMEM, "out of memory");
	return 0;
}

static int mvfs_state_read_file(struct mvfs_store *s, void **bufp,
				size_t *sizep)
{
	struct stat st;
	void *buf = NULL;
	int fd, err;

	fd = openat(s->dfd, MVFS_STATE_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return mvfs_err(-ENOENT, "store %s: %s: run mvfs init",
				s->dir, "not an mvfs store (no state file)");
	if (fd < 0)
		return mvfs_err(-errno, "store %s: %s: %s", s->dir,
				MVFS_STATE_FILE, strerror(errno));
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

static int mvfs_state_read(struct mvfs_store *s)
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

/* The state as a file image, checksum included; NULL without memory. */
static void *mvfs_state_image(const struct mvfs_store *s, size_t size)
{
	struct mvfs_state_hdr *h;
	size_t revs = (size_t)s->nrevs * sizeof(*s->revs);
	size_t labels = (size_t)s->nlabels * sizeof(*s->labels);
	char *p;

	h = calloc(1, size);
	if (!h)
		return NULL;
	h->magic = htole32(MVFS_STATE_MAGIC);
	h->format = htole32(MVFS_FORMAT);
	h->size = htole64(size);
	h->pack_len = htole64(s->pack_len);
	h->next_object = htole64(s->next_object);
	h->index_len = htole64(s->index_len);
	h->nrevs = htole32(s->nrevs);
	h->nlabels = htole32(s->nlabels);
	h->nviews = htole32(s->nviews);
	p = (char *)(h + 1);
	memcpy(p, s->revs, revs);
	memcpy(p + revs, s->labels, labels);
	memcpy(p + revs + labels, s->views,
	       (size_t)s->nviews * sizeof(*s->views));
	h->checksum = htole64(mvfs_fnv64(MVFS_FNV64_INIT, h, size));
	return h;
}

static int mvfs_write_new(int dfd, const char *name, const void *buf,
			  size_t len)
{
	int fd, err;

	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	err = mvfs_pwrite(fd, buf, len, 0);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/*
 * Commit: write state.tmp in full and sync it, rename it over state, sync
 * the directory.  Whatever the state refers to must be on disk already.
 */
static int mvfs_state_write(struct mvfs_store *s)
{
	size_t size = mvfs_state_size(s->nrevs, s->nlabels, s->nviews);
	void *img;
	int err;

	img = mvfs_state_image(s, size);
	if (!img)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_write_new(s->dfd, MVFS_STATE_TMP, img, size);
	free(img);
	if (!err && renameat(s->dfd, MVFS_STATE_TMP, s->dfd, MVFS_STATE_FILE))
		err = -errno;
	if (!err && fsync(s->dfd))
		err = -errno;
	if (err)
		return mvfs_err(err, "store %s: cannot write %s: %s", s->dir,
				MVFS_STATE_FILE, strerror(-err));
	return 0;
}

/* Opening and closing. */

static struct mvfs_store *mvfs_store_alloc(const char *dir)
{
	struct mvfs_store *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dir = strdup(dir);
	if (!s->dir)
		goto out_free;
	s->dfd = -1;
	s->pack_fd = -1;
	s->index_fd = -1;
	return s;

out_free:
	free(s);
	return NULL;
}

static int mvfs_store_lock_dir(struct mvfs_store *s)
{
	s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dfd < 0 || fstat(s->dfd, &s->dir_st))
		return mvfs_err(-errno, "store %s: %s", s->dir,
				strerror(errno));
	if (s->write && flock(s->dfd, LOCK_EX))
		return mvfs_err(-errno, "store %s: cannot lock: %s", s->dir,
				strerror(errno));
	return 0;
}

static int mvfs_open_at(struct mvfs_store *s, const char *name, int *fdp)
{
	int flags = (s->write ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	struct stat st;

	*fdp = openat(s->dfd, name, flags);
	if (*fdp < 0 || fstat(*fdp, &st))
		return mvfs_err(-errno, "store %s: %s: %s", s->dir, name,
				strerror(errno));
	if (!S_ISREG(st.st_mode))
		return mvfs_err(-EIO, "store %s: %s is not a file", s->dir,
				name);
	return 0;
}

/* Check the pack header and that pack and index hold what state says. */
static int mvfs_store_check_files(struct mvfs_store *s)
{
	struct mvfs_pack_hdr hdr;
	struct stat st;
	int err;

	err = mvfs_pack_read(s, &hdr, sizeof(hdr), 0);
	if (err)
		return err;
	if (le32toh(hdr.magic) != MVFS_PACK_MAGIC)
		return mvfs_err(-EINVAL, "store %s: %s is not an mvfs pack",
				s->dir, MVFS_PACK_FILE);
	if (le32toh(hdr.format) != MVFS_PACK_FORMAT)
		return mvfs_bad_format(s, le32toh(hdr.format));
	if (fstat(s->pack_fd, &st) || (__u64)st.st_size < s->pack_len)
		return mvfs_err(-EIO, "store %s: %s is shorter than committed",
				s->dir, MVFS_PACK_FILE);
	if (s->index_fd >= 0 &&
	    (fstat(s->index_fd, &st) || (__u64)st.st_size < s->index_len))
		return mvfs_err(-EIO, "store %s: %s is shorter than committed",
				s->dir, MVFS_INDEX_FILE);
	return 0;
}

/* Remove the temporary files an interrupted import left in objects/. */
static int mvfs_remove_tmp(struct mvfs_store *s)
{
	struct dirent *de;
	int fd, err;
	DIR *d;

	fd = openat(s->dfd, MVFS_OBJECTS_DIR,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		goto out_err;
	d = fdopendir(fd);
	if (!d)
		goto out_close;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, MVFS_TMP_PREFIX,
			     strlen(MVFS_TMP_PREFIX)))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	return 0;

out_close:
	err = errno;
	close(fd);
	errno = err;
out_err:
	return mvfs_err(-errno, "store %s: %s: %s", s->dir, MVFS_OBJECTS_DIR,
			strerror(errno));
}

/*
 * Opening for writing: drop what an interrupted import left past the
 * committed ends of pack and index, and its temporary files.
 */
static int mvfs_trim_files(struct mvfs_store *s)
{
	if (ftruncate(s->pack_fd, s->pack_len) ||
	    ftruncate(s->index_fd, s->index_len))
		return -errno;
	return 0;
}

static int mvfs_store_trim(struct mvfs_store *s)
{
	if (mvfs_trim_files(s))
		return mvfs_err(-errno, "store %s: cannot trim: %s", s->dir,
				strerror(errno));
	return mvfs_remove_tmp(s);
}

static int mvfs_store_open_files(struct mvfs_store *s)
{
	int err;

	err = mvfs_store_lock_dir(s);
	if (!err)
		err = mvfs_state_read(s);
	if (!err)
		err = mvfs_state_check_revs(s);
	if (!err)
		err = mvfs_state_check_names(s);
	if (!err)
		err = mvfs_open_at(s, MVFS_PACK_FILE, &s->pack_fd);
	if (!err && s->write)
		err = mvfs_open_at(s, MVFS_INDEX_FILE, &s->index_fd);
	if (!err)
		err = mvfs_store_check_files(s);
	if (!err && s->write)
		err = mvfs_store_trim(s);
	return err;
}

/**
 * mvfs_store_open - open the store in @dir
 * @dir: the store directory
 * @write: lock it and make it ready for changes
 * @sp: set to the open store on success
 *
 * Reads and checks the state file and the pack header.  For writing, also
 * takes the store's lock (waiting for another writer) and removes what an
 * interrupted import left behind.
 *
 * Return: 0; -ENOENT when @dir holds no store; -EINVAL for another format
 * or something that is not a store; -EIO when the store is corrupt.
 */
int mvfs_store_open(const char *dir, bool write, struct mvfs_store **sp)
{
	struct mvfs_store *s;
	int err;

	s = mvfs_store_alloc(dir);
	if (!s)
		return mvfs_err(-ENOMEM, "out of memory");
	s->write = write;
	if (write)
		umask(022);
	err = mvfs_store_open_files(s);
	if (err)
		goto out_close;
	*sp = s;
	return 0;

out_close:
	mvfs_store_close(s);
	return err;
}

static void mvfs_index_free(struct mvfs_index *ix)
{
	free(ix->recs);
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}

/**
 * mvfs_store_close - close a store; an unfinished revision is aborted
 * @s: the store, or NULL
 */
void mvfs_store_close(struct mvfs_store *s)
{
	if (!s)
		return;
	mvfs_store_abort(s);
	if (s->pack_fd >= 0)
		close(s->pack_fd);
	if (s->index_fd >= 0)
		close(s->index_fd);
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->revs);
	free(s->labels);
	free(s->views);
	free(s->dir);
	free(s);
}

static int mvfs_init_files(struct mvfs_store *s)
{
	struct mvfs_pack_hdr hdr = {
		.magic = htole32(MVFS_PACK_MAGIC),
		.format = htole32(MVFS_PACK_FORMAT),
	};
	int err = 0;

	if (!faccessat(s->dfd, MVFS_STATE_FILE, F_OK, AT_SYMLINK_NOFOLLOW))
		return mvfs_err(-EEXIST, "store %s: already a store (%s)",
				s->dir, MVFS_STATE_FILE);
	if (mkdirat(s->dfd, MVFS_OBJECTS_DIR, 0755) && errno != EEXIST)
		err = -errno;
	if (!err)
		err = mvfs_write_new(s->dfd, MVFS_PACK_FILE, &hdr, sizeof(hdr));
	if (!err)
		err = mvfs_write_new(s->dfd, MVFS_INDEX_FILE, NULL, 0);
	if (err)
		return mvfs_err(err, "store %s: %s", s->dir, strerror(-err));
	s->pack_len = sizeof(hdr);
	s->next_object = 1;
	s->index_len = 0;
	return mvfs_state_write(s);
}

/**
 * mvfs_store_init - make an empty store in @dir
 * @dir: the store directory; made (one level) if missing
 *
 * Return: 0; -EEXIST when @dir holds a store already; -errno.
 */
int mvfs_store_init(const char *dir)
{
	struct mvfs_store *s;
	int err;

	s = mvfs_store_alloc(dir);
	if (!s)
		return mvfs_err(-ENOMEM, "out of memory");
	s->write = true;
	umask(022);
	if (mkdir(dir, 0755) && errno != EEXIST)
		err = mvfs_err(-errno, "store %s: %s", dir, strerror(errno));
	else
		err = mvfs_store_lock_dir(s);
	if (!err)
		err = mvfs_init_files(s);
	mvfs_store_close(s);
	return err;
}

/* The index in memory. */

static int mvfs_index_rehash(struct mvfs_index *ix, size_t nslots)
{
	__u32 *slots = calloc(nslots, sizeof(*slots));
	size_t i, j, mask = nslots - 1;

	if (!slots)
		return mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; i < ix->nrecs; i++) {
		for (j = ix->recs[i].hash & mask; slots[j]; j = (j + 1) & mask)
			;
		slots[j] = i + 1;
	}
	free(ix->slots);
	ix->slots = slots;
	ix->nslots = nslots;
	return 0;
}

static int mvfs_index_add(struct mvfs_index *ix, __u64 hash, __u64 ref)
{
	struct mvfs_index_ent *recs;
	size_t mask, j;
	int err;

	if (ix->nrecs == ix->cap) {
		recs = realloc(ix->recs, (ix->cap * 2 + 64) * sizeof(*recs));
		if (!recs)
			return mvfs_err(-ENOMEM, "out of memory");
		ix->recs = recs;
		ix->cap = ix->cap * 2 + 64;
	}
	if ((ix->nrecs + 1) * 2 > ix->nslots) {
		err = mvfs_index_rehash(ix, ix->nslots ? ix->nslots * 2 : 256);
		if (err)
			return err;
	}
	ix->recs[ix->nrecs].hash = hash;
	ix->recs[ix->nrecs].ref = ref;
	mask = ix->nslots - 1;
	for (j = hash & mask; ix->slots[j]; j = (j + 1) & mask)
		;
	ix->slots[j] = ++ix->nrecs;
	return 0;
}

/*
 * The next record after *POS with hash HASH, or NULL; start with *POS at
 * hash's slot.  Records of both kinds are returned.
 */
static const struct mvfs_index_ent *mvfs_index_next(const struct mvfs_index *ix,
						    __u64 hash, size_t *pos)
{
	const struct mvfs_index_ent *r;
	size_t mask = ix->nslots - 1;

	while (ix->nslots && ix->slots[*pos]) {
		r = &ix->recs[ix->slots[*pos] - 1];
		*pos = (*pos + 1) & mask;
		if (r->hash == hash)
			return r;
	}
	return NULL;
}

/* Is a record committed, and so safe to dedup against? */
static bool mvfs_index_rec_valid(const struct mvfs_store *s, __u64 ref)
{
	__u64 off = ref & ~MVFS_INDEX_TREE;

	if (ref & MVFS_INDEX_TREE)
		return off >= sizeof(struct mvfs_pack_hdr) && off < s->pack_len;
	return ref && ref < s->next_object;
}

static int mvfs_index_load(struct mvfs_store *s)
{
	const struct mvfs_index_rec *r = (const void *)s->buf;
	size_t per = MVFS_IO_BUF / sizeof(*r), n, i;
	__u64 off, ref;
	int err;

	for (off = 0; off < s->index_len; off += n * sizeof(*r)) {
		n = (s->index_len - off) / sizeof(*r);
		if (n > per)
			n = per;
		err = mvfs_pread(s->index_fd, s->buf, n * sizeof(*r), off);
		if (err)
			return mvfs_err(err == -ENODATA ? -EIO : err,
					"store %s: cannot read %s", s->dir,
					MVFS_INDEX_FILE);
		for (i = 0; i < n; i++) {
			ref = le64toh(r[i].ref);
			if (!mvfs_index_rec_valid(s, ref))
				continue;
			err = mvfs_index_add(&s->index, le64toh(r[i].hash),
					     ref);
			if (err)
				return err;
		}
	}
	s->index.first_new = s->index.nrecs;
	return 0;
}

/* Objects. */

/*
 * Object numbers.  The format wants them unique and, once committed,
 * below next_object; it does not want them dense.  Dense numbers would
 * spread the first 256 objects over 256 objects/XX directories, a block
 * each, which costs more than a small store's metadata.  So the I-th
 * number given out is (I << 8) | ((I >> 8) & 0xff): the numbers grow, and
 * 256 objects in a row share one directory, 00 first, then 01 and so on.
 */
static __u64 mvfs_object_number(__u64 i)
{
	return i << 8 | ((i >> 8) & 0xff);
}

/* The first number given out at or above BOUND (which is at least 1). */
static __u64 mvfs_object_next(__u64 bound)
{
	__u64 i = bound >> 8;

	if (mvfs_object_number(i) < bound)
		i++;
	return mvfs_object_number(i);
}

static void mvfs_tmp_path(char *path)
{
	snprintf(path, MVFS_OBJ_PATH_MAX, MVFS_OBJECTS_DIR "/" MVFS_TMP_PREFIX
		 "%ld", (long)getpid());
}

/*
 * Hash the SIZE bytes of FD.  -ESTALE when the file does not hold exactly
 * SIZE bytes any more: it changed while it was being imported.
 */
static int mvfs_hash_fd(struct mvfs_store *s, int fd, __u64 size,
			__u64 *hash)
{
	__u64 h = MVFS_FNV64_INIT, off = 0;
	ssize_t n;

	for (;;) {
		n = mvfs_pread_upto(fd, s->buf, MVFS_IO_BUF, off);
		if (n <= 0)
			break;
		h = mvfs_fnv64(h, s->buf, n);
		off += n;
	}
	if (n < 0)
		return mvfs_err(n, "read: %s", strerror(-n));
	if (off != size)
		return mvfs_err(-ESTALE, "changed while it was imported");
	*hash = h;
	return 0;
}

/* Do the first SIZE bytes of A and B match? 1 yes, 0 no, or -errno. */
static int mvfs_fd_equal(struct mvfs_store *s, int a, int b, __u64 size)
{
	__u64 off;
	ssize_t n;
	size_t len;

	for (off = 0; off < size; off += len) {
		len = size - off < MVFS_IO_BUF ? size - off : MVFS_IO_BUF;
		n = mvfs_pread_upto(a, s->buf, len, off);
		if (n >= 0 && (size_t)n == len)
			n = mvfs_pread_upto(b, s->buf2, len, off);
		if (n < 0)
			return mvfs_err(n, "read: %s", strerror(-n));
		if ((size_t)n != len || memcmp(s->buf, s->buf2, len))
			return 0;
	}
	return 1;
}

/* Is object N the same SIZE bytes as FD?  1 yes, 0 no, or -errno. */
static int mvfs_object_equal(struct mvfs_store *s, __u64 n, int fd,
			     __u64 size)
{
	char path[MVFS_OBJ_PATH_MAX];
	struct stat st;
	int ofd, ret;

	mvfs_object_path(path, n);
	ofd = openat(s->dfd, path, O_RDONLY | O_CLOEXEC);
	if (ofd < 0)
		return mvfs_err(-EIO, "store %s: object %s: %s", s->dir, path,
				strerror(errno));
	if (fstat(ofd, &st))
		ret = mvfs_err(-errno, "store %s: %s: %s", s->dir, path,
			       strerror(errno));
	else if ((__u64)st.st_size != size)
		ret = 0;
	else
		ret = mvfs_fd_equal(s, fd, ofd, size);
	close(ofd);
	return ret;
}

/* The object holding FD's content: 0 and *REF, -ENOENT, or -errno. */
static int mvfs_object_find(struct mvfs_store *s, int fd, __u64 size,
			    __u64 hash, __u64 *ref)
{
	const struct mvfs_index_ent *r;
	size_t pos = hash & (s->index.nslots - 1);
	int ret;

	while ((r = mvfs_index_next(&s->index, hash, &pos))) {
		if (r->ref & MVFS_INDEX_TREE)
			continue;
		ret = mvfs_object_equal(s, r->ref, fd, size);
		if (ret < 0)
			return ret;
		if (ret) {
			*ref = r->ref;
			return 0;
		}
	}
	return -ENOENT;
}

/* Copy FD into the temporary file TMP; -ESTALE if it is not HASH now. */
static int mvfs_copy_to(struct mvfs_store *s, int fd, __u64 size,
			__u64 hash, const char *tmp)
{
	__u64 h = MVFS_FNV64_INIT, off = 0;
	ssize_t n;
	int out, err = 0;

	unlinkat(s->dfd, tmp, 0);
	out = openat(s->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		     0444);
	if (out < 0)
		return mvfs_err(-errno, "store %s: %s: %s", s->dir, tmp,
				strerror(errno));
	for (;;) {
		n = mvfs_pread_upto(fd, s->buf, MVFS_IO_BUF, off);
		if (n <= 0)
			break;
		h = mvfs_fnv64(h, s->buf, n);
		err = mvfs_pwrite(out, s->buf, n, off);
		if (err)
			break;
		off += n;
	}
	if (!err && n < 0)
		err = mvfs_err(n, "read: %s", strerror(-n));
	else if (err)
		err = mvfs_err(err, "store %s: %s: %s", s->dir, tmp,
			       strerror(-err));
	else if (off != size || h != hash)
		err = mvfs_err(-ESTALE, "changed while it was imported");
	if (close(out) && !err)
		err = mvfs_err(-errno, "store %s: %s: %s", s->dir, tmp,
			       strerror(errno));
	return err;
}

/* Move TMP to object N, making its objects/XX directory on first use. */
static int mvfs_object_place(struct mvfs_store *s, const char *tmp, __u64 n)
{
	char path[MVFS_OBJ_PATH_MAX];
	int err = 0;

	mvfs_object_path(path, n);
	if (!renameat(s->dfd, tmp, s->dfd, path))
		return 0;
	if (errno == ENOENT) {
		/* "objects/XX/N": cut at the second '/' to make objects/XX */
		*strrchr(path, '/') = '\0';
		if (mkdirat(s->dfd, path, 0755) && errno != EEXIST)
			err = -errno;
		mvfs_object_path(path, n);
		if (!err && renameat(s->dfd, tmp, s->dfd, path))
			err = -errno;
	} else {
		err = -errno;
	}
	if (err)
		return mvfs_err(err, "store %s: %s: %s", s->dir, path,
				strerror(-err));
	return 0;
}

static int mvfs_object_new(struct mvfs_store *s, int fd, __u64 size,
			   __u64 hash, __u64 *ref)
{
	__u64 n = mvfs_object_next(s->obj_end);
	char tmp[MVFS_OBJ_PATH_MAX];
	int err;

	if (s->obj_end >> 62)
		return mvfs_err(-EOVERFLOW, "store %s: out of object numbers",
				s->dir);
	mvfs_tmp_path(tmp);
	err = mvfs_copy_to(s, fd, size, hash, tmp);
	if (!err)
		err = mvfs_object_place(s, tmp, n);
	if (err)
		goto out_unlink;
	s->obj_end = n + 1;
	*ref = n;
	return mvfs_index_add(&s->index, hash, n);

out_unlink:
	unlinkat(s->dfd, tmp, 0);
	return err;
}

/**
 * mvfs_store_put_file - store the content of a regular file
 * @s: the store, between mvfs_store_begin() and the commit
 * @fd: the file, open for reading; read from offset 0 with pread
 * @size: its size as the entry will say
 * @ref: set to the object number (0 for an empty file)
 *
 * Content already in the store (same hash, and the same bytes) is not
 * stored again.
 *
 * Return: 0; -ESTALE when the file does not hold @size bytes or changed
 * while it was read; -errno.
 */
int mvfs_store_put_file(struct mvfs_store *s, int fd, __u64 size,
			__u64 *ref)
{
	__u64 hash = 0;
	int err;

	*ref = 0;
	err = mvfs_hash_fd(s, fd, size, &hash);
	if (err || !size)
		return err;
	err = mvfs_object_find(s, fd, size, hash, ref);
	if (err == -ENOENT)
		err = mvfs_object_new(s, fd, size, hash, ref);
	return err;
}

/* The pack. */

static int mvfs_pack_append(struct mvfs_store *s, const void *buf,
			    size_t len, __u64 *off)
{
	int err = mvfs_pwrite(s->pack_fd, buf, len, s->pack_end);

	if (err)
		return mvfs_err(err, "store %s: %s: %s", s->dir,
				MVFS_PACK_FILE, strerror(-err));
	*off = s->pack_end;
	s->pack_end += len;
	return 0;
}

/* Does the pack hold LEN bytes equal to BUF at OFF?  1, 0 or -errno. */
static int mvfs_pack_equal(struct mvfs_store *s, __u64 off, const char *buf,
			   size_t len)
{
	size_t done, n;
	int err;

	if (off + len > s->pack_end)
		return 0;
	for (done = 0; done < len; done += n) {
		n = len - done < MVFS_IO_BUF ? len - done : MVFS_IO_BUF;
		err = mvfs_pack_read(s, s->buf, n, off + done);
		if (err)
			return err;
		if (memcmp(s->buf, buf + done, n))
			return 0;
	}
	return 1;
}

static int mvfs_pack_find_same(struct mvfs_store *s, const char *buf,
			       size_t len, __u64 hash, __u64 *ref)
{
	const struct mvfs_index_ent *r;
	size_t pos = hash & (s->index.nslots - 1);
	__u64 off;
	int ret;

	while ((r = mvfs_index_next(&s->index, hash, &pos))) {
		if (!(r->ref & MVFS_INDEX_TREE))
			continue;
		off = r->ref & ~MVFS_INDEX_TREE;
		ret = mvfs_pack_equal(s, off, buf, len);
		if (ret < 0)
			return ret;
		if (ret) {
			*ref = off;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Put BUF in the pack unless it is there already.  Index records marked
 * MVFS_INDEX_TREE name bytes in the pack: trees, and symlink targets too.
 * Reuse needs equal bytes, so whatever a record was made for, reusing it
 * is exact.
 */
static int mvfs_pack_put(struct mvfs_store *s, const char *buf, size_t len,
			 __u64 *ref)
{
	__u64 hash = mvfs_fnv64(MVFS_FNV64_INIT, buf, len);
	int err;

	err = mvfs_pack_find_same(s, buf, len, hash, ref);
	if (err != -ENOENT)
		return err;
	err = mvfs_pack_append(s, buf, len, ref);
	if (!err)
		err = mvfs_index_add(&s->index, hash, *ref | MVFS_INDEX_TREE);
	return err;
}

/**
 * mvfs_store_put_symlink - store a symlink's target
 * @s: the store, between mvfs_store_begin() and the commit
 * @target: the target, not NUL-terminated
 * @len: its length, at least 1
 * @ref: set to where the target is
 *
 * A target already in the pack is not stored again.
 *
 * Return: 0 or -errno.
 */
int mvfs_store_put_symlink(struct mvfs_store *s, const char *target,
			   size_t len, __u64 *ref)
{
	return mvfs_pack_put(s, target, len, ref);
}

static int mvfs_name_cmp(const void *a, const void *b)
{
	const struct mvfs_entry_info *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	int c = memcmp(x->name, y->name, lx < ly ? lx : ly);

	if (c)
		return c;
	return lx < ly ? -1 : lx > ly;
}

/* Serialize a tree of sorted entries; NULL without memory or room. */
static char *mvfs_tree_image(const struct mvfs_entry_info *ents,
			     __u32 count, size_t *lenp)
{
	struct mvfs_tree_hdr *h;
	struct mvfs_entry_disk *d;
	size_t names_len = 0, len, nl;
	char *buf, *names;
	__u32 i;

	for (i = 0; i < count; i++)
		names_len += strlen(ents[i].name);
	if (names_len > UINT32_MAX)
		return NULL;
	len = sizeof(*h) + (size_t)count * sizeof(*d) + names_len;
	buf = calloc(1, len);
	if (!buf)
		return NULL;
	h = (struct mvfs_tree_hdr *)buf;
	h->magic = htole32(MVFS_TREE_MAGIC);
	h->count = htole32(count);
	h->names_len = htole32(names_len);
	d = (struct mvfs_entry_disk *)(h + 1);
	names = (char *)(d + count);
	for (i = 0, names_len = 0; i < count; i++) {
		nl = strlen(ents[i].name);
		mvfs_entry_encode(&ents[i], names_len, nl, &d[i]);
		memcpy(names + names_len, ents[i].name, nl);
		names_len += nl;
	}
	*lenp = len;
	return buf;
}

/**
 * mvfs_store_put_tree - store a directory
 * @s: the store, between mvfs_store_begin() and the commit
 * @ents: its entries, with valid names; sorted here into the tree's order
 * @count: how many
 * @ref: set to where the tree is
 *
 * A tree equal to one already stored is not stored again.
 *
 * Return: 0 or -errno.
 */
int mvfs_store_put_tree(struct mvfs_store *s, struct mvfs_entry_info *ents,
			__u32 count, __u64 *ref)
{
	size_t len;
	char *buf;
	int err;

	qsort(ents, count, sizeof(*ents), mvfs_name_cmp);
	buf = mvfs_tree_image(ents, count, &len);
	if (!buf)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_pack_put(s, buf, len, ref);
	free(buf);
	return err;
}

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
	char path[MVFS_OBJ_PATH_MAX];
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

/* Append the index records made since begin to the index file. */
static int mvfs_index_flush(struct mvfs_store *s, __u64 *len)
{
	const struct mvfs_index *ix = &s->index;
	size_t n = ix->nrecs - ix->first_new, i;
	struct mvfs_index_rec *r;
	int err;

	*len = n * sizeof(*r);
	if (!n)
		return 0;
	r = calloc(n, sizeof(*r));
	if (!r)
		return mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		r[i].hash = htole64(ix->recs[ix->first_new + i].hash);
		r[i].ref = htole64(ix->recs[ix->first_new + i].ref);
	}
	err = mvfs_pwrite(s->index_fd, r, *len, s->index_len);
	free(r);
	if (err)
		return mvfs_err(err, "store %s: %s: %s", s->dir,
				MVFS_INDEX_FILE, strerror(-err));
	return 0;
}

static int mvfs_rev_append(struct mvfs_store *s,
			   const struct mvfs_entry_info *root, __u64 msg_off,
			   __u32 msg_len)
{
	struct mvfs_rev_disk *revs, *r;

	if (s->nrevs == UINT32_MAX)
		return mvfs_err(-EOVERFLOW, "store %s: too many revisions",
				s->dir);
	revs = realloc(s->revs, (s->nrevs + 1) * sizeof(*revs));
	if (!revs)
		return mvfs_err(-ENOMEM, "out of memory");
	s->revs = revs;
	r = &revs[s->nrevs];
	mvfs_entry_encode(root, 0, 0, &r->root);
	r->time = htole64((__u64)time(NULL));
	r->msg_off = htole64(msg_off);
	r->msg_len = htole32(msg_len);
	r->author = htole32(getuid());
	return 0;
}

/* Commit the state of a built revision: index_add more bytes of index. */
static int mvfs_commit_state(struct mvfs_store *s, __u64 index_add)
{
	__u64 old_pack = s->pack_len, old_next = s->next_object;
	__u64 old_index = s->index_len;
	int err;

	s->pack_len = s->pack_end;
	s->next_object = s->obj_end;
	s->index_len += index_add;
	s->nrevs++;
	err = mvfs_state_write(s);
	if (err) {
		s->pack_len = old_pack;
		s->next_object = old_next;
		s->index_len = old_index;
		s->nrevs--;
	}
	return err;
}

/**
 * mvfs_store_commit_rev - make the built revision the newest one
 * @s: the store, after mvfs_store_begin() and the contents
 * @root: the top directory: its metadata, the number of entries as size
 *	and its tree as ref
 * @msg: the message, NUL-terminated
 * @rev: set to the new revision's number
 *
 * Makes everything written durable (syncfs), then commits the state.
 * On failure, the revision is abandoned; whatever it wrote past the
 * committed ends is garbage for the next writer to trim.
 *
 * Return: 0 or -errno.
 */
int mvfs_store_commit_rev(struct mvfs_store *s,
			  const struct mvfs_entry_info *root, const char *msg,
			  __u64 *rev)
{
	size_t msg_len = strlen(msg);
	__u64 msg_off = s->pack_end, index_add;
	int err = 0;

	if (!s->building)
		return mvfs_err(-EINVAL, "store %s: no revision built", s->dir);
	if (msg_len > UINT32_MAX)
		err = mvfs_err(-E2BIG, "message too long");
	if (!err && msg_len)
		err = mvfs_pack_append(s, msg, msg_len, &msg_off);
	if (!err)
		err = mvfs_index_flush(s, &index_add);
	if (!err && syncfs(s->dfd))
		err = mvfs_err(-errno, "store %s: sync: %s", s->dir,
			       strerror(errno));
	if (!err)
		err = mvfs_rev_append(s, root, msg_off, msg_len);
	if (err) {
		mvfs_store_abort(s);
		return err;
	}
	err = mvfs_commit_state(s, index_add);
	/*
	 * Committed or not (the rename may have happened), nothing may be
	 * taken back now: what is not committed is trimmed by the next
	 * writer.
	 */
	mvfs_build_end(s);
	if (!err)
		*rev = s->nrevs;
	return err;
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
	const struct mvfs_rev_disk *r = &s->revs[rev - 1];

	ri->num = rev;
	ri->time = (__s64)le64toh(r->time);
	ri->author = le32toh(r->author);
	mvfs_entry_decode(&r->root, &ri->root);
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
	const struct mvfs_rev_disk *r = &s->revs[rev - 1];
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

/* Read the whole tree of directory entry DIR into *TREE (free it). */
static int mvfs_tree_read(struct mvfs_store *s,
			  const struct mvfs_entry_info *dir, char **tree)
{
	struct mvfs_tree_hdr h;
	__u64 len;
	int err;

	if (dir->ref < sizeof(struct mvfs_pack_hdr) ||
	    dir->ref + sizeof(h) > s->pack_len)
		return mvfs_corrupt(s, "tree", dir->ref);
	err = mvfs_pack_read(s, &h, sizeof(h), dir->ref);
	if (err)
		return err;
	len = sizeof(h) + (__u64)le32toh(h.count) *
	      sizeof(struct mvfs_entry_disk) + le32toh(h.names_len);
	if (le32toh(h.magic) != MVFS_TREE_MAGIC ||
	    le32toh(h.count) != dir->size || dir->ref + len > s->pack_len)
		return mvfs_corrupt(s, "tree", dir->ref);
	*tree = malloc(len);
	if (!*tree)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_pack_read(s, *tree, len, dir->ref);
	if (err)
		goto out_free;
	return 0;

out_free:
	free(*tree);
	*tree = NULL;
	return err;
}

/* Compare entry D's name with NAME; -EIO in *ERR if it is out of range. */
static int mvfs_tree_name_cmp(const char *tree, const struct mvfs_entry_disk *d,
			      const char *name, int *err)
{
	const struct mvfs_tree_hdr *h = (const void *)tree;
	const char *names = (const char *)((const struct mvfs_entry_disk *)
					   (h + 1) + le32toh(h->count));
	__u32 off = le32toh(d->name_off), nl = le16toh(d->name_len);
	size_t len = strlen(name);
	int c;

	if ((__u64)off + nl > le32toh(h->names_len)) {
		*err = -EIO;
		return 0;
	}
	c = memcmp(names + off, name, nl < len ? nl : len);
	if (c)
		return c;
	return nl < len ? -1 : nl > len;
}

/* Look NAME up in directory entry DIR; replace *DIR with what is found. */
static int mvfs_tree_lookup(struct mvfs_store *s, struct mvfs_entry_info *dir,
			    const char *name)
{
	const struct mvfs_entry_disk *d;
	__u32 lo = 0, hi = dir->size, mid;
	char *tree;
	int err, c;

	if (!S_ISDIR(dir->mode))
		return -ENOENT;
	err = mvfs_tree_read(s, dir, &tree);
	if (err)
		return err;
	d = (const void *)(tree + sizeof(struct mvfs_tree_hdr));
	err = -ENOENT;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = mvfs_tree_name_cmp(tree, &d[mid], name, &err);
		if (err == -EIO)
			break;
		if (!c) {
			mvfs_entry_decode(&d[mid], dir);
			err = 0;
			break;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	free(tree);
	if (err == -EIO)
		return mvfs_corrupt(s, "tree", dir->ref);
	return err;
}

/**
 * mvfs_store_lookup - find the element at a path in a revision
 * @s: the store
 * @rev: 1..mvfs_store_nrevs()
 * @path: relative to the top of the tree, '/'-separated; "" or "." is the
 *	top itself
 * @e: filled in when found (e->name is NULL)
 *
 * Return: 0; -ENOENT when there is no such element (no message); -EINVAL
 * for a path with ".."; -EIO when the store is corrupt.
 */
int mvfs_store_lookup(struct mvfs_store *s, __u64 rev, const char *path,
		      struct mvfs_entry_info *e)
{
	struct mvfs_rev_info ri;
	char *copy, *name, *save = NULL;
	int err = 0;

	copy = strdup(path);
	if (!copy)
		return mvfs_err(-ENOMEM, "out of memory");
	mvfs_store_rev(s, rev, &ri);
	*e = ri.root;
	for (name = strtok_r(copy, "/", &save); name && !err;
	     name = strtok_r(NULL, "/", &save)) {
		if (!strcmp(name, ".."))
			err = mvfs_err(-EINVAL, "%s: \"..\" is not allowed",
				       path);
		else if (strcmp(name, "."))
			err = mvfs_tree_lookup(s, e, name);
	}
	free(copy);
	return err;
}

/**
 * mvfs_store_list - the entries of a directory of a revision
 * @s: the store
 * @dir: a directory, from mvfs_store_lookup() or a revision's root
 * @ents: set to its @dir->size entries, sorted by name, each with its
 *	name; free them with mvfs_store_list_free()
 *
 * Return: 0; -ENOTDIR when @dir is not a directory; -ENOMEM; -EIO when
 * the store is corrupt.
 */
int mvfs_store_list(struct mvfs_store *s, const struct mvfs_entry_info *dir,
		    struct mvfs_entry_info **ents)
{
	const struct mvfs_tree_hdr *h;
	const struct mvfs_entry_disk *d;
	const char *names;
	__u32 i, off, nl;
	char *tree;
	int err;

	*ents = NULL;
	if (!S_ISDIR(dir->mode))
		return mvfs_err(-ENOTDIR, "not a directory");
	err = mvfs_tree_read(s, dir, &tree);
	if (err)
		return err;
	h = (const void *)tree;
	d = (const void *)(h + 1);
	names = (const char *)(d + dir->size);
	*ents = calloc(dir->size ? dir->size : 1, sizeof(**ents));
	err = *ents ? 0 : mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; !err && i < dir->size; i++) {
		off = le32toh(d[i].name_off);
		nl = le16toh(d[i].name_len);
		if ((__u64)off + nl > le32toh(h->names_len)) {
			err = mvfs_corrupt(s, "tree", dir->ref);
			break;
		}
		mvfs_entry_decode(&d[i], &(*ents)[i]);
		(*ents)[i].name = strndup(names + off, nl);
		if (!(*ents)[i].name)
			err = mvfs_err(-ENOMEM, "out of memory");
	}
	free(tree);
	if (err) {
		mvfs_store_list_free(*ents, dir->size);
		*ents = NULL;
	}
	return err;
}

/**
 * mvfs_store_list_free - free what mvfs_store_list() gave
 * @ents: the entries, or NULL
 * @count: how many
 */
void mvfs_store_list_free(struct mvfs_entry_info *ents, __u64 count)
{
	__u64 i;

	if (!ents)
		return;
	for (i = 0; i < count; i++)
		free(ents[i].name);
	free(ents);
}

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
	__u32 i;

	for (i = 0; i < s->nlabels; i++)
		if (!strncmp(s->labels[i].name, name, MVFS_NAME_FIELD))
			return &s->labels[i];
	return NULL;
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

static int mvfs_check_rev(const struct mvfs_store *s, __u64 rev)
{
	if (!s->nrevs)
		return mvfs_err(-ENOENT, "no revision %llu: there are none yet",
				rev);
	if (!rev || rev > s->nrevs)
		return mvfs_err(-ENOENT, "no revision %llu (the newest is %u)",
				rev, s->nrevs);
	return 0;
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
	if (err)
		s->nlabels--;
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
 * -EEXIST when the label exists and @replace is false; -errno.
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
