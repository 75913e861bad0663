# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# powerkill.sh: the QEMU-kill rounds, sourced by tests/check.sh (its
# suite "powerkill": one round in make check, ROUNDS of them, 10 by
# default, in make torture).
#
# A round is two boots on a fresh store disk.  The first runs the guest
# suite powerkill: 10-setup makes a store, 20-ops changes it in a loop
# (a copy-up with an fsync'ed write, a check-in, an import, label and
# view changes), printing a line for each step once it is done
# (tests/guest/powerkill-lib.sh), and "started" after a first uncut
# round that times each operation.  Then the host kills QEMU (SIGKILL:
# no shutdown, no sync) at a moment drawn from SEED: the operation kind
# in turn, from a start drawn from the seed, and a delay after its next
# "begin" line from 0 to 1.2 times its uncut time, plus 0.2 s, so that
# some kills land just after it.  What the guest had not written to its
# disk is lost; what QEMU wrote stays (the host's page cache keeps it),
# as on a machine whose power fails with a disk that has no volatile
# cache.  The second boot runs the guest suite powerkill-after on the
# same disk, with the first one's record at /share: /init's e2fsck -p,
# then e2fsck -fn, mvfs fsck and the record's revisions, labels and
# views (tests/guest/powerkill-after/10-check).
#
# Each boot's console is scanned for kernel reports (the killed one's
# until the kill) and each round's disk passes e2fsck -fn at the end.
# Counted, and printed at the end: the kills that landed in the middle
# of an operation, and the boots where e2fsck -p stopped at an inode
# without a name (/init then runs e2fsck -fy: see qemu/init).
#
# Uses check.sh's top, out, kernel, initrd, timeout, run_id, genv, n,
# result, scan, new_store, tap_count and suite_end.

pk_kinds=(copyup checkin import label)

# genv_value NAME: the value check.sh -e NAME=VALUE gave, if any.
genv_value() {
	local e
	for e in "${genv[@]}"; do
		case $e in "$1="*) echo "${e#*=}" ;; esac
	done
}

# pk_watch KIND FRAC PIDFILE DIR: read the first boot's console on stdin;
# once it says "started", at the next "begin KIND", wait FRAC thousandths
# of the window (1.2 times KIND's uncut time, plus 0.2 s) and kill QEMU.
# Leaves DIR/kill ("KIND J DELAY_MS UNCUT_MS") before the kill, and
# DIR/kill-rc, kill's status, after.
pk_watch() {
	local kind=$1 frac=$2 pidfile=$3 dir=$4 line armed= ms=0 delay
	local killer=
	while IFS= read -r line; do
		case $line in
		"mvfs-pk: end $kind 1 ms="*)
			ms=${line##*ms=} ;;
		"mvfs-pk: started")
			armed=1 ;;
		"mvfs-pk: begin $kind "*)
			[ -n "$armed" ] && [ -z "$killer" ] || continue
			delay=$((frac * (ms * 12 / 10 + 200) / 1000))
			echo "$kind ${line##* } $delay $ms" > "$dir/kill"
			echo "# ${line#mvfs-pk: }: killing QEMU in $delay ms (uncut, it took $ms ms)"
			(
				sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
				kill -9 "$(cat "$pidfile")"
				echo $? > "$dir/kill-rc"
			) &
			killer=$! ;;
		esac
	done
	[ -z "$killer" ] || wait "$killer"
}

# pk_record LOG: the record lines of console LOG, without their prefix;
# a last line that the kill cut short is not one.
pk_record() {
	if [ -n "$(tail -c 1 "$1")" ]; then
		head -n -1 "$1"
	else
		cat "$1"
	fi | sed -n 's/^mvfs-pk: //p'
}

