# SPDX-License-Identifier: GPL-2.0
# file: userspace/lib/work_ci.c
# tests: boot1/65
# uncheckout returns with the drop of the change only in the page cache:
# a power cut after it brings the change back.
s/^	i = mvfs_store_sync(w->s);$/	i = 0;/
