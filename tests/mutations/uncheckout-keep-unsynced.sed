# SPDX-License-Identifier: GPL-2.0
# file: userspace/lib/work_ci.c
# tests: boot1/65
# uncheckout drops a change right after writing its .keep copy, which
# may not be on the disk yet: a power cut then can leave neither.
/^		err = mvfs_w_keep(w, ch);$/{n;N;d}
