# SPDX-License-Identifier: GPL-2.0
# file: mvfs/store_state.c
# tests: boot1/72
# A state's pack_len is committed before the state is accepted: a refused
# reload leaves the pack's unclaimed tail readable.
s/^\(\tst->pack_len = max(READ_ONCE(sbi->pack_len), le64_to_cpu(h->pack_len));\)$/\1\n\tWRITE_ONCE(sbi->pack_len, st->pack_len);/
