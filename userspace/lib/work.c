// SPDX-License-Identifier: GPL-2.0
/*
 * work.c: the commands of work in a view (work.h): what they share (the
 * view they act on, the paths they are given) and the ones that only
 * read: lsco, lsprivate, diff; and mkelem.
 *
 * A view is named by -v TAG, or is the caller's own (view-set).  A path
 * is /view/TAG/..., or /vob/... inside the view, or relative to the
 * working directory when that is in the view, or else an element path
 * from the top of the tree ("src/a.c").
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include "err.h"
#include "viewroot.h"
#include "work.h"

#define MVFS_WO_MSG		0x1	/* -m MSG */
#define MVFS_WO_RM		0x2	/* --rm */
#define MVFS_WO_RESERVED	0x4	/* --reserved */
#define MVFS_WO_FROM		0x8	/* --from BRANCH|REV, required */

struct mvfs_wcmd {
	const char	*name;
	int		(*run)(struct mvfs_wctx *w);
	unsigned int	opts;	/* MVFS_WO_* it takes */
	bool		write;	/* opens the store for writing */
	int		min;	/* operands */
	int		max;
};

static void mvfs_w_usage(const struct mvfs_work_cmd *wc, FILE *f)
{
	fprintf(f, "usage: mvfs [--store DIR] %s%s%s\n%s.\n%s", wc->name,
		*wc->args ? " " : "", wc->args, wc->what, wc->help);
}

static int mvfs_w_bad(const struct mvfs_work_cmd *wc, const char *why,
		      const char *arg)
{
	fprintf(stderr, "mvfs: %s: %s%s%s\n", wc->name, why, arg ? ": " : "",
		arg ? arg : "");
	mvfs_w_usage(wc, stderr);
	return 2;
}

/**
 * mvfs_w_fail - report a failure of the command
 * @w: the command
 * @err: the -errno; err.h holds the message
 *
 * Return: 1, the exit status of a failure.
 */
int mvfs_w_fail(struct mvfs_wctx *w, int err)
{
	fprintf(stderr, "mvfs: %s: %s\n", w->wc->name, mvfs_errmsg(err));
	return 1;
}

/**
 * mvfs_w_wanted - is a change at or under one of the command's paths
 * @w: the command
 * @ch: the change
 *
 * Return: true if so, or when no path was given.
 */
bool mvfs_w_wanted(const struct mvfs_wctx *w, const struct mvfs_change *ch)
{
	return !w->npaths || mvfs_paths_hold(w->sorted, w->npaths, ch->path);
}

static int mvfs_w_path_cmp(const void *a, const void *b)
{
	return mvfs_path_order(*(char * const *)a, *(char * const *)b);
}

/* Resolve "." and ".." of absolute path P in place. */
static void mvfs_w_normalize(char *p)
{
	char *out = p, *in = p, *end;
	size_t len;

	while (*in) {
		while (*in == '/')
			in++;
		end = strchrnul(in, '/');
		len = end - in;
		if (len == 2 && !strncmp(in, "..", 2)) {
			while (out > p && *--out != '/')
				;
		} else if (len && !(len == 1 && *in == '.')) {
			*out++ = '/';
			memmove(out, in, len);
			out += len;
		}
		in = end;
	}
	*out = '\0';
}

/* What follows TOP in absolute path P, or NULL if P is not under it. */
static const char *mvfs_w_strip(const char *p, const char *top)
{
	size_t n = strlen(top);

	if (strncmp(p, top, n) || (p[n] && p[n] != '/'))
		return NULL;
	return p[n] ? p + n + 1 : "";
}

/* The element path of ARG in W's view, into *OUT (free it). */
static int mvfs_w_path(struct mvfs_wctx *w, const char *arg, bool in_view,
		       char **out)
{
	char cwd[PATH_MAX], *abs, *top;
	const char *rest = NULL;
	int err = 0;

	if (*arg != '/' && !getcwd(cwd, sizeof(cwd)))
		return mvfs_err(-errno, "getcwd: %s", strerror(errno));
	if (asprintf(&abs, "%s/%s", *arg == '/' ? "" : cwd, arg) < 0)
		return mvfs_err(-ENOMEM, "out of memory");
	if (asprintf(&top, "%s/%s", w->wc->view_root, w->tag) < 0) {
		free(abs);
		return mvfs_err(-ENOMEM, "out of memory");
	}
	mvfs_w_normalize(abs);
	mvfs_w_normalize(top);
	rest = mvfs_w_strip(abs, top);
	if (!rest && in_view)
		rest = mvfs_w_strip(abs, "/vob");
	if (!rest && *arg != '/') {
		free(abs);
		if (asprintf(&abs, "/%s", arg) < 0)
			abs = NULL;
		if (abs)
			mvfs_w_normalize(abs);
		/* "." or "a/.." is the top: "/" normalized to "". */
		rest = !abs ? NULL : *abs ? abs + 1 : abs;
		err = abs ? 0 : mvfs_err(-ENOMEM, "out of memory");
	} else if (!rest) {
		err = mvfs_err(-EINVAL, "%s: not in view %s", arg, w->tag);
	}
	if (!err) {
		*out = strdup(rest);
		err = *out ? 0 : mvfs_err(-ENOMEM, "out of memory");
	}
	free(abs);
	free(top);
	return err;
}

