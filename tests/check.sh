#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the host side of `make check`.
#
#   check.sh -k BZIMAGE -i INITRAMFS -o OUTDIR [-T TIMEOUT] [-t PATTERN]
#            [-s SUITES] [-B TEST_BIN_DIR] [-e NAME=VALUE]...
#
# Boots the guest once per suite (default: boot1, then boot2 on the same
# fresh store image, then two guests sharing a store over NFS (nfs_pair);
# beside them, on stores of their own, boot1b (boot 1's longest tests),
# the torture campaigns with a few rounds each, and one QEMU-kill round
# (tests/powerkill.sh: a guest killed in the middle of an operation, and
# one booted on its disk); then the host-side tests of /init and
# boot.sh, then the harness's own self-tests), streams the results as
# TAP (those of the suites run beside when they end), scans every
# console log for kernel reports, runs e2fsck -fn on the stores, and ends
# with "N passed, N failed".  The exit status is non-zero when anything
# failed.  Each -e NAME=VALUE is exported to the guest's tests (SEED,
# ROUNDS, TORTURE: see tests/guest/run); the torture suite gets a random
# SEED, printed, when none is given.
#
# PATTERN selects the guest tests whose SUITE/NAME contains it, or one
# of its |-separated alternatives (as
# tests/guest/run does), the host tests whose host/NAME contains it, and
# the self-tests when it is "harness".  A pattern that selects nothing is
# an error, not an empty success.  TEST_BIN_DIR holds the host builds of
# tests/guest/c (the host tests run manifest).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
timeout=600 pattern= suites= tbin= genv=()
while getopts k:i:o:T:t:s:B:e: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	o) out=$OPTARG ;;
	T) timeout=$OPTARG ;;
	t) pattern=$OPTARG ;;
	s) suites=$OPTARG ;;
	B) tbin=$OPTARG ;;
	e) genv+=(-e "$OPTARG") ;;
	*) exit 2 ;;
	esac
done

# Kernel reports that fail a run wherever they appear in a console log.
reports='Oops|BUG:|WARNING:|KASAN|UBSAN|Kernel panic|general protection'
reports="$reports|possible circular locking|inconsistent lock state"
reports="$reports|possible recursive locking|lock held when returning"
reports="$reports|suspicious RCU usage|unreferenced object|soft lockup"
reports="$reports|hard LOCKUP|INFO: task .* blocked|Call Trace:"

. "$top/tests/result.sh"
. "$top/tests/powerkill.sh"

new_store() {
	rm -f "$1"
	truncate -s 1G "$1"
	mke2fs -q -t ext2 -F "$1"
}

# scan LOG: print the kernel reports in LOG; true when there are none.
scan() {
	! grep -aE "$reports" "$1" | head -20 | sed 's/^/#   /' | grep .
}

# suite_end SUITE LOG RC: count a finished guest: that it ran every test
# and shut down (boot.sh's status RC), and that LOG holds no kernel report.
suite_end() {
	local suite=$1 log=$2 rc=$3
	case $rc in
	0)	grep -q '^mvfs-tests-done' "$log"
		result $? "$suite: the guest ran every test and shut down" ;;
	124)	result 1 "$suite: the guest did not finish within ${timeout}s" ;;
	*)	result 1 "$suite: the guest died (status $rc): panic or crash" ;;
	esac
	scan "$log"
	result $? "$suite: no kernel report (oops, BUG, WARNING, KASAN, lockdep, kmemleak) in the console"
}

# tap_count: add up what tests/tap.awk wrote to $out/counts.
tap_count() {
	local p f
	read -r p f < "$out/counts"
	n=$((n + p + f)) passed=$((passed + p)) failed=$((failed + f))
}

# boot SUITE STORE [BOOT_ARGS...]: boot the guest on SUITE, stream its
# TAP, count it.  suite_pattern, when set, selects its tests instead of
# PATTERN.
boot_suite() {
	local suite=$1 store=$2 log="$out/console-$1.log" rc
	shift 2
	echo "# booting the guest for $suite (console: $log)"
	"$top/qemu/boot.sh" -k "$kernel" -i "$initrd" -s "$store" -m check \
		-b "$suite" -t "${suite_pattern-$pattern}" -r "$run_id" \
		-T "$timeout" -l "$log" "${genv[@]}" "$@" |
		awk -W interactive -v start="$n" -v counts="$out/counts" \
			-f "$top/tests/tap.awk"
	rc=${PIPESTATUS[0]}
	tap_count
	suite_end "$suite" "$log" "$rc"
}

