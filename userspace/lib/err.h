/* SPDX-License-Identifier: GPL-2.0 */
/*
 * err.h: the message of the last failure.  Library calls that fail return
 * -errno and leave a message here saying what failed and why; the command
 * prints it after its own "mvfs: SUBCMD: " prefix.
 */
#ifndef MVFS_ERR_H
#define MVFS_ERR_H

#include <stdbool.h>

int mvfs_err(int err, const char *fmt, ...);
int mvfs_err_prefix(int err, const char *fmt, ...);
const char *mvfs_errmsg(int err);

/* Test hooks: MVFS_TEST_FAULT=POINT[,POINT...] (atomic.c). */
bool mvfs_fault(const char *point);
void mvfs_test_pause(void);

/* A scratch file in $TMPDIR or /tmp (atomic.c). */
int mvfs_tmp_file(const char *name, char *path, size_t size);

#endif /* MVFS_ERR_H */
