# TAP for the userspace test scripts: . ./tap.sh, then tap_check NAME
# COMMAND [ARG...] for each test, tap_done at the end (exits non-zero if a
# test failed). A command's output goes to the log as TAP comments.
#
# The number of tests is known only at the end, and the KTAP parser wants
# the plan first: the results are kept in a file and printed whole, plan
# first, by tap_done, framed by "selftest:" lines (docs/harness.md). Each
# result also goes out at once as a progress line, so that a run killed
# midway still shows how far it got.
tap_n=0
tap_failed=0
tap_results=$(mktemp /tmp/tap.XXXXXX)
# tap_exit STATUS, the EXIT trap: a script that exits early, by a failed
# command or an exit of its own, still prints what it found, and fails
# if STATUS is not 0. A script with an EXIT trap of its own calls it last.
tap_exit() {
	tap_failed=$((tap_failed + ($1 != 0)))
	tap_done
}
trap 'tap_exit $?' EXIT

tap_check() {
	tap_name=$1
	shift
	tap_n=$((tap_n + 1))
	if "$@" >/tmp/tap.out 2>&1; then
		tap_result=ok
	else
		tap_result="not ok"
		tap_failed=$((tap_failed + 1))
	fi
	sed 's/^/# /' /tmp/tap.out >>"$tap_results"
	echo "$tap_result $tap_n $tap_name" >>"$tap_results"
	echo "progress: $tap_result $tap_n $tap_name"
}

tap_done() {
	trap - EXIT
	echo "selftest: ${0##*/}"
	echo "TAP version 13"
	echo "1..$tap_n"
	cat "$tap_results"
	rm -f "$tap_results"
	echo "selftest: ${0##*/} exited $tap_failed"
	exit $((tap_failed != 0))
}

# Conditions for tap_check.
fails() { ! "$@"; }
at_most() { [ -n "$1" ] && [ "$1" -le "$2" ] || { echo "$1 is over $2"; return 1; }; }
at_least() { [ -n "$1" ] && [ "$1" -ge "$2" ] || { echo "$1 is under $2"; return 1; }; }
contains() { case $1 in *"$2"*) return 0 ;; esac; echo "no \"$2\" in: $1"; return 1; }
mentions() { echo "$1" | grep -qi -- "$2" || { echo "no \"$2\" (any case) in: $1"; return 1; }; }
equals() { [ "$1" = "$2" ] || { echo "\"$1\" is not \"$2\""; return 1; }; }
# within SECONDS COMMAND [ARG...]: COMMAND succeeds within SECONDS, tried
# every 0.1 s (its output is the last try's). systemd applies what a
# daemon-reload changed from its event loop, after it has replied; reclaim
# and drains are work items.
within() {
	within_tries=$(($1 * 10))
	shift
	within_i=0
	until "$@" >/dev/null 2>&1 || [ $within_i -ge $within_tries ]; do
		sleep 0.1
		within_i=$((within_i + 1))
	done
	"$@"
}
# settled_bound LIMIT: the most negative dentries a cgroup limited to
# LIMIT keeps once reclaim has run, as nd_settled_bound() of the selftests'
# negative_dentry_util.h says why: LIMIT + LIMIT / 8
settled_bound() { echo $(($1 + $1 / 8)); }
# holds FILE VALUE: FILE holds VALUE
holds() { equals "$(cat "$1")" "$2"; }
# settles FILE VALUE: FILE holds VALUE within 5 s
settles() { within 5 holds "$1" "$2"; }