/* The view: -v TAG, or the caller's; and its paths. */
static int mvfs_w_view(struct mvfs_wctx *w, const char *vtag, char **args,
		       int nargs)
{
	char own[MVFS_NAME_FIELD] = "";
	int err, i;

	if (mvfs_viewroot_pwv(w->wc->view_root, own, sizeof(own)))
		own[0] = '\0';
	if (!vtag && !*own)
		return mvfs_err(-EINVAL, "not in a view: give -v TAG");
	if (!vtag)
		vtag = own;
	err = mvfs_name_check("view tag", vtag);
	if (err)
		return err;
	snprintf(w->tag, sizeof(w->tag), "%s", vtag);
	w->paths = calloc(nargs + 1, sizeof(*w->paths));
	if (!w->paths)
		return mvfs_err(-ENOMEM, "out of memory");
	for (i = 0; !err && i < nargs; i++) {
		err = mvfs_w_path(w, args[i], !strcmp(own, w->tag),
				  &w->paths[i]);
		w->npaths += !err;
	}
	w->sorted = calloc(nargs + 1, sizeof(*w->sorted));
	if (!err && !w->sorted)
		err = mvfs_err(-ENOMEM, "out of memory");
	if (!err) {
		memcpy(w->sorted, w->paths, w->npaths * sizeof(*w->sorted));
		qsort(w->sorted, w->npaths, sizeof(*w->sorted),
		      mvfs_w_path_cmp);
	}
	return err;
}

/* Open the store and find the view in it. */
static int mvfs_w_open(struct mvfs_wctx *w, bool write)
{
	int err;

	err = mvfs_store_open(w->wc->store, write, &w->s);
	if (!err)
		err = mvfs_store_view_get(w->s, w->tag, &w->vi);
	if (!err)
		err = mvfs_sel_make(w->s, w->vi.cs, &w->sel);
	return err;
}

/* lsco, lsprivate, diff: read the view's private area. */
static int mvfs_w_read(struct mvfs_wctx *w, struct mvfs_priv *p)
{
	return mvfs_priv_read(w->s, w->wc->store, w->tag, &w->sel, p);
}

static int mvfs_w_lsco(struct mvfs_wctx *w)
{
	struct mvfs_change *ch;
	struct mvfs_priv p;
	size_t i;
	int err;

	err = mvfs_w_read(w, &p);
	if (err)
		return mvfs_w_fail(w, err);
	for (i = 0; i < p.n; i++) {
		ch = &p.v[i];
		if (!*mvfs_change_letter(ch) || !mvfs_w_wanted(w, ch))
			continue;
		if (ch->kind == MVFS_CH_ADD)
			printf("A %s\n", ch->path);
		else if (ch->kind == MVFS_CH_REN)
			printf("R %s -> %s (revision %llu)\n", ch->from,
			       ch->path, ch->rev);
		else
			printf("%s %s (revision %llu)\n",
			       mvfs_change_letter(ch), ch->path, ch->rev);
	}
	mvfs_priv_free(&p);
	return 0;
}

static int mvfs_w_lsprivate(struct mvfs_wctx *w)
{
	struct mvfs_priv p;
	size_t i;
	int err;

	err = mvfs_w_read(w, &p);
	if (err)
		return mvfs_w_fail(w, err);
	for (i = 0; i < p.n; i++)
		if (p.v[i].kind == MVFS_CH_PRIV && mvfs_w_wanted(w, &p.v[i]))
			printf("%s\n", p.v[i].path);
	mvfs_priv_free(&p);
	return 0;
}

/**
 * mvfs_w_mark - make view-private @ch an element, its view-private
 *	parents too
 * @p: the private area, read
 * @ch: an entry of it
 *
 * Return: 0, or -errno with a message.
 */
