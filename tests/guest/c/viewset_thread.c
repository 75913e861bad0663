// SPDX-License-Identifier: GPL-2.0
/*
 * viewset_thread TAG: a multithreaded process asks to be set to view TAG.
 * Its threads share one fs_struct; the module must unshare it, so that
 * only the calling thread changes root while a thread that stays behind
 * keeps the system root.  TAP on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "mvfs_ioctl.h"

#define MVFS_MAGIC	0x4d564653

static pthread_barrier_t step;
static long other_fstype;

/* The filesystem type of /vob as this thread sees it. */
static long vob_fstype(void)
{
	struct statfs st;

	if (statfs("/vob", &st))
		return -1;
	return st.f_type;
}

static void *stay_behind(void *unused)
{
	pthread_barrier_wait(&step);	/* the main thread switches */
	pthread_barrier_wait(&step);
	other_fstype = vob_fstype();
	return unused;
}

static int set_view(const char *tag)
{
	struct mvfs_ioc_view arg;
	int fd, ret;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	snprintf(arg.tag, sizeof(arg.tag), "%s", tag);
	fd = open("/view", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, MVFS_IOC_SETVIEW, &arg) ? -errno : 0;
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int err, fails = 0;
	long mine;

	if (argc != 2) {
		fprintf(stderr, "usage: viewset_thread TAG\n");
		return 2;
	}
	printf("1..4\n");
	pthread_barrier_init(&step, NULL, 2);
	pthread_create(&t, NULL, stay_behind, NULL);
	pthread_barrier_wait(&step);
	err = set_view(argv[1]);
	printf("%sok 1 - SETVIEW %s from a thread of a 2-thread process (%d)\n",
	       err ? "not " : "", argv[1], err);
	fails += !!err;
	pthread_barrier_wait(&step);
	pthread_join(t, NULL);
	mine = vob_fstype();
	printf("%sok 2 - the calling thread sees mvfs at /vob\n",
	       mine == MVFS_MAGIC ? "" : "not ");
	fails += mine != MVFS_MAGIC;
	printf("%sok 3 - the thread that stayed behind does not (%lx)\n",
	       other_fstype != MVFS_MAGIC && other_fstype != -1 ? "" : "not ",
	       other_fstype);
	fails += other_fstype == MVFS_MAGIC || other_fstype == -1;
	err = set_view("");
	printf("%sok 4 - SETVIEW \"\" returns to the system root (%d)\n",
	       err || vob_fstype() == MVFS_MAGIC ? "not " : "", err);
	fails += err || vob_fstype() == MVFS_MAGIC;
	return fails ? 1 : 0;
}
