/* SPDX-License-Identifier: GPL-2.0 */
/*
 * difftest.h: the machinery of difftest (see difftest.c): the two sides,
 * the random generator, results and their comparison, the checks of
 * metadata and times made around each operation, and the comparison of
 * the two whole trees.  Included by difftest.c only.
 */
#ifndef DIFFTEST_H
#define DIFFTEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXIO		(256 * 1024)	/* the longest read or write */
#define PBUF		4096		/* a path */
#define OLD_TIME	1000000000	/* 2001: old enough for relatime */

/* What one side (A or B) returned for one operation. */
struct res {
	long ret;
	int err;
	size_t len;		/* bytes in buf: data read, a stat line... */
	unsigned char *buf;
};

static const char *root[2];	/* DIR_A, DIR_B */
static int dfd[2];		/* their directory fds */
static __u64 seed;
static long opno;
static int verbose;
static long ntimes;		/* times compared, changed or not */
static char opdesc[PBUF * 2 + 200];	/* the current operation, printed */
static unsigned char rbuf[2][MAXIO + 1];
static unsigned char wbuf[MAXIO];

/* --- random numbers: xorshift64*, replayable from the seed --------- */
static __u64 rng;

static __u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

/* rn(N): 0 <= r < N; chance(N): true once in N. */
static unsigned int rn(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static int chance(unsigned int n)
{
	return rn(n) == 0;
}

/* --- failures -------------------------------------------------------- */
static noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "difftest: seed %llu op %ld: ",
		(unsigned long long)seed, opno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  operation: %s\n", opdesc);
	fprintf(stderr, "  replay: difftest -s %llu -n %ld -v DIR_A DIR_B\n",
		(unsigned long long)seed, opno);
	exit(1);
}

static void res_str(const struct res *r, char *out, size_t size)
{
	if (r->ret < 0)
		snprintf(out, size, "-1 errno %d (%s)", r->err,
			 strerror(r->err));
	else
		snprintf(out, size, "%ld", r->ret);
}

/* Show where two data results differ, as text when it is text. */
static void show_data(const struct res *r)
{
	size_t i, n = r[0].len < r[1].len ? r[0].len : r[1].len;

	for (i = 0; i < n && r[0].buf[i] == r[1].buf[i]; i++)
		;
	fprintf(stderr, "  data: A %zu bytes, B %zu, first difference at %zu\n",
		r[0].len, r[1].len, i);
	if (r[0].len < 2000 && r[1].len < 2000 &&
	    !memchr(r[0].buf, 0, r[0].len) && !memchr(r[1].buf, 0, r[1].len))
		fprintf(stderr, "  A: %.*s\n  B: %.*s\n", (int)r[0].len,
			r[0].buf, (int)r[1].len, r[1].buf);
}

/*
 * Compare the results of both sides.  isfd: the return value is a file
 * descriptor, whose number may differ.
 */
static void cmp_res(const struct res *r, int isfd)
{
	char a[100], b[100];
	int same = r[0].ret == r[1].ret;

	if (isfd)
		same = (r[0].ret >= 0) == (r[1].ret >= 0);
	if (r[0].ret < 0 && r[1].ret < 0)
		same = r[0].err == r[1].err;
	if (same && r[0].ret >= 0 &&
	    (r[0].len != r[1].len || memcmp(r[0].buf, r[1].buf, r[0].len))) {
		show_data(r);
		die("the data differ");
	}
	if (same)
		return;
	res_str(&r[0], a, sizeof(a));
	res_str(&r[1], b, sizeof(b));
	die("results differ: A %s, B %s", a, b);
}

/* --- metadata ---------------------------------------------------------- */

/*
 * The metadata both sides must agree on: type, mode, link count, owner
 * and, but for directories (whose size is the file system's business),
 * the size.  Not st_ino, st_dev, st_blocks.
 */
static int stat_line(const struct stat *st, char *out, size_t size)
{
	int n = snprintf(out, size, "type %o mode %04o nlink %lu uid %u gid %u",
			 st->st_mode & S_IFMT, st->st_mode & 07777,
			 (unsigned long)st->st_nlink, st->st_uid, st->st_gid);

	if (!S_ISDIR(st->st_mode))
		n += snprintf(out + n, size - n, " size %lld",
			      (long long)st->st_size);
	return n;
}

static void cmp_stat(const char *what, const struct stat *a,
		     const struct stat *b)
{
	char la[200], lb[200];

	stat_line(a, la, sizeof(la));
	stat_line(b, lb, sizeof(lb));
	if (strcmp(la, lb))
		die("%s: metadata differ\n  A: %s\n  B: %s", what, la, lb);
}

