#!/bin/sh
# On the host: userspace/kubernetes/negative-dentry-kubepods on a fake
# node, a folder with the files it reads, with chroot and systemctl
# stand-ins that log what they are asked. Its limits must outlive its
# pod: a stop leaves the drop-ins, and only the uninstall mode removes
# them. The Debian guest runs it against the real systemd
# (tests/userspace/kubepods.sh). TAP; exits 1 if a test failed.
# shellcheck disable=SC2317 # functions called by tap_check and within
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$here/../userspace/tap.sh"
kp=$here/../../userspace/kubernetes/negative-dentry-kubepods
t=$(mktemp -d)
trap 'status=$?; rm -rf "$t"; tap_exit $status' EXIT

node=$t/node
units=$node/etc/systemd/system
file=50-negative-dentry-kubepods.conf
mkdir -p "$t/bin" "$units" "$node/run/systemd/system" "$node/sys/fs/cgroup/kubepods.slice"
echo max >"$node/sys/fs/cgroup/kubepods.slice/memory.negative_dentry.max"
# chroot ROOT COMMAND...: runs COMMAND here; systemctl logs its verb, and
# knows NegativeDentryMax=
printf '#!/bin/sh\nshift\nexec "$@"\n' >"$t/bin/chroot"
printf '#!/bin/sh\necho "$*" >>"%s"\n[ "$1" != show ] || echo infinity\n' \
	"$t/systemctl.log" >"$t/bin/systemctl"
chmod +x "$t/bin/chroot" "$t/bin/systemctl"
export PATH="$t/bin:$PATH" HOST_ROOT=$node NEGATIVE_DENTRY_POD_MAX=3000
unset NEGATIVE_DENTRY_CONTAINER_MAX NEGATIVE_DENTRY_KUBEPODS_MODE

# ours: the drop-in folders of ours there are, a line each
ours() {
	for f in "$units"/*.d/"$file"; do
		[ ! -f "$f" ] || { f=${f%/*}; echo "${f##*/}"; }
	done
}
installed() { equals "$(ours | tr '\n' ' ')" "$1"; }
reloads() { grep -c daemon-reload "$t/systemctl.log"; }
both="kubepods-besteffort-.slice.d kubepods-burstable-.slice.d "
# start [VAR=VALUE...]: negative-dentry-kubepods run in the background,
# as the DaemonSet's pod runs it
start() {
	env "$@" sh "$kp" run >>"$t/run.log" 2>&1 &
	runner=$!
}
stop() {
	kill -TERM "$runner"
	wait "$runner"
}

: >"$t/systemctl.log"
start
tap_check "run installs the drop-ins" within 5 installed "$both"
tap_check "and reloads systemd" equals "$(reloads)" 1
stop
tap_check "a stop (SIGTERM), as in a rollout or a drain: exits 0" equals $? 0
tap_check "and leaves the drop-ins" installed "$both"
tap_check "and does not reload systemd" equals "$(reloads)" 1
start
sleep 1
stop
tap_check "the next pod finds them in place: no reload" equals "$(reloads)" 1

start NEGATIVE_DENTRY_KUBEPODS_MODE=uninstall
tap_check "the uninstall mode removes them" within 5 installed ""
tap_check "and reloads systemd" equals "$(reloads)" 2
# A pod of the install mode that still runs beside it (maxSurge) puts
# them back; the stop of the uninstall pod takes them away again.
sh "$kp" install >/dev/null
stop
tap_check "a stop in the uninstall mode: exits 0" equals $? 0
tap_check "having removed what was there" installed ""
NEGATIVE_DENTRY_KUBEPODS_MODE=remove timeout 10 sh "$kp" run >"$t/out" 2>&1
tap_check "another mode is refused with status 2" equals $? 2
tap_check "and a message" contains "$(cat "$t/out")" "NEGATIVE_DENTRY_KUBEPODS_MODE"
start NEGATIVE_DENTRY_KUBEPODS_MODE=uninstall NEGATIVE_DENTRY_POD_MAX=lots
sleep 1
stop
tap_check "the uninstall mode does not need a valid value" equals $? 0

# Two pods installing at once (a rollout with maxSurge) must not trip
# over each other's temporary files.
i=0
while [ $i -lt 20 ]; do
	rm -rf "$units"/*.d
	sh "$kp" install >"$t/a.out" 2>&1 &
	a=$!
	NEGATIVE_DENTRY_POD_MAX=3001 sh "$kp" install >"$t/b.out" 2>&1
	b=$?
	wait $a || break
	[ $b -eq 0 ] || break
	i=$((i + 1))
done
tap_check "two installs at once both succeed, 20 times over" equals $i 20
tap_check "and leave no temporary file" equals "$(find "$units" -type f ! -name "$file")" ""
# the EXIT trap removes the node and prints the results
exit 0
