# SPDX-License-Identifier: GPL-2.0
# file: mvfs/dirlist.c
# tests: boot1/56
# A directory that shows a tree lists its private entries under their
# own numbers: a file saved over an element by rename, or a copy whose
# element another view removed, shows another number than stat's.
s/^					   (mvfs_dir_shows_tree(dir) ||$/					   (0 ||/
