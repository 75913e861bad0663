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
