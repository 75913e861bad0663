// SPDX-License-Identifier: GPL-2.0
/*
 * failnth [-r REF] [-n MAX] [-a ERRNO,...] OP ARG...: make each allocation
 * of one operation fail in turn.  For N = 1, 2, ... the Nth
 * fault-injection point the operation reaches fails
 * (/proc/thread-self/fail-nth, Documentation/fault-injection/): a slab or
 * page allocation in the VFS, in mvfs or in the store's ext2 below it.
 * The sweep ends at the first N where no fault was left to inject: every
 * point was tried once.
 *
 * A path may hold "%d", replaced by N: a name never looked up before at
 * each attempt, so that every attempt reaches the filesystem cold.  Each
 * attempt must fail with ENOMEM (or an errno -a adds) or succeed with the
 * right result; then the operation done again without faults must give
 * the right result too, so that a failure leaves no wrong cache and no
 * half-done change behind.  The right result is what the operation gives
 * on REF (same %d), a twin of the path (the same revision in another
 * view, or the tree it was imported from); without -r, what it gave
 * before the sweep.  OP is one of:
 *
 *   stat PATH          lstat: type, mode, size, links, owner, mtime
 *   readdir DIR        every entry's name and type
 *   read FILE          the bytes
 *   openw FILE         open for writing (a copy-up), close: FILE's bytes
 *                      stay what REF's are
 *   mount STORE DIR    mount mvfs on DIR with store=STORE, list its root,
 *                      unmount
 *   setview TAG        MVFS_IOC_SETVIEW into TAG (on $MVFS_VIEW_ROOT, or
 *                      /view), then back
 *   setview-mt TAG     the same from a process with two threads, whose
 *                      shared fs_struct the module must unshare
 *
 * Prints a summary (and one line per failed check); exit status 0 when
 * every check held, 1 otherwise, 2 for bad usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>
#include "mvfs_ioctl.h"

#define MAX_ERRNO	4096
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FNV_START	0xcbf29ce484222325ULL

enum op_kind { OP_STAT, OP_READDIR, OP_READ, OP_OPENW, OP_MOUNT, OP_SETVIEW };

struct op {
	enum op_kind kind;
	const char *arg;	/* the path pattern, the store or the tag */
	const char *arg2;	/* mount: the mount point */
	const char *ref;	/* -r: the twin's path pattern */
	int view_fd;		/* setview: the mvfs root */
	int threaded;		/* setview-mt */
};

static int nth_fd = -1;
static unsigned int err_count[MAX_ERRNO];
static int accepted[MAX_ERRNO];
static int problems;