# nfs_boot CLIENT_SUITE STORE: boot two guests on STORE: a server
# (suite nfs-a: it exports STORE over NFSv4 and runs the client's
# requests) and a client (CLIENT_SUITE, its tests selected by PATTERN),
# linked by a QEMU socket on 127.0.0.1.  The client's console may ask
# the host to kill a machine: "mvfs-kill-server" (the server's QEMU, at
# once) and "mvfs-hold-until-killed" (its own, once its tests are done).
nfs_boot() {
	local suite=$1 store=$2 loga=$out/console-$1-server.log
	local logb=$out/console-$1.log pida=$out/$1-server.pid
	local pidb=$out/$1.pid killed=$out/$1-server.killed port server rc i
	local watch
	rm -f "$pida" "$pidb" "$killed" "$loga" "$logb"
	port=$("$top/qemu/free-port.sh")
	echo "# booting the NFS server nfs-a (console: $loga) for $suite, linked on 127.0.0.1:$port"
	"$top/qemu/boot.sh" -k "$kernel" -i "$initrd" -s "$store" -m check \
		-b nfs-a -r "$run_id" -T "$timeout" -l "$loga" \
		-n server -p "$port" -P "$pida" > /dev/null 2>&1 &
	server=$!
	for i in $(seq 150); do
		ss -ltn | grep -q ":$port " && break
		sleep 0.2
	done
	(
		for i in $(seq "$timeout"); do
			if [ ! -e "$killed" ] &&
			   grep -q '^mvfs-kill-server' "$logb" 2> /dev/null; then
				echo "# $suite: killing the server's QEMU, as the test asked"
				touch "$killed"
				kill -9 "$(cat "$pida")"
			fi
			if grep -q '^mvfs-hold-until-killed' "$logb" 2> /dev/null; then
				echo "# $suite: killing the client's QEMU, as its tests asked"
				kill -9 "$(cat "$pidb")"
				break
			fi
			[ ! -s "$pidb" ] || kill -0 "$(cat "$pidb")" 2> /dev/null ||
				break
			sleep 1
		done
	) &
	watch=$!
	boot_suite "$suite" "$store" -n client -p "$port" -P "$pidb"
	kill "$watch" 2> /dev/null
	wait "$watch" 2> /dev/null
	echo "# waiting for the server of $suite to finish"
	wait "$server"
	rc=$?
	if [ -e "$killed" ]; then
		[ "$rc" != 0 ] && ! grep -q '^mvfs-tests-done' "$loga"
		result $? "$suite: the server was killed, as the test asked"
		scan "$loga"
		result $? "$suite: no kernel report in the server's console until then"
		return
	fi
	awk -v start="$n" -v counts="$out/counts" -f "$top/tests/tap.awk" \
		< "$loga"
	tap_count
	suite_end "$suite: nfs-a" "$loga" "$rc"
}

# nfs_pair: the two-machine tests.  The client runs tests/guest/nfs-b
# against a fresh store; then, on another, the server is killed in the
# middle of the client's import (nfs-crash), and both boot again on that
# disk (nfs-after) to check the store.
nfs_pair() {
	local store=$out/nfs-store.img crash=$out/nfs-crash.img
	if suite_tests nfs-b | grep -F -- "$patterns" > /dev/null; then
		new_store "$store"
		nfs_boot nfs-b "$store"
		e2fsck -fn "$store" > "$out/nfs-e2fsck.log" 2>&1
		result $? "nfs: the shared store's disk passes e2fsck -fn after the boots"
	fi
	suite_tests nfs-crash | grep -F -- "$patterns" > /dev/null || return
	new_store "$crash"
	nfs_boot nfs-crash "$crash"
	# Whatever the pattern: it checks what nfs-crash did.
	suite_pattern='' nfs_boot nfs-after "$crash"
	e2fsck -fn "$crash" > "$out/nfs-crash-e2fsck.log" 2>&1
	result $? "nfs: the disk of the server killed mid-import passes e2fsck -fn after the next boot"
}

