/* SPDX-License-Identifier: GPL-2.0 */
/*
 * difftest_ops.h: the operations of difftest.  Each runs on one side
 * (0 for A, 1 for B) with the arguments the generator drew, returns what
 * the system call returned (-1 with errno set on failure) and may leave
 * data in the result (bytes read, a stat line, a symlink target, names)
 * to compare with the other side's.  Included by difftest.c only.
 */
#ifndef DIFFTEST_OPS_H
#define DIFFTEST_OPS_H

#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include "difftest_tree.h"

/* Every operation has the same arguments, and few use all of them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* The arguments of one operation, drawn once, used on both sides. */
struct args {
	char p1[PBUF];		/* the path operated on */
	char p2[PBUF];		/* a second path, or a symlink's target */
	int slot;		/* an entry of the open-file table */
	__u64 bits;		/* random bits each operation reads */
	off_t off;
	size_t len;
	mode_t mode;
	uid_t uid;		/* for chown: -1 or an owner */
	gid_t gid;
	uid_t user;		/* 0: run as root, else as this user */
	struct timespec ts[2];
};

/* The open-file table: the same file opened on both sides. */
#define NSLOT 6
struct slot {
	int fd[2];
	int flags;
};

static struct slot slots[NSLOT];
static int compat_mmap_times;	/* -m: A need not time mmap writes */

static int fd_of(int s, const struct args *a)
{
	return slots[a->slot].fd[s];
}

static int path_fd(int s, const char *p, char *out)
{
	return snprintf(out, PBUF * 2, "%s/%s", root[s], p);
}

/* Keep data results: a string, or bytes read into rbuf[s]. */
static void set_text(struct res *r, int s, const char *text)
{
	r->len = strlen(text);
	r->buf = rbuf[s];
	memcpy(rbuf[s], text, r->len);
}

static long put_stat(struct res *r, int s, long ret, const struct stat *st)
{
	char line[200];

	if (ret == 0) {
		stat_line(st, line, sizeof(line));
		set_text(r, s, line);
	}
	return ret;
}

/* --- files and their data ------------------------------------------- */

static int open_flags(__u64 b)
{
	static const int acc[] = { O_RDONLY, O_WRONLY, O_RDWR, O_RDWR };
	int f = acc[b & 3] | O_NONBLOCK | O_CLOEXEC;

	f |= (b & 0x04) ? O_CREAT : 0;
	f |= (b & 0x38) == 0x38 ? O_EXCL : 0;
	f |= (b & 0x1c0) == 0x1c0 ? O_EXCL : 0;
	f |= (b & 0x600) == 0x600 ? O_TRUNC : 0;
	f |= (b & 0x1800) == 0x1800 ? O_APPEND : 0;
	f |= (b & 0xe000) == 0xe000 ? O_DIRECTORY : 0;
	f |= (b & 0x30000) == 0x30000 ? O_NOFOLLOW : 0;
	return f;
}

static long op_open(int s, struct args *a, struct res *r)
{
	return openat(dfd[s], a->p1, open_flags(a->bits), a->mode);
}

static long op_close(int s, struct args *a, struct res *r)
{
	long ret = close(fd_of(s, a));

	slots[a->slot].fd[s] = -1;
	return ret;
}

static long op_write(int s, struct args *a, struct res *r)
{
	return write(fd_of(s, a), wbuf, a->len);
}

static long op_pwrite(int s, struct args *a, struct res *r)
{
	return pwrite(fd_of(s, a), wbuf, a->len, a->off);
}

/*
 * pwritev2 with a flag of its own: none, RWF_APPEND, RWF_DSYNC or
 * RWF_SYNC; at the file offset (-1) now and then.
 */
static long op_pwritev2(int s, struct args *a, struct res *r)
{
	static const int how[] = { 0, RWF_APPEND, RWF_DSYNC, RWF_SYNC };
	struct iovec iov = { .iov_base = wbuf, .iov_len = a->len };

	return pwritev2(fd_of(s, a), &iov, 1, a->bits & 8 ? -1 : a->off,
			how[(a->bits >> 4) % 4]);
}

