#!/bin/sh
# In the Debian guest with our systemd: negative-dentry-kubepods, what the
# Kubernetes DaemonSet of userspace/kubernetes runs on each node, on slices
# named as the kubelet's systemd cgroup driver names them. The pod sees the
# node's root at HOST_ROOT: here a bind mount of /, so that systemctl runs
# in a chroot as it does from the pod.
#
# On a kernel without negative dentry limits (VMRUN_KERNEL=base) it must
# install nothing, and leave what a kernel with them left, for the metrics
# to report as configured but not applied. A stop of run leaves the
# drop-ins; its uninstall mode removes them.
. ./tap.sh

kp=negative-dentry-kubepods
units=/etc/systemd/system
file=50-negative-dentry-kubepods.conf
pods=/sys/fs/cgroup/kubepods.slice
textfile=/run/nd-kubepods.prom
export HOST_ROOT=/run/nd-host NEGATIVE_DENTRY_POD_MAX=3000 NEGATIVE_DENTRY_KUBEPODS_TEXTFILE=$textfile
mkdir -p $HOST_ROOT
mount --rbind / $HOST_ROOT
# a slave, so that the umount at the end does not spread to / (shared)
mount --make-rslave $HOST_ROOT

# pod QOS UID: a pod's slice as the kubelet names it, with a process in it
pod() {
	systemd-run --quiet --unit "nd-pod-$2" --slice="kubepods-$1-pod$2.slice" \
		-p MemoryAccounting=yes /bin/sleep infinity
}
# limit QOS UID: the file of the pod's limit
limit() { echo "$pods/kubepods-$1.slice/kubepods-$1-pod$2.slice/memory.negative_dentry.max"; }
# ours: the drop-ins the script installed, by unit prefix
ours() {
	for f in "$units"/*.d/"$file"; do
		[ ! -f "$f" ] || { f=${f%/*}; echo "${f##*/}"; }
	done
}
installed() { equals "$(ours | tr '\n' ' ')" "$1"; }
# what it told node_exporter
applied() { grep -v '^#' $textfile; }

$kp install >/tmp/kp.out 2>&1
tap_check "without kubepods.slice (the cgroupfs driver) install exits 0" equals $? 0
tap_check "and installs nothing" installed ""
tap_check "and says so to node_exporter" \
	equals "$(applied)" 'negative_dentry_kubepods_applied{reason="cgroupfs"} 0'
pod burstable 0f3b_1
pod besteffort 0f3b_2

if [ "$VMRUN_KERNEL" = base ]; then
	$kp install >/tmp/kp.out 2>&1
	tap_check "on a kernel without the file it says so" \
		mentions "$(cat /tmp/kp.out)" "no memory.negative_dentry.max"
	tap_check "and installs nothing" installed ""
	tap_check "and says so to node_exporter" \
		equals "$(applied)" 'negative_dentry_kubepods_applied{reason="kernel"} 0'
	mkdir -p $units/kubepods-burstable-.slice.d
	printf '[Slice]\nMemoryNegativeDentryMax=1\n' >$units/kubepods-burstable-.slice.d/$file
	$kp install >/dev/null 2>&1
	tap_check "and leaves what a kernel with it left" installed "kubepods-burstable-.slice.d "
	rm -r $units/kubepods-burstable-.slice.d $textfile
	systemctl stop nd-pod-0f3b_1 nd-pod-0f3b_2
	umount -R $HOST_ROOT
	tap_done
fi

$kp install >/tmp/kp.out 2>&1
tap_check "install exits 0" equals $? 0
tap_check "it installs the burstable and best-effort pod drop-ins" \
	installed "kubepods-besteffort-.slice.d kubepods-burstable-.slice.d "
tap_check "and tells node_exporter" equals "$(applied)" "negative_dentry_kubepods_applied 1"
tap_check "a burstable pod that was running gets the limit" settles "$(limit burstable 0f3b_1)" 3000
tap_check "a best-effort pod that was running gets the limit" settles "$(limit besteffort 0f3b_2)" 3000
# A pod slice as the kubelet makes it, through runc's systemd driver: a
# transient unit started over D-Bus, with its memory accounting on. A
# call that failed would leave systemd-run below to make the slice, as a
# plain slice: the test would pass without testing the kubelet's way.
tap_check "systemd starts a transient pod slice over D-Bus, as the kubelet does" \
	busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
	org.freedesktop.systemd1.Manager StartTransientUnit 'ssa(sv)a(sa(sv))' \
	kubepods-burstable-pod0f3b_3.slice replace 1 MemoryAccounting b true 0
systemd-run --quiet --unit nd-pod-0f3b_3 --slice=kubepods-burstable-pod0f3b_3.slice \
	/bin/sleep infinity