# pk_killed_boot R KIND FRAC DIR: the first boot of round R, killed in
# KIND; its results and its record in DIR/share/record.
pk_killed_boot() {
	local r=$1 kind=$2 frac=$3 dir=$4 log=$4/console-powerkill.log
	local rc j delay ms last
	echo "# round $r, boot 1: the operations, QEMU killed in $kind (console: $log)"
	"$top/qemu/boot.sh" -k "$kernel" -i "$initrd" -s "$dir/store.img" \
		-m check -b powerkill -r "$run_id" -T "$timeout" -l "$log" \
		-P "$dir/qemu.pid" "${genv[@]}" 2> "$dir/boot.err" |
		pk_watch "$kind" "$frac" "$dir/qemu.pid" "$dir"
	rc=${PIPESTATUS[0]}
	awk -v start="$n" -v counts="$out/counts" -v prefix="round $r: " \
		-v killed=powerkill/20-ops -f "$top/tests/tap.awk" < "$log"
	tap_count
	read -r kind j delay ms < "$dir/kill" 2> /dev/null
	[ "$(cat "$dir/kill-rc" 2> /dev/null)" = 0 ] && [ "$rc" != 0 ] &&
		! grep -q '^mvfs-tests-done' "$log"
	result $? "powerkill round $r: QEMU killed in $kind ${j:-(never began)}, $delay ms after it began (uncut: $ms ms; boot.sh status $rc)"
	scan "$log"
	result $? "powerkill round $r: no kernel report in the killed guest's console"
	pk_record "$log" > "$dir/share/record"
	last=$(tail -n 1 "$dir/share/record")
	case $last in
	"end "* | started | "") echo "# round $r: the kill landed between two operations, after '$last'" ;;
	*)	pk_mid=$((pk_mid + 1))
		echo "# round $r: the kill landed in the middle of $kind $j, after '$last'" ;;
	esac
	e2fsck -fn "$dir/store.img" > "$dir/e2fsck-killed.log" 2>&1
	echo "# round $r: the disk as the kill left it: e2fsck -fn status $? ($(grep -cE '^(Unattached|Unconnected directory) inode' "$dir/e2fsck-killed.log") inodes without a name)"
}

# pk_check_boot R DIR: the second boot of round R, on the same disk.
pk_check_boot() {
	local r=$1 dir=$2 log=$2/console-powerkill-after.log rc
	echo "# round $r, boot 2: the checks (console: $log)"
	"$top/qemu/boot.sh" -k "$kernel" -i "$initrd" -s "$dir/store.img" \
		-m check -b powerkill-after -r "$run_id" -T "$timeout" \
		-l "$log" -S "$dir/share" "${genv[@]}" |
		awk -W interactive -v start="$n" -v counts="$out/counts" \
			-v prefix="round $r: " -f "$top/tests/tap.awk"
	rc=${PIPESTATUS[0]}
	tap_count
	# A store that /init could not check or mount says why there.
	grep -a '^mvfs-init: ' "$log" | sed 's/^/# /'
	suite_end "powerkill round $r: powerkill-after" "$log" "$rc"
	if grep -q '^mvfs-init: e2fsck -p stopped at an inode without a name' \
		"$log"; then
		pk_nameless=$((pk_nameless + 1))
		echo "# round $r: e2fsck -p stopped at an inode without a name; /init ran e2fsck -fy"
	fi
	e2fsck -fn "$dir/store.img" > "$dir/e2fsck.log" 2>&1
	result $? "powerkill round $r: the disk passes e2fsck -fn after the second boot"
}

# powerkill_rounds: the rounds (ROUNDS, else 1), on fresh disks in
# $out/powerkill-R (removed after a round that passed).
powerkill_rounds() {
	local rounds seed start r dir kind failed0 t0
	rounds=$(genv_value ROUNDS)
	rounds=${rounds:-1}
	seed=$(genv_value SEED)
	RANDOM=$seed
	start=$((RANDOM % 4))
	pk_mid=0 pk_nameless=0
	echo "# powerkill: SEED=$seed, $rounds rounds (make check T=powerkill SEED=$seed ROUNDS=$rounds replays the choices)"
	for r in $(seq "$rounds"); do
		t0=$(date +%s) failed0=$failed
		dir=$out/powerkill-$r
		rm -rf "$dir"
		mkdir -p "$dir/share"
		new_store "$dir/store.img"
		kind=${pk_kinds[(start + r - 1) % 4]}
		pk_killed_boot "$r" "$kind" "$((RANDOM % 1000))" "$dir"
		pk_check_boot "$r" "$dir"
		[ "$failed" != "$failed0" ] || rm -f "$dir/store.img"
		echo "# round $r took $(($(date +%s) - t0))s"
	done
	echo "# powerkill: $rounds rounds; $pk_mid kills landed in the middle of an operation; e2fsck -p stopped at an inode without a name after $pk_nameless"
}
