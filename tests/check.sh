#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the host side of `make check`.
#
#   check.sh -k BZIMAGE -i INITRAMFS -o OUTDIR [-T TIMEOUT] [-t PATTERN]
#            [-s SUITES]
#
# Boots the guest once per suite (default: boot1, then boot2 on the same
# fresh store image, then the harness's own self-tests), streams the
# results as TAP, scans every console log for kernel reports, runs
# e2fsck -fn on the store, and ends with "N passed, N failed".  The exit
# status is non-zero when anything failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
timeout=600 pattern= suites=
while getopts k:i:o:T:t:s: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	o) out=$OPTARG ;;
	T) timeout=$OPTARG ;;
	t) pattern=$OPTARG ;;
	s) suites=$OPTARG ;;
	*) exit 2 ;;
	esac
done

# Kernel reports that fail a run wherever they appear in a console log.
reports='Oops|BUG:|WARNING:|KASAN|UBSAN|Kernel panic|general protection'
reports="$reports|possible circular locking|inconsistent lock state"
reports="$reports|possible recursive locking|lock held when returning"
reports="$reports|suspicious RCU usage|unreferenced object|soft lockup"
reports="$reports|hard LOCKUP|INFO: task .* blocked|Call Trace:"

n=0 passed=0 failed=0

result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

new_store() {
	rm -f "$1"
	truncate -s 1G "$1"
	mke2fs -q -t ext2 -F "$1"
}

# scan LOG: print the kernel reports in LOG; true when there are none.
scan() {
	! grep -aE "$reports" "$1" | head -20 | sed 's/^/#   /' | grep .
}

# boot SUITE STORE: boot the guest on SUITE, stream its TAP, count it.
boot_suite() {
	local suite=$1 store=$2 log="$out/console-$1.log" rc p f
	echo "# booting the guest for $suite (console: $log)"
	"$top/qemu/boot.sh" -k "$kernel" -i "$initrd" -s "$store" -m check \
		-b "$suite" -t "$pattern" -r "$run_id" -T "$timeout" -l "$log" |
		awk -W interactive -v start="$n" -v counts="$out/counts" \
			-f "$top/tests/tap.awk"
	rc=${PIPESTATUS[0]}
	read -r p f < "$out/counts"
	n=$((n + p + f)) passed=$((passed + p)) failed=$((failed + f))
	case $rc in
	0)	grep -q '^mvfs-tests-done' "$log"
		result $? "$suite: the guest ran every test and shut down" ;;
	124)	result 1 "$suite: the guest did not finish within ${timeout}s" ;;
	*)	result 1 "$suite: the guest died (status $rc): panic or crash" ;;
	esac
	scan "$log"
	result $? "$suite: no kernel report (oops, BUG, WARNING, KASAN, lockdep, kmemleak) in the console"
}

# selftest NAME TIMEOUT EXPECT...: run check.sh on a harness self-test
# suite and require that it fails and prints each EXPECT pattern.
selftest() {
	local suite=$1 t=$2 log="$out/selftest-$1.out" rc
	shift 2
	echo "# harness self-test: $suite (output: $log)"
	"$0" -k "$kernel" -i "$initrd" -o "$out/$suite" -T "$t" -s "$suite" \
		> "$log" 2>&1
	rc=$?
	[ $rc != 0 ]
	result $? "harness: $suite makes the run fail (exit status $rc)"
	for want in "$@"; do
		grep -qE "$want" "$log"
		result $? "harness: $suite is reported: /$want/"
	done
}

# Enough for the tests, small enough for kmemleak's scan to stay quick.
export MVFS_MEM=${MVFS_MEM:-1024}
mkdir -p "$out"
run_id=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
new_store "$out/store.img"
default=
if [ -z "$suites" ]; then
	default=1
	suites="boot1 boot2"
fi
for suite in $suites; do
	if [ -n "$pattern" ] && ! ls "$top/tests/guest/$suite" |
			grep -qF -- "$pattern"; then
		continue
	fi
	boot_suite "$suite" "$out/store.img"
done
if [ -n "$default" ]; then
	e2fsck -fn "$out/store.img" > "$out/e2fsck.log" 2>&1
	result $? "the store image passes e2fsck -fn after the boots"
fi
if [ -n "$default" ] && { [ -z "$pattern" ] || [ "$pattern" = harness ]; }; then
	selftest selftest-fail "$timeout" \
		'not ok [0-9]+ - selftest-fail/01-fails: deliberate failure' \
		'[0-9]+ passed, 1 failed'
	selftest selftest-warn "$timeout" \
		'not ok [0-9]+ - selftest-warn: no kernel report' 'WARNING:'
	selftest selftest-panic "$timeout" \
		'selftest-panic/01-panic: did not finish' \
		'selftest-panic: the guest died' 'Kernel panic'
	selftest selftest-hang 25 \
		'selftest-hang: the guest did not finish within 25s'
fi
echo "1..$n"
echo "# console logs in $out"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$n" -gt 0 ]
