# SPDX-License-Identifier: GPL-2.0
# file: mvfs/switch.c
# tests: 41-view-safety
# A process in a chroot jail may enter a view (SETVIEW no longer requires
# a caller outside every view to be at the view's base root).
s/!path_equal(cur, &v->base)/false/