int mvfs_w_mark(struct mvfs_priv *p, struct mvfs_change *ch)
{
	struct mvfs_change *up;
	char *dir, *slash;
	int err = 0;

	if (!S_ISREG(ch->mode) && !S_ISDIR(ch->mode) && !S_ISLNK(ch->mode))
		return mvfs_err(-EINVAL, "%s: %s", ch->path,
				"only files, directories and symlinks can be elements");
	dir = strdup(ch->path);
	if (!dir)
		return mvfs_err(-ENOMEM, "out of memory");
	for (up = ch; !err && up; ) {
		if (up->kind == MVFS_CH_PRIV &&
		    lsetxattr(up->upath, MVFS_XATTR_ELEM, "", 0, 0))
			err = mvfs_err(-errno, "%s: %s", up->path,
				       strerror(errno));
		up->kind = up->kind == MVFS_CH_PRIV ? MVFS_CH_ADD : up->kind;
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		up = mvfs_priv_find(p, dir);
	}
	free(dir);
	return err;
}

static int mvfs_w_mkelem(struct mvfs_wctx *w)
{
	struct mvfs_change *ch;
	struct mvfs_priv p;
	int i, err, sync_err;

	err = mvfs_w_read(w, &p);
	for (i = 0; !err && i < w->npaths; i++) {
		ch = mvfs_priv_find(&p, w->paths[i]);
		if (!ch)
			err = mvfs_err(-ENOENT, "%s: no view-private file there",
				       w->paths[i]);
		else if (ch->kind != MVFS_CH_PRIV)
			err = mvfs_err(-EEXIST, "%s: an element already",
				       w->paths[i]);
		else
			err = mvfs_w_mark(&p, ch);
	}
	mvfs_priv_free(&p);
	/*
	 * A command of the store: the marks it made (all, or those before
	 * a path it refused) are on the disk when it returns, as a
	 * check-in's revision is.
	 */
	sync_err = mvfs_store_sync(w->s);
	err = err ? err : sync_err;
	return err ? mvfs_w_fail(w, err) : 0;
}

