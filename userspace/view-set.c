// SPDX-License-Identifier: GPL-2.0
/*
 * view-set: run a shell, or one command, in a view.
 *
 *   view-set TAG [-- CMD ARGS...]
 *   view-set - [-- CMD ARGS...]     back to the system root
 *
 * The module switches the calling process (MVFS_IOC_SETVIEW): its root
 * becomes the view's root, where /vob is the view's tree, and its working
 * directory the same path there, or /vob.  Then view-set execs the
 * command, or $SHELL (/bin/sh) with PS1 naming the view; children inherit
 * the view and `exit` leaves it.  Run by root, it starts a view that is
 * not started yet.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "err.h"
#include "lease.h"
#include "reload.h"
#include "store.h"
#include "viewroot.h"

static const char view_set_help[] =
	"usage: view-set TAG [-- CMD [ARGS...]]\n"
	"       view-set - [-- CMD [ARGS...]]\n"
	"\n"
	"Run CMD, or a shell ($SHELL, /bin/sh), set to view TAG: its /\n"
	"is the whole system and /vob the tree as view TAG selects it.\n"
	"Children inherit the view; exit leaves it.  '-' runs CMD back\n"
	"at the system root.  Root starts a view that is not started.\n"
	"The exit status is CMD's; 1 when the view cannot be entered.\n";

static void show_help(FILE *f)
{
	fputs(view_set_help, f);
}

/* The mvfs mount: $MVFS_VIEW_ROOT, or /view. */
static const char *view_mount(void)
{
	return mvfs_env("MVFS_VIEW_ROOT", MVFS_VIEW_ROOT_DEFAULT);
}

/* The store: $MVFS_STORE_DIR, or /var/lib/mvfs. */
static const char *view_store(void)
{
	return mvfs_env("MVFS_STORE_DIR", MVFS_STORE_DEFAULT);
}

static int set_view(const char *vmnt, const char *tag)
{
	int err = mvfs_view_ioctl(vmnt, MVFS_IOC_SETVIEW, tag, 0, -1, NULL);
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", vmnt, tag);
	if (err == -ENOENT && *tag && geteuid() == 0 && !access(path, F_OK)) {
		/* As mvfs startview: the view's lease first (one machine). */
		err = mvfs_lease_take(view_store(), tag);
		if (err)
			return err;
		err = mvfs_viewroot_start(vmnt, tag);
		if (err && err != -EEXIST) {
			mvfs_lease_drop(view_store(), tag);
			return err;
		}
		err = mvfs_view_ioctl(vmnt, MVFS_IOC_SETVIEW, tag, 0, -1,
				      NULL);
	}
	switch (err) {
	case 0:
		return 0;
	case -ENOENT:
		return mvfs_err(err, "no view %s %s", tag,
				"(mvfs lsview lists views; root starts one with mvfs startview)");
	case -EACCES:
		return mvfs_err(err, "view %s: permission denied", tag);
	case -EPERM:
		return mvfs_err(err, "%s",
				"this process's root is neither the system root nor a view root (a chroot?)");
	default:
		return mvfs_err(err, "%s: %s", vmnt, strerror(-err));
	}
}

static void run(const char *tag, char **cmd)
{
	char *shell = getenv("SHELL");
	char ps1[128];
	static char *sh[2];

	if (*tag) {
		snprintf(ps1, sizeof(ps1), "[%s] \\w %s ", tag,
			 geteuid() ? "$" : "#");
		setenv("PS1", ps1, 1);
		setenv("MVFS_VIEW", tag, 1);
	} else {
		unsetenv("MVFS_VIEW");
	}
	if (!cmd[0]) {
		sh[0] = shell && *shell ? shell : "/bin/sh";
		cmd = sh;
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "view-set: %s: %s\n", cmd[0], strerror(errno));
	exit(127);
}

int main(int argc, char **argv)
{
	const char *tag;
	char **cmd;
	int err;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		show_help(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	tag = strcmp(argv[1], "-") ? argv[1] : "";
	cmd = argv + 2;
	if (cmd[0] && strcmp(cmd[0], "--")) {
		show_help(stderr);
		return 2;
	}
	if (cmd[0])
		cmd++;
	err = set_view(view_mount(), tag);
	if (err) {
		fprintf(stderr, "view-set: %s\n", mvfs_errmsg(err));
		return 1;
	}
	run(tag, cmd);
	return 127;
}
