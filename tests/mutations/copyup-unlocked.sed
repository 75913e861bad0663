# SPDX-License-Identifier: GPL-2.0
# file: mvfs/copyup.c
# tests: boot1/48
# Copy-up without its lock: two writers may copy one element twice.
/^	mutex_lock(&ei->cu_lock);$/d
/^	mutex_unlock(&ei->cu_lock);$/d
