#!/bin/sh
# On the host: userspace/kubepods/negative-dentry-kubepods on a fake
# node, a folder with the files it reads, with chroot and systemctl
# stand-ins that log what they are asked. Its limits must outlive its
# pod: a stop leaves the drop-ins, and only the uninstall mode removes
# them. Where it cannot apply them (the cgroupfs driver, a kernel
# without the file, a systemd without the setting) it must say so in its
# textfile for node_exporter, which promtool must take. The Debian guest
# runs it against the real systemd (tests/userspace/kubepods.sh). TAP;
# exits 1 if a test failed.
# shellcheck disable=SC2317 # functions called by tap_check and within
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$here/../userspace/tap.sh"
kp=$here/../../userspace/kubepods/negative-dentry-kubepods
t=$(mktemp -d)
trap 'status=$?; rm -rf "$t"; tap_exit $status' EXIT

node=$t/node
units=$node/etc/systemd/system
file=50-negative-dentry-kubepods.conf
pods=$node/sys/fs/cgroup/kubepods.slice
textfile=$t/textfile/negative-dentry-kubepods.prom
mkdir -p "$t/bin" "$units" "$node/run/systemd/system" "$pods" "$t/textfile"
echo max >"$pods/memory.negative_dentry.max"
# chroot ROOT COMMAND...: runs COMMAND here; systemctl logs its verb, and
# "show -P NAME" prints what $t/known/NAME holds: knows NAMES... makes a
# systemd that has those manager properties (none: Debian's own)
printf '#!/bin/sh\nshift\nexec "$@"\n' >"$t/bin/chroot"
printf '#!/bin/sh\necho "$*" >>"%s"\n[ "$1" != show ] || cat "%s/$3" 2>/dev/null\n' \
	"$t/systemctl.log" "$t/known" >"$t/bin/systemctl"
knows() {
	rm -rf "$t/known" && mkdir "$t/known"
	for p in "$@"; do echo infinity >"$t/known/$p"; done
}
# ours now, which still has the first packages' name
knows DefaultMemoryNegativeDentryMax DefaultNegativeDentryMax
chmod +x "$t/bin/chroot" "$t/bin/systemctl"
export PATH="$t/bin:$PATH" HOST_ROOT=$node NEGATIVE_DENTRY_POD_MAX=3000 \
	NEGATIVE_DENTRY_KUBEPODS_TEXTFILE=$textfile
unset NEGATIVE_DENTRY_CONTAINER_MAX NEGATIVE_DENTRY_KUBEPODS_MODE

# ours: the drop-in folders of ours there are, a line each
ours() {
	for f in "$units"/*.d/"$file"; do
		[ ! -f "$f" ] || { f=${f%/*}; echo "${f##*/}"; }
	done
}
installed() { equals "$(ours | tr '\n' ' ')" "$1"; }
reloads() { grep -c daemon-reload "$t/systemctl.log"; }
# reloaded N: systemd was reloaded N times; with within, once the script,
# which writes the drop-ins before it reloads, has got that far
reloaded() { equals "$(reloads)" "$1"; }
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
tap_check "which set MemoryNegativeDentryMax=" \
	grep -qx "MemoryNegativeDentryMax=3000" "$units/kubepods-burstable-.slice.d/$file"
tap_check "and reloads systemd" within 5 reloaded 1
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
tap_check "and reloads systemd" within 5 reloaded 2
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

# What it says to node_exporter: applied, or not and why.
lint() { promtool check metrics <"$textfile"; }
status() { grep -v '^#' "$textfile"; }
tap_check "applied: its textfile says 1" equals "$(status)" "negative_dentry_kubepods_applied 1"
tap_check "which promtool takes" lint
tap_check "and leaves no temporary file beside it" equals "$(ls "$t/textfile")" "${textfile##*/}"
knows DefaultNegativeDentryMax
before=$(reloads)
sh "$kp" install >/dev/null 2>&1
tap_check "a systemd of our first packages gets the name it knows" \
	grep -qx "NegativeDentryMax=3000" "$units/kubepods-burstable-.slice.d/$file"
tap_check "and a reload" equals "$(reloads)" $((before + 1))
knows
sh "$kp" install >"$t/out" 2>&1
tap_check "a systemd without MemoryNegativeDentryMax=: exits 0" equals $? 0
tap_check "its log says why" contains "$(cat "$t/out")" "does not know MemoryNegativeDentryMax="
tap_check "its textfile says 0, reason systemd" \
	equals "$(status)" 'negative_dentry_kubepods_applied{reason="systemd"} 0'
tap_check "which promtool takes" lint
knows DefaultMemoryNegativeDentryMax DefaultNegativeDentryMax
mkdir "$node/proc"
echo "ro cgroup.memory=nosocket,nokmem quiet" >"$node/proc/cmdline"
sh "$kp" install >"$t/out" 2>&1
tap_check "a kernel booted with cgroup.memory=nokmem: reason nokmem" \
	equals "$(status)" 'negative_dentry_kubepods_applied{reason="nokmem"} 0'
tap_check "its log says why" contains "$(cat "$t/out")" "cgroup.memory=nokmem"
echo "ro cgroup.memory=nosocket quiet" >"$node/proc/cmdline"
sh "$kp" install >/dev/null 2>&1
tap_check "cgroup.memory=nosocket alone: applied" equals "$(status)" "negative_dentry_kubepods_applied 1"
mv "$pods/memory.negative_dentry.max" "$t/max"
sh "$kp" install >/dev/null 2>&1
tap_check "a kernel without the file: reason kernel" \
	equals "$(status)" 'negative_dentry_kubepods_applied{reason="kernel"} 0'
mv "$pods" "$t/pods"
sh "$kp" install >/dev/null 2>&1
tap_check "the cgroupfs driver, no kubepods.slice: reason cgroupfs" \
	equals "$(status)" 'negative_dentry_kubepods_applied{reason="cgroupfs"} 0'
tap_check "and the drop-ins there stay" installed "$both"
mv "$t/pods" "$pods"
mv "$t/max" "$pods/memory.negative_dentry.max"
sh "$kp" remove >/dev/null
tap_check "remove takes the textfile away" test ! -e "$textfile"

# A node not booted with systemd, whose /etc/systemd/system a host path
# of type DirectoryOrCreate would have made.
rmdir "$node/run/systemd/system"
sh "$kp" install >"$t/out" 2>&1
tap_check "a node without /run/systemd/system: install exits 1" equals $? 1
tap_check "saying it was not booted with systemd" contains "$(cat "$t/out")" "not booted with systemd"
tap_check "and installs nothing" installed ""
# the EXIT trap removes the node and prints the results
exit 0
