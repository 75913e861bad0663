# SPDX-License-Identifier: GPL-2.0
#
# lib.sh: what the torture campaigns share, on top of /tests/lib.sh (the
# TAP helpers).  A campaign is an executable file tests/torture/NAME with
# a line "# rounds: FULL CHECK" (the rounds `make torture` and `make
# check` give it); tests/guest/run exports ROUNDS and SEED to it.  Source
# this file, call torture_start, run ROUNDS rounds, end with
# done_testing.  Only the TAP lines count; everything else is a comment.
. /tests/lib.sh

# torture_start: checks ROUNDS and SEED and seeds rand.
torture_start() {
	case "$ROUNDS" in
	"" | *[!0-9]*)
		not_ok "ROUNDS='$ROUNDS' is a number of rounds (a line '# rounds: FULL CHECK' is missing?)"
		done_testing
		exit 1 ;;
	esac
	case "$SEED" in
	"" | *[!0-9]*) SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') ;;
	esac
	_rs=$((SEED % 2147483648))
	note "ROUNDS=$ROUNDS SEED=$SEED"
}

# rand N: sets R to a number from 0 to N - 1, from the seed: the same
# SEED gives the same sequence (an LCG, as rand(3) in POSIX's example).
rand() {
	_rs=$(((_rs * 1103515245 + 12345) % 2147483648))
	R=$(((_rs / 256) % $1))
}

# pick WORD...: sets R to one of the words, chosen by rand.
pick() {
	rand $#
	shift "$R"
	R=$1
}

# kmemleak_clean DESC: ok when a kmemleak scan finds no leak (nothing is
# reported younger than 5 s, hence the sleep); the leaks are shown.
kmemleak_clean() {
	_kl=/sys/kernel/debug/kmemleak
	if [ ! -w $_kl ]; then
		not_ok "$1: no $_kl (debug kernel with debugfs?)"
		return
	fi
	sleep 5
	echo scan > $_kl
	echo scan > $_kl
	cat $_kl > /tmp/.kmemleak
	if [ -s /tmp/.kmemleak ]; then
		not_ok "$1"
		head -40 /tmp/.kmemleak | sed 's/^/#   /'
	else
		ok "$1"
	fi
}
