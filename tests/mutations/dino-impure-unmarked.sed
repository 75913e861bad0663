# SPDX-License-Identifier: GPL-2.0
# file: mvfs/private.c
# tests: boot1/56
# A copy of an element moved into a directory that shows no tree does
# not mark it impure: readdir gives the copy's own number, stat the
# element's.
s/^	return !mvfs_dir_shows_tree(dir) && upper &&$/	return 0 \&\& upper \&\&/