static long read_res(int s, struct res *r, long ret)
{
	r->buf = rbuf[s];
	r->len = ret > 0 ? ret : 0;
	return ret;
}

static long op_read(int s, struct args *a, struct res *r)
{
	return read_res(s, r, read(fd_of(s, a), rbuf[s], a->len));
}

static long op_pread(int s, struct args *a, struct res *r)
{
	return read_res(s, r, pread(fd_of(s, a), rbuf[s], a->len, a->off));
}

/* lseek, on regular files only: directories' offsets are opaque. */
static long op_lseek(int s, struct args *a, struct res *r)
{
	static const int whence[] = { SEEK_SET, SEEK_CUR, SEEK_END };
	struct stat st;
	off_t off = a->off - (a->bits & 4 ? 8192 : 0);

	if (fstat(fd_of(s, a), &st) || !S_ISREG(st.st_mode))
		return 0;
	return lseek(fd_of(s, a), off, whence[a->bits % 3]);
}

static long op_truncate(int s, struct args *a, struct res *r)
{
	char p[PBUF * 2];

	path_fd(s, a->p1, p);
	return truncate(p, a->off);
}

static long op_ftruncate(int s, struct args *a, struct res *r)
{
	return ftruncate(fd_of(s, a), a->off);
}

static long op_fsync(int s, struct args *a, struct res *r)
{
	return a->bits & 1 ? fdatasync(fd_of(s, a)) : fsync(fd_of(s, a));
}

static long op_fallocate(int s, struct args *a, struct res *r)
{
	return fallocate(fd_of(s, a), a->bits & 1 ? FALLOC_FL_KEEP_SIZE : 0,
			 a->off, a->len);
}

/* Write through a shared mapping what fits in the file, then msync. */
static long mmap_write(int s, struct args *a, unsigned char *p, size_t len)
{
	struct stat st;
	size_t end;

	if (fstat(fd_of(s, a), &st))
		return -1;
	end = st.st_size > a->off ? st.st_size - a->off : 0;
	end = end < len ? end : len;
	if (end && (a->bits & 2))
		memcpy(p + (a->bits >> 8) % end, wbuf,
		       end - (a->bits >> 8) % end);
	return msync(p, len, MS_SYNC) ? -1 : (long)end;
}

static long op_mmap(int s, struct args *a, struct res *r)
{
	int prot = PROT_READ | (a->bits & 1 ? PROT_WRITE : 0);
	size_t len = a->len ? a->len : 1;
	unsigned char *p;
	long ret;

	a->off &= ~4095L;
	p = mmap(NULL, len, prot, MAP_SHARED, fd_of(s, a), a->off);
	if (p == MAP_FAILED)
		return -1;
	ret = prot & PROT_WRITE ? mmap_write(s, a, p, len) : 0;
	if (ret > 0) {
		/* what the mapping shows now, up to the end of file */
		memcpy(rbuf[s], p, ret);
		r->buf = rbuf[s];
		r->len = ret;
	}
	munmap(p, len);
	return ret;
}

static long op_fstat(int s, struct args *a, struct res *r)
{
	struct stat st;

	return put_stat(r, s, fstat(fd_of(s, a), &st), &st);
}

static long op_fchmod(int s, struct args *a, struct res *r)
{
	return fchmod(fd_of(s, a), a->mode);
}

static long op_fchown(int s, struct args *a, struct res *r)
{
	return fchown(fd_of(s, a), a->uid, a->gid);
}

/* --- names ----------------------------------------------------------- */

static long op_unlink(int s, struct args *a, struct res *r)
{
	return unlinkat(dfd[s], a->p1, 0);
}

static long op_rmdir(int s, struct args *a, struct res *r)
{
	return unlinkat(dfd[s], a->p1, AT_REMOVEDIR);
}

