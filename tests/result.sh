# SPDX-License-Identifier: GPL-2.0
#
# result.sh: the TAP counter of the host runners (tests/check.sh,
# tests/torture.sh).  Source it; `result STATUS DESC` prints "ok N - DESC"
# when STATUS is 0, else "not ok N - DESC", and counts both.
n=0 passed=0 failed=0

result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}
