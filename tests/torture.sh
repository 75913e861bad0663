#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# torture.sh: the host side of `make torture`.
#
#   torture.sh -k BZIMAGE -i INITRAMFS -I BROKEN_INITRAMFS -o OUTDIR
#              [-T TIMEOUT] [-t PATTERN] [-e NAME=VALUE]...
#
# Runs each campaign of tests/torture (the executable files there) whose
# name contains PATTERN at full length, each in a debug guest of its own
# on a fresh store (through tests/check.sh -s torture, so that each boot
# is judged as make check judges one: every test reported, the guest
# finished, no kernel report, e2fsck -fn clean afterwards).  Then, unless
# PATTERN excludes "powerkill", the QEMU-kill rounds (check.sh -s
# powerkill, tests/powerkill.sh: two boots a round, the first killed by
# the host; 10 rounds).  Then, unless PATTERN excludes "broken-fsync",
# the proof that the power-cut campaign can fail: BROKEN_INITRAMFS holds
# tools built without the syncfs before a revision's commit, and the
# campaign must report lost revisions there.
#
# The seed (-e SEED=N, else a random one) is printed first: the same seed
# replays the same cuts, mutations and orders.  -e ROUNDS=N gives every
# campaign N rounds instead of its own default.  Ends with "N passed, N
# failed"; the exit status is non-zero when anything failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
timeout=14400 pattern= genv=() seed= broken= rounds=
while getopts k:i:I:o:T:t:e: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	I) broken=$OPTARG ;;
	o) out=$OPTARG ;;
	T) timeout=$OPTARG ;;
	t) pattern=$OPTARG ;;
	e) case $OPTARG in
	   SEED=*) seed=${OPTARG#SEED=} ;;
	   ROUNDS=*) rounds=${OPTARG#ROUNDS=}
		genv+=(-e "$OPTARG") ;;
	   *) genv+=(-e "$OPTARG") ;;
	   esac ;;
	*) exit 2 ;;
	esac
done
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')

. "$top/tests/result.sh"

# campaign NAME OUT INITRD ENV...: one boot of check.sh on campaign NAME;
# its TAP renumbered after ours, its counts left in OUT.counts, its whole
# output kept in OUT.log.  ENV may begin with check.sh's -s SUITES (the
# torture suite, else).
campaign() {
	local name=$1 dir=$2 ird=$3 sel=(-s torture -t "torture/$1")
	shift 3
	[ "${1:-}" != -s ] || { sel=(-s "$2"); shift 2; }
	"$top/tests/check.sh" -k "$kernel" -i "$ird" -o "$dir" -T "$timeout" \
		"${sel[@]}" -e "SEED=$seed" "$@" 2>&1 |
		tee "$dir.log" | awk -W interactive -v start="$n" -v counts="$dir.counts" '
		/^(not )?ok [0-9]+ / {
			good = ($1 == "ok")
			sub(/^(not )?ok [0-9]+ /, "")
			k++
			if (good) p++; else f++
			print (good ? "ok " : "not ok ") start + k " " $0
			fflush()
			next
		}
		/^1\.\.[0-9]+$/ || /^[0-9]+ passed, [0-9]+ failed/ { next }
		{ print; fflush() }
		END { print p + 0, f + 0 > counts }'
}

# add_counts FILE: take up the counts campaign() left in FILE.
add_counts() {
	local p f
	read -r p f < "$1" || { p=0 f=1; }
	n=$((n + p + f)) passed=$((passed + p)) failed=$((failed + f))
}

mkdir -p "$out"
echo "# torture: SEED=$seed (make torture SEED=$seed replays this run)"
ran=
for c in "$top"/tests/torture/*; do
	[ -f "$c" ] && [ -x "$c" ] || continue
	name=${c##*/}
	case "$name" in *"$pattern"*) ;; *) continue ;; esac
	ran=1
	t0=$(date +%s)
	echo "# campaign $name (output: $out/$name.log)"
	campaign "$name" "$out/$name" "$initrd" -e TORTURE=full "${genv[@]}"
	add_counts "$out/$name.counts"
	echo "# campaign $name took $(($(date +%s) - t0))s"
done

# The QEMU-kill rounds: two boots each, orchestrated by check.sh.
case powerkill in *"$pattern"*)
	ran=1
	t0=$(date +%s)
	echo "# campaign powerkill (output: $out/powerkill.log)"
	if [ -n "$rounds" ]; then
		campaign powerkill "$out/powerkill" "$initrd" -s powerkill \
			-e TORTURE=full "${genv[@]}"
	else
		campaign powerkill "$out/powerkill" "$initrd" -s powerkill \
			-e TORTURE=full -e ROUNDS=10 "${genv[@]}"
	fi
	add_counts "$out/powerkill.counts"
	echo "# campaign powerkill took $(($(date +%s) - t0))s"
	;;
esac

# The proof that a power cut is caught: the broken tools lose revisions
# that they reported committed, and the campaign must say so.
case broken-fsync in *"$pattern"*)
	ran=1
	echo "# broken-fsync: the power-cut campaign on tools that skip a syncfs"
	campaign powercut "$out/broken-fsync" "$broken" -e TORTURE=full \
		-e ROUNDS=3 -e POWERCUT_OPS=import -e BIG_MB=4 > /dev/null
	read -r p f < "$out/broken-fsync.counts" || f=0
	[ "${f:-0}" -gt 0 ]
	result $? "broken-fsync: the power-cut campaign fails on tools that skip the syncfs before a commit ($f failures)"
	grep -aE 'not ok .*: round [0-9]+ \(import\): ' "$out/broken-fsync.log" |
		head -5 | sed 's/^/#   /' | grep .
	result $? "broken-fsync: a round after a cut is what fails"
	;;
esac

if [ -z "$ran" ]; then
	echo "torture.sh: no campaign matches T='$pattern'" >&2
	echo "0 passed, 0 failed: nothing matched"
	exit 1
fi
echo "1..$n"
echo "# logs in $out"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$n" -gt 0 ]
