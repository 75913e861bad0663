#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mutate.sh [-k] [MUTATION...]: measure the strength of `make check`.
#
# Each mutation is a sed script tests/mutations/NAME.sed that plants one
# known defect in one file of the module; its header names the file and
# the tests that must catch it:
#
#   # file: mvfs/dir.c
#   # tests: boot1/1          (a T= pattern; empty: the whole suite)
#   # one line on what the defect is
#
# For each, mutate.sh copies the work tree (without build/) to a scratch
# folder, applies the script there and requires that it changed the file
# ("did not apply" otherwise: the module moved on and the mutation must be
# rewritten), that the mutant builds, and that `make check T=...` on it
# fails ("caught"); a mutant that passes "SURVIVED": the suite misses that
# defect.  The work tree itself is never touched.  Prints one line per
# mutation and a summary; exit status 0 only when every mutation applied,
# built and was caught.  -k keeps the scratch folders.
#
# Each mutant costs a build of the module and a debug boot: `make mutate`
# is for people, not for CI.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
keep=
if [ "${1:-}" = -k ]; then
	keep=1
	shift
fi
if [ $# = 0 ]; then
	set -- "$top"/tests/mutations/*.sed
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mvfs-mutate.XXXXXX")
[ -n "$keep" ] || trap 'rm -rf "$scratch"' EXIT
echo "# mutate: scratch folder $scratch"

caught= survived= broken=

# header FIELD FILE: the value of "# FIELD: VALUE" in FILE's header.
header() {
	sed -n "s/^# $1: *//p" "$2" | head -n 1
}

# copy_tree DIR: the work tree, without build/, plus the tools already
# built (the mutants share them: only the module changes).
copy_tree() {
	mkdir -p "$1"
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . |
		tar -C "$1" -xf - || return 1
	if [ -d "$top/build/bin" ] && [ -d "$top/build/tbin" ]; then
		mkdir -p "$1/build"
		cp -pr "$top/build/bin" "$top/build/tbin" "$1/build/"
	fi
}

# mutant SED: apply, build and check one mutation; sets its verdict.
mutant() {
	local m=$1 name file tests work log
	name=$(basename "$m" .sed)
	file=$(header file "$m")
	tests=$(header tests "$m")
	work=$scratch/$name
	log=$scratch/$name.log
	if [ -z "$file" ]; then
		echo "BROKEN   $name: no '# file:' line"
		broken="$broken $name"
		return
	fi
	if ! copy_tree "$work"; then
		echo "BROKEN   $name: cannot copy the work tree"
		broken="$broken $name"
		return
	fi
	if ! sed -i -f "$m" "$work/$file" 2> "$log" ||
			cmp -s "$top/$file" "$work/$file"; then
		echo "BROKEN   $name: mutation did not apply to $file"
		broken="$broken $name"
		return
	fi
	diff -u "$top/$file" "$work/$file" > "$scratch/$name.diff"
	echo "# $name: $(grep -vE '^# (SPDX|file:|tests:)' "$m" |
		sed -n 's/^# //p' | head -n 1) T='$tests'"
	if ! make -C "$work" "$work/build/debug/initramfs.cpio" >> "$log" 2>&1; then
		echo "BROKEN   $name: the mutant does not build (see $log)"
		broken="$broken $name"
		return
	fi
	if make -C "$work" check T="$tests" >> "$log" 2>&1; then
		echo "SURVIVED $name: make check T='$tests' passed (see $log)"
		survived="$survived $name"
	elif grep -q '^check.sh: no test matches' "$log"; then
		echo "BROKEN   $name: T='$tests' selects no test"
		broken="$broken $name"
	else
		echo "caught   $name: $(grep -c '^not ok' "$log") failures," \
		     "e.g. $(grep -m 1 '^not ok' "$log")"
		caught="$caught $name"
	fi
	[ -n "$keep" ] || rm -rf "$work"
}

for m in "$@"; do
	mutant "$m"
done
n=$#
echo "# mutate: $(echo $caught | wc -w) of $n mutations caught"
[ -z "$survived" ] || echo "# survived (the suite misses them):$survived"
[ -z "$broken" ] || echo "# broken (fix the mutation):$broken"
[ -z "$survived$broken" ]
