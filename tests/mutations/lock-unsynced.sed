# SPDX-License-Identifier: GPL-2.0
# file: userspace/lib/lock.c
# tests: boot1b/61
# A writer takes the lock without syncing what others freed: its new
# state may take an inode whose release is not yet on the disk.
/^	if (syncfs(s->dfd))$/,/^				strerror(errno));$/d
