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
# copy_bin PATH: a host binary at the same path in the guest, with the
# libraries and the loader that ldd names.  Debian's are dynamically
# linked; busybox has none of these.
copy_bin() {
	local bin=$1 libs lib
	cp "$bin" "$stage$bin"
	libs=$(ldd "$bin")
	if echo "$libs" | grep -q 'not found'; then
		echo "initramfs.sh: ldd $bin: a library is missing:" >&2
		echo "$libs" >&2
		exit 1
	fi
	for lib in $(echo "$libs" | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$lib")"
		[ -e "$stage$lib" ] || cp -L "$lib" "$stage$lib"
	done
}

# host_bin NAME PACKAGE: the path of the host's NAME, or fail saying
# which Debian package brings it.
host_bin() {
	PATH=/usr/sbin:/sbin:$PATH command -v "$1" || {
		echo "initramfs.sh: no $1 on the host: apt-get install $2" >&2
		exit 1
	}
}

# e2fsck for /init's check of the store disk, filefrag and debugfs for
# where ext2 put a private file's blocks and what is free around them
# (boot1/59); the NFS server and client
# (qemu/init, two-guest tests): nfsd's helpers from nfs-kernel-server,
# mount.nfs from nfs-common, and the files their libraries read.
copy_bin "$(host_bin e2fsck e2fsprogs)"
copy_bin "$(host_bin filefrag e2fsprogs)"
copy_bin "$(host_bin debugfs e2fsprogs)"
# dmsetup for the power-cut campaign (tests/torture/powercut); fio
# and stress-ng for the concurrency campaign (tests/torture/concurrency).
copy_bin "$(host_bin dmsetup dmsetup)"
copy_bin "$(host_bin fio fio)"
copy_bin "$(host_bin stress-ng stress-ng)"
for b in rpc.nfsd rpc.mountd exportfs; do
	copy_bin "$(host_bin $b nfs-kernel-server)"
done
# diff3 (busybox has none) for mvfs merge, and the GNU diff it runs
# (busybox's makes only unified diffs): Debian's diffutils.
for b in diff3 diff; do
	copy_bin "$(host_bin $b diffutils)"
done
copy_bin "$(host_bin mount.nfs nfs-common)"
ln -sf mount.nfs "$stage/usr/sbin/mount.nfs4"
for f in services protocols netconfig rpc; do
	cp "/etc/$f" "$stage/etc/$f"
done
printf 'passwd: files\ngroup: files\nhosts: files\n' > "$stage/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n10.0.0.1 nfs-a\n10.0.0.2 nfs-b\n' > "$stage/etc/hosts"
mkdir -p "$stage/var/lib/nfs" "$stage/run/rpc_pipefs"
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
