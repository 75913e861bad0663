// SPDX-License-Identifier: GPL-2.0
/*
 * difftest [-s SEED] [-n OPS] [-v] [-c] [-e] [-m] [-X N] DIR_A DIR_B: replay
 * one seeded random sequence of file system operations on two empty
 * directories, DIR_A (the one under test: a directory in a view) and
 * DIR_B (the reference: ext2), in this one process, and stop at the
 * first difference (exit status 1, with the seed and the operation's
 * number: `-s SEED -n N -v` replays up to it, printing each operation).
 *
 * After each operation: the same return value and errno, the same data
 * (bytes read, stat fields, symlink targets, directory listings); then
 * for the paths and open file it used, and their parent directories:
 * the same type, mode, link count, owner and size (not for directories),
 * and whether atime, mtime and ctime changed (both or neither; see
 * time_changed() for when that can be told).  Every 1000 operations and
 * at the end, the two whole trees must be identical (difftest_tree.h).
 *
 * The paths come from a small pool (a, b, c three levels deep, also under
 * the sticky world-writable directory s), so that operations collide and
 * reach their error paths.  A quarter of the operations that can run
 * unprivileged do, as uid 1000 or 1001, in a child process.
 *
 *   -c  A may do what B (ext2) refuses: fallocate (EOPNOTSUPP on ext2)
 *       and renameat2 RENAME_EXCHANGE (EINVAL on ext2).  When A succeeds
 *       and B fails so, B does the same by other means (ftruncate, three
 *       renames) and times are not compared for that operation.
 *   -e  start from two identical trees instead of two empty directories
 *       (in a view: elements of a revision, so that operations copy them
 *       up and leave whiteouts); they are compared first.
 *   -m  do not compare times after writes through a shared mapping:
 *       tmpfs does not update mtime and ctime then (ext2 does).
 *   -X N  inject a difference, to show that it is found: the first
 *       operation from the Nth on that succeeds on A and changes a name
 *       is not run on B (not a rename, which may change nothing: one
 *       onto itself or onto another link of the same file).
 */
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "difftest_ops.h"

#define F_P1	0x01	/* uses the path p1 */
#define F_P2	0x02	/* uses the path p2 */
#define F_SLOT	0x04	/* uses an open file */
#define F_NEWFD	0x08	/* returns a new file descriptor */
#define F_USER	0x10	/* may run as an unprivileged user */
#define F_NS	0x20	/* changes a name when it succeeds */
#define F_DATA	0x40	/* changes a file's data */
#define F_TGT	0x80	/* p2 is a symlink's target */

struct op {
	const char *name;
	long (*fn)(int s, struct args *a, struct res *r);
	int weight;
	unsigned int flags;
};

