# SPDX-License-Identifier: GPL-2.0
#
# spec.sh: helpers for the tests of config specs (boot1/70-79), sourced
# after lib.sh.  Each test has a store of its own (SS, in /tmp) mounted
# at SV, made with the tools in format 2 and then made format 3 by cs3 (a
# test tool that writes format 3 byte by byte), so that what the module
# shows under a spec is tested apart from the tools' commands.

# spec_store DIR: an empty format 2 store DIR/s mounted at DIR/v; sets SS
# and SV.
spec_store() {
	SS=$1/s
	SV=$1/v
	mkdir -p "$SV"
	tmvfs init --format 2 > /dev/null &&
		mount -t mvfs -o store="$SS" none "$SV"
}

# tmvfs ARGS...: the mvfs command on the test's store and mount.
tmvfs() {
	MVFS_STORE_DIR=$SS MVFS_VIEW_ROOT=$SV mvfs "$@"
}

# treload: tell the test's mount to read its store again.
treload() {
	MVFS_ROOT=$SV mvioc reload > /dev/null
}

# spec_set TAG TEXT: view TAG's config spec becomes TEXT (printf'd), and
# the mount reads it.
spec_set() {
	printf "$2" > "$SS.cs"
	cs3 "$SS" setcs "$1" "$SS.cs" && treload
}

# spec_done: unmount the test's store.
spec_done() {
	umount "$SV"
}
