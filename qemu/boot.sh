#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh: boot the mvfs guest once under QEMU.
#
#   boot.sh -k BZIMAGE -i INITRAMFS -s STORE_IMG [-m shell|cmd|check]
#           [-c CMD] [-b SUITE] [-t TESTS] [-r RUN_ID] [-T TIMEOUT]
#           [-l LOG] [-S DIR] [-n server|client -p PORT] [-P PIDFILE]
#           [-e NAME=VALUE]...
#
# shell: an interactive shell on this terminal.  cmd: run CMD in the guest,
# stream its output and exit with its status.  check: run the guest tests
# (suite SUITE, pattern TESTS, RUN_ID exported to them) and print the console, for
# tests/check.sh to read.  Every non-interactive boot has a timeout; a guest
# that panics reboots, which -no-reboot turns into QEMU's exit.  Each -e
# exports NAME=VALUE to the guest's commands and tests (the torture
# campaigns' ROUNDS and SEED).
#
# -n makes the guest one node of a two-machine store (the NFS tests, make
# run NODES=2): a virtio-net link to the other guest over a QEMU socket
# on the host's loopback, PORT (the server listens, the client connects),
# and mvfs.node=ROLE on the kernel command line for /init.  A client has
# no store disk (-s is ignored): it mounts the server's over NFSv4.
#
# -P writes QEMU's pid to PIDFILE, for a test that kills the machine.
#
# Environment: MVFS_ACCEL (tcg), MVFS_MEM (MiB), MVFS_SMP, MVFS_SHARE (a
# host folder the guest mounts read-only at /share, over virtio-9p; -S too),
# MVFS_SERIAL (shell mode: a QEMU -serial device for the console instead of
# this terminal), MVFS_APPEND (more kernel parameters).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=shell cmd= suite=boot1 tests= run_id= timeout=0 log= share=${MVFS_SHARE:-}
kernel= initrd= store= node= port= pidfile= env=()
while getopts k:i:s:m:c:b:t:r:T:l:S:n:p:P:e: opt; do
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
	n) node=$OPTARG ;;
	p) port=$OPTARG ;;
	P) pidfile=$OPTARG ;;
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

drives=()
case $node in
'')	drives+=(-drive "file=$store,if=virtio,format=raw") ;;
server)	drives+=(-drive "file=$store,if=virtio,format=raw"
		 -netdev "socket,id=n0,listen=127.0.0.1:$port"
		 -device "virtio-net-pci,netdev=n0,mac=52:54:00:00:00:01") ;;
client)	drives+=(-netdev "socket,id=n0,connect=127.0.0.1:$port"
		 -device "virtio-net-pci,netdev=n0,mac=52:54:00:00:00:02") ;;
*)	echo "boot.sh: -n $node: server or client" >&2; exit 2 ;;
esac
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
[ -z "$node" ] || append="$append mvfs.node=$node"
[ "$mode" = check ] || append="$append quiet"
[ -z "${MVFS_APPEND:-}" ] || append="$append $MVFS_APPEND"
qemu=(qemu-system-x86_64 -accel "${MVFS_ACCEL:-tcg}" -m "${MVFS_MEM:-2048}"
      -smp "${MVFS_SMP:-2}" -kernel "$kernel" -initrd "$work/initrd.cpio"
      -append "$append" "${drives[@]}" -no-reboot)
[ -z "$pidfile" ] || qemu+=(-pidfile "$pidfile")

if [ "$mode" = shell ]; then
	# MVFS_SERIAL: the console elsewhere than on this terminal (a QEMU
	# -serial device: qemu/nodes.sh puts the server's on a TCP port).
	[ -z "${MVFS_SERIAL:-}" ] ||
		exec "${qemu[@]}" -display none -monitor none -serial "$MVFS_SERIAL"
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
# No status line (a panic, a killed QEMU) is no match for grep: under
# pipefail and -e that would end the script with status 1, silently.
status=$(grep -a '^mvfs-exit-status=' "$log" | tail -1 | cut -d= -f2) ||
	status=
if [ -z "$status" ]; then
	echo "boot.sh: the guest ended without finishing" \
	     "(kernel panic or crash?), see the console log" >&2
	exit 125
fi
[ "$status" = 0 ] || [ "$mode" != cmd ] ||
	echo "boot.sh: the command exited with status $status" >&2
exit "$status"
