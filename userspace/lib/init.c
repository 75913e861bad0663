// SPDX-License-Identifier: GPL-2.0
/*
 * init.c: making a store (mvfs init) and converting a store of format 1
 * or 2 to format 3 (mvfs upgrade).
 *
 * init must never wipe history: /init runs it whenever state is missing,
 * and a store whose state was lost (a mistaken rm, a bad restore) still
 * holds every revision's bytes.  So it refuses a directory holding a pack
 * longer than its header, an index with records, objects or views.
 *
 * upgrade makes what format 2 adds (views/ and each view's area), makes it
 * durable, and only then commits a state saying 2: until that commit the
 * store is format 1 and format 1 readers ignore views/.  Run again, it
 * finds format 2 and makes whatever area is missing.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "err.h"
#include "store_int.h"

/* Bytes of NAME in the store directory; 0 if it is missing. */
static __u64 mvfs_file_size(struct mvfs_store *s, const char *name)
{
	struct stat st;

	if (fstatat(s->dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	return st.st_size;
}

/* Does directory NAME of the store hold anything? */
static bool mvfs_dir_used(struct mvfs_store *s, const char *name)
{
	struct dirent *de;
	bool used = false;
	DIR *d;
	int fd;

	fd = openat(s->dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT && errno != ENOTDIR;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return true;
	}
	while (!used && (de = readdir(d)))
		used = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return used;
}

/* Refuse to make a store where one was: its history would be lost. */
static int mvfs_init_check(struct mvfs_store *s)
{
	__u64 pack = mvfs_file_size(s, MVFS_PACK_FILE);
	__u64 index = mvfs_file_size(s, MVFS_INDEX_FILE);

	if (!faccessat(s->dfd, MVFS_STATE_FILE, F_OK, AT_SYMLINK_NOFOLLOW))
		return mvfs_err(-EEXIST, "store %s: already a store (%s)",
				s->dir, MVFS_STATE_FILE);
	if (pack <= sizeof(struct mvfs_pack_hdr) && !index &&
	    !mvfs_dir_used(s, MVFS_OBJECTS_DIR) &&
	    !mvfs_dir_used(s, MVFS_VIEWS_DIR))
		return 0;
	return mvfs_err(-EEXIST,
			"store %s: no %s, but it holds history (%s of %llu bytes, %s of %llu bytes%s%s): not made anew.  %s; %s",
			s->dir, MVFS_STATE_FILE, MVFS_PACK_FILE, pack,
			MVFS_INDEX_FILE, index,
			mvfs_dir_used(s, MVFS_OBJECTS_DIR) ? ", objects" : "",
			mvfs_dir_used(s, MVFS_VIEWS_DIR) ? ", views" : "",
			"To keep it, restore state from a backup",
			"to start afresh, move pack, index, objects/ and views/ away, then run mvfs init again");
}

static int mvfs_init_files(struct mvfs_store *s, unsigned int format)
{
	struct mvfs_pack_hdr hdr = {
		.magic = htole32(MVFS_PACK_MAGIC),
		.format = htole32(MVFS_PACK_FORMAT),
	};
	int err;

	err = mvfs_init_check(s);
	if (err)
		return err;
	if (mkdirat(s->dfd, MVFS_OBJECTS_DIR, 0755) && errno != EEXIST)
		err = -errno;
	if (!err)
		err = mvfs_write_new(s->dfd, MVFS_PACK_FILE, &hdr, sizeof(hdr));
	if (!err)
		err = mvfs_write_new(s->dfd, MVFS_INDEX_FILE, NULL, 0);
	if (err)
		return mvfs_err(err, "store %s: %s", s->dir, strerror(-err));
	err = format > 1 ? mvfs_views_dir_make(s) : 0;
	if (err)
		return err;
	s->branches = calloc(1, sizeof(*s->branches));
	if (!s->branches)
		return mvfs_err(-ENOMEM, "out of memory");
	mvfs_branch_main(s);
	s->format = format;
	s->pack_len = sizeof(hdr);
	s->next_object = 1;
	s->index_len = 0;
	return mvfs_state_write(s);
}

/**
 * mvfs_store_init - make an empty store in @dir
 * @dir: the store directory; made (one level) if missing
 * @format: MVFS_FORMAT_MIN to MVFS_FORMAT; an older one than MVFS_FORMAT
 *	only for machines whose module reads no newer (format 1: no views/)
 *
 * Return: 0; -EEXIST when @dir holds a store already, or the history of
 * one; -EINVAL for another @format; -errno.
 */
int mvfs_store_init(const char *dir, unsigned int format)
{
	struct mvfs_store *s;
	int err;

	if (format < MVFS_FORMAT_MIN || format > MVFS_FORMAT)
		return mvfs_err(-EINVAL, "store %s: format %u; mvfs init makes formats %u to %u",
				dir, format, MVFS_FORMAT_MIN, MVFS_FORMAT);
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
		err = mvfs_init_files(s, format);
	mvfs_store_close(s);
	return err;
}

/* Make views/ and the area of every view, missing ones only. */
static int mvfs_upgrade_areas(struct mvfs_store *s)
{
	char tag[MVFS_NAME_MAX + 1];
	int err;
	__u32 i;

	err = mvfs_views_dir_make(s);
	for (i = 0; !err && i < s->nviews; i++) {
		mvfs_name_field_get(tag, s->views[i].tag);
		err = mvfs_view_area_make(s, tag);
	}
	if (!err && syncfs(s->dfd))
		err = mvfs_err(-errno, "store %s: sync: %s", s->dir,
			       strerror(errno));
	return err;
}

/* Format 3: put every view's spec in the pack; the store is building. */
static int mvfs_upgrade_specs(struct mvfs_store *s)
{
	__u64 off;
	__u32 i;
	int err;

	err = mvfs_store_begin(s);
	for (i = 0; !err && i < s->nviews; i++) {
		err = mvfs_pack_put(s, s->specs[i], strlen(s->specs[i]), &off);
		s->views[i].cs_off = htole64(off);
		s->views[i].cs_len = htole32(strlen(s->specs[i]));
	}
	if (err)
		mvfs_store_abort(s);
	return err;
}

/**
 * mvfs_store_upgrade - make a store of format 1 or 2 format 3
 * @s: a store open for writing
 * @was: set to the format it had
 *
 * Idempotent: a store of the newest format gets whatever view area it
 * lacks.  Format 3 stores each view's selection as its one-rule spec.
 *
 * Return: 0 or -errno; on failure the store keeps its format.
 */
int mvfs_store_upgrade(struct mvfs_store *s, unsigned int *was)
{
	int err;

	*was = s->format;
	err = mvfs_upgrade_areas(s);
	if (err || s->format == MVFS_FORMAT_TOOLS)
		return err;
	err = mvfs_upgrade_specs(s);
	if (err)
		return err;
	s->format = MVFS_FORMAT_TOOLS;
	err = mvfs_commit_built(s, false);
	if (err)
		s->format = *was;
	return err;
}

/**
 * mvfs_store_format - the store's format
 * @s: the store
 *
 * Return: 1, 2 or 3.
 */
unsigned int mvfs_store_format(const struct mvfs_store *s)
{
	return s->format;
}
