/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lease.h: a view is started on one machine at a time (lease.c).
 */
#ifndef MVFS_LEASE_H
#define MVFS_LEASE_H

int mvfs_lease_take(const char *store, const char *tag);
int mvfs_lease_idle(const char *store, const char *tag);
void mvfs_lease_drop(const char *store, const char *tag);

#endif /* MVFS_LEASE_H */
