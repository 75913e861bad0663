#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# free-port.sh: print a TCP port of the host's loopback, 20000 to 39999,
# that nothing listens on (for the link of two guests, or a console).
set -euo pipefail
while :; do
	p=$((20000 + RANDOM % 20000))
	ss -ltn | grep -q ":$p " || break
done
echo "$p"
