// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_spec.c: the mvfs subcommands of config specs: setcs, catcs, edcs,
 * and reading a spec's text from a file for them and for mkview --cs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cmd.h"
#include "err.h"
#include "mvfs_spec.h"
#include "store.h"

/* Read all of FD, at most MVFS_SPEC_MAX bytes, into *CS. */
static int mvfs_spec_read_fd(int fd, const char *name, char **cs)
{
	size_t len = 0;
	ssize_t n = 1;
	char *buf;

	buf = malloc(MVFS_SPEC_MAX + 2);
	if (!buf)
		return mvfs_err(-ENOMEM, "out of memory");
	while (n > 0 && len <= MVFS_SPEC_MAX) {
		n = read(fd, buf + len, MVFS_SPEC_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			n = 1;
		else if (n > 0)
			len += n;
	}
	buf[len] = '\0';
	if (n < 0 || len > MVFS_SPEC_MAX || strlen(buf) != len) {
		free(buf);
		if (n < 0)
			return mvfs_err(-errno, "%s: %s", name,
					strerror(errno));
		return mvfs_err(len > MVFS_SPEC_MAX ? -E2BIG : -EINVAL,
				"%s: %s", name,
				len > MVFS_SPEC_MAX ? "a spec holds at most 65536 bytes" :
						      "NUL in spec");
	}
	*cs = buf;
	return 0;
}

/**
 * mvfs_spec_read_file - a spec's text from a file, or "-" for stdin
 * @path: the file
 * @cs: set to the text, NUL-terminated (free it)
 *
 * Return: 0 or -errno with a message.
 */
int mvfs_spec_read_file(const char *path, char **cs)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	int err;

	if (fd < 0)
		return mvfs_err(-errno, "%s: %s", path, strerror(errno));
	err = mvfs_spec_read_fd(fd, path, cs);
	if (fd)
		close(fd);
	return err;
}

/* Install CS as view TAG's spec: an exit status. */
static int mvfs_setcs(struct mvfs_ctx *c, const char *tag, const char *cs)
{
	struct mvfs_store *s;
	int err;

	err = mvfs_open_rw(c, &s);
	if (err)
		return err;
	err = mvfs_store_set_spec(s, tag, cs);
	mvfs_store_close(s);
	if (err) {
		fprintf(stderr, "mvfs: %s: view %s keeps its spec: %s\n",
			c->cmd->name, tag, mvfs_errmsg(err));
		return MVFS_EXIT_FAIL;
	}
	return mvfs_changed(c);
}

int mvfs_cmd_setcs(struct mvfs_ctx *c, int argc, char **argv)
{
	char *cs;
	int err;

	err = mvfs_opts_none(c, argc, argv, 2, 2);
	if (err >= 0)
		return err;
	err = mvfs_spec_read_file(argv[optind + 1], &cs);
	if (err)
		return mvfs_fail(c, err);
	err = mvfs_setcs(c, argv[optind], cs);
	free(cs);
	return err;
}

/* View TAG's spec, copied into *CS. */
static int mvfs_getcs(struct mvfs_ctx *c, const char *tag, char **cs)
{
	struct mvfs_view_info vi;
	struct mvfs_store *s;
	int err;

	err = mvfs_store_open(c->store, false, &s);
	if (!err) {
		err = mvfs_store_view_get(s, tag, &vi);
		*cs = err ? NULL : strdup(vi.cs);
		if (!err && !*cs)
			err = mvfs_err(-ENOMEM, "out of memory");
		mvfs_store_close(s);
	}
	return err;
}

int mvfs_cmd_catcs(struct mvfs_ctx *c, int argc, char **argv)
{
	char *cs;
	int err;

	err = mvfs_opts_none(c, argc, argv, 1, 1);
	if (err >= 0)
		return err;
	err = mvfs_getcs(c, argv[optind], &cs);
	if (err)
		return mvfs_fail(c, err);
	fputs(cs, stdout);
	free(cs);
	return 0;
}

/* Run $EDITOR (default vi) on PATH. */
static int mvfs_run_editor(const char *path)
{
	const char *ed = getenv("EDITOR");
	char *cmd;
	int st;

	if (!ed || !*ed)
		ed = "vi";
	if (asprintf(&cmd, "%s '%s'", ed, path) < 0)
		return mvfs_err(-ENOMEM, "out of memory");
	st = system(cmd);
	free(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		return mvfs_err(-ECANCELED, "%s exited with status %d: %s",
				ed, st == -1 || !WIFEXITED(st) ? -1 :
				WEXITSTATUS(st), "the spec is left as it was");
	return 0;
}

/* Write CS to a new temporary file; its name in PATH. */
static int mvfs_spec_tmp(const char *cs, char *path, size_t size)
{
	size_t len = strlen(cs);
	int fd, err = 0;

	fd = mvfs_tmp_file("mvfs-cs", path, size);
	if (fd < 0)
		return fd;
	if (write(fd, cs, len) != (ssize_t)len)
		err = mvfs_err(-EIO, "%s: %s", path, strerror(errno));
	close(fd);
	return err;
}

int mvfs_cmd_edcs(struct mvfs_ctx *c, int argc, char **argv)
{
	char path[4096], *cs, *edited = NULL;
	int err;

	err = mvfs_opts_none(c, argc, argv, 1, 1);
	if (err >= 0)
		return err;
	err = mvfs_getcs(c, argv[optind], &cs);
	if (err)
		return mvfs_fail(c, err);
	err = mvfs_spec_tmp(cs, path, sizeof(path));
	if (!err)
		err = mvfs_run_editor(path);
	if (!err)
		err = mvfs_spec_read_file(path, &edited);
	unlink(path);
	if (!err && !strcmp(cs, edited))
		printf("view %s: spec unchanged\n", argv[optind]);
	else if (!err)
		err = mvfs_setcs(c, argv[optind], edited);
	else
		err = mvfs_fail(c, err);
	free(cs);
	free(edited);
	return err;
}
