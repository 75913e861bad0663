#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh OUT MODULE_DIR BIN_DIR TESTS_DIR TEST_BIN_DIR [TORTURE_DIR]
#
# The guest's base initramfs: busybox-static, /init, mvfs.ko and the test
# modules of one flavour, the static tools, the guest tests (at /tests)
# and the torture campaigns (at /tests/torture).  The part
# that changes per boot (boot.conf, the command) is a second archive that
# qemu/boot.sh appends.
set -euo pipefail

out=$1 moddir=$2 bindir=$3 testdir=$4 tbindir=$5 torturedir=${6:-}
top=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc/mvfs,proc,sys,dev,tmp,root}
mkdir -p "$stage"/{lib/modules,var/lib/mvfs,view,vob,share,run,tests/bin}
cp /bin/busybox "$stage/bin/busybox"
# Debian's own tools that busybox lacks, each dynamically linked, so
# each comes with the libraries and the loader that ldd names, at the
# same paths: e2fsck for /init's check of the store disk, dmsetup for
# the power-cut campaign (tests/torture/powercut).
add_binary() {
	local bin lib libs
	bin=$(PATH=/usr/sbin:/sbin:$PATH command -v "$1") || {
		echo "initramfs.sh: no $1 on the host: apt-get install $2" >&2
		exit 1
	}
	cp "$bin" "$stage/sbin/$1"
	libs=$(ldd "$bin")
	if echo "$libs" | grep -q 'not found'; then
		echo "initramfs.sh: ldd $bin: a library is missing:" >&2
		echo "$libs" >&2
		exit 1
	fi
	for lib in $(echo "$libs" | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}
add_binary e2fsck e2fsprogs
add_binary dmsetup dmsetup
for app in $(/bin/busybox --list-full); do
	[ -e "$stage/$app" ] || ln -s /bin/busybox "$stage/$app"
done
install -m 0755 "$top/qemu/init" "$stage/init"
install -m 0644 "$top/qemu/motd" "$stage/etc/motd"
printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/tmp:/bin/sh\n' \
	> "$stage/etc/passwd"
printf 'root:x:0:\nuser:x:1000:\n' > "$stage/etc/group"
echo 'export PS1="\\w # "' > "$stage/etc/profile"
cp "$moddir"/*.ko "$stage/lib/modules/"
cp "$bindir"/* "$stage/usr/bin/" 2>/dev/null || true
cp -r "$testdir"/. "$stage/tests/"
[ -z "$torturedir" ] || cp -r "$torturedir" "$stage/tests/torture"
cp "$tbindir"/* "$stage/tests/bin/" 2>/dev/null || true
(cd "$stage" && find . -print0 | cpio --null -o -H newc --owner 0:0 \
	--quiet) > "$out.tmp"
mv "$out.tmp" "$out"
