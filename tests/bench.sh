#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: the host side of `make bench`.
#
#   bench.sh -k BZIMAGE -i INITRAMFS -o OUTDIR [-T TIMEOUT]
#
# Boots the (release) guest once, on a fresh 4 GiB store image, to run
# tests/guest/bench/run, which measures mvfs against ext2 side by side in
# that boot and prints a table of ratios.  The console log, the store image
# and the table (OUTDIR/table.txt) stay in OUTDIR.  The exit status is
# non-zero only when the benchmark broke, not when a goal was missed.
#
# Environment: MVFS_MEM (MiB, default 2048), BENCH_RUNS (runs per
# measure, odd so that the median is a run, default 7), BENCH_REVS (the
# history of the lookup rows, default 1000; less for a quick run),
# BENCH_STORE_SIZE (default 4G), BENCH_ROWS (all, default; read: only
# the rows of read-only views; write: only issue 7's writes in a view;
# spec: only issue 9's views selected by config specs),
# BENCH_QUICK=1 (the write rows' files and trees 4 times smaller, for a
# quick look: 64 MiB instead of 256, 2,500 files instead of 10,000, ...).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
timeout=7200 kernel='' initrd='' out=''
while getopts k:i:o:T: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	o) out=$OPTARG ;;
	T) timeout=$OPTARG ;;
	*) exit 2 ;;
	esac
done
[ -n "$kernel" ] && [ -n "$initrd" ] && [ -n "$out" ] || {
	echo "usage: bench.sh -k BZIMAGE -i INITRAMFS -o OUTDIR [-T TIMEOUT]" >&2
	exit 2
}

mkdir -p "$out"
store=$out/store.img
log=$out/console.log
rm -f "$store" "$out/table.txt"
truncate -s "${BENCH_STORE_SIZE:-4G}" "$store"
mke2fs -q -t ext2 -F "$store"
runs=${BENCH_RUNS:-7}
case $runs in '' | *[!0-9]*) echo "bench.sh: BENCH_RUNS=$runs" >&2; exit 2 ;; esac
if [ $((runs % 2)) = 0 ]; then
	echo "bench.sh: BENCH_RUNS=$runs: an odd number, so that the median is one run" >&2
	exit 2
fi
rows=${BENCH_ROWS:-all}
case $rows in all | read | write | spec) ;; *) echo "bench.sh: BENCH_ROWS=$rows: all, read, write or spec" >&2; exit 2 ;; esac
quick=${BENCH_QUICK:-0}
case $quick in 0 | 1) ;; *) echo "bench.sh: BENCH_QUICK=$quick: 0 or 1" >&2; exit 2 ;; esac
revs=${BENCH_REVS:-1000}
case $revs in '' | *[!0-9]*) echo "bench.sh: BENCH_REVS=$revs" >&2; exit 2 ;; esac
[ "$revs" -ge 20 ] || { echo "bench.sh: BENCH_REVS=$revs: at least 20" >&2; exit 2; }

echo "# make bench: one boot of the release guest, store $store," \
	"timeout ${timeout}s (console: $log)"
set +e
MVFS_MEM=${MVFS_MEM:-2048} "$top/qemu/boot.sh" -k "$kernel" -i "$initrd" \
	-s "$store" -m cmd -T "$timeout" -l "$log" \
	-c "RUNS=$runs REVS=$revs ROWS=$rows QUICK=$quick sh /tests/bench/run"
rc=$?
set -e
sed -n '/^mvfs-bench-table-begin$/,/^mvfs-bench-table-end$/p' "$log" |
	grep -v '^mvfs-bench-table-' > "$out/table.txt" || true
if [ -s "$out/table.txt" ]; then
	echo "# table: $out/table.txt"
else
	echo "bench.sh: the guest printed no table (status $rc)" >&2
	[ "$rc" != 0 ] || rc=1
fi
exit "$rc"
