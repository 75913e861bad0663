// SPDX-License-Identifier: GPL-2.0
/*
 * lease.c: a view is started on one machine at a time.
 *
 * ClearCase runs each view's server on one host.  mvfs has no server,
 * and a store shared over NFS is mounted by several machines: the view
 * started on one of them holds a lease in the store, an OFD write lock
 * on the whole of views/TAG/lease.  The lock is held by a small process
 * that `mvfs startview` leaves behind ("mvfs-lease", doing nothing but
 * keeping the lock's file open) and that `mvfs endview` ends.  The file
 * says who holds it, "HOST PID", written once the lock is taken: a hint
 * for messages and for endview; the lock alone decides.
 *
 * Over NFSv4 the lock is the protocol's own: while the machine lives, its
 * NFS client renews its lease with the server; when it dies, the server
 * lets its locks go once that lease expires (nfsd's nfsv4leasetime, 90 s
 * by default), and another machine may start the view.  No clock in the
 * store, no daemon to renew it, nothing to take over by hand.
 *
 * A store of format 1 has no views/TAG: its views take no lease.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "err.h"
#include "lease.h"
#include "store_int.h"

#define MVFS_LEASE_FILE		"lease"
#define MVFS_LEASE_COMM		"mvfs-lease"
#define MVFS_LEASE_MAX		128	/* bytes of "HOST PID" */
#define MVFS_LEASE_READS	20	/* times 50 ms, for a holder to say */

struct mvfs_lease_holder {
	char	host[MVFS_LEASE_MAX];
	long	pid;
};

static void mvfs_lease_sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_nsec = ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void mvfs_lease_path(char *buf, size_t size, const char *store,
			    const char *tag)
{
	snprintf(buf, size, "%s/%s/%s/%s", store, MVFS_VIEWS_DIR, tag,
		 MVFS_LEASE_FILE);
}

/* Read "HOST PID" from FD into H: true when it says so. */
static bool mvfs_lease_read(int fd, struct mvfs_lease_holder *h)
{
	char raw[MVFS_LEASE_MAX];
	char *sp, *end;
	ssize_t n;

	n = pread(fd, raw, sizeof(raw) - 1, 0);
	raw[n > 0 ? n : 0] = '\0';
	raw[strcspn(raw, "\n")] = '\0';
	sp = strchr(raw, ' ');
	if (!sp || sp == raw)
		return false;
	*sp = '\0';
	h->pid = strtol(sp + 1, &end, 10);
	if (*end || h->pid <= 0)
		return false;
	snprintf(h->host, sizeof(h->host), "%s", raw);
	return true;
}

/* This machine's name, as the lease file gives it. */
static void mvfs_lease_host(char *buf, size_t size)
{
	if (gethostname(buf, size - 1))
		snprintf(buf, size, "?");
	buf[size - 1] = '\0';
}

/* Is PID this machine's holder of a lease (its comm says so)? */
static bool mvfs_lease_is_holder(long pid)
{
	char path[64], comm[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	comm[n > 0 ? n : 0] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, MVFS_LEASE_COMM);
}

/*
 * The holder: keeps FD (and so its lock) as its fd 3 until it is killed.
 * Detached from the command's terminal, output, working directory and
 * every other file it had (a socket or a pipe someone reads to its end,
 * as the caller's stdout: the end of the pipe its parent reads says it
 * let go of them), so that nothing waits for it and no mount is kept
 * busy but the store's.
 */
static void mvfs_lease_hold(int fd)
{
	int null;

	setsid();
	prctl(PR_SET_NAME, MVFS_LEASE_COMM);
	signal(SIGHUP, SIG_IGN);
	if (chdir("/") || (fd != 3 && dup2(fd, 3) < 0))
		_exit(1);
	null = open("/dev/null", O_RDWR);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(null, 2) < 0)
		_exit(1);
	close_range(4, ~0U, 0);
	for (;;)
		pause();
}

/* Start the holder of FD's lock; write "HOST PID" into FD.  0/-errno. */
static int mvfs_lease_spawn(int fd, const char *host)
{
	char buf[MVFS_LEASE_MAX + 32];
	int pipefd[2], len, err = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
	} else if (!pid) {
		mvfs_lease_hold(fd);
	} else {
		close(pipefd[1]);
		pipefd[1] = -1;
		len = snprintf(buf, sizeof(buf), "%s %ld\n", host, (long)pid);
		if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != len ||
		    fsync(fd))
			err = -errno;
		/* Wait for the holder to have let go of our files. */
		if (read(pipefd[0], buf, 1) < 0)
			err = err ?: -errno;
		if (err)
			kill(pid, SIGTERM);
	}
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	return err;
}

