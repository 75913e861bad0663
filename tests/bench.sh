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
# spec: only issue 9's views selected by config specs; checkin: only
# issue 7's row of `mvfs checkin` in a large tree against a small one;
# create: only issue 7's create row and its overlayfs reference;
# copyup: only issue 7's copy-up row;
# nfs: only the row of a store shared over NFS, which boots two guests
# once more, a server and a client: all runs it after the others),
# BENCH_QUICK=1 (the write rows' files and trees 4 times smaller, for a
# quick look: 64 MiB instead of 256, 2,500 files instead of 10,000, ...).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# Every time measured is read from the TSC: QEMU's, under TCG, follows
# the host's clock, but the kernel's watchdog may give it up when the
# host is busy and fall back to jiffies, 4 ms steps (bench/run says
# which clock it had).
export MVFS_APPEND="tsc=reliable${MVFS_APPEND:+ $MVFS_APPEND}"
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

# new_image FILE: a fresh ext2 store disk of BENCH_STORE_SIZE, written
# whole, not sparse: a write to a hole of the image makes the host's
# filesystem allocate (and its fdatasync commit that), which would weigh
# on whichever side of a row writes where nothing was written yet
# (nodiscard: mke2fs would punch the holes again).
new_image() {
	rm -f "$1"
	truncate -s "${BENCH_STORE_SIZE:-4G}" "$1"
	dd if=/dev/zero of="$1" bs=16M conv=notrunc,fsync status=none \
		count=$(($(stat -c %s "$1") / 16777216))
	mke2fs -q -t ext2 -E nodiscard -F "$1"
}

new_image "$store"
runs=${BENCH_RUNS:-7}
case $runs in '' | *[!0-9]*) echo "bench.sh: BENCH_RUNS=$runs" >&2; exit 2 ;; esac
if [ $((runs % 2)) = 0 ]; then
	echo "bench.sh: BENCH_RUNS=$runs: an odd number, so that the median is one run" >&2
	exit 2
fi
rows=${BENCH_ROWS:-all}
case $rows in
all | read | write | spec | nfs | checkin | create | copyup) ;;
*) echo "bench.sh: BENCH_ROWS=$rows: all, read, write, spec, nfs, checkin, create or copyup" >&2; exit 2 ;;
esac
quick=${BENCH_QUICK:-0}
case $quick in 0 | 1) ;; *) echo "bench.sh: BENCH_QUICK=$quick: 0 or 1" >&2; exit 2 ;; esac
revs=${BENCH_REVS:-1000}
case $revs in '' | *[!0-9]*) echo "bench.sh: BENCH_REVS=$revs" >&2; exit 2 ;; esac
[ "$revs" -ge 20 ] || { echo "bench.sh: BENCH_REVS=$revs: at least 20" >&2; exit 2; }

# table LOG OUT: the table a guest printed in LOG, into OUT.
table() {
	sed -n '/^mvfs-bench-table-begin$/,/^mvfs-bench-table-end$/p' "$1" |
		grep -v '^mvfs-bench-table-' > "$2" || true
}

# nfs_boot: the NFS row, on two guests: a server exporting a fresh store
# disk, waiting until the client is done and gone, and a client running
# bench/run with ROWS=nfs.  Its table goes to $out/table-nfs.txt.
nfs_boot() {
	local port server rc
	port=$("$top/qemu/free-port.sh")
	new_image "$out/nfs-store.img"
	echo "# make bench, NFS row: a server and a client guest, link on" \
		"127.0.0.1:$port (consoles: $out/console-nfs-a.log, $out/console-nfs-b.log)"
	MVFS_MEM=${MVFS_MEM:-2048} "$top/qemu/boot.sh" -k "$kernel" -i "$initrd" \
		-s "$out/nfs-store.img" -m cmd -T "$timeout" \
		-l "$out/console-nfs-a.log" -n server -p "$port" \
		-c 'while [ ! -e /var/lib/mvfs/bench-done ]; do sleep 1; done
while ping -c 1 -W 1 10.0.0.2 > /dev/null 2>&1; do sleep 1; done' \
		> /dev/null 2>&1 &
	server=$!
	for _i in $(seq 150); do
		ss -ltn | grep -q ":$port " && break
		sleep 0.2
	done
	MVFS_MEM=${MVFS_MEM:-2048} "$top/qemu/boot.sh" -k "$kernel" -i "$initrd" \
		-m cmd -T "$timeout" -l "$out/console-nfs-b.log" -n client -p "$port" \
		-c "RUNS=$runs ROWS=nfs sh /tests/bench/run; s=\$?; touch /var/lib/mvfs/bench-done; exit \$s"
	rc=$?
	wait "$server" || [ "$rc" != 0 ] || rc=1
	table "$out/console-nfs-b.log" "$out/table-nfs.txt"
	return "$rc"
}

rc=0
if [ "$rows" != nfs ]; then
	echo "# make bench: one boot of the release guest, store $store," \
		"timeout ${timeout}s (console: $log)"
	set +e
	MVFS_MEM=${MVFS_MEM:-2048} "$top/qemu/boot.sh" -k "$kernel" -i "$initrd" \
		-s "$store" -m cmd -T "$timeout" -l "$log" \
		-c "RUNS=$runs REVS=$revs ROWS=$rows QUICK=$quick sh /tests/bench/run"
	rc=$?
	set -e
	table "$log" "$out/table.txt"
fi
if [ "$rows" = all ] || [ "$rows" = nfs ]; then
	set +e
	nfs_boot
	nrc=$?
	set -e
	[ "$nrc" = 0 ] || rc=$nrc
	cat "$out/table-nfs.txt" >> "$out/table.txt"
fi
if [ -s "$out/table.txt" ]; then
	echo "# table: $out/table.txt"
else
	echo "bench.sh: the guest printed no table (status $rc)" >&2
	[ "$rc" != 0 ] || rc=1
fi
exit "$rc"