tap_check "a new pod, a transient slice as the kubelet makes it, gets it" \
	settles "$(limit burstable 0f3b_3)" 3000
tap_check "the QoS slices above the pods keep none" \
	equals "$(cat $pods/kubepods-burstable.slice/memory.negative_dentry.max $pods/memory.negative_dentry.max)" \
	"max
max"
tap_check "installing again writes nothing" equals "$($kp install 2>&1)" ""

NEGATIVE_DENTRY_CONTAINER_MAX=2000 $kp install >/dev/null
tap_check "a container value adds the CRI-O and containerd scope drop-ins" \
	installed "cri-containerd-.scope.d crio-.scope.d kubepods-besteffort-.slice.d kubepods-burstable-.slice.d "
systemd-run --quiet --scope --unit crio-0f3b4.scope --slice=kubepods-burstable-pod0f3b_3.slice \
	-p MemoryAccounting=yes /bin/sleep infinity &
i=0
while [ $i -lt 100 ] && ! [ -d $pods/kubepods-burstable.slice/kubepods-burstable-pod0f3b_3.slice/crio-0f3b4.scope ]; do
	sleep 0.1
	i=$((i + 1))
done
tap_check "a crio-<id>.scope in a pod gets the container value" \
	settles $pods/kubepods-burstable.slice/kubepods-burstable-pod0f3b_3.slice/crio-0f3b4.scope/memory.negative_dentry.max 2000
$kp install >/dev/null
tap_check "and taking the value away removes them" \
	installed "kubepods-besteffort-.slice.d kubepods-burstable-.slice.d "

# Refused values change nothing.
for bad in "" lots -1 10k "1 2" max; do
	before=$(cat $units/kubepods-burstable-.slice.d/$file)
	NEGATIVE_DENTRY_POD_MAX=$bad $kp install >/tmp/kp.out 2>&1
	tap_check "NEGATIVE_DENTRY_POD_MAX=\"$bad\" is refused with status 2" equals $? 2
	tap_check "NEGATIVE_DENTRY_POD_MAX=\"$bad\": a message, the drop-in left as it was" sh -c \
		"grep -q 'not a number or infinity' /tmp/kp.out && [ \"\$(cat $units/kubepods-burstable-.slice.d/$file)\" = '$before' ]"
done
NEGATIVE_DENTRY_POD_MAX=3000 NEGATIVE_DENTRY_CONTAINER_MAX=lots $kp install >/dev/null 2>&1
tap_check "NEGATIVE_DENTRY_CONTAINER_MAX=lots is refused with status 2" equals $? 2

# A stop while run installs: the pass under way ends, and the drop-ins
# stay.
$kp remove >/dev/null
NEGATIVE_DENTRY_POD_MAX=4000 $kp run >/tmp/kp.run 2>&1 &
runner=$!
within 5 test -f $units/kubepods-burstable-.slice.d/$file
kill -TERM $runner
wait $runner
tap_check "a SIGTERM while run installs: it exits 0" equals $? 0
tap_check "having installed both" installed "kubepods-besteffort-.slice.d kubepods-burstable-.slice.d "

# The DaemonSet's pod: a stop (a rollout, a drain, an eviction, the
# DaemonSet deleted) leaves the limits.
tap_check "running pods have the new value" settles "$(limit burstable 0f3b_1)" 4000
NEGATIVE_DENTRY_POD_MAX=4000 $kp run >/tmp/kp.run 2>&1 &
runner=$!
sleep 1
kill -TERM $runner
wait $runner
tap_check "run, then SIGTERM: exits 0" equals $? 0
tap_check "leaving the drop-ins" installed "kubepods-besteffort-.slice.d kubepods-burstable-.slice.d "
tap_check "and the running pods' limit" holds "$(limit burstable 0f3b_1)" 4000

# The uninstall mode removes them, and once more when stopped.
NEGATIVE_DENTRY_KUBEPODS_MODE=uninstall $kp run >/tmp/kp.run 2>&1 &
runner=$!
tap_check "the uninstall mode removes the drop-ins" within 5 installed ""
tap_check "and running pods have no limit again" settles "$(limit burstable 0f3b_1)" max
pod burstable 0f3b_5
tap_check "nor has a new pod" holds "$(limit burstable 0f3b_5)" max
kill -TERM $runner
wait $runner
tap_check "and on SIGTERM it exits 0" equals $? 0
tap_check "with none left" installed ""
tap_check "nor the file for node_exporter" test ! -e $textfile

systemctl stop nd-pod-0f3b_1 nd-pod-0f3b_2 nd-pod-0f3b_3 nd-pod-0f3b_5 crio-0f3b4.scope
umount -R $HOST_ROOT
tap_done
