#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest kernel: Debian's linux-source-6.1, patched with patches/series,
# configured from tinyconfig plus qemu/config/{base,FLAVOUR}.config, built
# out of tree in a cache outside the repository.
#
#   kernel.sh dir FLAVOUR     print the build folder (KDIR) of FLAVOUR
#   kernel.sh build FLAVOUR   build it unless the cache already holds it
#   kernel.sh src             print the patched source tree (extracting it)
#
# The cache is keyed by a hash of the inputs: the linux-source package's
# version, the patch series and the fragments.  A change to the module or
# to the tools never touches it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${MVFS_CACHE:-$HOME/.cache/mvfs}
tarball=/usr/src/linux-source-6.1.tar.xz

die() { echo "kernel.sh: $*" >&2; exit 1; }

src_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		stat -c %s-%Y "$tarball"
}

# Hash of what the patched source tree depends on.
src_hash() {
	{
		echo "linux-source-6.1 $(src_version)"
		cat "$top/patches/series"
		while read -r p; do
			[ -n "$p" ] && cat "$top/patches/$p"
		done < "$top/patches/series"
	} | sha256sum | cut -c1-16
}

# Hash of what one flavour's build depends on.
build_hash() {
	{
		src_hash
		cat "$top/qemu/config/base.config" "$top/qemu/config/$1.config"
	} | sha256sum | cut -c1-16
}

src_dir() { echo "$cache/src-$(src_hash)"; }
build_dir() { echo "$cache/build-$1-$(build_hash "$1")"; }

prepare_src() {
	local dir tmp
	dir=$(src_dir)
	[ -f "$dir/.mvfs-ready" ] && return 0
	[ -f "$tarball" ] || die "$tarball missing: apt-get install linux-source-6.1"
	echo "kernel: extracting $tarball into $dir"
	tmp="$dir.tmp"
	rm -rf "$tmp" "$dir"
	mkdir -p "$tmp"
	tar -xf "$tarball" -C "$tmp" --strip-components=1
	while read -r p; do
		[ -n "$p" ] || continue
		echo "kernel: applying $p"
		patch -d "$tmp" -p1 --batch --forward --quiet < "$top/patches/$p" ||
			die "$p does not apply"
	done < "$top/patches/series"
	touch "$tmp/.mvfs-ready"
	mv "$tmp" "$dir"
}

# Fail if the fragments asked for an option the final .config dropped.
check_config() {
	local out=$1 frag line bad=0
	for frag in "$top/qemu/config/base.config" "$top/qemu/config/$2.config"; do
		while read -r line; do
			case "$line" in CONFIG_*=*) ;; *) continue ;; esac
			grep -qx "$line" "$out/.config" && continue
			echo "kernel: $line from ${frag##*/} did not stick" >&2
			bad=1
		done < "$frag"
	done
	return $bad
}

# Print one progress line every 100 compiled files.
progress() {
	local n=0 t0 line
	t0=$(date +%s)
	while IFS= read -r line; do
		case "$line" in "  CC "*) n=$((n + 1)) ;; *) continue ;; esac
		[ $((n % 100)) = 0 ] || continue
		echo "kernel: [$1] $n files compiled, $(( $(date +%s) - t0 ))s"
	done
}

build() {
	local flavour=$1 out src t0 minutes
	[ -f "$top/qemu/config/$flavour.config" ] || die "no flavour $flavour"
	out=$(build_dir "$flavour")
	[ -f "$out/.mvfs-built" ] && return 0
	prepare_src
	src=$(src_dir)
	case "$flavour" in debug) minutes=7 ;; *) minutes=5 ;; esac
	echo "kernel: building the $flavour kernel, one time, about $minutes" \
	     "minutes on 2 cores (log: $out/build.log)"
	t0=$(date +%s)
	rm -rf "$out"
	mkdir -p "$out"
	make -s -C "$src" O="$out" ARCH=x86_64 tinyconfig > "$out/build.log" 2>&1
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$top/qemu/config/base.config" \
		"$top/qemu/config/$flavour.config" >> "$out/build.log" 2>&1
	make -C "$src" O="$out" ARCH=x86_64 olddefconfig >> "$out/build.log" 2>&1
	check_config "$out" "$flavour" || die "configuration failed"
	if ! make -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" all \
		2>&1 | tee -a "$out/build.log" | progress "$flavour"; then
		die "build failed, see $out/build.log"
	fi
	[ -f "$out/arch/x86/boot/bzImage" ] || die "no bzImage, see $out/build.log"
	touch "$out/.mvfs-built"
	echo "kernel: $flavour kernel built in $(( $(date +%s) - t0 ))s"
}

# One lock for the shared source tree, one per flavour's build, so that
# the two flavours can build at the same time.
lock() {
	mkdir -p "$cache"
	exec 9> "$cache/.lock-$1"
	flock 9
}

case "$*" in
src)	lock src
	prepare_src >&2
	src_dir
	exit 0 ;;
esac
[ $# = 2 ] || die "usage: kernel.sh src | dir|build release|debug"
case "$1" in
dir)	build_dir "$2" ;;
build)	(lock src; prepare_src)
	lock "$2"
	build "$2" ;;
*)	die "unknown command $1" ;;
esac
