# SPDX-License-Identifier: GPL-2.0
# file: mvfs/copyup.c
# tests: boot1b/60
# A copy renamed into place before its inode and origin reached the disk.
/^	if (!err)$/{
N
/\n		err = mvfs_copy_sync(sbi, since);$/d
}
