# SPDX-License-Identifier: GPL-2.0
# file: mvfs/dir.c
# tests: 12-latest-labels
# readdir silently skips every name beginning with '.' (hidden files).
/^static bool mvfs_readdir_actor(/,/^}/{
/dir_emit(/i\
	if (e->name[0] == '.')\
		return true;
}