# selftest NAME TIMEOUT EXPECT...: run check.sh on a harness self-test
# suite and require that it fails and prints each EXPECT pattern.
selftest() {
	local suite=$1 t=$2 log="$out/selftest-$1.out" rc
	shift 2
	echo "# harness self-test: $suite (output: $log)"
	"$0" -k "$kernel" -i "$initrd" -o "$out/$suite" -T "$t" -s "$suite" \
		> "$log" 2>&1
	rc=$?
	[ $rc != 0 ]
	result $? "harness: $suite makes the run fail (exit status $rc)"
	for want in "$@"; do
		grep -qE "$want" "$log"
		result $? "harness: $suite is reported: /$want/"
	done
}

# suite_tests SUITE: the tests of SUITE, as SUITE/NAME, one a line: the
# executable files that tests/guest/run would run.
suite_tests() {
	local t dir=$top/tests/guest/$1
	[ "$1" != torture ] || dir=$top/tests/torture
	for t in "$dir"/*; do
		[ -f "$t" ] && [ -x "$t" ] && echo "$1/${t##*/}"
	done
}

# selected NAME: true when PATTERN (empty: everything) selects NAME.
selected() {
	local p
	[ -n "$pattern" ] || return 0
	while IFS= read -r p; do
		case "$1" in *"$p"*) return 0 ;; esac
	done <<< "$patterns"
	return 1
}

# guest_cmd STORE LOG CMD [SHARE]: boot the guest on STORE, run CMD, keep
# the console in LOG; prints boot.sh's exit status.
guest_cmd() {
	local rc
	MVFS_SHARE=${4:-} "$top/qemu/boot.sh" -k "$kernel" -i "$initrd" \
		-s "$1" -m cmd -T "$timeout" -l "$2" -c "$3" > /dev/null 2>&1
	rc=$?
	echo "$rc"
}

# fsck_store IMG DEBUGFS_CMDS: a fresh store disk, with a file "f1" and
# a file "f2" on it, changed by DEBUGFS_CMDS and then marked as not
# cleanly unmounted, as after a crash (e2fsck -p skips a clean disk).
fsck_store() {
	new_store "$1"
	printf 'write %s f1\nwrite %s f2\n%s\nssv state 0\n' \
		"$top/README.md" "$top/Makefile" "$2" |
		debugfs -w -f - "$1" > "$1.debugfs" 2>&1
}

# host/e2fsck-repair: /init runs e2fsck -p on the store disk before
# mounting it, and a disk that e2fsck -p can repair boots.
host_e2fsck_repair() {
	local img=$out/host-e2fsck-repair.img log=$out/console-host-e2fsck-repair.log rc
	echo "# host/e2fsck-repair: a store disk with a wrong link count (console: $log)"
	fsck_store "$img" 'sif f1 links_count 5'
	e2fsck -fn "$img" > /dev/null 2>&1
	[ $? -ge 4 ]
	result $? "host/e2fsck-repair: the disk has the error before the boot"
	rc=$(guest_cmd "$img" "$log" 'echo "mvfs-links=$(stat -c %h /var/lib/mvfs/f1)"')
	result "$rc" "host/e2fsck-repair: the guest boots and runs the command (status $rc)"
	grep -q '^mvfs-init: e2fsck -p fixed the store disk (status 1)' "$log"
	result $? "host/e2fsck-repair: /init says that e2fsck -p fixed it"
	grep -q '^mvfs-links=1$' "$log"
	result $? "host/e2fsck-repair: the store was mounted after the repair"
	e2fsck -fn "$img" > "$img.e2fsck" 2>&1
	result $? "host/e2fsck-repair: the disk passes e2fsck -fn after the boot"
	scan "$log"
	result $? "host/e2fsck-repair: no kernel report in the console"
}

