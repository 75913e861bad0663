// SPDX-License-Identifier: GPL-2.0
/*
 * logreplay: read the log of a dm-log-writes device
 * (Documentation/admin-guide/device-mapper/log-writes.rst) and replay a
 * prefix of it, as fstests' replay-log does (which Debian does not ship).
 * The log holds every write that reached the disk, in the order the disk
 * completed them up to each flush: a prefix of it is what a power cut at
 * that moment leaves.
 *
 * logreplay -l LOG: print the number of entries, then one line an entry:
 *	"INDEX SECTOR COUNT FLAGS" (sectors of the log's sector size;
 *	FLAGS: F flush, U fua, D discard, M mark, - none), and a mark's
 *	text after it.
 * logreplay LOG DEV N: write the data of the first N entries to DEV (a
 *	copy of the device as it was when the log began).  A discard is
 *	skipped: what it dropped may still read back, as on a disk.
 *
 * Exit status 1 on a malformed log or a failed read or write, 2 on bad
 * usage.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The disk format (drivers/md/dm-log-writes.c), little-endian. */
#define LOG_FLUSH_FLAG		0x1
#define LOG_FUA_FLAG		0x2
#define LOG_DISCARD_FLAG	0x4
#define LOG_MARK_FLAG		0x8
#define WRITE_LOG_MAGIC		0x6a736677736872ULL
#define WRITE_LOG_VERSION	1ULL

struct log_write_super {
	__le64 magic;
	__le64 version;
	__le64 nr_entries;
	__le32 sectorsize;
	__u32 pad;
};

struct log_write_entry {
	__le64 sector;
	__le64 nr_sectors;
	__le64 flags;
	__le64 data_len;
};

static int bad(const char *what)
{
	fprintf(stderr, "logreplay: %s\n", what);
	return 1;
}

static int sys_fail(const char *what)
{
	fprintf(stderr, "logreplay: %s: %s\n", what, strerror(errno));
	return 1;
}

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n < 0)
		return sys_fail("read of the log");
	if ((size_t)n != len)
		return bad("the log ends inside an entry");
	return 0;
}

static int bad_usage(void)
{
	fputs("usage: logreplay -l LOG | logreplay LOG DEV N\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long i, n = 0, count, sector, nr, flags, len;
	struct log_write_super super;
	struct log_write_entry e;
	int list, log, dev = -1;
	__u32 ss;
	char *buf = NULL, *end;
	off_t pos;

	list = argc == 3 && !strcmp(argv[1], "-l");
	if (!list && argc != 4)
		return bad_usage();
	if (!list) {
		errno = 0;
		n = strtoull(argv[3], &end, 10);
		if (errno || end == argv[3] || *end)
			return bad_usage();
	}
	log = open(argv[list ? 2 : 1], O_RDONLY);
	if (log < 0)
		return sys_fail(argv[list ? 2 : 1]);
	if (read_at(log, &super, sizeof(super), 0))
		return 1;
	ss = le32toh(super.sectorsize);
	count = le64toh(super.nr_entries);
	if (le64toh(super.magic) != WRITE_LOG_MAGIC ||
	    le64toh(super.version) != WRITE_LOG_VERSION)
		return bad("not a dm-log-writes log (magic, version)");
	if (ss < 512 || ss > 65536 || (ss & (ss - 1)))
		return bad("a sector size that is not a power of 2 from 512");
	if (!list && n > count)
		return bad("N is over the number of entries");
	if (list) {
		printf("%llu\n", count);
	} else {
		dev = open(argv[2], O_WRONLY);
		if (dev < 0)
			return sys_fail(argv[2]);
	}
	/* The entries follow the super's sector, each data after its own. */
	pos = ss;
	for (i = 0; i < (list ? count : n); i++) {
		if (read_at(log, &e, sizeof(e), pos))
			return 1;
		sector = le64toh(e.sector);
		nr = le64toh(e.nr_sectors);
		flags = le64toh(e.flags);
		len = le64toh(e.data_len);
		if (nr > (1ULL << 32) / ss || len > ss - sizeof(e))
			return bad("an entry of a size no log has");
		if (len && !(flags & LOG_MARK_FLAG))
			return bad("inline data, which only DAX logs have");
		if (list) {
			char mark[512] = "";

			if ((flags & LOG_MARK_FLAG) && len < sizeof(mark) &&
			    read_at(log, mark, len, pos + sizeof(e)))
				return 1;
			printf("%llu %llu %llu %s%s%s%s%s%s%s\n", i, sector, nr,
			       flags & LOG_FLUSH_FLAG ? "F" : "",
			       flags & LOG_FUA_FLAG ? "U" : "",
			       flags & LOG_DISCARD_FLAG ? "D" : "",
			       flags & LOG_MARK_FLAG ? "M" : "",
			       flags & 0xf ? "" : "-", *mark ? " " : "", mark);
		} else if (nr && !(flags & LOG_DISCARD_FLAG)) {
			buf = realloc(buf, nr * ss);
			if (!buf)
				return sys_fail("memory");
			if (read_at(log, buf, nr * ss, pos + ss))
				return 1;
			if (pwrite(dev, buf, nr * ss, sector * ss) !=
			    (ssize_t)(nr * ss))
				return sys_fail("write of the replay");
		}
		pos += ss;
		if (!(flags & LOG_DISCARD_FLAG))
			pos += nr * ss;
	}
	if (dev >= 0 && (fsync(dev) || close(dev)))
		return sys_fail("sync of the replay");
	free(buf);
	return 0;
}
