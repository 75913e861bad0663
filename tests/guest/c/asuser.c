// SPDX-License-Identifier: GPL-2.0
/*
 * asuser UID GID CMD [ARGS...]: run CMD as UID:GID with no supplementary
 * groups and no capabilities left, for the tests of unprivileged use.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: asuser UID GID CMD [ARGS...]\n");
		return 2;
	}
	uid = (uid_t)atoi(argv[1]);
	gid = (gid_t)atoi(argv[2]);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "asuser: %s\n", strerror(errno));
		return 126;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "asuser: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