# host/e2fsck-refuse: a store disk that e2fsck -p cannot repair (a block
# claimed by two files) fails the boot with a message, unmounted.
host_e2fsck_refuse() {
	local img=$out/host-e2fsck-refuse.img log=$out/console-host-e2fsck-refuse.log rc b
	echo "# host/e2fsck-refuse: a store disk with a doubly claimed block (console: $log)"
	fsck_store "$img" ''
	b=$(debugfs -R 'bmap f1 0' "$img" 2>/dev/null)
	debugfs -w -R "sif f2 block[0] $b" "$img" > /dev/null 2>&1
	e2fsck -fn "$img" > /dev/null 2>&1
	[ $? -ge 4 ]
	result $? "host/e2fsck-refuse: the disk has the error before the boot"
	rc=$(guest_cmd "$img" "$log" 'echo mvfs-command-ran')
	[ "$rc" = 125 ]
	result $? "host/e2fsck-refuse: the boot fails (status $rc, want 125)"
	grep -q '^mvfs-init: e2fsck -p /dev/vda exited with status 4' "$log"
	result $? "host/e2fsck-refuse: /init says why"
	grep -q 'e2fsck: .*UNEXPECTED INCONSISTENCY' "$log"
	result $? "host/e2fsck-refuse: e2fsck's own account is on the console"
	! grep -q '^mvfs-command-ran' "$log"
	result $? "host/e2fsck-refuse: the command did not run"
	scan "$log"
	result $? "host/e2fsck-refuse: no kernel report in the console"
}

