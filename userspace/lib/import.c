// SPDX-License-Identifier: GPL-2.0
/*
 * import.c: walk a directory tree and store it as the next revision.
 *
 * Two passes.  The first only looks (lstat): every element must be a
 * regular file, a directory or a symlink, with a name the store can hold,
 * and the store must not be inside the tree; so the common mistakes fail
 * before anything is written.  The second stores the contents bottom up
 * through store.h and commits.  Any failure in it takes back what it
 * wrote: an import makes one new revision or changes nothing.
 *
 * Directories are reached with openat() from their parent, so paths of
 * any length work; the path kept here serves only for messages.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include "err.h"
#include "import.h"

struct mvfs_walk {
	struct mvfs_store	*s;
	unsigned int		dropped;	/* MVFS_DROPPED_* */
	char			*path;	/* of the element at hand */
	size_t			len;
	size_t			cap;
};

/* Names in a directory. */
struct mvfs_names {
	char	**v;
	size_t	n;
	size_t	cap;
};

static int mvfs_path_push(struct mvfs_walk *w, const char *name,
			  size_t *old)
{
	size_t need = w->len + 1 + strlen(name) + 1;
	char *p;

	if (need > w->cap) {
		p = realloc(w->path, need * 2);
		if (!p)
			return mvfs_err(-ENOMEM, "out of memory");
		w->path = p;
		w->cap = need * 2;
	}
	*old = w->len;
	if (!w->len || w->path[w->len - 1] != '/')
		w->path[w->len++] = '/';
	memcpy(w->path + w->len, name, strlen(name) + 1);
	w->len += strlen(name);
	return 0;
}

static void mvfs_path_pop(struct mvfs_walk *w, size_t old)
{
	w->len = old;
	w->path[old] = '\0';
}

static void mvfs_names_free(struct mvfs_names *nm)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	memset(nm, 0, sizeof(*nm));
}

static int mvfs_names_add(struct mvfs_names *nm, const char *name)
{
	char **v;

	if (nm->n == nm->cap) {
		v = realloc(nm->v, (nm->cap * 2 + 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		nm->v = v;
		nm->cap = nm->cap * 2 + 16;
	}
	nm->v[nm->n] = strdup(name);
	if (!nm->v[nm->n])
		return -ENOMEM;
	nm->n++;
	return 0;
}

static int mvfs_names_cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/*
 * The names in directory DFD, without "." and "..", sorted: the same tree
 * is stored the same way (object numbers included) whatever the order in
 * which the filesystem lists it.
 */
static int mvfs_names_read(struct mvfs_walk *w, int dfd,
			   struct mvfs_names *nm)
{
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	memset(nm, 0, sizeof(*nm));
	/* Not dup(): that would share the offset of the first pass. */
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto out_err;
	d = fdopendir(fd);
	if (!d)
		goto out_close;
	for (errno = 0; !err && (de = readdir(d)); errno = 0)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			err = mvfs_names_add(nm, de->d_name);
	if (!err && errno)
		err = -errno;
	closedir(d);
	if (err)
		goto out_free;
	qsort(nm->v, nm->n, sizeof(*nm->v), mvfs_names_cmp);
	return 0;

out_close:
	err = -errno;
	close(fd);
	errno = -err;
out_err:
	err = -errno;
out_free:
	mvfs_names_free(nm);
	return mvfs_err(err, "%s: %s", w->path, strerror(-err));
}

static const char *mvfs_type_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO:
		return "a fifo";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	}
	return "of an unknown type";
}

static bool mvfs_type_ok(mode_t mode)
{
	return S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode);
}

