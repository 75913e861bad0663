# SPDX-License-Identifier: GPL-2.0
# file: mvfs/dir.c
# tests: boot1/56
# A lookup that finds a moved copy in a directory whose mark a crash
# lost does not mark it again: its listings keep the copy's own number.
s/^			mvfs_impure_found(dir, inode);$/			;/
