# SPDX-License-Identifier: GPL-2.0
#
# nfs-lib.sh: what the two-machine tests share.  The client (nfs-b,
# 10.0.0.2) runs the tests of tests/guest/nfs-b and asks the server
# (nfs-a, 10.0.0.1) to run commands there with on_a; nfs-a/00-serve
# answers them.  Both mount the same store at /var/lib/mvfs: the
# server's own disk, exported, and the client's NFSv4 mount of it.
. /tests/lib.sh
NFS_PORT=5000

# on_a CMD...: run the shell command line CMD on the server; its output
# (stdout and stderr) on stdout, its exit status as ours (125 when the
# server did not answer).
on_a() {
	printf '%s\n' "$*" | nc 10.0.0.1 "$NFS_PORT" > /tmp/.on_a 2>&1
	_rc=$(sed -n 's/^mvfs-rc=//p' /tmp/.on_a | tail -n 1)
	sed '/^mvfs-rc=/d' /tmp/.on_a
	[ -n "$_rc" ] || return 125
	return "$_rc"
}

# wait_server: wait (up to 120 s) until the server answers.
wait_server() {
	for _i in $(seq 120); do
		on_a true > /dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

# stuck WHAT: something that should have ended did not: show the blocked
# tasks' stacks on the console (the run fails on them: a hang is a bug).
stuck() {
	not_ok "$1 did not end: the blocked tasks follow"
	echo w > /proc/sysrq-trigger
}

# wait_gone ADDR [LOST]: wait (up to 600 s) until the machine at ADDR
# stops answering: LOST pings in a row unanswered (default 3: one may be
# lost to load).
wait_gone() {
	_lost=0
	for _i in $(seq 600); do
		if ping -c 1 -W 2 "$1" > /dev/null 2>&1; then
			_lost=0
			sleep 1
		else
			_lost=$((_lost + 1))
			[ "$_lost" -ge "${2:-3}" ] && return 0
		fi
	done
	return 1
}
