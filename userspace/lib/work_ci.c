// SPDX-License-Identifier: GPL-2.0
/*
 * work_ci.c: the commands of work in a view that change the store or
 * drop changes: checkin, uncheckout, checkout --reserved, unreserve.
 * Each runs with the store open for writing, that is under its lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include "checkin.h"
#include "err.h"
#include "mvfs_ioctl.h"
#include "reserve.h"
#include "work.h"

/**
 * mvfs_w_checkin - mvfs checkin [PATH...] -m MSG
 * @w: the command, the store open for writing
 *
 * Return: the exit status.
 */
int mvfs_w_checkin(struct mvfs_wctx *w)
{
	struct mvfs_checkin ci = {
		.s = w->s, .store_dir = w->wc->store,
		.vmnt = w->wc->view_root, .tag = w->tag, .sel = &w->sel,
	};
	int err;

	/*
	 * A reader of the output that goes away (mvfs checkin | head) must
	 * not stop it between its commit and its retiring: the changes
	 * checked in would stay private, and read as out of date.
	 */
	signal(SIGPIPE, SIG_IGN);
	err = mvfs_priv_read(w->s, w->wc->store, w->tag, &w->sel, &ci.p);
	if (!err)
		err = mvfs_checkin_select(&ci, w->sorted, w->npaths);
	if (!err)
		err = mvfs_checkin_target(&ci);
	if (!err)
		err = mvfs_checkin_check(&ci);
	if (!err)
		err = mvfs_checkin_commit(&ci, w->msg);
	if (!err) {
		if (ci.place.from)
			printf("branch %s made from revision %llu\n",
			       ci.place.branch, ci.place.from);
		printf("revision %llu\n", ci.rev);
		fflush(stdout);
		if (ci.place.merge)
			mvfs_merge_done(w->wc->store, w->tag);
		/*
		 * A revision that a power cut may still undo keeps the changes
		 * it took private: retired, they would go with it.
		 */
		if (mvfs_store_durable(ci.s))
			err = mvfs_checkin_retire(&ci);
		else
			fprintf(stderr,
				"mvfs: warning: the changes checked in stay private in view %s until revision %llu is sure to be on disk (mvfs uncheckout --rm drops them then)\n",
				w->tag, ci.rev);
	}
	if (ci.stale)
		printf("%u changed while they were checked in and stay private\n",
		       ci.stale);
	mvfs_priv_free(&ci.p);
	mvfs_resv_free(&ci.resv);
	return err ? mvfs_w_fail(w, err) : 0;
}

/**
 * mvfs_copy_file - copy file @src's bytes into @dst
 * @src: the file read
 * @dst: the file written, opened with O_CREAT and @flags (O_EXCL: a new
 *	file; O_TRUNC: replace what an existing one holds)
 * @flags: O_EXCL or O_TRUNC; with O_DSYNC, @dst's bytes are on disk when
 *	it returns (one fsync at the end, not one a write)
 * @mode: the permission bits @dst ends with
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_copy_file(const char *src, const char *dst, int flags, mode_t mode)
{
	char buf[65536];
	ssize_t n = 0;
	int in, out, err = 0;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return mvfs_err(-errno, "%s: %s", src, strerror(errno));
	out = open(dst, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
		   (flags & ~O_DSYNC), mode & 07777);
	if (out < 0)
		err = mvfs_err(-errno, "%s: %s", dst, strerror(errno));
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = mvfs_err(-EIO, "%s: %s", dst, strerror(errno));
	if (!err && n < 0)
		err = mvfs_err(-errno, "%s: %s", src, strerror(errno));
	if (out >= 0 && !err && fchmod(out, mode & 07777))
		err = mvfs_err(-errno, "%s: %s", dst, strerror(errno));
	if (out >= 0 && !err && (flags & O_DSYNC) && fsync(out))
		err = mvfs_err(-errno, "%s: %s", dst, strerror(errno));
	if (out >= 0 && close(out) && !err)
		err = mvfs_err(-errno, "%s: %s", dst, strerror(errno));
	close(in);
	return err;
}

/* Keep CH's content as PATH.keep (or .keep.N) in the view. */
static int mvfs_w_keep(struct mvfs_wctx *w, const struct mvfs_change *ch)
{
	struct stat st;
	char *dst = NULL;
	int i, err = -EEXIST;

	if (!S_ISREG(ch->mode))
		return 0;
	for (i = 0; err == -EEXIST && i < 100; i++) {
		free(dst);
		if (asprintf(&dst, i ? "%s/%s/%s.keep.%d" : "%s/%s/%s.keep",
			     w->wc->view_root, w->tag, ch->path, i) < 0)
			return mvfs_err(-ENOMEM, "out of memory");
		err = lstat(dst, &st) ? 0 : -EEXIST;
	}
	if (!err)
		err = mvfs_copy_file(ch->upath, dst, O_EXCL, 0644);
	else
		err = mvfs_err(err, "%s.keep: too many kept copies", ch->path);
	if (!err)
		printf("kept %s\n", dst + strlen(w->wc->view_root) +
		       strlen(w->tag) + 2);
	free(dst);
	return err;
}

