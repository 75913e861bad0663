#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh OUT MODULE_DIR BIN_DIR TESTS_DIR TEST_BIN_DIR
#
# The guest's base initramfs: busybox-static, /init, mvfs.ko and the test
# modules of one flavour, the static tools and the guest tests.  The part
# that changes per boot (boot.conf, the command) is a second archive that
# qemu/boot.sh appends.
set -euo pipefail

out=$1 moddir=$2 bindir=$3 testdir=$4 tbindir=$5
top=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc/mvfs,proc,sys,dev,tmp,root}
mkdir -p "$stage"/{lib/modules,var/lib/mvfs,view,vob,share,run,tests/bin}
cp /bin/busybox "$stage/bin/busybox"
# add_dynamic BIN DEST: Debian's dynamically linked BIN at DEST in the
# guest, with the libraries and the loader that ldd names, at the same
# paths.
add_dynamic() {
	local libs lib
	cp "$1" "$stage$2"
	libs=$(ldd "$1")
	if echo "$libs" | grep -q 'not found'; then
		echo "initramfs.sh: ldd $1: a library is missing:" >&2
		echo "$libs" >&2
		exit 1
	fi
	for lib in $(echo "$libs" | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

# need NAME PACKAGE: the path of the host's NAME, or a message naming the
# Debian package to install.
need() {
	PATH=/usr/sbin:/sbin:/usr/bin:$PATH command -v "$1" || {
		echo "initramfs.sh: no $1 on the host: apt-get install $2" >&2
		exit 1
	}
}

# e2fsck (busybox has none) for /init's check of the store disk; fio and
# stress-ng for the concurrency campaign (tests/torture/concurrency).
bin=$(need e2fsck e2fsprogs)
add_dynamic "$bin" /sbin/e2fsck
bin=$(need fio fio)
add_dynamic "$bin" /usr/bin/fio
bin=$(need stress-ng stress-ng)
add_dynamic "$bin" /usr/bin/stress-ng
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
# The fault campaigns (make torture; make check runs each briefly).
cp -r "$top/tests/torture" "$stage/tests/torture"
cp "$tbindir"/* "$stage/tests/bin/" 2>/dev/null || true
(cd "$stage" && find . -print0 | cpio --null -o -H newc --owner 0:0 \
	--quiet) > "$out.tmp"
mv "$out.tmp" "$out"
