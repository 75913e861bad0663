# SPDX-License-Identifier: GPL-2.0
#
# tap.awk: read a guest console, print its test results as TAP numbered
# from start+1, and write "PASSED FAILED" to the file `counts`.
#
# Only lines between "mvfs-test-begin T" and "mvfs-test-end T RC" count;
# other lines inside a test are shown as TAP comments.  A test that reports
# nothing, exits non-zero with no failure, or never ends is a failure, and
# so is a skip: nothing unrun is counted as passed.  One exception: the
# test named by `killed` is cut off by the host, which kills the machine
# in its middle (tests/powerkill.sh): its end never comes, and that is
# no failure (the host checks that it sent the kill).  `prefix` is put
# before each description (a round's number).

function result(good, desc) {
	n++
	if (good) {
		passed++
		print "ok " n " - " prefix desc
	} else {
		failed++
		print "not ok " n " - " prefix desc
	}
	fflush()
}

BEGIN { n = start + 0; test = "" }

/^mvfs-test-begin / { test = $2; seen = 0; bad = 0; next }

/^mvfs-test-end / {
	if (!seen)
		result(0, test ": reported no result (exit status " $3 ")")
	else if ($3 != 0 && !bad)
		result(0, test ": exited with status " $3)
	test = ""
	next
}

test != "" && /^(not )?ok( |$)/ {
	good = ($1 == "ok")
	desc = $0
	sub(/^(not )?ok */, "", desc)
	sub(/^[0-9]+ */, "", desc)
	sub(/^- */, "", desc)
	if (desc ~ /# *[Ss][Kk][Ii][Pp]/) {
		good = 0
		desc = desc " (a skip counts as a failure)"
	}
	seen = 1
	if (!good)
		bad = 1
	result(good, test ": " desc)
	next
}

test != "" { print "# " $0; fflush(); next }

END {
	if (test != "" && test != killed)
		result(0, test ": did not finish (the guest died or hung)")
	print passed + 0, failed + 0 > counts
}