/* Drop change CH: keep a copy, give the element back. */
static int mvfs_w_drop(struct mvfs_wctx *w, struct mvfs_change *ch)
{
	int err = 0;

	if (ch->kind == MVFS_CH_ADD) {
		if (lremovexattr(ch->upath, MVFS_XATTR_ELEM))
			return mvfs_err(-errno, "%s: %s", ch->path,
					strerror(errno));
		return 0;
	}
	/*
	 * The kept copy (its data, inode and name) is on the disk before
	 * the change it keeps can leave it: else a power cut may leave
	 * neither.
	 */
	if (!w->rm && ch->kind != MVFS_CH_DEL) {
		err = mvfs_w_keep(w, ch);
		if (!err)
			err = mvfs_store_sync(w->s);
	}
	if (!err)
		err = mvfs_priv_retire(w->wc->view_root, w->tag, ch->path, 0,
				       mvfs_sel_rev(&w->sel, ch->path),
				       MVFS_PRIV_FORCE);
	return err;
}

/*
 * The move of a directory that CH is half of (its new name, or the
 * whiteout at its old one): its new name in *REN, the whiteout at its
 * old name in *WH (NULL when that is gone, its directory removed).
 * Return: true if CH is such a half.
 */
static bool mvfs_w_dir_move(const struct mvfs_priv *p,
			    const struct mvfs_change *ch,
			    const struct mvfs_change **ren,
			    const struct mvfs_change **wh)
{
	struct mvfs_change **same = NULL;
	size_t i, n = 0;

	*ren = NULL;
	*wh = NULL;
	if (ch->from)
		same = mvfs_priv_from(p, ch->from, &n);
	for (i = 0; i < n; i++) {
		if (same[i]->kind == MVFS_CH_REN && S_ISDIR(same[i]->mode))
			*ren = same[i];
		else if (same[i]->kind == MVFS_CH_DEL && same[i]->moved)
			*wh = same[i];
	}
	if (ch != *ren && ch != *wh)
		*ren = NULL;
	return *ren;
}

/* PATH in the view, through its mount (free() it), or NULL. */
static char *mvfs_w_vpath(const struct mvfs_wctx *w, const char *path)
{
	char *p;

	return asprintf(&p, "%s/%s/%s", w->wc->view_root, w->tag, path) < 0 ?
	       NULL : p;
}

/* REN cannot move back: its old name is taken, or its directory gone. */
static int mvfs_w_unmove_refused(struct mvfs_wctx *w,
				 const struct mvfs_change *ren)
{
	char *old = mvfs_w_vpath(w, ren->from);
	struct stat st;
	bool taken;

	if (!old)
		return mvfs_err(-ENOMEM, "out of memory");
	taken = !lstat(old, &st);
	free(old);
	return mvfs_err(taken ? -EEXIST : -ENOENT,
			"%s: cannot move it back to %s: %s", ren->path,
			ren->from, taken ? "something else is there now" :
			"its directory is gone from the view");
}

/*
 * Move the directory REN moved back where the whiteout WH stands for
 * its old name, through the view: the kernel puts it in place of the
 * whiteout, as a move back by hand would.  What changed in it stays
 * changed, at its old paths.  An element the move replaced at its new
 * name comes back too: its whiteout goes.
 */
static int mvfs_w_unmove_dir(struct mvfs_wctx *w,
			     const struct mvfs_change *ren,
			     const struct mvfs_change *wh)
{
	struct mvfs_change *gone;
	char *src, *dst, *path;
	struct mvfs_priv p;
	int err = 0;

	if (!wh)	/* no whiteout stands for its old name now */
		return mvfs_w_unmove_refused(w, ren);
	path = strdup(ren->path);
	src = mvfs_w_vpath(w, ren->path);
	dst = mvfs_w_vpath(w, wh->path);
	if (!src || !dst || !path)
		err = mvfs_err(-ENOMEM, "out of memory");
	else if (renameat2(AT_FDCWD, src, AT_FDCWD, dst, RENAME_NOREPLACE))
		err = mvfs_err(-errno, "%s: cannot move it back to %s: %s",
			       ren->path, wh->path, strerror(errno));
	free(src);
	free(dst);
	/* REN and WH are stale from here: the view changed. */
	if (!err)
		err = mvfs_priv_read(w->s, w->wc->store, w->tag, &w->sel, &p);
	if (!err) {
		gone = mvfs_priv_find(&p, path);
		if (gone && gone->kind == MVFS_CH_DEL && !gone->moved)
			err = mvfs_w_drop(w, gone);
		mvfs_priv_free(&p);
	}
	free(path);
	return err;
}

/*
 * Drop the change at PATH, and the other half of a rename; a directory
 * moved goes back.
 */
