# SPDX-License-Identifier: GPL-2.0
#
# lib.sh: TAP helpers for the guest's shell tests.  Source it, then call
# `ok DESC`, `not_ok DESC`, `check DESC CMD...` (ok if CMD succeeds) or
# `check_eq DESC EXPECTED ACTUAL`; end with `done_testing`, whose exit
# status is non-zero when anything failed.
_n=0
_failed=0

ok() {
	_n=$((_n + 1))
	echo "ok $_n - $*"
}

not_ok() {
	_n=$((_n + 1))
	_failed=$((_failed + 1))
	echo "not ok $_n - $*"
}

check() {
	_desc=$1
	shift
	if "$@"; then ok "$_desc"; else not_ok "$_desc (failed: $*)"; fi
}

# check_fails DESC CMD...: ok if CMD fails.
check_fails() {
	_desc=$1
	shift
	if "$@"; then not_ok "$_desc (succeeded: $*)"; else ok "$_desc"; fi
}

check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "# expected: '$2'"
		echo "#      got: '$3'"
	fi
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" = 0 ]
}

# --- mvfs store and views ---------------------------------------------
#
# STORE is the store /view shows; SCRATCH, on the same ext2 disk, holds the
# test sources too large for the guest's RAM-backed /tmp; RESULTS is what
# boot 1 leaves for boot 2 to check again after the reboot.
STORE=/var/lib/mvfs
SCRATCH=$STORE/scratch
RESULTS=$STORE/scratch-results
TAB=$(printf '\t')

# note TEXT...: a TAP comment.
note() {
	echo "# $*"
}

# check_same DESC FILE1 FILE2: ok when the two files are identical;
# otherwise shows the start of their diff.
check_same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff "$2" "$3" 2>&1 | head -20 | sed 's/^/#   /'
	fi
}

# fstype_at DIR: the type of the filesystem mounted at DIR, if any.
fstype_at() {
	awk -v d="$1" '$2 == d { t = $3 } END { print t }' /proc/mounts
}

# import_rev DIR MSG: mvfs import DIR -m MSG; prints the new revision's
# number, or fails when the import fails or does not say "revision N".
import_rev() {
	_out=$(mvfs import "$1" -m "$2") || return 1
	_out=$(echo "$_out" | tail -n 1)
	_rev=${_out#revision }
	case "$_out" in "revision "*) ;; *) return 1 ;; esac
	case "$_rev" in "" | *[!0-9]*) return 1 ;; esac
	echo "$_rev"
}

# check_import DESC VAR DIR MSG: import DIR as a new revision and set VAR
# to its number (0, which no revision has, when the import failed).
check_import() {
	_ci=$(import_rev "$3" "$4")
	if [ -n "$_ci" ]; then
		ok "$1 (revision $_ci)"
	else
		not_ok "$1"
		_ci=0
	fi
	eval "$2=\$_ci"
}

# store_snapshot FILE: what a refused command must leave alone: the state
# file, the log, the views and what /view lists.
store_snapshot() {
	{
		md5sum "$STORE/state"
		mvfs log
		mvfs lsview
		ls -a /view
	} > "$1" 2>&1
}

# check_refused DESC CMD...: ok when CMD exits with status 1, says why on
# stderr and leaves the store as it was (store_snapshot).  The message is
# shown as a comment.
check_refused() {
	_desc=$1
	shift
	store_snapshot /tmp/.refused.before
	"$@" > /tmp/.refused.out 2> /tmp/.refused.err
	_rc=$?
	store_snapshot /tmp/.refused.after
	if [ "$_rc" != 1 ]; then
		not_ok "$_desc: exit status $_rc, not 1"
	elif [ ! -s /tmp/.refused.err ]; then
		not_ok "$_desc: no message on stderr"
	elif ! cmp -s /tmp/.refused.before /tmp/.refused.after; then
		not_ok "$_desc: the store changed"
		diff /tmp/.refused.before /tmp/.refused.after | head -10 |
			sed 's/^/#   /'
	else
		ok "$_desc"
	fi
	head -n 2 /tmp/.refused.err | sed 's/^/#   stderr: /'
}

# dmesg_clear; ...; dmesg_new: the kernel log lines printed in between,
# without their timestamps.
dmesg_clear() {
	dmesg -c > /dev/null
}

dmesg_new() {
	dmesg | sed 's/^\[ *[0-9.]*\] //'
}

# flip FILE OFFSET: invert every bit of the byte at OFFSET in FILE.
flip() {
	_b=$(dd if="$1" bs=1 skip="$2" count=1 2> /dev/null |
		od -An -tu1 | tr -d ' ')
	printf "\\$(printf %03o $((_b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

# md5_of FILE: the md5 of FILE's bytes, or "cannot read FILE" (never the
# sum of no bytes, which is what a failed read in a pipe would give).
md5_of() {
	md5sum 2> /dev/null < "$1" || echo "cannot read $1"
}

# listings DIR: each directory under DIR (DIR too) as getdents64 lists it,
# with . and .. and hidden names: a line "== PATH", then "TYPE<TAB>NAME"
# for each entry (lsdents -t), sorted; "cannot list PATH" on an error.
listings() {
	_lt=$(mktemp)
	(cd "$1" && find . -type d) | sort | while IFS= read -r _ld; do
		echo "== $_ld"
		if lsdents -t "$1/$_ld" > "$_lt" 2>&1; then
			sort "$_lt"
		else
			echo "cannot list $_ld"
		fi
	done
	rm -f "$_lt"
}

# check_listings DESC SRC DIR: ok when every directory under DIR lists the
# same names with the same types as its counterpart under SRC.
check_listings() {
	_la=$(mktemp)
	_lb=$(mktemp)
	listings "$2" > "$_la"
	listings "$3" > "$_lb"
	check_same "$1 ($(grep -vc '^==' "$_la") entries in $(grep -c '^==' \
		"$_la") directories)" "$_la" "$_lb"
	rm -f "$_la" "$_lb"
}

# only_nameless LOG: what e2fsck -p stopped at (status 4), in its account
# LOG, is an inode without a name ("Unattached inode", "Unconnected
# directory inode"), and the rest is what it mended (ending in "FIXED.",
# "CLEARED."...) or its usual lines.  ext2 has no journal: an inode
# written before its directory entry, or an entry's removal written
# before the inode's release, is such an inode after a power cut, which
# e2fsck -p leaves to a manual run; qemu/init then runs e2fsck -fy, by
# the same rule.
only_nameless() {
	_nl=': (Unattached inode [0-9]+|Unconnected directory inode [0-9]+ .*)$'
	_us='UNEXPECTED INCONSISTENCY|without -a or -p|not cleanly unmounted'
	_us="$_us|contains a file system with errors|  [A-Z ]+\.\$|^[[:space:]]*\$"
	grep -qE "$_nl" "$1" && ! grep -vE "$_nl|$_us" "$1" | grep -q .
}

# fsck_garbage_only OUT: what mvfs fsck printed to OUT (stdout and stderr)
# names nothing but garbage, which an interrupted change may leave, and
# its count; an fsck that could not run says so in a line of its own.
fsck_garbage_only() {
	! grep -v '(garbage)$' "$1" |
		grep -vE '^mvfs: fsck: [0-9]+ problems, [0-9]+ repaired$' |
		grep -q .
}
