# SPDX-License-Identifier: GPL-2.0
#
# powerkill-lib.sh: what the two boots of a QEMU-kill round share
# (tests/powerkill.sh runs them).  The first boot (suite powerkill) makes
# a store and changes it until the host kills QEMU; each step it
# completes is a console line "mvfs-pk: WHAT", printed only once the
# command returned success.  The host keeps those lines and gives them
# to the second boot (suite powerkill-after), on the same disk, as
# /share/record, without the prefix.  The lines:
#
#   base REV BIG_MB             the first revision: big (BIG_MB MiB),
#                               small/fA, small/fB, imp/data
#   view V                      view V was made
#   begin KIND J                operation J of KIND starts
#   end KIND J ms=T             it ended, after T ms
#   committed revision N MSG    an import or a check-in committed N
#   target N                    the labels of this operation name N
#   label L -> N                label L names N
#   removing V / rmview V       view V is being removed / was removed
#   wrote fA J                  a check-in's change, fsync'ed in view pkw
#   block B                     the copy-up zeroes block B of big
#   wrote big B                 ... and fsync'ed it, in view pkc
#   dropping big / dropped big  its uncheckout began / ended, synced
#   started                     the first round of operations ran uncut
#
# Every operation is serial: nothing of operation J+1 starts before J
# has printed "end".
. /tests/lib.sh

# rec WHAT...: a record line.
rec() {
	echo "mvfs-pk: $*"
}

# What each revision holds, so that the second boot tells a whole one
# from a mix.  The base: big, mkdata of BIG_MB MiB with seed PK_BIG_SEED;
# small/fA and small/fB "base"; imp/data, mkdata of 2 MiB with seed
# PK_IMP_SEED.  Import J: small/fA and small/fB "imp J", imp/data with
# seed PK_IMP_SEED + J, no big.  Check-in J: small/fA and small/fB
# "ci J", the rest as its parent.
PK_BIG_SEED=4242
PK_IMP_SEED=1000
PK_IMP_SIZE=2097152

# ms_now: milliseconds since boot (/proc/uptime's hundredths).
ms_now() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# seg_md5 FILE SKIP [COUNT]: md5 of 4 KiB blocks SKIP.. of FILE (COUNT
# of them, else to the end); "cannot read FILE" when dd fails.
seg_md5() {
	(
		set -o pipefail
		dd if="$1" bs=4096 skip="$2" ${3:+count=$3} 2> /dev/null |
			md5sum
	) || echo "cannot read $1"
}

# check_rec WHAT DESC CMD...: as check; the record line WHAT once CMD
# succeeded.
check_rec() {
	_what=$1
	_desc=$2
	shift 2
	if "$@"; then
		ok "$_desc"
		rec "$_what"
	else
		not_ok "$_desc (failed: $*)"
	fi
}