/* The lease is held elsewhere: who holds it, or an error saying so. */
static int mvfs_lease_busy(int fd, const char *tag, const char *host)
{
	struct mvfs_lease_holder h;
	int i;

	for (i = 0; i < MVFS_LEASE_READS; i++) {
		if (mvfs_lease_read(fd, &h))
			break;
		mvfs_lease_sleep_ms(50);	/* a holder writing it now */
	}
	if (i == MVFS_LEASE_READS)
		return mvfs_err(-EBUSY, "view %s is started on another machine %s",
				tag, "(its lease is held, by a holder that does not say who)");
	if (!strcmp(h.host, host))
		return 0;		/* started here */
	return mvfs_err(-EBUSY, "view %s is started on machine %s (pid %ld): %s",
			tag, h.host, h.pid,
			"end it there (mvfs endview); if that machine is down, its NFS lease expires and the view can be started here then");
}

/**
 * mvfs_lease_take - take view TAG's lease for this machine
 * @store: the store directory
 * @tag: the view
 *
 * Return: 0 when this machine holds it (now, or already; or the store
 * has no lease for TAG: format 1); -EBUSY with a message naming the
 * machine that holds it; -errno with a message.
 */
int mvfs_lease_take(const char *store, const char *tag)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[4096], host[MVFS_LEASE_MAX];
	int fd, err;

	mvfs_lease_path(path, sizeof(path), store, tag);
	mvfs_lease_host(host, sizeof(host));
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT)
		return 0;		/* no views/TAG: format 1, or no view */
	if (fd < 0)
		return mvfs_err(-errno, "view %s: %s: %s", tag, path,
				strerror(errno));
	if (!fcntl(fd, F_OFD_SETLK, &fl)) {
		err = mvfs_lease_spawn(fd, host);
		if (err)
			mvfs_err(err, "view %s: hold the lease %s: %s", tag,
				 path, strerror(-err));
	} else if (errno == EAGAIN || errno == EACCES) {
		err = mvfs_lease_busy(fd, tag, host);
	} else {
		err = mvfs_err(-errno, "view %s: lock %s: %s", tag, path,
			       strerror(errno));
	}
	close(fd);
	return err;
}

/**
 * mvfs_lease_idle - is view TAG started on no other machine
 * @store: the store directory
 * @tag: the view
 *
 * For rmview, whose module asks this machine only.
 *
 * Return: 0, or -EBUSY with a message naming the machine that has it.
 */
int mvfs_lease_idle(const char *store, const char *tag)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[4096], host[MVFS_LEASE_MAX];
	int fd, err = 0;

	mvfs_lease_path(path, sizeof(path), store, tag);
	mvfs_lease_host(host, sizeof(host));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!fcntl(fd, F_OFD_GETLK, &fl) && fl.l_type != F_UNLCK)
		err = mvfs_lease_busy(fd, tag, host);
	close(fd);
	return err;
}

/**
 * mvfs_lease_drop - let view TAG's lease go, if this machine holds it
 * @store: the store directory
 * @tag: the view
 *
 * Ends this machine's holder and waits (a second at most) for the lock
 * to be free, so that it is when the command returns.  Errors are
 * ignored: a lease nobody holds is no lease.
 */
void mvfs_lease_drop(const char *store, const char *tag)
{
	char path[4096], host[MVFS_LEASE_MAX];
	struct mvfs_lease_holder h;
	int fd, i;

	mvfs_lease_path(path, sizeof(path), store, tag);
	mvfs_lease_host(host, sizeof(host));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (mvfs_lease_read(fd, &h) && !strcmp(h.host, host) &&
	    mvfs_lease_is_holder(h.pid) && !kill(h.pid, SIGTERM)) {
		for (i = 0; i < 20; i++) {
			struct flock fl = { .l_type = F_WRLCK,
					    .l_whence = SEEK_SET };

			if (fcntl(fd, F_OFD_GETLK, &fl) || fl.l_type == F_UNLCK)
				break;
			mvfs_lease_sleep_ms(50);
		}
	}
	close(fd);
}
