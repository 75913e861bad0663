# SPDX-License-Identifier: GPL-2.0
#
# work.sh: helpers for the tests of work in a view (boot1/31-39); source
# it after lib.sh.

# mkview_rw TAG [MKVIEW ARGS]: mvfs mkview, which must make the view's
# private area.
mkview_rw() {
	_tag=$1
	shift
	mvfs mkview "$_tag" "$@" &&
		[ -d "$STORE/views/$_tag/upper" ] &&
		[ -d "$STORE/views/$_tag/work" ]
}

# remount_view: mount /view again, so that it finds views/ made above.
remount_view() {
	umount /view &&
		mount -t mvfs -o nosuid,nodev,store=$STORE none /view
}

# run_cmd OUT ERR CMD...: run CMD with its output in files; its status.
run_cmd() {
	_out=$1
	_err=$2
	shift 2
	"$@" > "$_out" 2> "$_err"
}

# check_status DESC WANT CMD...: ok when CMD exits with status WANT; its
# stdout and stderr are left in /tmp/.st.out and /tmp/.st.err.
check_status() {
	_desc=$1
	_want=$2
	shift 2
	"$@" > /tmp/.st.out 2> /tmp/.st.err
	_rc=$?
	if [ "$_rc" = "$_want" ]; then
		ok "$_desc"
	else
		not_ok "$_desc: exit status $_rc, not $_want"
		sed 's/^/#   /' /tmp/.st.err | head -5
	fi
}

# ci_rev TAG MSG [PATH...]: mvfs checkin; prints the new revision's number,
# or fails unless the check-in succeeded and said "revision N".
ci_rev() {
	_tag=$1
	_msg=$2
	shift 2
	_out=$(mvfs checkin -v "$_tag" -m "$_msg" "$@") || return 1
	_rev=$(echo "$_out" | sed -n 's/^revision //p')
	case "$_rev" in "" | *[!0-9]*) return 1 ;; esac
	echo "$_rev"
}

# check_ci DESC VAR TAG MSG [PATH...]: check in and set VAR to the new
# revision (0 when the check-in failed).
check_ci() {
	_desc=$1
	_var=$2
	shift 2
	_ci=$(ci_rev "$@")
	if [ -n "$_ci" ]; then
		ok "$_desc (revision $_ci)"
	else
		not_ok "$_desc"
		_ci=0
	fi
	eval "$_var=\$_ci"
}
