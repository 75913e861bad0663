#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh: boot the mvfs guest once under QEMU.
#
#   boot.sh -k BZIMAGE -i INITRAMFS -s STORE_IMG [-m shell|cmd|check]
#           [-c CMD] [-b SUITE] [-t TESTS] [-r RUN_ID] [-T TIMEOUT]
#           [-l LOG] [-S DIR] [-e NAME=VALUE]...
#
# shell: an interactive shell on this terminal.  cmd: run CMD in the guest,
# stream its output and exit with its status.  check: run the guest tests
# (suite SUITE, pattern TESTS, RUN_ID exported to them) and print the console, for
# tests/check.sh to read.  Every non-interactive boot has a timeout; a guest
# that panics reboots, which -no-reboot turns into QEMU's exit.  Each -e
# exports NAME=VALUE to the guest's commands and tests (the torture
# campaigns' ROUNDS and SEED).
#
# Environment: MVFS_ACCEL (tcg), MVFS_MEM (MiB), MVFS_SMP, MVFS_SHARE (a
# host folder the guest mounts read-only at /share, over virtio-9p; -S too).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=shell cmd= suite=boot1 tests= run_id= timeout=0 log= share=${MVFS_SHARE:-}
kernel= initrd= store= env=()
while getopts k:i:s:m:c:b:t:r:T:l:S:e: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	s) store=$OPTARG ;;
	m) mode=$OPTARG ;;
	c) cmd=$OPTARG ;;
	b) suite=$OPTARG ;;
	r) run_id=$OPTARG ;;
	t) tests=$OPTARG ;;
	T) timeout=$OPTARG ;;
	l) log=$OPTARG ;;
	S) share=$OPTARG ;;
	e) env+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$log" ] || log=$work/console.log

# The per-boot part of the initramfs, appended to the base archive.
mkdir -p "$work/root/etc/mvfs"
{
	printf 'MODE=%q\nSUITE=%q\nTESTS=%q\nexport RUN_ID=%q\n' \
		"$mode" "$suite" "$tests" "$run_id"
	[ -z "$share" ] || echo "SHARE=1"
	for e in "${env[@]}"; do
		case $e in
		[A-Za-z_]*=*) printf 'export %s=%q\n' "${e%%=*}" "${e#*=}" ;;
		*) echo "boot.sh: -e $e: not NAME=VALUE" >&2; exit 2 ;;
		esac
	done
} > "$work/root/etc/mvfs/boot.conf"
printf '%s\n' "$cmd" > "$work/root/etc/mvfs/cmd"
(cd "$work/root" && find . | cpio -o -H newc --owner 0:0 --quiet) \
	> "$work/boot.cpio"
cat "$initrd" "$work/boot.cpio" > "$work/initrd.cpio"

drives=(-drive "file=$store,if=virtio,format=raw")
if [ -n "$share" ]; then
	[ -d "$share" ] || { echo "boot.sh: MVFS_SHARE=$share: no such directory" >&2; exit 2; }
	# The folder itself, read-only over virtio-9p: no copy at each boot
	# and no image whose inode count a tree of small files can exhaust.
	# security_model=none: the guest sees the host's owners and modes.
	share=$(cd "$share" && pwd)
	case $share in *,*)
		echo "boot.sh: MVFS_SHARE=$share: QEMU cannot take a path with a comma" >&2
		exit 2 ;;
	esac
	drives+=(-virtfs "local,path=$share,mount_tag=share,security_model=none,readonly=on")
fi

append="console=ttyS0 panic=-1"
[ "$mode" = check ] || append="$append quiet"
qemu=(qemu-system-x86_64 -accel "${MVFS_ACCEL:-tcg}" -m "${MVFS_MEM:-2048}"
      -smp "${MVFS_SMP:-2}" -kernel "$kernel" -initrd "$work/initrd.cpio"
      -append "$append" "${drives[@]}" -no-reboot)

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -nographic
fi

# Non-interactive: console on stdout (CR stripped, line by line: tr would
# hold it back in 4 KiB blocks), copied to $log.
set +e
timeout -k 5 "$timeout" "${qemu[@]}" -display none -monitor none \
	-serial stdio < /dev/null | sed -u 's/\r//g' | tee "$log" |
	if [ "$mode" = cmd ]; then
		grep --line-buffered -avE '^mvfs-exit-status=|^\[ *[0-9.]+\] reboot: '
	else
		cat
	fi
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" = 124 ]; then
	echo "boot.sh: the guest did not finish within ${timeout}s" >&2
	exit 124
fi
status=$(grep -a '^mvfs-exit-status=' "$log" | tail -1 | cut -d= -f2)
if [ -z "$status" ]; then
	echo "boot.sh: the guest ended without finishing" \
	     "(kernel panic or crash?), see the console log" >&2
	exit 125
fi
[ "$status" = 0 ] || [ "$mode" != cmd ] ||
	echo "boot.sh: the command exited with status $status" >&2
exit "$status"
