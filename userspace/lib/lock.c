// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c: the writers' lock of a store.
 *
 * Writers serialise with an fcntl() write lock (an open file description
 * lock, F_OFD_SETLK) on the whole of the regular file "lock", held from
 * reading the state to committing it.  A byte-range lock, not flock() on
 * the directory: over NFSv4 it is the protocol's own LOCK, so that
 * writers on several machines serialise, and a dead machine's lock goes
 * with its NFSv4 lease.  A writer that finds the lock taken says so,
 * names the holder and waits, at most mvfs_lock_wait seconds (mvfs
 * --wait): a store held forever (a writer stopped in a debugger, on a
 * hung NFS mount) must not make every other command hang in silence.
 * The holder writes into the locked file, in place (replacing it would
 * leave the lock on the old file): "PID@HOST COMMAND...".  It is only a
 * hint, for messages; the lock alone decides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "err.h"
#include "store_int.h"

#define MVFS_HOLDER_MAX		200	/* bytes of "PID COMMAND" kept */
#define MVFS_LOCK_POLL_MS	100

static unsigned int mvfs_lock_wait = MVFS_LOCK_WAIT;

/**
 * mvfs_store_set_wait - how long a writer waits for the store's lock
 * @seconds: at most this long; 0 does not wait
 */
void mvfs_store_set_wait(unsigned int seconds)
{
	mvfs_lock_wait = seconds;
}

/* "PID@HOST COMMAND ARGS" of this process, NUL-terminated, into BUF. */
static void mvfs_holder_self(char *buf, size_t size)
{
	char host[65] = "?";
	ssize_t n = 0, i;
	int fd, len;

	gethostname(host, sizeof(host) - 1);
	len = snprintf(buf, size, "%ld@%s ", (long)getpid(), host);
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf + len, size - len - 1);
		close(fd);
	}
	if (n <= 0)
		n = snprintf(buf + len, size - len, "?") + 1;
	for (i = 0; i < n - 1; i++)
		if (buf[len + i] == '\0')
			buf[len + i] = ' ';
	buf[len + n - (buf[len + n - 1] == '\0')] = '\0';
}

/*
 * Record this process as the holder, in the locked file itself; only a
 * hint, so errors are ignored.
 */
static void mvfs_holder_write(struct mvfs_store *s)
{
	char buf[MVFS_HOLDER_MAX];
	size_t len;

	mvfs_holder_self(buf, sizeof(buf) - 1);
	len = strlen(buf);
	buf[len++] = '\n';
	/* Written over the last holder's, then cut: never empty. */
	if (mvfs_pwrite(s->lfd, buf, len, 0) || ftruncate(s->lfd, len))
		return;		/* only a hint */
}

/*
 * Who holds the lock, "pid N on HOST (COMMAND)" as the lock file says,
 * into BUF.  Read through the same open file description: another one
 * closed would be harmless for an OFD lock, but there is no need.
 */
static void mvfs_holder_read(struct mvfs_store *s, char *buf, size_t size)
{
	char raw[MVFS_HOLDER_MAX];
	size_t pid, host;
	ssize_t n;

	n = pread(s->lfd, raw, sizeof(raw) - 1, 0);
	raw[n > 0 ? n : 0] = '\0';
	raw[strcspn(raw, "\n")] = '\0';
	pid = strspn(raw, "0123456789");
	host = pid + 1 + strcspn(raw + pid + 1, " ");
	if (!pid || raw[pid] != '@' || raw[host] != ' ') {
		snprintf(buf, size, "a process that did not say who it is");
		return;
	}
	raw[pid] = '\0';
	raw[host] = '\0';
	snprintf(buf, size, "pid %s on %s (%s)", raw, raw + pid + 1,
		 raw + host + 1);
}

/* Try the lock once: 0, -EWOULDBLOCK when another holds it, or -errno. */
static int mvfs_lock_try(struct mvfs_store *s)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (!fcntl(s->lfd, F_OFD_SETLK, &fl))
		return 0;
	if (errno == EAGAIN || errno == EACCES)
		return -EWOULDBLOCK;
	return -errno;
}

/* Open (making it if missing) the lock file: 0 or -errno. */
static int mvfs_lock_open(struct mvfs_store *s)
{
	struct stat st;

	s->lfd = openat(s->dfd, MVFS_LOCK_FILE,
			O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (s->lfd < 0)
		return -errno;
	if (fstat(s->lfd, &st))
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

static void mvfs_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	nanosleep(&ts, NULL);
}

/* Try for the lock until the wait runs out; 0, -EWOULDBLOCK or -errno. */
static int mvfs_lock_poll(struct mvfs_store *s)
{
	unsigned long waited = 0, limit = mvfs_lock_wait * 1000UL;
	int err;

	for (;;) {
		err = mvfs_lock_try(s);
		if (err != -EWOULDBLOCK && err != -EINTR)
			return err;
		if (waited >= limit)
			return -EWOULDBLOCK;
		mvfs_sleep_ms(MVFS_LOCK_POLL_MS);
		waited += MVFS_LOCK_POLL_MS;
	}
}

/**
 * mvfs_lock_take - take the writers' lock of an open store directory
 * @s: the store, s->dfd open; s->lfd is set to the lock file, which
 *     mvfs_store_close() closes (and so lets the lock go)
 *
 * When another writer holds it, says so on stderr with who it is, and
 * waits for it at most mvfs_store_set_wait() seconds.
 *
 * Return: 0; -EBUSY when the wait ran out; -errno.
 */
int mvfs_lock_take(struct mvfs_store *s)
{
	char who[MVFS_HOLDER_MAX + 16];
	int err;

	err = mvfs_lock_open(s);
	if (err)
		return mvfs_err(err, "store %s: cannot open %s: %s", s->dir,
				MVFS_LOCK_FILE, strerror(-err));
	err = mvfs_lock_try(s);
	if (!err)
		goto out_held;
	if (err != -EWOULDBLOCK)
		return mvfs_err(err, "store %s: cannot lock: %s", s->dir,
				strerror(-err));
	mvfs_holder_read(s, who, sizeof(who));
	if (mvfs_lock_wait)
		fprintf(stderr, "mvfs: store %s is busy: %s holds it; %s %u s\n",
			s->dir, who, "waiting up to", mvfs_lock_wait);
	err = mvfs_lock_poll(s);
	if (err == -EWOULDBLOCK)
		return mvfs_err(-EBUSY, "store %s is busy: %s holds it; %s %u s",
				s->dir, who, "gave up after", mvfs_lock_wait);
	if (err)
		return mvfs_err(err, "store %s: cannot lock: %s", s->dir,
				strerror(-err));
out_held:
	/*
	 * What was freed in the store since its last sync (a removed view's
	 * area, the private files a check-in retired) reaches the disk
	 * before this writer can take those inodes: ext2 has no journal, and
	 * after a power cut an entry naming a reused inode that still reads
	 * as what it was is a fault e2fsck -p leaves to a manual run
	 * (tests/guest/boot1b/61-state-crash).
	 */
	if (syncfs(s->dfd))
		return mvfs_err(-errno, "store %s: sync: %s", s->dir,
				strerror(errno));
	mvfs_holder_write(s);
	if (mvfs_fault("hold-lock"))
		sleep(3);
	return 0;
}