static int mvfs_open_dir(struct mvfs_walk *w, int dfd, const char *name,
			 int *fd)
{
	*fd = openat(dfd, name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return mvfs_err(-errno, "%s: %s", w->path, strerror(errno));
	return 0;
}

/* The first pass. */

static int mvfs_scan_dir(struct mvfs_walk *w, int dfd,
			 const struct stat *st);

/* Check the element NAME of directory DFD; w->path names it. */
static int mvfs_scan_one(struct mvfs_walk *w, int dfd, const char *name)
{
	struct stat st;
	int fd, err;

	if (!mvfs_entry_name_valid(name, strlen(name)))
		return mvfs_err(-ENAMETOOLONG, "%s: name longer than %d bytes",
				w->path, MVFS_ENTRY_NAME_MAX);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return mvfs_err(-errno, "%s: %s", w->path, strerror(errno));
	if (!mvfs_type_ok(st.st_mode))
		return mvfs_err(-EINVAL, "%s: %s: only %s can be imported",
				w->path, mvfs_type_name(st.st_mode),
				"files, directories and symlinks");
	if (!S_ISDIR(st.st_mode))
		return 0;
	err = mvfs_open_dir(w, dfd, name, &fd);
	if (err)
		return err;
	err = mvfs_scan_dir(w, fd, &st);
	close(fd);
	return err;
}

static int mvfs_scan_dir(struct mvfs_walk *w, int dfd,
			 const struct stat *st)
{
	struct mvfs_names nm;
	size_t i, old;
	int err;

	if (mvfs_store_is_store_dir(w->s, st))
		return mvfs_err(-EINVAL, "%s: the store cannot import itself",
				w->path);
	err = mvfs_names_read(w, dfd, &nm);
	if (err)
		return err;
	for (i = 0; !err && i < nm.n; i++) {
		err = mvfs_path_push(w, nm.v[i], &old);
		if (err)
			break;
		err = mvfs_scan_one(w, dfd, nm.v[i]);
		mvfs_path_pop(w, old);
	}
	mvfs_names_free(&nm);
	return err;
}

/* The second pass. */

static void mvfs_entry_from_stat(struct mvfs_entry_info *e,
				 const struct stat *st)
{
	e->mode = st->st_mode;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->mtime = st->st_mtim.tv_sec;
	e->mtime_nsec = st->st_mtim.tv_nsec;
	e->size = 0;
	e->ref = 0;
}

#define MVFS_CAP_XATTR	"security.capability"

/* Note what a revision cannot keep of file FD (ST) or directory FD (NULL). */
static void mvfs_note_dropped(struct mvfs_walk *w, int fd,
			      const struct stat *st)
{
	char names[4096];
	ssize_t n, i;

	if (st && st->st_blocks * 512 < st->st_size)
		w->dropped |= MVFS_DROPPED_SPARSE;
	n = flistxattr(fd, names, sizeof(names));
	if (n < 0 && errno == ERANGE)
		w->dropped |= MVFS_DROPPED_XATTR;
	for (i = 0; n > 0 && i < n; i += strlen(names + i) + 1) {
		w->dropped |= MVFS_DROPPED_XATTR;
		if (!strcmp(names + i, MVFS_CAP_XATTR))
			w->dropped |= MVFS_DROPPED_CAPS;
	}
}

static int mvfs_put_file(struct mvfs_walk *w, int dfd, const char *name,
			 struct mvfs_entry_info *e)
{
	struct stat st;
	int fd, err;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return mvfs_err(-errno, "%s: %s", w->path, strerror(errno));
	if (fstat(fd, &st))
		err = mvfs_err(-errno, "%s: %s", w->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = mvfs_err(-ESTALE, "%s: changed while it was imported",
			       w->path);
	else
		err = 0;
	if (!err) {
		mvfs_note_dropped(w, fd, &st);
		mvfs_entry_from_stat(e, &st);
		e->size = st.st_size;
		err = mvfs_store_put_file(w->s, fd, e->size, &e->ref);
		if (err)
			mvfs_err_prefix(err, "%s", w->path);
	}
	close(fd);
	return err;
}

static int mvfs_put_symlink(struct mvfs_walk *w, int dfd, const char *name,
			    struct mvfs_entry_info *e)
{
	char target[PATH_MAX];
	ssize_t len;

	len = readlinkat(dfd, name, target, sizeof(target));
	if (len < 0)
		return mvfs_err(-errno, "%s: %s", w->path, strerror(errno));
	if (len == 0 || (size_t)len >= sizeof(target))
		return mvfs_err(-ENAMETOOLONG, "%s: bad symlink target length",
				w->path);
	e->size = len;
	return mvfs_store_put_symlink(w->s, target, len, &e->ref);
}

static int mvfs_put_dir(struct mvfs_walk *w, int dfd,
			struct mvfs_entry_info *e);

/* Store the element NAME of directory DFD and describe it in E. */
static int mvfs_put_one(struct mvfs_walk *w, int dfd, const char *name,
			struct mvfs_entry_info *e)
{
	struct stat st;
	int fd, err;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return mvfs_err(-errno, "%s: %s", w->path, strerror(errno));
	mvfs_entry_from_stat(e, &st);
	if (S_ISREG(st.st_mode))
		return mvfs_put_file(w, dfd, name, e);
	if (S_ISLNK(st.st_mode))
		return mvfs_put_symlink(w, dfd, name, e);
	if (!S_ISDIR(st.st_mode))
		return mvfs_err(-ESTALE, "%s: changed while it was imported",
				w->path);
	err = mvfs_open_dir(w, dfd, name, &fd);
	if (err)
		return err;
	err = mvfs_put_dir(w, fd, e);
	close(fd);
	return err;
}

static void mvfs_ents_free(struct mvfs_entry_info *ents, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
}

/* Store directory DFD, whose metadata is in E already: its tree. */
static int mvfs_put_dir(struct mvfs_walk *w, int dfd,
			struct mvfs_entry_info *e)
{
	struct mvfs_entry_info *ents;
	struct mvfs_names nm;
	size_t i, old;
	int err;

	err = mvfs_names_read(w, dfd, &nm);
	if (err)
		return err;
	mvfs_note_dropped(w, dfd, NULL);
	ents = calloc(nm.n ? nm.n : 1, sizeof(*ents));
	err = ents ? 0 : mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; !err && i < nm.n; i++) {
		err = mvfs_path_push(w, nm.v[i], &old);
		if (err)
			break;
		err = mvfs_put_one(w, dfd, nm.v[i], &ents[i]);
		ents[i].name = nm.v[i];
		nm.v[i] = NULL;
		mvfs_path_pop(w, old);
	}
	if (!err && nm.n > UINT32_MAX)
		err = mvfs_err(-E2BIG, "%s: too many entries", w->path);
	if (!err) {
		e->size = nm.n;
		err = mvfs_store_put_tree(w->s, ents, nm.n, &e->ref);
	}
	if (ents)
		mvfs_ents_free(ents, nm.n);
	mvfs_names_free(&nm);
	return err;
}

static int mvfs_import_tree(struct mvfs_walk *w, int fd, const char *msg,
			    __u64 *rev)
{
	struct mvfs_entry_info root;
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return mvfs_err(-errno, "%s: %s", w->path, strerror(errno));
	err = mvfs_scan_dir(w, fd, &st);
	if (err)
		return err;
	err = mvfs_store_begin(w->s);
	if (err)
		return err;
	mvfs_entry_from_stat(&root, &st);
	root.name = NULL;
	err = mvfs_put_dir(w, fd, &root);
	if (!err)
		return mvfs_store_commit_rev(w->s, &root, msg, NULL, rev);
	mvfs_store_abort(w->s);
	return err;
}

/**
 * mvfs_import - store the tree under @dir as the next revision
 * @s: a store open for writing
 * @dir: the top directory of the tree
 * @msg: the revision's message
 * @rev: set to the new revision's number
 * @dropped: set to what the tree had that the revision does not keep,
 *	MVFS_DROPPED_* (atime and ctime are never kept, and not counted)
 *
 * Return: 0; -EINVAL when the tree holds something that cannot be stored
 * (a device, a fifo, a socket, the store itself); -ENAMETOOLONG for a name
 * too long; -ESTALE when a file changed while it was read; -errno.  On
 * failure, the store is as it was.
 */
int mvfs_import(struct mvfs_store *s, const char *dir, const char *msg,
		__u64 *rev, unsigned int *dropped)
{
	struct mvfs_walk w = { .s = s };
	int fd, err;

	w.cap = strlen(dir) + 256;
	w.path = malloc(w.cap);
	if (!w.path)
		return mvfs_err(-ENOMEM, "out of memory");
	w.len = strlen(dir);
	memcpy(w.path, dir, w.len + 1);
	while (w.len > 1 && w.path[w.len - 1] == '/')
		w.path[--w.len] = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = mvfs_err(-errno, "%s: %s", dir, strerror(errno));
	} else {
		err = mvfs_import_tree(&w, fd, msg, rev);
		close(fd);
	}
	*dropped = w.dropped;
	free(w.path);
	return err;
}