static __u64 fnv(__u64 h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* PATTERN with %d replaced by n, in buf. */
static const char *path_of(char *buf, size_t size, const char *pattern, int n)
{
	snprintf(buf, size, pattern, n);
	return buf;
}

/* What a twin shares: not the inode number, not sub-second times. */
static int sum_stat(const char *path, __u64 *sum)
{
	struct stat st;
	__u64 v[6];

	if (lstat(path, &st))
		return -errno;
	v[0] = st.st_mode;
	v[1] = st.st_size;
	v[2] = st.st_nlink;
	v[3] = st.st_uid;
	v[4] = st.st_gid;
	v[5] = st.st_mtime;
	*sum = fnv(FNV_START, v, sizeof(v));
	return 0;
}

/* Entries in any order: the sum of each entry's own hash. */
static int sum_readdir(const char *path, __u64 *sum)
{
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	dir = opendir(path);
	if (!dir)
		return -errno;
	*sum = 0;
	errno = 0;
	while ((d = readdir(dir))) {
		*sum += fnv(fnv(FNV_START, d->d_name, strlen(d->d_name)),
			    &d->d_type, 1);
		errno = 0;
	}
	if (errno)
		ret = -errno;
	closedir(dir);
	return ret;
}

static int sum_read(const char *path, __u64 *sum)
{
	char buf[16384];
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	*sum = FNV_START;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*sum = fnv(*sum, buf, n);
	if (n < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int view_ioctl(struct op *op, unsigned long cmd, const char *tag,
		      char *out)
{
	struct mvfs_ioc_view v;

	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	snprintf(v.tag, sizeof(v.tag), "%s", tag);
	if (ioctl(op->view_fd, cmd, &v))
		return -errno;
	if (out)
		memcpy(out, v.tag, sizeof(v.tag));
	return 0;
}

/* Where the caller is: its view's tag and its /vob. */
static int sum_where(struct op *op, char *tag, __u64 *sum)
{
	int ret = view_ioctl(op, MVFS_IOC_PWV, "", tag);

	if (ret)
		return ret;
	ret = sum_stat("/vob", sum);
	*sum = fnv(*sum, tag, strlen(tag));
	return ret;
}

/*
 * Do the operation on path (ignored by mount and setview); *sum is what
 * it gave when it returns 0.  A mount is listed and unmounted, a switch
 * looked at and undone, so that each attempt starts from the same place.
 */
static int op_run(struct op *op, const char *path, __u64 *sum)
{
	char opts[4200];
	int fd;

	switch (op->kind) {
	case OP_STAT:
		return sum_stat(path, sum);
	case OP_READDIR:
		return sum_readdir(path, sum);
	case OP_READ:
		return sum_read(path, sum);
	case OP_OPENW:
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case OP_MOUNT:
		snprintf(opts, sizeof(opts), "store=%s", op->arg);
		if (mount("none", op->arg2, "mvfs", MS_NOSUID | MS_NODEV,
			  opts))
			return -errno;
		return 0;
	case OP_SETVIEW:
		return view_ioctl(op, MVFS_IOC_SETVIEW, op->arg, NULL);
	}
	return -EINVAL;
}

/* After a mount or a switch that succeeded: what it gave, then undo. */
static int op_undo(struct op *op, __u64 *sum)
{
	char tag[MVFS_IOC_TAG_FIELD];
	int ret;

	if (op->kind == OP_MOUNT) {
		ret = sum_readdir(op->arg2, sum);
		if (umount2(op->arg2, 0))
			ret = -errno;
		return ret;
	}
	ret = sum_where(op, tag, sum);
	if (view_ioctl(op, MVFS_IOC_SETVIEW, "", NULL))
		ret = -errno;
	return ret;
}

/* The operation without faults, whole: *sum is the result to compare. */
static int op_clean(struct op *op, const char *path, __u64 *sum)
{
	int ret;

	if (op->kind == OP_OPENW)
		return sum_read(path, sum);
	ret = op_run(op, path, sum);
	if (ret || (op->kind != OP_MOUNT && op->kind != OP_SETVIEW))
		return ret;
	return op_undo(op, sum);
}

static void nth_set(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len) {
		perror("failnth: fail-nth");
		exit(2);
	}
}

/* True when the fault was injected: the count went down to 0. */
static int nth_injected(void)
{
	char buf[16] = "";
	int left;

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0) {
		perror("failnth: fail-nth");
		exit(2);
	}
	left = atoi(buf);
	nth_set(0);
	return left == 0;
}

static void problem(const char *what, int n, int ret)
{
	problems++;
	printf("# failnth: point %d: %s (%s)\n", n, what,
	       ret ? strerror(-ret) : "success");
}

static void *idle_thread(void *arg)
{
	char c;

	/* Shares the caller's fs_struct until the pipe is closed. */
	if (read(*(int *)arg, &c, 1) < 0)
		return NULL;
	return NULL;
}

/* The attempt with the nth point failing; *injected says if it did. */
static int attempt(struct op *op, const char *path, int n, int *injected,
		   __u64 *sum)
{
	int ret, pipefd[2];
	pthread_t thread;

	*injected = 0;
	if (op->threaded &&
	    (pipe(pipefd) ||
	     pthread_create(&thread, NULL, idle_thread, &pipefd[0]))) {
		problem("cannot start the second thread", n, -errno);
		return -EAGAIN;
	}
	nth_set(n);
	ret = op_run(op, path, sum);
	*injected = nth_injected();
	if (op->threaded) {
		close(pipefd[1]);
		pthread_join(thread, NULL);
		close(pipefd[0]);
	}
	return ret;
}

/*
 * One attempt with the nth point failing; -1 when no fault was left to
 * inject (the sweep is over), else 0.
 */
static int sweep_one(struct op *op, int n, __u64 want)
{
	char path[4096], ref[4096], tag[MVFS_IOC_TAG_FIELD];
	int ret, injected;
	__u64 sum;

	path_of(path, sizeof(path), op->arg, n);
	if (op->ref) {
		ret = op_clean(op, path_of(ref, sizeof(ref), op->ref, n),
			       &want);
		if (ret) {
			problem("the twin fails", n, ret);
			return -1;
		}
	}
	ret = attempt(op, path, n, &injected, &sum);
	if (ret < 0 && -ret < MAX_ERRNO) {
		err_count[-ret]++;
		if (!accepted[-ret])
			problem("an error an allocation failure cannot explain",
				n, ret);
	}
	if (!injected && ret)
		problem("failed with no fault injected", n, ret);
	if (!ret && (op->kind == OP_MOUNT || op->kind == OP_SETVIEW) &&
	    op_undo(op, &sum))
		problem("cannot look at or undo what the attempt did", n, 0);
	if (ret && op->kind == OP_SETVIEW &&
	    (view_ioctl(op, MVFS_IOC_PWV, "", tag) || *tag))
		problem("a failed switch moved the caller", n, ret);
	if (!ret && op->kind != OP_OPENW && sum != want)
		problem("succeeded with a wrong result", n, 0);
	ret = op_clean(op, path, &sum);
	if (ret)
		problem("the operation fails after the attempt", n, ret);
	else if (sum != want)
		problem("the operation gives another result after the attempt",
			n, 0);
	return injected ? 0 : -1;
}

static int accept_list(char *list)
{
	static const struct { const char *name; int e; } names[] = {
		{ "ENOMEM", ENOMEM }, { "EIO", EIO }, { "EINVAL", EINVAL },
		{ "EAGAIN", EAGAIN }, { "EINTR", EINTR }, { "ENOSPC", ENOSPC },
		{ "ESTALE", ESTALE },
	};
	char *tok;
	size_t i;

	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == ARRAY_SIZE(names))
			return -1;
		accepted[names[i].e] = 1;
	}
	return 0;
}

