// SPDX-License-Identifier: GPL-2.0
/*
 * merge_apply.c: what one element that the source changed since the
 * common ancestor becomes in the view.  The view's side is what the view
 * shows now (/view/TAG/PATH: its own changes over what its spec selects).
 *
 *  - unchanged in the view: it takes the source's side (written, made,
 *    or removed through the view; a new element is made one by mkelem);
 *  - changed in the view the same way as on the source: nothing to do;
 *  - a file changed on both sides: its bytes and its mode apart, each
 *    taken from the side that changed it; text whose lines both
 *    changed is merged by diff3 -m -E (Debian's diffutils: a change
 *    made alike on both sides is taken once), conflicts left marked in
 *    the file and listed; a mode changed apart on both is a conflict;
 *  - anything else changed on both sides (binary files, a type change,
 *    a removal against a change) is listed and left as the view has it.
 *
 * A directory is the ancestor's only if everything under it is: one the
 * source removes or replaces, or adds where the view added its own, is a
 * conflict when the view changed or added anything in it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "err.h"
#include "merge.h"
#include "store_int.h"

#define MVFS_MERGE_SNIFF	8000	/* bytes read for a NUL: binary */

/* The object file holding the content of file E. */
static char *mvfs_obj_file(struct mvfs_merge *m, const struct mvfs_entry_info *e)
{
	char obj[MVFS_OBJ_PATH_LEN], *p;

	if (!e->ref)
		return strdup("/dev/null");
	mvfs_object_path(obj, e->ref);
	if (asprintf(&p, "%s/%s", m->w->wc->store, obj) < 0)
		return NULL;
	return p;
}

