# SPDX-License-Identifier: GPL-2.0
#
# logwrites.sh: every state a power cut can leave an operation in, one by
# one, sourced after lib.sh.  A store on a dm-log-writes device (as
# fstests' generic/482 does), which logs each write the disk completed,
# in that order, up to each flush (what a power cut keeps is a prefix of
# that log); an operation is logged between two marks; then each prefix
# from the first mark to the second is replayed (logreplay) onto a copy
# of the disk as it was before, e2fsck'ed, mounted, and checked.
#
#	lw_setup DIR	a 16 MiB ext2 disk mounted at DIR/m (LW_M), the
#			store LW_S=DIR/m/s to be made there; with the
#			ext_attr feature, as e2fsprogs' mke2fs makes a store
#			disk (busybox's does not: the first xattr then sets
#			it, in a superblock written after the inode)
#	lw_start	logging starts: the disk is kept as it is, put under
#			dm-log-writes and mounted again, the first mark set
#	lw_end		the second mark, logging ends; LW_FIRST and LW_LAST
#			are the prefixes to replay (counted in entries)
#	lw_each FN	for each of those prefixes: replay it, e2fsck it
#			(-p, or -fy after an inode without a name only, as
#			qemu/init does; then -fn must be clean), mount it at
#			LW_M and run FN N, which prints what is wrong (or
#			nothing); LW_BAD is set to the number of prefixes
#			found wrong, each noted with its last entry
#	lw_done		the loop devices go (and the log device, the mount,
#			if a failure left them)
export DM_DISABLE_UDEV=1
LW_DM=mvfslw

lw_setup() {
	LW_T=$1
	LW_M=$1/m
	LW_S=$1/m/s
	mkdir -p "$LW_M" &&
		dd if=/dev/zero of="$LW_T/disk" bs=1M count=16 2> /dev/null &&
		dd if=/dev/zero of="$LW_T/log" bs=1M count=32 2> /dev/null &&
		LW_DISK=$(losetup -f) && losetup "$LW_DISK" "$LW_T/disk" &&
		LW_LOG=$(losetup -f) && losetup "$LW_LOG" "$LW_T/log" &&
		mke2fs -q -F "$LW_DISK" &&
		debugfs -w -R "feature ext_attr" "$LW_DISK" > /dev/null 2>&1 &&
		mount -t ext2 "$LW_DISK" "$LW_M"
}

lw_start() {
	dmsetup remove $LW_DM 2> /dev/null
	umount "$LW_M" && cp "$LW_T/disk" "$LW_T/base" &&
		dmsetup create $LW_DM --table \
			"0 $((16 * 2048)) log-writes $LW_DISK $LW_LOG" &&
		mount -t ext2 /dev/mapper/$LW_DM "$LW_M" &&
		dmsetup message $LW_DM 0 mark start
}

lw_end() {
	# ext2's sync sends no cache flush, and writes are logged at a flush.
	sync /dev/mapper/$LW_DM && dmsetup message $LW_DM 0 mark end &&
		umount "$LW_M" &&
		dmsetup remove $LW_DM &&
		logreplay -l "$LW_LOG" > "$LW_T/entries" || return 1
	LW_FIRST=$(awk '$4 == "M" && $5 == "start" { print $1 + 1 }' \
		"$LW_T/entries")
	LW_LAST=$(awk '$4 == "M" && $5 == "end" { print $1 }' "$LW_T/entries")
	[ -n "$LW_FIRST" ] && [ -n "$LW_LAST" ] &&
		[ "$LW_LAST" -gt "$LW_FIRST" ]
}

# lw_fsck IMAGE: repaired as qemu/init would, then clean.
lw_fsck() {
	e2fsck -p "$1" > "$LW_T/fsck" 2>&1
	if [ $? -ge 4 ]; then
		only_nameless "$LW_T/fsck" || return 1
		e2fsck -fy "$1" > "$LW_T/fsck" 2>&1
		[ $? -lt 4 ] || return 1
	fi
	e2fsck -fn "$1" > "$LW_T/fsck" 2>&1
}

# lw_state FN N: what is wrong after the first N entries reached the disk.
lw_state() {
	cp "$LW_T/base" "$LW_T/rep" && logreplay "$LW_LOG" "$LW_T/rep" "$2" ||
		{ echo "the replay failed"; return; }
	lw_fsck "$LW_T/rep" ||
		{ echo "e2fsck: $(grep -v '^$' "$LW_T/fsck" | head -3 | tr '\n' ' ')"; return; }
	_lw=$(losetup -f) && losetup "$_lw" "$LW_T/rep" ||
		{ echo "no loop device"; return; }
	if mount -t ext2 "$_lw" "$LW_M"; then
		"$1" "$2"
		umount "$LW_M" || echo "ext2 does not unmount"
	else
		echo "ext2 does not mount"
	fi
	losetup -d "$_lw"
}

lw_each() {
	LW_BAD=0
	[ -n "$LW_FIRST" ] && [ -n "$LW_LAST" ] || { LW_BAD=1; return; }
	_lwn=$LW_FIRST
	while [ "$_lwn" -le "$LW_LAST" ]; do
		_why=$(lw_state "$1" "$_lwn")
		if [ -n "$_why" ]; then
			note "after entry $((_lwn - 1)) ($(sed -n \
				"$((_lwn + 1))p" "$LW_T/entries")): $_why"
			LW_BAD=$((LW_BAD + 1))
		fi
		_lwn=$((_lwn + 1))
	done
}

lw_done() {
	umount "$LW_M" 2> /dev/null
	dmsetup remove $LW_DM 2> /dev/null
	losetup -d "$LW_DISK"
	losetup -d "$LW_LOG"
}