# host/e2fsck-nameless: a store disk with an inode that no entry names,
# as a power cut can leave on ext2: e2fsck -p stops there, /init says so
# and runs e2fsck -fy, which links it into lost+found, and the boot goes
# on.
host_e2fsck_nameless() {
	local img=$out/host-e2fsck-nameless.img log=$out/console-host-e2fsck-nameless.log rc
	echo "# host/e2fsck-nameless: a store disk with an unattached inode (console: $log)"
	# debugfs's unlink removes the entry and leaves the inode as it is.
	fsck_store "$img" 'unlink f1'
	e2fsck -fn "$img" > "$img.before" 2>&1
	[ $? -ge 4 ] && grep -q '^Unattached inode' "$img.before"
	result $? "host/e2fsck-nameless: the disk has an unattached inode before the boot"
	rc=$(guest_cmd "$img" "$log" 'cat /tmp/e2fsck.status
for f in /var/lib/mvfs/lost+found/*; do echo "mvfs-found=$(stat -c %s "$f")"; done
echo "mvfs-f2=$(stat -c %s /var/lib/mvfs/f2)"')
	result "$rc" "host/e2fsck-nameless: the guest boots and runs the command (status $rc)"
	grep -q '^mvfs-init: e2fsck -p stopped at an inode without a name (status 4)' "$log" &&
		grep -q '^mvfs-init: e2fsck -fy fixed the store disk (status 1)' "$log"
	result $? "host/e2fsck-nameless: /init says that e2fsck -p stopped there and e2fsck -fy fixed it"
	grep -qx "mvfs-found=$(stat -c %s "$top/README.md")" "$log" &&
		grep -qx "mvfs-f2=$(stat -c %s "$top/Makefile")" "$log"
	result $? "host/e2fsck-nameless: the file is in lost+found, the other in place"
	e2fsck -fn "$img" > "$img.e2fsck" 2>&1
	result $? "host/e2fsck-nameless: the disk passes e2fsck -fn after the boot"
	scan "$log"
	result $? "host/e2fsck-nameless: no kernel report in the console"
}

# share_tree DIR: a folder with what a listing can miss: dot-files, odd
# names, every file type a folder can share, modes, owners, empty ones.
share_tree() {
	local d=$1
	rm -rf "$d"
	mkdir -p "$d/.hidden-dir/sub" "$d/empty-dir" "$d/-dash" "$d/ünï cödé"
	echo dot > "$d/.hidden"
	echo inner > "$d/.hidden-dir/.inner"
	echo deeper > "$d/.hidden-dir/sub/file"
	echo dots > "$d/..two-dots"
	echo three > "$d/..."
	: > "$d/empty"
	echo "spaces" > "$d/name with  spaces"
	echo "quotes" > "$d/it's \"quoted\" \\ *?"
	echo utf8 > "$d/ünï cödé/日本語"
	head -c 1048579 /dev/urandom > "$d/-dash/odd-MiB"
	printf '%0255d' 0 > "$d/$(printf 'n%.0s' $(seq 255))"
	ln -s .hidden "$d/link-to-dot"
	ln -s nowhere/at/all "$d/dangling"
	ln "$d/.hidden" "$d/hard-link"
	mkfifo "$d/fifo"
	chmod 4755 "$d/.hidden-dir/sub/file"
	chmod 0000 "$d/empty"
	chmod 1777 "$d/empty-dir"
	[ "$(id -u)" != 0 ] || chown -h 1000:1001 "$d/ünï cödé/日本語" "$d/dangling"
	touch -d '2100-01-01 00:00:00.123456789' "$d/..."
}

# host/share-9p: MVFS_SHARE=DIR shows DIR at /share, read-only, over
# virtio-9p: the guest's manifest of /share equals the host's of DIR.
host_share() {
	local dir=$out/share-src img=$out/host-share.img log=$out/console-host-share.log rc
	echo "# host/share-9p: MVFS_SHARE (console: $log)"
	if [ ! -x "$tbin/manifest" ]; then
		result 1 "host/share-9p: no host manifest (check.sh -B TEST_BIN_DIR)"
		return
	fi
	share_tree "$dir"
	"$tbin/manifest" "$dir" > "$out/share.want"
	result $? "host/share-9p: manifest of the host folder"
	new_store "$img"
	rc=$(guest_cmd "$img" "$log" 'awk '\''$2 == "/share" { print "mvfs-share-mount", $3, $4 }'\'' /proc/mounts
echo mvfs-share-begin
/tests/bin/manifest /share
echo "mvfs-share-end $?"
if touch /share/new 2> /dev/null; then echo mvfs-share-writable; fi' "$dir")
	result "$rc" "host/share-9p: the guest boots with the share (status $rc)"
	grep -qE '^mvfs-share-mount 9p ro,' "$log"
	result $? "host/share-9p: /share is a read-only 9p mount"
	sed -n '/^mvfs-share-begin$/,/^mvfs-share-end /p' "$log" |
		sed '1d;$d' > "$out/share.got"
	grep -q '^mvfs-share-end 0$' "$log"
	result $? "host/share-9p: the guest read all of /share"
	cmp -s "$out/share.want" "$out/share.got"
	result $? "host/share-9p: every name, type, mode, owner, size, mtime and content match the host's"
	diff "$out/share.want" "$out/share.got" | head -10 | sed 's/^/#   /'
	! grep -q '^mvfs-share-writable' "$log" && [ ! -e "$dir/new" ]
	result $? "host/share-9p: the guest cannot write to it"
	scan "$log"
	result $? "host/share-9p: no kernel report in the console"
}

# Enough for the tests, small enough for kmemleak's scan to stay quick.
export MVFS_MEM=${MVFS_MEM:-1024}
mkdir -p "$out"
run_id=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
default=
if [ -z "$suites" ]; then
	default=1
	suites="boot1 boot2 nfs-b boot1b torture powerkill"
fi
case " ${genv[*]} " in
*" SEED="*) ;;
*) genv+=(-e "SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')") ;;
esac
host_tests=
[ -z "$default" ] ||
	host_tests="host/e2fsck-repair host/e2fsck-refuse host/e2fsck-nameless host/share-9p"

# T='A|B' selects what contains A or B: one alternative a line, for grep.
patterns=${pattern//|/$'\n'}

# What the pattern selects; nothing at all is an error.
run_suites= run_host= run_harness=
for suite in $suites; do
	# grep reads it all: -q would stop early, and pipefail see SIGPIPE.
	if { suite_tests "$suite"
	     [ "$suite" != nfs-b ] || suite_tests nfs-crash
	     [ "$suite" != powerkill ] || suite_tests powerkill-after; } |
		grep -F -- "$patterns" > /dev/null; then
		run_suites="$run_suites $suite"
	fi
done
for t in $host_tests; do
	selected "$t" && run_host="$run_host $t"
done
if [ -n "$default" ] && { [ -z "$pattern" ] || [ "$pattern" = harness ]; }; then
	run_harness=1
fi
if [ -z "$run_suites$run_host$run_harness" ]; then
	echo "check.sh: no test matches T='$pattern': it selects guest tests" \
	     "by SUITE/NAME ($suites), host tests by host/NAME, and the" \
	     "self-tests by 'harness'" >&2
	echo "0 passed, 0 failed: nothing matched"
	exit 1
fi

# The machine has two cores and a guest's tests keep one busy: the
# suites of their own stores run beside the others, as a second run of
# this script (its output in side.out), whose results are counted here
# when it ends.
side= main=
for suite in $run_suites; do
	case $suite in
	boot1b | torture | powerkill) side="$side $suite" ;;
	*) main="$main $suite" ;;
	esac
done
side_pid=
if [ -n "$side" ] && [ -n "$main" ]; then
	echo "# running${side} beside${main} (output: $out/side.out)"
	"$0" -k "$kernel" -i "$initrd" -o "$out/side" -T "$timeout" \
		-t "$pattern" -s "${side# }" ${tbin:+-B "$tbin"} "${genv[@]}" \
		> "$out/side.out" 2>&1 &
	side_pid=$!
	run_suites=$main
fi

new_store "$out/store.img"
new_store "$out/store-torture.img"
for suite in $run_suites; do
	case $suite in
	nfs-b) nfs_pair ;;
	powerkill) powerkill_rounds ;;
	torture)
		echo "# torture:$(printf ' %s' "${genv[@]}" | sed 's/ -e / /g')" \
			"(make check T=torture SEED=N replays a run)"
		boot_suite "$suite" "$out/store-torture.img"
		e2fsck -fn "$out/store-torture.img" > "$out/e2fsck-torture.log" 2>&1
		result $? "torture: its store image passes e2fsck -fn afterwards" ;;
	*) boot_suite "$suite" "$out/store.img" ;;
	esac
done
case " $run_suites " in *" boot"*)
	e2fsck -fn "$out/store.img" > "$out/e2fsck.log" 2>&1
	result $? "the store image passes e2fsck -fn after the boots" ;;
esac
if [ -n "$side_pid" ]; then
	echo "# waiting for${side}"
	wait "$side_pid"
	side_rc=$?
	# Its results, counted here (renumbered), and its notes.
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*" - "*) result 0 "${line#* - }" ;;
		"not ok "[0-9]*" - "*) result 1 "${line#* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$out/side.out"
	grep -qE '^[0-9]+ passed, 0 failed$' "$out/side.out"
	result $? "the suites run beside (${side# }) ended, every test passed (exit status $side_rc)"
fi
for t in $run_host; do
	case $t in
	host/e2fsck-repair) host_e2fsck_repair ;;
	host/e2fsck-refuse) host_e2fsck_refuse ;;
	host/e2fsck-nameless) host_e2fsck_nameless ;;
	host/share-9p) host_share ;;
	esac
done
if [ -n "$run_harness" ]; then
	selftest selftest-fail "$timeout" \
		'not ok [0-9]+ - selftest-fail/01-fails: deliberate failure' \
		'[0-9]+ passed, 1 failed'
	selftest selftest-warn "$timeout" \
		'not ok [0-9]+ - selftest-warn: no kernel report' 'WARNING:'
	selftest selftest-panic "$timeout" \
		'selftest-panic/01-panic: did not finish' \
		'selftest-panic: the guest died' 'Kernel panic'
	selftest selftest-hang 25 \
		'selftest-hang: the guest did not finish within 25s'
	# A pattern that selects nothing fails at once, without a boot.
	echo "# harness self-test: a pattern that matches no test"
	"$0" -k "$kernel" -i "$initrd" -o "$out/selftest-nomatch" \
		-t no-such-test-anywhere > "$out/selftest-nomatch.out" 2>&1
	rc=$?
	[ $rc != 0 ]
	result $? "harness: T=no-such-test-anywhere makes the run fail (exit status $rc)"
	grep -q '^0 passed, 0 failed: nothing matched$' "$out/selftest-nomatch.out"
	result $? "harness: ... and says that nothing matched"
fi
echo "1..$n"
echo "# console logs in $out"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$n" -gt 0 ]
