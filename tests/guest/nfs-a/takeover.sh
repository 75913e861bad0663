# SPDX-License-Identifier: GPL-2.0
# Sourced by nfs-a/00-serve when the client asked for a take-over: it
# started view "held" and holds the writers' lock (nfs-b/90-die), and
# the host kills it.  A dead machine's lease and lock go with its NFSv4
# lease (15 s here: qemu/init), so that this machine can then start the
# view and write.  Times are in seconds from the client's death.
check "the client is gone" wait_gone 10.0.0.2
t0=$(cut -d. -f1 /proc/uptime)
mvfs startview held > /tmp/to.err 2>&1
check_eq "right after its death, startview of its view is refused" 1 $?
check "naming it" grep -q "started on machine nfs-b" /tmp/to.err
sed 's/^/#   /' /tmp/to.err
took=
for _i in $(seq 120); do
	if mvfs startview held > /tmp/to.err 2>&1; then
		took=$(($(cut -d. -f1 /proc/uptime) - t0))
		break
	fi
	sleep 1
done
check "its view can be started here once its lease expired (${took:-never} s)" \
	test -n "$took"
t1=$(cut -d. -f1 /proc/uptime)
check "the writers' lock it held comes free: a label is made" \
	mvfs --wait 120 label TAKEN 1
note "the lock came free $(($(cut -d. -f1 /proc/uptime) - t0)) s after its death"
check "the store is consistent (mvfs fsck)" mvfs fsck
check "the view ends here" mvfs endview held
