# SPDX-License-Identifier: GPL-2.0
# file: mvfs/dirlist.c
# tests: boot1/56
# The numbers are read only while a directory shows a tree now: a copy
# in a directory that another view removed whole shows its own number.
s/^					   (mvfs_dir_shows_tree(dir) ||$/					   (merge ||/
