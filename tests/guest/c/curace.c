// SPDX-License-Identifier: GPL-2.0
/*
 * curace DIR N: a lookup racing a copy-up.  DIR/f0 .. DIR/f(N-1) are
 * elements of a view, not yet written.  A child stats and opens DIR/fI
 * in a loop while the parent writes to it (the first write copies it
 * up); then the parent checks that the element kept one inode: the same
 * st_ino before, during (as the child saw it) and after, and that what
 * is written through one descriptor is read through another opened by
 * path before the write and one opened after.  Every tenth file, the
 * dentries are dropped first, so that lookups start afresh.
 *
 * Prints "N files, M stats" on success; names each failure on stderr and
 * exits 1; 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Shared with the child; read and written with LOAD() and STORE(). */
struct shared {
	long	cur;		/* the file being raced, -1 none */
	long	done;
	long	stats;
	long	bad;		/* mismatches the child saw */
	long	want;		/* st_ino of file cur */
};

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define INC(x)		__atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST)

static struct shared *sh;
static const char *dir;

static void path_of(char *buf, size_t size, long i)
{
	snprintf(buf, size, "%s/f%ld", dir, i);
}

/* The child: stat and open the current file until told to stop. */
static void hammer(void)
{
	struct stat st;
	char p[4096];
	long i;
	int fd;

	while (!LOAD(sh->done)) {
		i = LOAD(sh->cur);
		if (i < 0)
			continue;
		path_of(p, sizeof(p), i);
		if (lstat(p, &st) || (i == LOAD(sh->cur) &&
				      (long)st.st_ino != LOAD(sh->want))) {
			fprintf(stderr, "curace: lstat %s: %s, ino %lu not %ld\n",
				p, strerror(errno), (unsigned long)st.st_ino,
				LOAD(sh->want));
			INC(sh->bad);
		}
		fd = open(p, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) ||
		    (i == LOAD(sh->cur) && (long)st.st_ino != LOAD(sh->want))) {
			fprintf(stderr, "curace: open %s: ino %lu not %ld\n", p,
				(unsigned long)st.st_ino, LOAD(sh->want));
			INC(sh->bad);
		}
		if (fd >= 0)
			close(fd);
		INC(sh->stats);
	}
	_exit(0);
}

/* The bytes of FD from OFF: do they start with WANT? */
static int reads(int fd, off_t off, const char *want)
{
	char buf[64];
	ssize_t n = pread(fd, buf, strlen(want), off);

	return n == (ssize_t)strlen(want) && !memcmp(buf, want, n);
}

static void drop_dentries(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "2", 1) != 1)
			perror("curace: drop_caches");
		close(fd);
	}
}

/* Write to file I while the child looks it up; 0 when it held. */
static int race_one(int i)
{
	struct stat st, st2;
	int w, before, after, spins, err = 0;
	char p[4096];
	long s0;
	off_t size;

	path_of(p, sizeof(p), i);
	if (i % 10 == 0)
		drop_dentries();
	before = open(p, O_RDONLY);
	if (before < 0 || fstat(before, &st))
		return fprintf(stderr, "curace: %s: %s\n", p, strerror(errno)), 1;
	size = st.st_size;
	STORE(sh->want, (long)st.st_ino);
	s0 = LOAD(sh->stats);
	STORE(sh->cur, i);
	for (spins = 0; LOAD(sh->stats) < s0 + 2 && spins < 50000; spins++)
		usleep(100);	/* until the child is at it (5 s at most) */
	w = open(p, O_WRONLY | O_APPEND);
	if (w < 0 || write(w, "first\n", 6) != 6 || fstat(w, &st2))
		return fprintf(stderr, "curace: write %s: %s\n", p,
			       strerror(errno)), 1;
	after = open(p, O_RDONLY);
	if (st2.st_ino != st.st_ino) {
		fprintf(stderr, "curace: %s: ino %lu after the write, %lu before\n",
			p, (unsigned long)st2.st_ino, (unsigned long)st.st_ino);
		err = 1;
	}
	if (after < 0 || !reads(after, size, "first\n") ||
	    !reads(before, size, "first\n")) {
		fprintf(stderr, "curace: %s: the first write is not seen\n", p);
		err = 1;
	}
	if (write(w, "second\n", 7) != 7 || !reads(after, size + 6, "second\n") ||
	    !reads(before, size + 6, "second\n")) {
		fprintf(stderr, "curace: %s: the second write is not seen\n", p);
		err = 1;
	}
	if (after >= 0 && (fstat(after, &st2) || st2.st_ino != st.st_ino)) {
		fprintf(stderr, "curace: %s: another inode after the write\n", p);
		err = 1;
	}
	STORE(sh->cur, -1);
	close(w);
	close(before);
	if (after >= 0)
		close(after);
	return err;
}

int main(int argc, char **argv)
{
	int i, n = argc == 3 ? atoi(argv[2]) : 0, status, bad = 0;
	pid_t pid;

	if (n <= 0) {
		fprintf(stderr, "usage: curace DIR N\n");
		return 2;
	}
	dir = argv[1];
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return perror("curace: mmap"), 1;
	STORE(sh->cur, -1);
	pid = fork();
	if (pid < 0)
		return perror("curace: fork"), 1;
	if (pid == 0)
		hammer();
	for (i = 0; i < n; i++)
		bad |= race_one(i);
	STORE(sh->done, 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bad = 1;
	if (LOAD(sh->bad))
		bad = 1;
	if (!bad)
		printf("%d files, %ld stats\n", n, LOAD(sh->stats));
	return bad;
}
