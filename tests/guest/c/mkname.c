// SPDX-License-Identifier: GPL-2.0
/*
 * mkname OP PATH [FROM]: one call that makes the name PATH, and what it
 * gave: "ok" or the errno's name.  OP: creat (open with O_CREAT |
 * O_EXCL), mkdir, symlink (to FROM), link (of FROM), whiteout (mknod
 * of a character device 0/0, as overlayfs and mvfs mark a removal),
 * chrdev (mknod of the character device 1/3, /dev/null's).
 *
 * For the exclusive creates, whose lookup mvfs leaves to the create for
 * open: the test compares what a view and ext2 say.  Exit status 0 when the
 * call was made, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static int run(const char *op, const char *path, const char *from)
{
	int fd;

	if (!strcmp(op, "creat")) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		return fd < 0 ? -1 : close(fd);
	}
	if (!strcmp(op, "mkdir"))
		return mkdir(path, 0755);
	if (!strcmp(op, "symlink") && from)
		return symlink(from, path);
	if (!strcmp(op, "link") && from)
		return link(from, path);
	if (!strcmp(op, "whiteout"))
		return mknod(path, S_IFCHR | 0600, makedev(0, 0));
	if (!strcmp(op, "chrdev"))
		return mknod(path, S_IFCHR | 0600, makedev(1, 3));
	errno = EINVAL;
	return -2;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: mkname OP PATH [FROM]\n");
		return 2;
	}
	ret = run(argv[1], argv[2], argc == 4 ? argv[3] : NULL);
	if (ret == -2) {
		fprintf(stderr, "mkname: unknown OP %s, or FROM missing\n",
			argv[1]);
		return 2;
	}
	printf("%s\n", ret ? strerrorname_np(errno) : "ok");
	return 0;
}
