// SPDX-License-Identifier: GPL-2.0
/*
 * lock.c: the writers' lock of a store.
 *
 * Writers serialise with flock(LOCK_EX) on the store directory, held from
 * reading the state to committing it.  A writer that finds the lock taken
 * says so, names the holder and waits, at most mvfs_lock_wait seconds
 * (mvfs --wait): a store held forever (a writer stopped in a debugger, on
 * a hung NFS mount) must not make every other command hang in silence.
 * The holder is named by the file "lock", which each writer rewrites once
 * it holds the lock: "PID COMMAND...".  It is only a hint, for messages;
 * the flock alone decides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
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

/* "PID COMMAND ARGS" of this process, NUL-terminated, into BUF. */
static void mvfs_holder_self(char *buf, size_t size)
{
	ssize_t n = 0, i;
	int fd, len;

	len = snprintf(buf, size, "%ld ", (long)getpid());
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

/* Record this process as the holder; only a hint, so errors are ignored. */
static void mvfs_holder_write(struct mvfs_store *s)
{
	char buf[MVFS_HOLDER_MAX];
	size_t len;

	mvfs_holder_self(buf, sizeof(buf) - 1);
	len = strlen(buf);
	buf[len++] = '\n';
	mvfs_write_new(s->dfd, MVFS_LOCK_FILE, buf, len);
}

/* Who holds the lock, "pid N (COMMAND)" as the lock file says, into BUF. */
static void mvfs_holder_read(struct mvfs_store *s, char *buf, size_t size)
{
	char raw[MVFS_HOLDER_MAX];
	ssize_t n = -1;
	size_t pid;
	int fd;

	fd = mvfs_open_file(s->dfd, MVFS_LOCK_FILE, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, raw, sizeof(raw) - 1);
		close(fd);
	}
	raw[n > 0 ? n : 0] = '\0';
	raw[strcspn(raw, "\n")] = '\0';
	pid = strspn(raw, "0123456789");
	if (!pid || raw[pid] != ' ') {
		snprintf(buf, size, "a process that did not say who it is");
		return;
	}
	raw[pid] = '\0';
	snprintf(buf, size, "pid %s (%s)", raw, raw + pid + 1);
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

	for (;;) {
		if (!flock(s->dfd, LOCK_EX | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited >= limit)
			return -EWOULDBLOCK;
		mvfs_sleep_ms(MVFS_LOCK_POLL_MS);
		waited += MVFS_LOCK_POLL_MS;
	}
}

/**
 * mvfs_lock_take - take the writers' lock of an open store directory
 * @s: the store, s->dfd open
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

	if (!flock(s->dfd, LOCK_EX | LOCK_NB))
		goto out_held;
	if (errno != EWOULDBLOCK)
		return mvfs_err(-errno, "store %s: cannot lock: %s", s->dir,
				strerror(errno));
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
	mvfs_holder_write(s);
	if (mvfs_fault("hold-lock"))
		sleep(3);
	return 0;
}