static int bad_usage(void)
{
	fprintf(stderr,
		"failnth [-r REF] [-n MAX] [-a ERRNO,...] OP ARG...\n"
		"  OP: stat PATH | readdir DIR | read FILE | openw FILE |\n"
		"      mount STORE DIR | setview TAG | setview-mt TAG\n");
	return 2;
}

static int op_parse(struct op *op, int argc, char **argv)
{
	static const char * const names[] = {
		"stat", "readdir", "read", "openw", "mount", "setview",
		"setview-mt",
	};
	const char *root = getenv("MVFS_VIEW_ROOT");
	size_t i;

	if (argc < 2)
		return -1;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(argv[0], names[i]))
			break;
	if (i == ARRAY_SIZE(names) || argc != (i == OP_MOUNT ? 3 : 2))
		return -1;
	op->threaded = i == ARRAY_SIZE(names) - 1;
	op->kind = op->threaded ? OP_SETVIEW : (enum op_kind)i;
	op->arg = argv[1];
	op->arg2 = argv[2];
	if (op->kind == OP_SETVIEW) {
		op->view_fd = open(root && *root ? root : "/view",
				   O_RDONLY | O_DIRECTORY);
		if (op->view_fd < 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int opt, max = 5000, n, points = 0, ret;
	struct op op = { .view_fd = -1 };
	__u64 want = 0;

	accepted[ENOMEM] = 1;
	while ((opt = getopt(argc, argv, "+r:n:a:")) != -1) {
		switch (opt) {
		case 'r':
			op.ref = optarg;
			break;
		case 'n':
			max = atoi(optarg);
			break;
		case 'a':
			if (accept_list(optarg))
				return bad_usage();
			break;
		default:
			return bad_usage();
		}
	}
	if (op_parse(&op, argc - optind, argv + optind))
		return bad_usage();
	/* No page fault of ours to take an injected failure. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("failnth: mlockall");
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0) {
		perror("failnth: /proc/thread-self/fail-nth");
		return 2;
	}
	ret = op.ref ? 0 : op_clean(&op, op.arg, &want);
	if (ret) {
		printf("# failnth: %s fails without faults: %s\n", op.arg,
		       strerror(-ret));
		return 1;
	}
	for (n = 1; n <= max; n++) {
		if (sweep_one(&op, n, want))
			break;
		points++;
	}
	if (n > max)
		problem("the sweep did not end", max, 0);
	printf("# failnth: %s %s: %d points,", argv[optind], op.arg, points);
	for (n = 1; n < MAX_ERRNO; n++)
		if (err_count[n])
			printf(" %s x%u,", strerror(n), err_count[n]);
	printf(" %d problems\n", problems);
	return problems ? 1 : 0;
}