static const struct op ops[] = {
	{ "open", op_open, 14, F_P1 | F_NEWFD | F_USER },
	{ "close", op_close, 4, F_SLOT },
	{ "write", op_write, 7, F_SLOT | F_DATA },
	{ "pwrite", op_pwrite, 6, F_SLOT | F_DATA },
	{ "pwritev2", op_pwritev2, 3, F_SLOT | F_DATA },
	{ "read", op_read, 5, F_SLOT },
	{ "pread", op_pread, 5, F_SLOT },
	{ "lseek", op_lseek, 2, F_SLOT },
	{ "ftruncate", op_ftruncate, 3, F_SLOT | F_DATA },
	{ "truncate", op_truncate, 2, F_P1 | F_USER | F_DATA },
	{ "fsync", op_fsync, 2, F_SLOT },
	{ "fallocate", op_fallocate, 2, F_SLOT | F_DATA },
	{ "mmap", op_mmap, 3, F_SLOT | F_DATA },
	{ "unlink", op_unlink, 5, F_P1 | F_USER | F_NS },
	{ "rename", op_rename, 8, F_P1 | F_P2 | F_USER | F_NS },
	{ "mkdir", op_mkdir, 6, F_P1 | F_USER | F_NS },
	{ "rmdir", op_rmdir, 4, F_P1 | F_USER | F_NS },
	{ "symlink", op_symlink, 3, F_P1 | F_TGT | F_USER | F_NS },
	{ "readlink", op_readlink, 2, F_P1 },
	{ "link", op_link, 5, F_P1 | F_P2 | F_USER | F_NS },
	{ "mknod", op_mknod, 2, F_P1 | F_USER | F_NS },
	{ "chmod", op_chmod, 3, F_P1 | F_USER },
	{ "fchmod", op_fchmod, 1, F_SLOT },
	{ "chown", op_chown, 3, F_P1 | F_USER },
	{ "fchown", op_fchown, 1, F_SLOT },
	{ "utimensat", op_utimens, 5, F_P1 | F_USER },
	{ "stat", op_stat, 4, F_P1 | F_USER },
	{ "fstat", op_fstat, 2, F_SLOT },
	{ "access", op_access, 2, F_P1 | F_USER },
	{ "readdir", op_readdir, 2, F_P1 | F_USER },
	{ "statfs", op_statfs, 1, F_P1 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NOPS ((int)ARRAY_SIZE(ops))

static int compat, inject_from, injected, existing;
static long nfailed;		/* operations that failed on both sides */
static long nrun[NOPS], nok[NOPS];

/* --- the generator --------------------------------------------------- */

/*
 * A path from the pool: up to two directories d and e (under s, the
 * sticky one, a quarter of the time), then a name, most often a file's
 * (f, g, h) or, for the operations on directories (dir), a directory's.
 * Now and then a "." component, a name of NAME_MAX or NAME_MAX + 1
 * bytes, or a trailing slash.  Symlink targets (target) never climb
 * with "..", so that they resolve inside the tree, or are absolute under
 * a directory that does not exist, so that O_CREAT through them fails.
 */
static void gen_path(char *p, int dir, int target)
{
	static const char *const name[] = { "d", "e", "f", "g", "h" };
	int depth = rn(100) < 45 ? 0 : rn(100) < 70 ? 1 : 2, i, n = 0;

	if (target && chance(10)) {
		strcpy(p, "/nonexistent-difftest/x");
		return;
	}
	if (!target && chance(4))
		n = sprintf(p, "s/");
	for (i = 0; i < depth; i++)
		n += sprintf(p + n, "%s/", chance(40) && i ? "." : name[rn(2)]);
	if (chance(100)) {
		i = 255 + rn(2);	/* NAME_MAX, or too long */
		memset(p + n, 'n', i);
		n += i;
	} else {
		i = rn(10) < (dir ? 7 : 1) ? rn(2) : 2 + rn(3);
		n += sprintf(p + n, "%s", name[i]);
	}
	if (!target && chance(20))
		p[n++] = '/';
	p[n] = 0;
}

static mode_t gen_mode(void)
{
	static const mode_t m[] = { 0644, 0755, 0600, 0700, 0777, 0444, 0555,
		0, 01777, 02775, 04755, 06711, 0666, 0640, 0711, 0750 };

	return chance(8) ? rn(010000) : m[rn(16)];
}

static void gen_time(struct timespec *ts)
{
	switch (rn(4)) {
	case 0:
	case 1:
		ts->tv_sec = OLD_TIME + rn(1000000);
		ts->tv_nsec = rn(1000000000);
		break;
	case 2:
		ts->tv_sec = 0;
		ts->tv_nsec = UTIME_NOW;
		break;
	default:
		ts->tv_sec = 0;
		ts->tv_nsec = UTIME_OMIT;
	}
}

/* An open slot if there is one (a free one for open), else any. */
static int gen_slot(int want_free)
{
	int i, n = 0, pick[NSLOT];

	for (i = 0; i < NSLOT; i++)
		if (slots[i].fd[0] < 0 ? want_free : !want_free)
			pick[n++] = i;
	return n ? pick[rn(n)] : (int)rn(NSLOT);
}

static const struct op *gen_op(void)
{
	int total = 0, i, w;

	for (i = 0; i < NOPS; i++)
		total += ops[i].weight;
	w = rn(total);
	for (i = 0; w >= ops[i].weight; i++)
		w -= ops[i].weight;
	return &ops[i];
}

static void gen_args(const struct op *op, struct args *a)
{
	static const int ids[] = { -1, 0, 1000, 1001, 1002 };
	int dir = op->fn == op_mkdir || op->fn == op_rmdir ||
		  op->fn == op_readdir || chance(10);
	size_t i;

	gen_path(a->p1, dir, 0);
	gen_path(a->p2, dir, op->flags & F_TGT);
	a->slot = gen_slot(op->fn == op_open);
	a->bits = rnd();
	a->off = chance(8) ? rn(4 << 20) : rn(65536);
	a->len = chance(16) ? rn(MAXIO) : rn(8192);
	a->mode = gen_mode();
	a->uid = ids[rn(4)];
	a->gid = ids[rn(5)];
	gen_time(&a->ts[0]);
	gen_time(&a->ts[1]);
	a->user = (op->flags & F_USER) && chance(4) ? 1000 + rn(2) : 0;
	umask(chance(3) ? 0 : chance(2) ? 022 : 077);
	if (op->flags & F_DATA)
		for (i = 0; i < a->len; i += 8) {
			__u64 x = rnd();

			memcpy(wbuf + i, &x, 8);
		}
}

static void describe(const struct op *op, const struct args *a)
{
	int n = snprintf(opdesc, sizeof(opdesc), "%s", op->name);

	if (op->flags & F_P1)
		n += snprintf(opdesc + n, sizeof(opdesc) - n, " '%s'", a->p1);
	if (op->flags & (F_P2 | F_TGT))
		n += snprintf(opdesc + n, sizeof(opdesc) - n, " '%s'", a->p2);
	if (op->flags & F_SLOT)
		n += snprintf(opdesc + n, sizeof(opdesc) - n, " slot %d",
			      a->slot);
	snprintf(opdesc + n, sizeof(opdesc) - n,
		 " bits %#llx off %lld len %zu mode %04o uid %d gid %d%s%s",
		 (unsigned long long)a->bits, (long long)a->off, a->len,
		 a->mode, (int)a->uid, (int)a->gid, a->user ? " as user " : "",
		 a->user ? (a->user == 1000 ? "1000" : "1001") : "");
}

/* --- running an operation as root ------------------------------------ */

static void run_side(const struct op *op, struct args *a, int s,
		     struct res *r)
{
	memset(r, 0, sizeof(*r));
	r->buf = rbuf[s];
	errno = 0;
	r->ret = op->fn(s, a, r);
	r->err = r->ret < 0 ? errno : 0;
}

/* -c: exchange P1 and P2 on B by three renames, trailing slashes off. */
static void swap_names(const char *p1, const char *p2)
{
	char a[PBUF], b[PBUF];
	size_t n;

	n = snprintf(a, sizeof(a), "%s", p1);
	while (n > 1 && a[n - 1] == '/')
		a[--n] = 0;
	n = snprintf(b, sizeof(b), "%s", p2);
	while (n > 1 && b[n - 1] == '/')
		b[--n] = 0;
	if (renameat(dfd[1], a, dfd[1], "x-exchange") ||
	    renameat(dfd[1], b, dfd[1], a) ||
	    renameat(dfd[1], "x-exchange", dfd[1], b))
		die("-c: renames for an exchange: %s", strerror(errno));
}

/* -c: B does by other means what A could and B (ext2) refused. */
static int emulate(const struct op *op, struct args *a, struct res *r)
{
	struct stat st;
	int fd = fd_of(1, a);

	if (!compat || r[0].ret < 0 || r[1].ret >= 0)
		return 0;
	if (op->fn == op_fallocate && r[1].err == EOPNOTSUPP) {
		if (!(a->bits & 1) && !fstat(fd, &st) &&
		    st.st_size < a->off + (off_t)a->len &&
		    ftruncate(fd, a->off + a->len))
			die("-c: ftruncate for fallocate: %s", strerror(errno));
	} else if (op->fn == op_rename && r[1].err == EINVAL &&
		   rename_flags(a->bits) == RENAME_EXCHANGE) {
		swap_names(a->p1, a->p2);
	} else {
		return 0;
	}
	r[1] = r[0];
	return 1;
}

static int run_root(const struct op *op, struct args *a, struct res *r)
{
	run_side(op, a, 0, &r[0]);
	if (inject_from && !injected && opno >= inject_from &&
	    (op->flags & F_NS) && op->fn != op_rename && r[0].ret >= 0) {
		fprintf(stderr, "difftest: -X: op %ld (%s) is not run on B\n",
			opno, op->name);
		injected = 1;
		r[1] = r[0];
		return 0;
	}
	run_side(op, a, 1, &r[1]);
	return emulate(op, a, r);
}

/* --- running an operation as an unprivileged user -------------------- */

/*
 * The unprivileged run happens in a child that shares this process's
 * memory, as posix_spawn()'s does: no copy of the address space to make
 * and tear down for each operation (on the debug kernel, that was most
 * of difftest's time).  Its credentials and file table are its own, as a
 * fork()'s; this process waits (CLONE_VFORK) until it ends, so nothing
 * here changes meanwhile, and it writes its results straight into R.
 */
struct user_run {
	const struct op *op;
	struct args *a;
	struct res *r;
	struct res w[2];	/* the child's write on each side */
};

/* clone() aligns the top of it as the ABI wants. */
static unsigned long child_stack[128 * 1024];

static int child(void *arg)
{
	struct user_run *u = arg;
	const struct args *a = u->a;
	gid_t other = a->user == 1000 ? 1001 : 1000;
	struct res *r;
	int s;

	/* Raw calls: the C library's would also act on this process. */
	if (syscall(SYS_setgroups, (int)(a->bits >> 63), &other) ||
	    syscall(SYS_setresgid, a->user, a->user, a->user) ||
	    syscall(SYS_setresuid, a->user, a->user, a->user))
		return 126;
	for (s = 0; s < 2; s++) {
		r = &u->r[s];
		run_side(u->op, u->a, s, r);
		if ((u->op->flags & F_NEWFD) && r->ret >= 0) {
			/*
			 * An unprivileged write drops setuid and setgid.  It
			 * may fail (EAGAIN: a full FIFO), alike on both sides.
			 */
			if (open_flags(a->bits) & (O_WRONLY | O_RDWR)) {
				u->w[s].ret = write(r->ret, "u", 1);
				u->w[s].err = errno;
			}
			close(r->ret);
		}
	}
	return 0;
}

static void run_user(const struct op *op, struct args *a, struct res *r)
{
	struct user_run u = { .op = op, .a = a, .r = r };
	int status;
	pid_t pid;

	fflush(NULL);
	pid = clone(child, child_stack + ARRAY_SIZE(child_stack),
		    CLONE_VM | CLONE_VFORK | SIGCHLD, &u);
	if (pid < 0)
		die("clone: %s", strerror(errno));
	if (waitpid(pid, &status, 0) != pid || status)
		die("the unprivileged child failed: status %#x", status);
	if (r[0].ret >= 0 && r[1].ret >= 0 &&
	    (u.w[0].ret != u.w[1].ret ||
	     (u.w[0].ret < 0 && u.w[0].err != u.w[1].err)))
		die("the unprivileged write to the new file: A %ld (%s), B %ld (%s)",
		    u.w[0].ret, strerror(u.w[0].err),
		    u.w[1].ret, strerror(u.w[1].err));
}

/* --- checks around an operation -------------------------------------- */

static void track(const struct op *op, const struct args *a)
{
	if (op->flags & F_P1) {
		track_path("the object at", a->p1);
		track_parent(a->p1);
	}
	if (op->flags & F_P2) {
		track_path("the object at", a->p2);
		track_parent(a->p2);
	}
	if ((op->flags & F_SLOT) && op->fn != op_close &&
	    slots[a->slot].fd[0] >= 0)
		track_fd("the open file", slots[a->slot].fd[0],
			 slots[a->slot].fd[1], 0);
}

/* The whole content of a small open regular file, where it is readable. */
static void check_data(const struct args *a)
{
	struct res r[2];
	struct stat st;
	int s;

	if ((slots[a->slot].flags & O_ACCMODE) == O_WRONLY ||
	    fstat(slots[a->slot].fd[0], &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > MAXIO)
		return;
	for (s = 0; s < 2; s++) {
		r[s].ret = pread(slots[a->slot].fd[s], rbuf[s], MAXIO, 0);
		r[s].err = errno;
		r[s].buf = rbuf[s];
		r[s].len = r[s].ret > 0 ? r[s].ret : 0;
	}
	cmp_res(r, 0);
}

/* A new open file goes in its slot, on both sides. */
static void keep_fd(const struct args *a, const struct res *r)
{
	struct slot *sl = &slots[a->slot];
	int s;

	for (s = 0; s < 2; s++) {
		if (sl->fd[s] >= 0)
			close(sl->fd[s]);
		sl->fd[s] = r[s].ret;
	}
	sl->flags = open_flags(a->bits);
}

static void run(const struct op *op, struct args *a)
{
	struct timespec start;
	struct res r[2];
	int notimes = 0;

	describe(op, a);
	if (verbose)
		printf("%ld %s\n", opno, opdesc);
	track(op, a);
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	if (a->user) {
		run_user(op, a, r);
		/* -c: what the user did on A, the reference does as root */
		notimes = emulate(op, a, r);
	} else {
		notimes = run_root(op, a, r);
	}
	cmp_res(r, op->flags & F_NEWFD);
	if (verbose)
		printf("  -> %ld %s\n", r[0].ret, r[0].ret < 0 ?
		       strerror(r[0].err) : "");
	nfailed += r[0].ret < 0;
	nrun[op - ops]++;
	nok[op - ops] += r[0].ret >= 0;
	notimes |= compat_mmap_times && op->fn == op_mmap;
	check_objs(start.tv_sec, notimes);
	if (op->flags & F_P1)
		check_path(a->p1);
	if (op->flags & F_P2)
		check_path(a->p2);
	if ((op->flags & F_NEWFD) && !a->user && r[0].ret >= 0)
		keep_fd(a, r);
	if ((op->flags & F_DATA) && (op->flags & F_SLOT) && r[0].ret >= 0)
		check_data(a);
}

/* --- main -------------------------------------------------------------- */

static void setup(char **dirs)
{
	struct names l;
	int s;

	for (s = 0; s < 2; s++) {
		root[s] = dirs[s];
		dfd[s] = open(dirs[s], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd[s] < 0)
			die("%s: %s", dirs[s], strerror(errno));
		list_dir(reopen_dir(dfd[s]), dirs[s], &l);
		if (l.n && !existing)
			die("%s is not empty", dirs[s]);
		free_names(&l);
		/* the sticky, world-writable directory */
		if ((mkdirat(dfd[s], "s", 0) && (!existing || errno != EEXIST)) ||
		    fchmodat(dfd[s], "s", 01777, 0))
			die("mkdir %s/s: %s", dirs[s], strerror(errno));
	}
	if (existing)
		cmp_trees();	/* -e: they must start the same */
	for (s = 0; s < NSLOT; s++) {
		slots[s].fd[0] = -1;
		slots[s].fd[1] = -1;
	}
}

static void finish(void)
{
	int s;

	for (s = 0; s < NSLOT; s++) {
		if (slots[s].fd[0] >= 0)
			close(slots[s].fd[0]);
		if (slots[s].fd[1] >= 0)
			close(slots[s].fd[1]);
	}
	snprintf(opdesc, sizeof(opdesc), "the comparison of the trees");
	cmp_trees();
}

/* How often each operation ran, and succeeded. */
static void summary(void)
{
	int i, n = 0;

	for (i = 0; i < NOPS; i++)
		n += printf("%s%s %ld/%ld", n ? ", " : "difftest: ok/run: ",
			    ops[i].name, nok[i], nrun[i]);
	printf("\n");
}

static void bad_usage(void)
{
	fputs("usage: difftest [-s SEED] [-n OPS] [-v] [-c] [-e] [-m] [-X N]\n"
	      "                DIR_A DIR_B\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	struct args *a = calloc(1, sizeof(*a));
	long nops = 10000;
	int c;

	seed = (__u64)time(NULL) ^ ((__u64)getpid() << 20);
	while ((c = getopt(argc, argv, "s:n:vcmeX:")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nops = atol(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'c':
			compat = 1;
			break;
		case 'm':
			compat_mmap_times = 1;
			break;
		case 'e':
			existing = 1;
			break;
		case 'X':
			inject_from = atol(optarg);
			break;
		default:
			bad_usage();
		}
	}
	if (argc - optind != 2 || !a)
		bad_usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a write to a FIFO that lost its reader: EPIPE, to compare */
	signal(SIGPIPE, SIG_IGN);
	rng = seed * 2 + 1;
	setup(argv + optind);
	printf("difftest: seed %llu, %ld operations\n",
	       (unsigned long long)seed, nops);
	for (opno = 1; opno <= nops; opno++) {
		const struct op *op = gen_op();

		gen_args(op, a);
		run(op, a);
		if (opno % 1000 == 0)
			cmp_trees();
	}
	opno = nops;
	finish();
	summary();
	printf("difftest: seed %llu: %ld operations (%ld failed alike), ",
	       (unsigned long long)seed, nops, nfailed);
	printf("%ld times compared: the same results and trees\n", ntimes);
	return 0;
}