/* Do files A and B hold the same bytes? */
static bool mvfs_files_same(const char *a, const char *b)
{
	char x[16384], y[16384];
	ssize_t n, k;
	bool same = false;
	int fa, fb;

	fa = open(a, O_RDONLY | O_CLOEXEC);
	fb = open(b, O_RDONLY | O_CLOEXEC);
	while (fa >= 0 && fb >= 0) {
		n = read(fa, x, sizeof(x));
		k = read(fb, y, sizeof(y));
		if (n != k || n < 0 || memcmp(x, y, n))
			break;
		if (!n) {
			same = true;
			break;
		}
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* Does FILE look binary (a NUL in its first bytes)? */
static bool mvfs_is_binary(const char *file)
{
	char buf[MVFS_MERGE_SNIFF];
	ssize_t n = -1;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	return n > 0 && memchr(buf, '\0', n);
}

static bool mvfs_view_is(struct mvfs_merge *m, const char *vpath, bool ours,
			 const struct stat *st, const struct mvfs_entry_info *e);

/* How many entries directory VPATH holds, or -1. */
static long mvfs_dir_count(const char *vpath)
{
	struct dirent *de;
	long n = 0;
	DIR *d;

	d = opendir(vpath);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * Is the view's directory VPATH what tree E is, all the way down: the
 * same names, each the same?  A change or a view-private file (a build's
 * output) anywhere under it makes it the view's own.
 */
static bool mvfs_dir_is(struct mvfs_merge *m, const char *vpath,
			const struct mvfs_entry_info *e)
{
	struct mvfs_entry_info *ents = NULL;
	bool same = mvfs_dir_count(vpath) == (long)e->size;
	struct stat st;
	char *child;
	__u64 i;

	if (same && e->size && mvfs_store_list(m->w->s, e, &ents))
		same = false;
	for (i = 0; same && ents && i < e->size; i++) {
		if (asprintf(&child, "%s/%s", vpath, ents[i].name) < 0)
			child = NULL;
		same = child && !lstat(child, &st) &&
		       mvfs_view_is(m, child, true, &st, &ents[i]);
		free(child);
	}
	mvfs_store_list_free(ents, ents ? e->size : 0);
	return same;
}

/* Is the view's VPATH (lstat in ST, OURS 0 if absent) what E is? */
static bool mvfs_view_is(struct mvfs_merge *m, const char *vpath, bool ours,
			 const struct stat *st, const struct mvfs_entry_info *e)
{
	char *obj, *target, link[4097];
	ssize_t n;
	bool same;

	if (!e || !ours)
		return !e && !ours;
	if ((st->st_mode & S_IFMT) != (e->mode & S_IFMT))
		return false;
	if (S_ISDIR(e->mode))
		return mvfs_dir_is(m, vpath, e);
	/* A chmod is a change (a symlink's mode is always 0777). */
	if ((st->st_mode & 07777) != (e->mode & 07777))
		return false;
	if (S_ISLNK(e->mode)) {
		n = readlink(vpath, link, sizeof(link) - 1);
		target = malloc(e->size + 1);
		same = n == (ssize_t)e->size && target &&
		       !mvfs_store_readlink(m->w->s, e, target) &&
		       !memcmp(link, target, n);
		free(target);
		return same;
	}
	if ((__u64)st->st_size != e->size)
		return false;
	obj = mvfs_obj_file(m, e);
	same = obj && mvfs_files_same(vpath, obj);
	free(obj);
	return same;
}

/* Remember PATH, written where the view had no element, for mkelem. */
static int mvfs_merge_added(struct mvfs_merge *m, const char *path)
{
	char **v = realloc(m->added, (m->nadded + 1) * sizeof(*v));

	if (!v)
		return mvfs_err(-ENOMEM, "out of memory");
	m->added = v;
	v[m->nadded] = strdup(path);
	return v[m->nadded++] ? 0 : mvfs_err(-ENOMEM, "out of memory");
}

/*
 * Element E, new on the source, is at PATH in the view already, as the
 * source has it (a merge stopped half-way and run again, or the same
 * added on both): remember it and all it holds for mkelem, which makes
 * elements of those the view still holds as view-private.
 */
static int mvfs_merge_added_tree(struct mvfs_merge *m, const char *path,
				 const struct mvfs_entry_info *e)
{
	struct mvfs_entry_info *v = NULL;
	char *sub;
	__u64 i;
	int err;

	err = mvfs_merge_added(m, path);
	if (err || !S_ISDIR(e->mode))
		return err;
	err = mvfs_store_list(m->w->s, e, &v);
	for (i = 0; !err && i < e->size; i++) {
		sub = mvfs_path_join(path, v[i].name);
		err = sub ? mvfs_merge_added_tree(m, sub, &v[i]) :
			    mvfs_err(-ENOMEM, "out of memory");
		free(sub);
	}
	mvfs_store_list_free(v, v ? e->size : 0);
	return err;
}

static int mvfs_write_entry(struct mvfs_merge *m, const char *vpath,
			    const struct mvfs_entry_info *e);

/* Make directory VPATH and everything in tree E under it. */
static int mvfs_write_dir(struct mvfs_merge *m, const char *vpath,
			  const struct mvfs_entry_info *e)
{
	struct mvfs_entry_info *v = NULL;
	char *sub;
	__u64 i;
	int err;

	if (mkdir(vpath, e->mode & 07777) && errno != EEXIST)
		return mvfs_err(-errno, "%s: %s", vpath, strerror(errno));
	err = mvfs_store_list(m->w->s, e, &v);
	for (i = 0; !err && i < e->size; i++) {
		if (asprintf(&sub, "%s/%s", vpath, v[i].name) < 0)
			return mvfs_err(-ENOMEM, "out of memory");
		err = mvfs_write_entry(m, sub, &v[i]);
		free(sub);
	}
	mvfs_store_list_free(v, v ? e->size : 0);
	return err;
}

/*
 * Write element E at VPATH in the view, where nothing is, and remember
 * it (and all it holds) for mkelem.
 */
static int mvfs_write_entry(struct mvfs_merge *m, const char *vpath,
			    const struct mvfs_entry_info *e)
{
	size_t top = strlen(m->w->wc->view_root) + strlen(m->w->tag) + 2;
	char *src, *target;
	int err;

	err = mvfs_merge_added(m, vpath + top);
	if (err)
		return err;
	if (S_ISDIR(e->mode))
		return mvfs_write_dir(m, vpath, e);
	if (S_ISLNK(e->mode)) {
		target = malloc(e->size + 1);
		if (!target)
			return mvfs_err(-ENOMEM, "out of memory");
		err = mvfs_store_readlink(m->w->s, e, target);
		if (!err && symlink(target, vpath))
			err = mvfs_err(-errno, "%s: %s", vpath, strerror(errno));
		free(target);
		return err;
	}
	src = mvfs_obj_file(m, e);
	if (!src)
		return mvfs_err(-ENOMEM, "out of memory");
	err = mvfs_copy_file(src, vpath, O_EXCL, e->mode);
	free(src);
	/* Nothing was there: a file cut short goes, not to be an element. */
	if (err && err != -EEXIST) {
		unlink(vpath);
		free(m->added[--m->nadded]);
	}
	return err;
}

/* The view's side is the ancestor's: take the source's side T. */
static int mvfs_merge_take(struct mvfs_merge *m, const char *path,
			   const char *vpath, bool ours, const struct stat *st,
			   const struct mvfs_entry_info *t)
{
	char *src;
	int err = 0;

	if (ours && (!t || !S_ISREG(t->mode) || !S_ISREG(st->st_mode)))
		err = mvfs_remove_tree(AT_FDCWD, vpath);
	if (err)
		return mvfs_err(err, "%s: %s", vpath, strerror(-err));
	if (!t) {
		m->changed++;
		printf("removed %s\n", path);
		return 0;
	}
	if (ours && S_ISREG(t->mode) && S_ISREG(st->st_mode)) {
		src = mvfs_obj_file(m, t);
		err = src ? mvfs_rewrite_file(m, src, vpath, st, t->mode) :
			    mvfs_err(-ENOMEM, "out of memory");
		free(src);
	} else {
		err = mvfs_write_entry(m, vpath, t);
	}
	if (!err) {
		m->changed++;
		printf("took %s from revision %llu\n", path, m->src);
	}
	return err;
}

static int mvfs_merge_conflict(struct mvfs_merge *m, const char *path,
			       const char *why)
{
	m->conflicts++;
	printf("conflict %s: %s; left as the view has it\n", path, why);
	return 0;
}

/* Run diff3 -m OURS BASE THEIRS with its output into OUT: its status. */
static int mvfs_run_diff3(struct mvfs_merge *m, const char *path,
			  const char *files[3], int out)
{
	char lv[80], lt[80];
	int status;
	pid_t pid;

	snprintf(lv, sizeof(lv), "view %s", m->w->tag);
	snprintf(lt, sizeof(lt), "%s (revision %llu)", m->srcname, m->src);
	pid = fork();
	if (pid < 0)
		return mvfs_err(-errno, "fork: %s", strerror(errno));
	if (!pid) {
		dup2(out, 1);
		/* -E: a change made alike on both sides is no conflict. */
		execlp("diff3", "diff3", "-m", "-E", "-L", lv, "-L", "ancestor",
		       "-L", lt, files[0], files[1], files[2], (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return mvfs_err(-errno, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return mvfs_err(-EIO, "%s: diff3 failed (status %d)", path,
				WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return WEXITSTATUS(status);
}

/*
 * The mode file PATH ends with: the side's that changed it; the view's
 * when both changed it apart (*CLASH set).
 */
static mode_t mvfs_merge_mode(const struct stat *st,
			      const struct mvfs_entry_info *b,
			      const struct mvfs_entry_info *t, bool *clash)
{
	mode_t vm = st->st_mode & 07777, bm = b->mode & 07777;
	mode_t tm = t->mode & 07777;

	*clash = vm != bm && tm != bm && tm != vm;
	return vm == bm ? tm : vm;
}

/* Do the bytes of file E equal those of FILE, SIZE bytes long? */
static bool mvfs_obj_is(struct mvfs_merge *m, const char *file, __u64 size,
			const struct mvfs_entry_info *e)
{
	char *obj;
	bool same;

	if (size != e->size)
		return false;
	obj = mvfs_obj_file(m, e);
	same = obj && mvfs_files_same(file, obj);
	free(obj);
	return same;
}

/*
 * Text changed on both sides: diff3 merges the lines of VPATH, BASE and
 * THEIRS into VPATH, with MODE.  Return: 1 when lines clash (marked in
 * the file), 0, or -errno.
 */
static int mvfs_merge_lines(struct mvfs_merge *m, const char *path,
			    const char *files[3], const struct stat *st,
			    mode_t mode)
{
	char tmp[4096];
	int fd, ret, err;

	fd = mvfs_tmp_file("mvfs-merge", tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	ret = mvfs_run_diff3(m, path, files, fd);
	if (ret >= 0) {
		err = mvfs_rewrite_file(m, tmp, files[0], st, mode);
		ret = err ? err : ret;
	}
	close(fd);
	unlink(tmp);
	return ret;
}

/*
 * Both sides changed regular file PATH, its bytes or its mode: each is
 * merged apart.  Bytes changed on one side only are that side's; text
 * changed on both is merged by diff3, a clash marked in the file; binary
 * bytes changed on both are a conflict, left as the view has them.  A
 * mode changed apart on both sides is a conflict, the view's kept.
 */
static int mvfs_merge_file(struct mvfs_merge *m, const char *path,
			   const char *vpath, const struct stat *st,
			   const struct mvfs_entry_info *b,
			   const struct mvfs_entry_info *t)
{
	char *base = mvfs_obj_file(m, b), *theirs = mvfs_obj_file(m, t);
	const char *files[3] = { vpath, base, theirs };
	mode_t vm = st->st_mode & 07777, mode;
	bool clash, marked = false, wrote = false;
	char why[128];
	int ret = 0;

	mode = mvfs_merge_mode(st, b, t, &clash);
	if (!base || !theirs) {
		ret = mvfs_err(-ENOMEM, "out of memory");
	} else if (t->ref == b->ref || mvfs_obj_is(m, theirs, t->size, b) ||
		   mvfs_obj_is(m, vpath, st->st_size, t)) {
		/* The view has the bytes it ends with: the mode alone moves. */
		wrote = vm != mode;
		if (wrote && chmod(vpath, mode))
			ret = mvfs_err(-errno, "%s: %s", vpath,
				       strerror(errno));
	} else if (mvfs_obj_is(m, vpath, st->st_size, b)) {
		/* The view changed the mode alone. */
		ret = mvfs_rewrite_file(m, theirs, vpath, st, mode);
		wrote = true;
	} else if (mvfs_is_binary(vpath) || mvfs_is_binary(base) ||
		   mvfs_is_binary(theirs)) {
		/* Left whole as the view has it: its mode with its bytes. */
		mvfs_merge_conflict(m, path, "binary, changed on both sides");
		clash = false;
	} else {
		ret = mvfs_merge_lines(m, path, files, st, mode);
		marked = ret == 1;
		wrote = ret >= 0;
		ret = ret == 1 ? 0 : ret;
	}
	if (!ret && wrote && !marked) {
		m->changed++;
		printf("merged %s\n", path);
	}
	/* One conflict a file: its lines, or its mode, or both. */
	snprintf(why, sizeof(why), "%s%s (view %04o, source %04o)",
		 marked ? "both changed the same lines (marked in the file) and " :
			  "both changed ",
		 "the mode", (unsigned int)vm, (unsigned int)(t->mode & 07777));
	if (!ret && marked)
		mvfs_merge_conflict(m, path, clash ? why :
				    "both changed the same lines (marked in the file)");
	else if (!ret && clash)
		mvfs_merge_conflict(m, path, why);
	free(base);
	free(theirs);
	return ret;
}

/**
 * mvfs_merge_elem - merge element @path, changed on the source
 * @m: the merge
 * @path: its element path
 * @b: it in the common ancestor, NULL if absent
 * @t: it in the source, NULL if absent
 *
 * Return: 0 (a conflict is counted, not an error), or -errno.
 */
int mvfs_merge_elem(struct mvfs_merge *m, const char *path,
		    const struct mvfs_entry_info *b,
		    const struct mvfs_entry_info *t)
{
	struct stat st;
	char *vpath;
	bool ours;
	int err = 0;

	if (asprintf(&vpath, "%s/%s/%s", m->w->wc->view_root, m->w->tag,
		     path) < 0)
		return mvfs_err(-ENOMEM, "out of memory");
	ours = !lstat(vpath, &st);
	if (!ours && errno != ENOENT)
		err = mvfs_err(-errno, "%s: %s", vpath, strerror(errno));
	else if (ours && S_ISREG(st.st_mode) && mvfs_contrib_is(vpath))
		err = mvfs_contrib_left(vpath);
	else if (mvfs_view_is(m, vpath, ours, &st, b))
		err = mvfs_merge_take(m, path, vpath, ours, &st, t);
	else if (mvfs_view_is(m, vpath, ours, &st, t))
		/* the same change on both sides */
		err = b ? 0 : mvfs_merge_added_tree(m, path, t);
	else if (!t || !ours)
		err = mvfs_merge_conflict(m, path, t ?
					  "removed in the view, changed on the source" :
					  "removed on the source, changed in the view");
	else if (b && S_ISREG(b->mode) && S_ISREG(t->mode) &&
		 S_ISREG(st.st_mode))
		err = mvfs_merge_file(m, path, vpath, &st, b, t);
	else
		err = mvfs_merge_conflict(m, path,
					  "changed on both sides (type, symlink or added twice)");
	free(vpath);
	return err;
}