/*
 * An object whose times and metadata are checked around an operation:
 * the file or directory a path names, its parent, an open file.
 */
struct obj {
	char what[PBUF + 32];
	int fd[2];
	int close;		/* fd[] are ours (O_PATH) */
	struct stat st[2];	/* before the operation */
};

#define MAXOBJ 6
static struct obj objs[MAXOBJ];
static int nobj;

static void obj_stat(int fd, struct stat *st)
{
	if (fstat(fd, st))
		die("fstat of a tracked object: %s", strerror(errno));
}

static void track_fd(const char *what, int fa, int fb, int ours)
{
	struct obj *o = &objs[nobj++];

	snprintf(o->what, sizeof(o->what), "%s", what);
	o->fd[0] = fa;
	o->fd[1] = fb;
	o->close = ours;
	obj_stat(fa, &o->st[0]);
	obj_stat(fb, &o->st[1]);
}

/* Track what PATH names now (not following a last symlink), if it is. */
static void track_path(const char *what, const char *path)
{
	int fa, fb;

	fa = openat(dfd[0], path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	fb = openat(dfd[1], path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fa < 0 ? fb >= 0 : fb < 0)
		die("%s %s exists on %s only", what, path, fa < 0 ? "B" : "A");
	if (fa < 0)
		return;
	track_fd(what, fa, fb, 1);
	snprintf(objs[nobj - 1].what, sizeof(objs[0].what), "%s %s", what,
		 path);
}

/* Track PATH's parent directory too. */
static void track_parent(const char *path)
{
	char parent[PBUF], *slash;
	size_t n = strlen(path);

	memcpy(parent, path, n + 1);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = 0;
	slash = strrchr(parent, '/');
	if (slash)
		*slash = 0;
	track_path("the parent directory", slash ? parent : ".");
}

/*
 * time_changed: whether a time moved, in whole seconds (ext2 keeps no
 * more), or -1 when that cannot be told: the time was already in the
 * second the operation started (or, for atime, recent enough that
 * relatime's comparison with mtime and ctime, made in nanoseconds on
 * one side and in seconds on the other, may decide either way).
 */
static int time_changed(time_t before, time_t after, time_t start,
			int atime)
{
	if (atime ? before > start - 2 * 86400 : before >= start)
		return -1;
	return before != after;
}

static void cmp_time(const struct obj *o, const struct stat *after,
		     time_t start, int field)
{
	static const char *const name[] = { "atime", "mtime", "ctime" };
	int ch[2], s;
	time_t t0, t1;

	for (s = 0; s < 2; s++) {
		t0 = field == 0 ? o->st[s].st_atime : field == 1 ?
		     o->st[s].st_mtime : o->st[s].st_ctime;
		t1 = field == 0 ? after[s].st_atime : field == 1 ?
		     after[s].st_mtime : after[s].st_ctime;
		ch[s] = time_changed(t0, t1, start, field == 0);
	}
	ntimes += ch[0] >= 0 && ch[1] >= 0;
	if (ch[0] >= 0 && ch[1] >= 0 && ch[0] != ch[1])
		die("%s: %s %s on A, %s on B", o->what, name[field],
		    ch[0] ? "changed" : "unchanged",
		    ch[1] ? "changed" : "unchanged");
}

/* After the operation: metadata, and times unless notimes. */
static void check_objs(time_t start, int notimes)
{
	struct stat after[2];
	int i, f;

	for (i = 0; i < nobj; i++) {
		obj_stat(objs[i].fd[0], &after[0]);
		obj_stat(objs[i].fd[1], &after[1]);
		cmp_stat(objs[i].what, &after[0], &after[1]);
		for (f = 0; f < 3 && !notimes; f++)
			cmp_time(&objs[i], after, start, f);
		if (objs[i].close) {
			close(objs[i].fd[0]);
			close(objs[i].fd[1]);
		}
	}
	nobj = 0;
}

/* After the operation: what PATH names now, on both sides. */
static void check_path(const char *path)
{
	struct stat st[2];
	int ra, rb, ea, eb;

	ra = fstatat(dfd[0], path, &st[0], AT_SYMLINK_NOFOLLOW);
	ea = errno;
	rb = fstatat(dfd[1], path, &st[1], AT_SYMLINK_NOFOLLOW);
	eb = errno;
	if (ra != rb || (ra && ea != eb))
		die("lstat %s afterwards: A %s, B %s", path,
		    ra ? strerror(ea) : "exists", rb ? strerror(eb) : "exists");
	if (!ra)
		cmp_stat(path, &st[0], &st[1]);
}

#endif /* DIFFTEST_H */
