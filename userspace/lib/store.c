// SPDX-License-Identifier: GPL-2.0
/*
 * store.c: opening a store (checking it, locking it, trimming what an
 * interrupted change left), closing it, and making a new one.
 *
 * A store opened for writing is locked (an fcntl lock on its file "lock",
 * lock.c) for as long as it is open, so that two commands never commit
 * over each other, on one machine or on several sharing it over NFS.
 * Readers take no lock: the state file is replaced by rename(), and the
 * bytes it commits never change afterwards.
 *
 * Files are made with the store's own modes (state, pack and index 0644,
 * objects 0444, directories 0755): the umask is set to 022 while a store
 * is written.
 */
#include <assert.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "err.h"
#include "store_int.h"

static_assert(sizeof(struct mvfs_state_hdr) == 64, "state header");
static_assert(sizeof(struct mvfs_entry_disk) == 48, "entry");
static_assert(sizeof(struct mvfs_tree_hdr) == 16, "tree header");
static_assert(sizeof(struct mvfs_rev_disk) == 72, "revision");
static_assert(sizeof(struct mvfs_label_disk) == 80, "label");
static_assert(sizeof(struct mvfs_view_disk) == 168, "view");
static_assert(sizeof(struct mvfs_rev3_disk) == 96, "revision, format 3");
static_assert(sizeof(struct mvfs_view3_disk) == 104, "view, format 3");
static_assert(sizeof(struct mvfs_branch_disk) == 80, "branch");
static_assert(sizeof(struct mvfs_pack_hdr) == 16, "pack header");
static_assert(sizeof(struct mvfs_index_rec) == 16, "index record");
static_assert(sizeof(struct mvfs_isort_hdr) == 48, "index.sorted header");
static_assert(MVFS_FORMAT <= MVFS_FORMAT_TOOLS, "init writes what we read");

/**
 * mvfs_bad_format - say that the store has a format these tools do not read
 * @s: the store
 * @format: the format it has
 *
 * Return: -EINVAL.
 */
int mvfs_bad_format(const struct mvfs_store *s, __u32 format)
{
	return mvfs_err(-EINVAL, "store %s: format %u; these tools read %s%s",
			s->dir, format, "formats 1 to 3",
			format > MVFS_FORMAT_TOOLS ? " (newer tools made it)" :
						     "");
}

/**
 * mvfs_corrupt - say that the store is corrupt
 * @s: the store
 * @what: the kind of record
 * @where: which one, or its offset
 *
 * Return: -EIO.
 */
int mvfs_corrupt(const struct mvfs_store *s, const char *what, __u64 where)
{
	return mvfs_err(-EIO, "store %s: corrupt %s (%llu)", s->dir, what,
			where);
}

/* Opening and closing. */

/**
 * mvfs_store_alloc - a store handle for @dir, nothing open yet
 * @dir: the store directory
 *
 * Return: the handle, or NULL without memory.
 */
struct mvfs_store *mvfs_store_alloc(const char *dir)
{
	struct mvfs_store *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dir = strdup(dir);
	s->names = calloc(MVFS_NAMES_KINDS, sizeof(*s->names));
	if (!s->dir || !s->names)
		goto out_free;
	s->dfd = -1;
	s->lfd = -1;
	s->pack_fd = -1;
	s->index_fd = -1;
	s->index.isort.fd = -1;
	return s;

out_free:
	free(s->names);
	free(s->dir);
	free(s);
	return NULL;
}

/**
 * mvfs_store_lock_dir - open the store directory; lock it for a writer
 * @s: the store
 *
 * Return: 0 or -errno.
 */
int mvfs_store_lock_dir(struct mvfs_store *s)
{
	s->dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dfd < 0 || fstat(s->dfd, &s->dir_st))
		return mvfs_err(-errno, "store %s: %s", s->dir,
				strerror(errno));
	return s->write ? mvfs_lock_take(s) : 0;
}

/*
 * Over NFS, drop what this machine caches of FD (pack, index): they grow
 * on other machines too, and NFS may keep a page whose tail, past the
 * end of the file when it was read, was written elsewhere since: the
 * change attribute of an ext2 server moves in whole seconds.  Committed
 * bytes never change, so what is read after this is right.  Called once
 * the writers' lock is held, for writers.
 */
static void mvfs_drop_cache(int fd)
{
	struct statfs sf;

	if (!fstatfs(fd, &sf) && sf.f_type == NFS_SUPER_MAGIC)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

static int mvfs_open_at(struct mvfs_store *s, const char *name, int *fdp)
{
	*fdp = mvfs_open_file(s->dfd, name, s->write ? O_RDWR : O_RDONLY);
	if (*fdp == -EIO || *fdp == -ELOOP)
		return mvfs_err(-EIO, "store %s: %s is not a file", s->dir,
				name);
	if (*fdp < 0)
		return mvfs_err(*fdp, "store %s: %s: %s", s->dir, name,
				strerror(-*fdp));
	mvfs_drop_cache(*fdp);
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
		return mvfs_err(-EINVAL, "store %s: %s format %u; %s %u",
				s->dir, MVFS_PACK_FILE, le32toh(hdr.format),
				"these tools read", MVFS_PACK_FORMAT);
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

/**
 * mvfs_trim_files - cut pack and index to their committed lengths
 * @s: a store open for writing
 *
 * Opening for writing drops what an interrupted change left past the
 * committed ends of pack and index, its objects and its temporary files.
 *
 * Return: 0 or -errno (no message).
 */
int mvfs_trim_files(struct mvfs_store *s)
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
	mvfs_object_trim(s);
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
	if (!err)
		err = mvfs_specs_load(s);
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

/**
 * mvfs_store_close - close a store; an unfinished revision is aborted
 * @s: the store, or NULL
 */
void mvfs_store_close(struct mvfs_store *s)
{
	__u32 i;

	if (!s)
		return;
	mvfs_store_abort(s);
	if (s->pack_fd >= 0)
		close(s->pack_fd);
	if (s->index_fd >= 0)
		close(s->index_fd);
	if (s->dfd >= 0)
		close(s->dfd);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->revs);
	free(s->labels);
	for (i = 0; s->specs && i < s->nviews; i++)
		free(s->specs[i]);
	free(s->specs);
	free(s->views);
	free(s->branches);
	for (i = 0; i < MVFS_NAMES_KINDS; i++)
		mvfs_names_forget(&s->names[i]);
	free(s->names);
	mvfs_tree_cache_free(s);
	free(s->dir);
	free(s);
}
