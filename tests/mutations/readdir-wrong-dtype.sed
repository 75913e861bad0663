# SPDX-License-Identifier: GPL-2.0
# file: mvfs/dir.c
# tests: 14-reads
# readdir calls every entry a regular file (d_type DT_REG).
/^static bool mvfs_readdir_actor(/,/^}/s/fs_umode_to_dtype([^)]*)/DT_REG/