/* Run busybox or diffutils "diff -u" on OLD and NEW, labelled. */
static int mvfs_w_rundiff(const char *la, const char *old, const char *lb,
			  const char *new)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return mvfs_err(-errno, "fork: %s", strerror(errno));
	if (!pid) {
		execlp("diff", "diff", "-u", "-L", la, "-L", lb, old, new,
		       (char *)NULL);
		fprintf(stderr, "mvfs: diff: cannot run diff: %s\n",
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return mvfs_err(-errno, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return mvfs_err(-EIO, "diff failed");
	return 0;
}

/* The object file of FROM in REV, if a regular file; else /dev/null. */
static int mvfs_w_object(struct mvfs_wctx *w, const char *from, __u64 rev,
			 char **path, bool *reg)
{
	struct mvfs_entry_info e;
	char obj[MVFS_OBJ_PATH_LEN];
	int err = -ENOENT;

	*reg = false;
	if (from && rev && rev <= mvfs_store_nrevs(w->s))
		err = mvfs_store_lookup(w->s, rev, from, &e);
	if (err && err != -ENOENT && err != -ENOTDIR)
		return err;
	*reg = !err && S_ISREG(e.mode);
	if (!*reg || !e.ref) {
		*path = strdup("/dev/null");
	} else {
		mvfs_object_path(obj, e.ref);
		if (asprintf(path, "%s/%s", w->wc->store, obj) < 0)
			*path = NULL;
	}
	return *path ? 0 : mvfs_err(-ENOMEM, "out of memory");
}

static int mvfs_w_diff_one(struct mvfs_wctx *w, const struct mvfs_change *ch)
{
	char *old = NULL, *la = NULL, *lb = NULL;
	bool reg, del = ch->kind == MVFS_CH_DEL;
	int err;

	if (!del && !S_ISREG(ch->mode))
		return 0;
	err = mvfs_w_object(w, ch->from, ch->rev, &old, &reg);
	if (err || (del && !reg))
		goto out;
	if ((ch->kind == MVFS_CH_ADD ? asprintf(&la, "/dev/null") :
	     asprintf(&la, "a/%s@@%llu", ch->from, ch->rev)) < 0 ||
	    (del ? asprintf(&lb, "/dev/null") :
	     asprintf(&lb, "b/%s", ch->path)) < 0) {
		err = mvfs_err(-ENOMEM, "out of memory");
		goto out;
	}
	err = mvfs_w_rundiff(la, old, lb, del ? "/dev/null" : ch->upath);
out:
	free(old);
	free(la);
	free(lb);
	return err;
}

static int mvfs_w_diff(struct mvfs_wctx *w)
{
	struct mvfs_priv p;
	size_t i;
	int err;

	err = mvfs_w_read(w, &p);
	if (err)
		return mvfs_w_fail(w, err);
	for (i = 0; !err && i < p.n; i++)
		if (*mvfs_change_letter(&p.v[i]) && mvfs_w_wanted(w, &p.v[i]))
			err = mvfs_w_diff_one(w, &p.v[i]);
	mvfs_priv_free(&p);
	return err ? mvfs_w_fail(w, err) : 0;
}

static const struct mvfs_wcmd mvfs_wcmds[] = {
	{ "lsco", mvfs_w_lsco, 0, false, 0, INT_MAX },
	{ "lsprivate", mvfs_w_lsprivate, 0, false, 0, INT_MAX },
	{ "mkelem", mvfs_w_mkelem, 0, true, 1, INT_MAX },
	{ "diff", mvfs_w_diff, 0, false, 0, INT_MAX },
	{ "checkin", mvfs_w_checkin, MVFS_WO_MSG, true, 0, INT_MAX },
	{ "uncheckout", mvfs_w_uncheckout, MVFS_WO_RM, true, 1, INT_MAX },
	{ "checkout", mvfs_w_checkout, MVFS_WO_RESERVED, true, 1, 1 },
	{ "unreserve", mvfs_w_unreserve, 0, true, 1, 1 },
	{ "merge", mvfs_w_merge, MVFS_WO_FROM, true, 0, INT_MAX },
	{ }
};

/* The options: -1 to go on, or an exit status. */
static int mvfs_w_opts(struct mvfs_wctx *w, const struct mvfs_wcmd *cmd,
		       int argc, char **argv, const char **vtag)
{
	static const struct option opts[] = {
		{ "view", required_argument, NULL, 'v' },
		{ "message", required_argument, NULL, 'm' },
		{ "rm", no_argument, NULL, 'r' },
		{ "reserved", no_argument, NULL, 'R' },
		{ "from", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int need;
	int opt;

	while ((opt = getopt_long(argc, argv, ":hv:m:", opts, NULL)) != -1) {
		need = opt == 'm' ? MVFS_WO_MSG : opt == 'r' ? MVFS_WO_RM :
		       opt == 'R' ? MVFS_WO_RESERVED :
		       opt == 'f' ? MVFS_WO_FROM : 0;
		if (opt == 'h') {
			mvfs_w_usage(w->wc, stdout);
			return 0;
		}
		if (opt == ':')
			return mvfs_w_bad(w->wc, "option needs an argument",
					  argv[optind - 1]);
		if (opt == '?' || (need && !(cmd->opts & need)))
			return mvfs_w_bad(w->wc, "unknown option",
					  argv[optind - 1]);
		*vtag = opt == 'v' ? optarg : *vtag;
		w->msg = opt == 'm' ? optarg : w->msg;
		w->rm |= opt == 'r';
		w->reserved |= opt == 'R';
		w->from = opt == 'f' ? optarg : w->from;
	}
	if (argc - optind < cmd->min)
		return mvfs_w_bad(w->wc, "missing operand", NULL);
	if (argc - optind > cmd->max)
		return mvfs_w_bad(w->wc, "extra operand", NULL);
	if ((cmd->opts & MVFS_WO_MSG) && !w->msg)
		return mvfs_w_bad(w->wc, "-m MSG is required", NULL);
	if ((cmd->opts & MVFS_WO_RESERVED) && !w->reserved)
		return mvfs_w_bad(w->wc, "give --reserved", NULL);
	if ((cmd->opts & MVFS_WO_FROM) && !w->from)
		return mvfs_w_bad(w->wc, "--from BRANCH|REV is required", NULL);
	return -1;
}

/**
 * mvfs_work_run - run one of the commands of work in a view
 * @wc: the command line's store, view root and the command's usage
 * @argc: its arguments, argv[0] the command's name
 * @argv: ...
 *
 * Return: the exit status: 0, 1 failed, 2 bad usage.
 */
int mvfs_work_run(const struct mvfs_work_cmd *wc, int argc, char **argv)
{
	const struct mvfs_wcmd *cmd;
	struct mvfs_wctx w = { .wc = wc };
	const char *vtag = NULL;
	int ret, i;

	for (cmd = mvfs_wcmds; cmd->name; cmd++)
		if (!strcmp(cmd->name, wc->name))
			break;
	if (!cmd->name)
		return mvfs_w_bad(wc, "not a command of work in a view", NULL);
	ret = mvfs_w_opts(&w, cmd, argc, argv, &vtag);
	if (ret >= 0)
		return ret;
	ret = mvfs_w_view(&w, vtag, argv + optind, argc - optind);
	if (ret == -EINVAL && !vtag && !*w.tag)
		ret = mvfs_w_bad(wc, mvfs_errmsg(ret), NULL);
	else if (!ret)
		ret = mvfs_w_open(&w, cmd->write);
	if (ret < 0)
		ret = mvfs_w_fail(&w, ret);
	else if (!ret)
		ret = cmd->run(&w);
	mvfs_sel_free(&w.sel);
	if (w.s)
		mvfs_store_close(w.s);
	for (i = 0; i < w.npaths; i++)
		free(w.paths[i]);
	free(w.paths);
	free(w.sorted);
	return ret;
}
