// SPDX-License-Identifier: GPL-2.0
/*
 * rofs: every call that would change a view fails with EROFS.
 *
 * MVFS_RO_DIR names a directory of a view that holds a regular file
 * "file", a non-empty directory "dir", an empty directory "empty" and a
 * symlink "link"; MVFS_RO_OLD, a version-extended name (NAME@@REV) of a
 * regular file.  The shell test around it checks that the tree did not
 * change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
/* The harness's own functions leave some parameters unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

/* DIR/name, in one of four buffers used in turn: two per call at most. */
static const char *in_view(const char *name)
{
	const char *dir = getenv("MVFS_RO_DIR");
	static char paths[4][4096];
	static unsigned int next;
	char *path = paths[next++ % 4];

	if (!dir)
		return "/nonexistent-MVFS_RO_DIR-is-unset";
	snprintf(path, 4096, "%s/%s", dir, name);
	return path;
}

static const char *old_version(void)
{
	const char *old = getenv("MVFS_RO_OLD");

	return old ? old : "/nonexistent-MVFS_RO_OLD-is-unset";
}

/* The call must fail with EROFS; close what it opened by mistake. */
#define EXPECT_EROFS(call) do {					\
		int __ret;						\
		errno = 0;						\
		__ret = (call);						\
		EXPECT_EQ(-1, __ret);					\
		EXPECT_EQ(EROFS, errno) {				\
			TH_LOG("%s: errno %d (%m)", #call, errno);	\
		}							\
	} while (0)

TEST(the_view_is_there)
{
	struct stat st;

	ASSERT_EQ(0, lstat(in_view("file"), &st));
	ASSERT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(0, lstat(in_view("dir"), &st));
	ASSERT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0, lstat(in_view("empty"), &st));
	ASSERT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(0, lstat(in_view("link"), &st));
	ASSERT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_EQ(0, lstat(old_version(), &st));
	ASSERT_TRUE(S_ISREG(st.st_mode));
}

TEST(open_for_writing)
{
	EXPECT_EROFS(open(in_view("file"), O_WRONLY));
	EXPECT_EROFS(open(in_view("file"), O_RDWR));
	EXPECT_EROFS(open(in_view("file"), O_WRONLY | O_APPEND));
	EXPECT_EROFS(open(in_view("file"), O_RDONLY | O_TRUNC));
	EXPECT_EROFS(open(in_view("link"), O_WRONLY));
}

TEST(create)
{
	EXPECT_EROFS(open(in_view("new"), O_WRONLY | O_CREAT, 0644));
	EXPECT_EROFS(open(in_view("dir/new"), O_RDWR | O_CREAT | O_EXCL,
			  0644));
	EXPECT_EROFS(mkdir(in_view("newdir"), 0755));
	EXPECT_EROFS(mknod(in_view("fifo"), S_IFIFO | 0644, 0));
	EXPECT_EROFS(symlink("file", in_view("newlink")));
	EXPECT_EROFS(link(in_view("file"), in_view("hardlink")));
}

TEST(remove_and_rename)
{
	EXPECT_EROFS(unlink(in_view("file")));
	EXPECT_EROFS(unlink(in_view("link")));
	EXPECT_EROFS(rmdir(in_view("empty")));
	EXPECT_EROFS(rmdir(in_view("dir")));
	EXPECT_EROFS(rename(in_view("file"), in_view("renamed")));
	EXPECT_EROFS(rename(in_view("file"), in_view("dir/file")));
	EXPECT_EROFS(rename(in_view("empty"), in_view("moved")));
}

TEST(change_metadata)
{
	int fd;

	EXPECT_EROFS(truncate(in_view("file"), 0));
	EXPECT_EROFS(chmod(in_view("file"), 0777));
	EXPECT_EROFS(chmod(in_view("dir"), 0700));
	EXPECT_EROFS(chown(in_view("file"), 1000, 1000));
	EXPECT_EROFS(lchown(in_view("link"), 1000, 1000));
	EXPECT_EROFS(utimensat(AT_FDCWD, in_view("file"), NULL, 0));
	EXPECT_EROFS(setxattr(in_view("file"), "user.mvfs", "1", 1, 0));
	EXPECT_EROFS(removexattr(in_view("file"), "user.mvfs"));
	fd = open(in_view("file"), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EROFS(fchmod(fd, 0600));
	EXPECT_EROFS(fchown(fd, 0, 0));
	close(fd);
}

TEST(old_versions_are_read_only)
{
	EXPECT_EROFS(open(old_version(), O_WRONLY));
	EXPECT_EROFS(open(old_version(), O_RDONLY | O_TRUNC));
	EXPECT_EROFS(truncate(old_version(), 0));
	EXPECT_EROFS(chmod(old_version(), 0600));
	EXPECT_EROFS(unlink(old_version()));
	EXPECT_EROFS(utimensat(AT_FDCWD, old_version(), NULL, 0));
}

TEST_HARNESS_MAIN