static int mvfs_w_unco_one(struct mvfs_wctx *w, struct mvfs_priv *p,
			   const char *path)
{
	struct mvfs_change *ch = mvfs_priv_find(p, path), **same = NULL;
	const struct mvfs_change *ren, *wh;
	size_t i, n = 0;
	int err;

	if (!ch || ch->kind == MVFS_CH_DIR || ch->kind == MVFS_CH_PRIV)
		return mvfs_err(-ENOENT, "%s: not changed in view %s", path,
				w->tag);
	if (mvfs_w_dir_move(p, ch, &ren, &wh))
		return mvfs_w_unmove_dir(w, ren, wh);
	if (S_ISDIR(ch->mode) && ch->kind != MVFS_CH_ADD)
		return mvfs_err(-EISDIR, "%s: %s", path,
				"a changed directory: uncheckout what is in it");
	err = mvfs_w_drop(w, ch);
	/* The other half of a rename: the same element's move or removal. */
	if (ch->kind != MVFS_CH_ADD && ch->kind != MVFS_CH_MOD && ch->from)
		same = mvfs_priv_from(p, ch->from, &n);
	for (i = 0; !err && i < n; i++)
		if (same[i] != ch && (same[i]->kind == MVFS_CH_DEL ||
				      same[i]->kind == MVFS_CH_REN))
			err = mvfs_w_drop(w, same[i]);
	return err;
}

/**
 * mvfs_w_uncheckout - mvfs uncheckout [--rm] PATH...
 * @w: the command, the store open for writing
 *
 * The element's reservation by this view ends too: where it was
 * reserved, at its element path (PATH's, or where it was moved from).
 *
 * Return: the exit status.
 */
int mvfs_w_uncheckout(struct mvfs_wctx *w)
{
	const struct mvfs_change *ch;
	struct mvfs_resv r = { 0 };
	struct mvfs_priv p;
	bool any = false;
	int i, err;

	err = mvfs_priv_read(w->s, w->wc->store, w->tag, &w->sel, &p);
	if (!err)
		err = mvfs_resv_read(w->wc->store, &r);
	for (i = 0; !err && i < w->npaths; i++) {
		ch = mvfs_priv_find(&p, w->paths[i]);
		err = mvfs_w_unco_one(w, &p, w->paths[i]);
		if (err)
			break;
		/* Not PATH's: another element may be reserved there. */
		any |= mvfs_resv_drop(&r, w->tag, ch && ch->from ? ch->from :
				      w->paths[i]);
	}
	if (any) {
		i = mvfs_resv_write(w->wc->store, &r);
		err = err ? err : i;
	}
	mvfs_resv_free(&r);
	mvfs_priv_free(&p);
	/* What was dropped (all, or before a refused path) stays dropped. */
	i = mvfs_store_sync(w->s);
	err = err ? err : i;
	return err ? mvfs_w_fail(w, err) : 0;
}

/**
 * mvfs_w_checkout - mvfs checkout --reserved PATH
 * @w: the command, the store open for writing
 *
 * Return: the exit status.
 */
int mvfs_w_checkout(struct mvfs_wctx *w)
{
	__u64 rev = mvfs_sel_rev(&w->sel, w->paths[0]);
	struct mvfs_entry_info e;
	struct mvfs_resv r;
	const char *holder;
	int err;

	err = rev ? mvfs_store_lookup(w->s, rev, w->paths[0], &e) : -ENOENT;
	if (err == -ENOENT || err == -ENOTDIR || !*w->paths[0])
		return mvfs_w_fail(w, mvfs_err(-ENOENT, "%s: no element there in revision %llu",
					      w->paths[0], rev));
	if (!err)
		err = mvfs_resv_read(w->wc->store, &r);
	if (err)
		return mvfs_w_fail(w, err);
	holder = mvfs_resv_holder(w->s, &r, w->paths[0]);
	if (holder && strcmp(holder, w->tag))
		err = mvfs_err(-EBUSY, "%s: reserved by view %s", w->paths[0],
			       holder);
	else if (!holder)
		err = mvfs_resv_add(&r, w->tag, w->paths[0]);
	if (!err && !holder)
		err = mvfs_resv_write(w->wc->store, &r);
	mvfs_resv_free(&r);
	return err ? mvfs_w_fail(w, err) : 0;
}

/**
 * mvfs_w_unreserve - mvfs unreserve PATH
 * @w: the command, the store open for writing
 *
 * Return: the exit status.
 */
int mvfs_w_unreserve(struct mvfs_wctx *w)
{
	struct mvfs_resv r;
	int err;

	err = mvfs_resv_read(w->wc->store, &r);
	if (err)
		return mvfs_w_fail(w, err);
	if (!mvfs_resv_drop(&r, w->tag, w->paths[0]))
		err = mvfs_err(-ENOENT, "%s: not reserved by view %s",
			       w->paths[0], w->tag);
	else
		err = mvfs_resv_write(w->wc->store, &r);
	mvfs_resv_free(&r);
	return err ? mvfs_w_fail(w, err) : 0;
}