static unsigned int rename_flags(__u64 b)
{
	return b % 5 == 3 ? RENAME_NOREPLACE : b % 5 == 4 ? RENAME_EXCHANGE : 0;
}

static long op_rename(int s, struct args *a, struct res *r)
{
	return renameat2(dfd[s], a->p1, dfd[s], a->p2, rename_flags(a->bits));
}

static long op_mkdir(int s, struct args *a, struct res *r)
{
	return mkdirat(dfd[s], a->p1, a->mode);
}

static long op_symlink(int s, struct args *a, struct res *r)
{
	return symlinkat(a->p2, dfd[s], a->p1);
}

static long op_readlink(int s, struct args *a, struct res *r)
{
	return read_res(s, r, readlinkat(dfd[s], a->p1, (char *)rbuf[s], PBUF));
}

static long op_link(int s, struct args *a, struct res *r)
{
	return linkat(dfd[s], a->p1, dfd[s], a->p2,
		      a->bits & 1 ? AT_SYMLINK_FOLLOW : 0);
}

static long op_mknod(int s, struct args *a, struct res *r)
{
	static const mode_t type[] = { S_IFIFO, S_IFSOCK, S_IFREG, S_IFIFO };

	return mknodat(dfd[s], a->p1, type[a->bits & 3] | a->mode, 0);
}

/* --- attributes ------------------------------------------------------ */

static int nofollow(const struct args *a)
{
	return a->bits & 1 ? AT_SYMLINK_NOFOLLOW : 0;
}

static long op_chmod(int s, struct args *a, struct res *r)
{
	return fchmodat(dfd[s], a->p1, a->mode, 0);
}

static long op_chown(int s, struct args *a, struct res *r)
{
	return fchownat(dfd[s], a->p1, a->uid, a->gid, nofollow(a));
}

/* utimensat, then the seconds of the times it set explicitly. */
static long op_utimens(int s, struct args *a, struct res *r)
{
	struct timespec *ts = a->bits & 2 ? NULL : a->ts;
	struct stat st;
	char line[100];
	long ret = utimensat(dfd[s], a->p1, ts, nofollow(a));

	if (ret || !ts || fstatat(dfd[s], a->p1, &st, nofollow(a)))
		return ret;
	snprintf(line, sizeof(line), "atime %lld mtime %lld",
		 ts[0].tv_nsec >= UTIME_OMIT ? 0LL : (long long)st.st_atime,
		 ts[1].tv_nsec >= UTIME_OMIT ? 0LL : (long long)st.st_mtime);
	set_text(r, s, line);
	return ret;
}

static long op_stat(int s, struct args *a, struct res *r)
{
	struct stat st;

	return put_stat(r, s, fstatat(dfd[s], a->p1, &st, nofollow(a)), &st);
}

static long op_access(int s, struct args *a, struct res *r)
{
	return faccessat(dfd[s], a->p1, a->bits & 7, 0);
}

/* The sorted names of a directory, one a line. */
static long op_readdir(int s, struct args *a, struct res *r)
{
	struct names l;
	size_t n = 0;
	int i, fd;

	fd = openat(dfd[s], a->p1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	list_dir(fd, a->p1, &l);
	for (i = 0; i < l.n; i++)
		n += snprintf((char *)rbuf[s] + n, MAXIO - n, "%s\n",
			      l.name[i]);
	free_names(&l);
	r->buf = rbuf[s];
	r->len = n;
	return l.n;
}

/* statfs: only the longest name is the same on every file system. */
static long op_statfs(int s, struct args *a, struct res *r)
{
	struct statfs sf;
	char p[PBUF * 2], line[100];
	long ret;

	path_fd(s, a->p1, p);
	ret = statfs(p, &sf);
	if (ret == 0) {
		snprintf(line, sizeof(line), "namelen %ld", (long)sf.f_namelen);
		set_text(r, s, line);
	}
	return ret;
}

#endif /* DIFFTEST_OPS_H */
