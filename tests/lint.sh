#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh KSRC KDIR OUTDIR: what a kernel maintainer runs before merging.
# checkpatch --strict on the module, the tools, the tests' C and every
# patch; the module built with W=1 C=2 (sparse), which must print nothing.
set -uo pipefail

ksrc=$1 kdir=$2 out=$3
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bad=0
cp="$ksrc/scripts/checkpatch.pl --strict --no-tree --quiet --terse --show-types"
# Out-of-tree: no kernel-tree checks of file layout or MAINTAINERS.
cp="$cp --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG"

files=$(git ls-files --cached --others --exclude-standard 'mvfs/*.[ch]' 'userspace/*.[ch]' 'tests/*.[ch]')
for f in $files; do
	$cp -f "$f" || bad=1
done
# Outside this git work tree: checkpatch would read a tracked patch file
# as a change to that file.
for p in $(cat patches/series); do
	(cd / && $cp "$top/patches/$p") || bad=1
done
echo "lint: checkpatch --strict on $(echo "$files" | wc -w) files and" \
     "$(wc -l < patches/series) patches"

rm -rf "$out" && mkdir -p "$out/mvfs"
cp -pr mvfs/. "$out/mvfs/"
make -s -C "$kdir" M="$out/mvfs" W=1 C=2 modules > "$out/sparse.log" 2>&1
rc=$?
if [ $rc != 0 ] || grep -qE 'warning|error' "$out/sparse.log"; then
	cat "$out/sparse.log"
	bad=1
fi
echo "lint: W=1 C=2 (sparse) on the module: $(grep -cE 'warning|error' \
	"$out/sparse.log") warnings"
[ $bad = 0 ] && echo "lint: clean"
exit $bad
