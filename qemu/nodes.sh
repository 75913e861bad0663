#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nodes.sh BZIMAGE INITRAMFS STORE_IMG: `make run NODES=2`, two machines
# sharing one store over NFSv4.  The server, nfs-a, boots on STORE_IMG
# and exports it; its console is on a TCP port of the host's loopback
# (busybox telnet 127.0.0.1 PORT).  The client, nfs-b, mounts it and is
# the shell on this terminal; when it ends, the server is stopped.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 initrd=$2 store=$3

link=$("$top/qemu/free-port.sh")
console=$("$top/qemu/free-port.sh")
while [ "$console" = "$link" ]; do console=$("$top/qemu/free-port.sh"); done
MVFS_SERIAL="telnet:127.0.0.1:$console,server=on,wait=off" \
	"$top/qemu/boot.sh" -k "$kernel" -i "$initrd" -s "$store" -m shell \
	-n server -p "$link" &
server=$!
trap 'kill "$server" 2> /dev/null; wait "$server" 2> /dev/null' EXIT
for _i in $(seq 150); do
	ss -ltn | grep -q ":$link " && break
	sleep 0.2
done
echo "nodes: nfs-a (the server, 10.0.0.1) is booting; its console:"
echo "nodes:     busybox telnet 127.0.0.1 $console"
echo "nodes: this terminal is nfs-b (the client, 10.0.0.2): it waits for"
echo "nodes: the server's store, then gives a shell; exit ends both."
"$top/qemu/boot.sh" -k "$kernel" -i "$initrd" -m shell -n client -p "$link"
