// SPDX-License-Identifier: GPL-2.0
/*
 * err.c: the message of the last failure (see err.h).  One process, one
 * command, no threads: a single buffer is enough.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "err.h"

static char mvfs_msg[8192];

/**
 * mvfs_err - record why a call failed
 * @err: the -errno the caller returns
 * @fmt: printf format of the message, without a trailing newline
 *
 * Return: @err, so that a caller can write "return mvfs_err(...)".
 */
int mvfs_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(mvfs_msg, sizeof(mvfs_msg), fmt, ap);
	va_end(ap);
	return err;
}

/**
 * mvfs_err_prefix - put what was being done in front of the last message
 * @err: the -errno the caller returns
 * @fmt: printf format of the prefix; ": " is added after it
 *
 * With no message recorded yet, the prefix is followed by strerror(-err).
 *
 * Return: @err.
 */
int mvfs_err_prefix(int err, const char *fmt, ...)
{
	char old[sizeof(mvfs_msg)];
	size_t n, m;
	va_list ap;

	memcpy(old, mvfs_errmsg(err), sizeof(old));
	va_start(ap, fmt);
	vsnprintf(mvfs_msg, sizeof(mvfs_msg), fmt, ap);
	va_end(ap);
	n = strlen(mvfs_msg);
	m = strnlen(old, sizeof(old) - 1);
	if (n + 2 + m >= sizeof(mvfs_msg))
		m = n + 2 < sizeof(mvfs_msg) ? sizeof(mvfs_msg) - n - 3 : 0;
	if (m) {
		memcpy(mvfs_msg + n, ": ", 2);
		memcpy(mvfs_msg + n + 2, old, m);
		mvfs_msg[n + 2 + m] = '\0';
	}
	return err;
}

/**
 * mvfs_errmsg - the message to print for a failure
 * @err: the -errno returned
 *
 * Return: the recorded message, or strerror(-err) if none was recorded.
 * The message is cleared, so that each failure is reported once.
 */
const char *mvfs_errmsg(int err)
{
	static char out[sizeof(mvfs_msg)];

	if (mvfs_msg[0])
		memcpy(out, mvfs_msg, sizeof(out));
	else
		snprintf(out, sizeof(out), "%s", strerror(-err));
	mvfs_msg[0] = '\0';
	return out;
}
