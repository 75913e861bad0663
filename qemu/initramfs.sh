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
# copy_host_bin BIN DEST: a dynamically linked Debian binary, with the
# libraries and the loader that ldd names, at the same paths.
copy_host_bin() {
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
# e2fsck (busybox has none) for /init's check of the store disk.
e2fsck=$(PATH=/usr/sbin:/sbin:$PATH command -v e2fsck) || {
	echo "initramfs.sh: no e2fsck on the host: apt-get install e2fsprogs" >&2
	exit 1
}
copy_host_bin "$e2fsck" /sbin/e2fsck
# diff3 (busybox has none) for mvfs merge, and the GNU diff it runs
# (busybox's makes only unified diffs): Debian's diffutils.
for bin in diff3 diff; do
	[ -x "/usr/bin/$bin" ] || {
		echo "initramfs.sh: no /usr/bin/$bin: apt-get install diffutils" >&2
		exit 1
	}
	copy_host_bin "/usr/bin/$bin" "/usr/bin/$bin"
done
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
cp "$tbindir"/* "$stage/tests/bin/" 2>/dev/null || true
(cd "$stage" && find . -print0 | cpio --null -o -H newc --owner 0:0 \
	--quiet) > "$out.tmp"
mv "$out.tmp" "$out"
