#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh: install the Debian packages mvfs builds and boots with, when
# they are missing (as root; otherwise say what to install).
set -euo pipefail

pkgs="linux-source-6.1 qemu-system-x86 busybox-static e2fsprogs bc flex
bison libelf-dev cpio sparse gcc make libc6-dev patch nfs-kernel-server
nfs-common diffutils dmsetup fio
stress-ng"
missing=
for p in $pkgs; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || true
	[ "$status" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# nfs-kernel-server's tools are for the guests: its service must not start
# on the host (policy-rc.d says no where there is no init system).
apt-get install -y -qq $missing
