# SPDX-License-Identifier: GPL-2.0
# Sourced by nfs-a/00-serve when the client asked for a take-over: it
# started view "held" and holds the writers' lock (nfs-b/90-die), and
# the host kills it.  A dead machine's lease and lock go with its NFSv4
# lease (15 s here: qemu/init), so that this machine can then start the
# view and write.  Times are in seconds from the client's death.
#
# The death is taken at the first unanswered ping, so that startview tries
# well within the lease (waiting for three, 6 s or more, once took longer
# than the lease on a loaded host, and the refusal was missed).  A ping
# lost to load only makes that try come while the client still lives,
# when it must be refused all the same; the client is then seen gone.
wait_gone 10.0.0.2 1 || not_ok "the client still answers after 600 s"
t0=$(cut -d. -f1 /proc/uptime)
mvfs startview held > /tmp/to.err 2>&1
check_eq "right after its death, startview of its view is refused" 1 $?
check "naming it" grep -q "started on machine nfs-b" /tmp/to.err
sed 's/^/#   /' /tmp/to.err
check "the client is gone" wait_gone 10.0.0.2
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
# (A view made, not a label: a store with no revision yet, as under
# T=nfs-b/90 alone, has nothing to label.)
check "the writers' lock it held comes free: a view is made" \
	mvfs --wait 120 mkview taken --latest
note "the lock came free $(($(cut -d. -f1 /proc/uptime) - t0)) s after its death"
check "the store is consistent (mvfs fsck)" mvfs fsck
check "the view ends here" mvfs endview held
check "the view made is removed" mvfs rmview taken
