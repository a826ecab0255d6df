#!/bin/sh
# In the Debian guest with our systemd: MemoryNegativeDentryMax=, printed as TAP.
#
# On a kernel without negative dentry limits (VMRUN_KERNEL=base) only the
# tolerance is checked: the unit starts, and systemctl shows the setting.
. ./tap.sh

LIMIT=1000
FLOOD=20000
BOUND=$(settled_bound $LIMIT)
units=/etc/systemd/system
cg=/sys/fs/cgroup/system.slice
# Slices of their own, where no other unit asks for the memory controller.
lim=/sys/fs/cgroup/nd.slice/nd-limited.service

# Memory accounting off by default, so that a unit gets the memory
# controller only from its own settings.
mkdir -p /etc/systemd/system.conf.d
printf '[Manager]\nDefaultMemoryAccounting=no\n' >/etc/systemd/system.conf.d/negdentry-test.conf
systemctl daemon-reexec

# No dash in the slice's name: nd-plain.slice would be in nd.slice.
cat >$units/nd-plain.service <<EOF
[Service]
Slice=ndplain.slice
ExecStart=/bin/sleep infinity
EOF
cat >$units/nd-limited.service <<EOF
[Service]
Slice=nd.slice
MemoryNegativeDentryMax=$LIMIT
ExecStart=/bin/sh -c 'negflood /var/tmp/nd-unit $FLOOD && touch /run/nd-flooded; exec sleep infinity'
EOF
cat >$units/nd-bad.service <<EOF
[Service]
MemoryNegativeDentryMax=lots
ExecStart=/bin/sleep infinity
EOF
mkdir -p /var/tmp/nd-unit
systemctl daemon-reload

show() { systemctl show -P "$2" "$1"; }
# applied: a round trip to the manager. systemd applies what a reload
# changed from its event loop after it has replied, and before it reads
# the next message; after a reexec, the new manager answers only once it
# is up. A check that a value is left alone reads it after this, or it
# would pass before systemd has had a chance to change it.
applied() {
	applied_i=0
	until systemctl show -P Id init.scope >/dev/null 2>&1 || [ $applied_i -ge 100 ]; do
		sleep 0.1
		applied_i=$((applied_i + 1))
	done
}
# set_default N: DefaultMemoryNegativeDentryMax=N (empty: none), which
# daemon-reload reads again
set_default() {
	printf '[Manager]\nDefaultMemoryAccounting=no\nDefaultMemoryNegativeDentryMax=%s\n' "$1" \
		>/etc/systemd/system.conf.d/negdentry-test.conf
	systemctl daemon-reload
}
# dropin UNIT-PREFIX SECTION N: a prefix drop-in setting MemoryNegativeDentryMax=N
dropin() {
	mkdir -p "$units/$1.d"
	printf '[%s]\nMemoryNegativeDentryMax=%s\n' "$2" "$3" >"$units/$1.d/50-negative-dentry.conf"
}
current() { cat "$lim/memory.negative_dentry.current"; }
# FILE, a cgroup.subtree_control, is there and does not enable memory
lacks_memory() { [ -e "$1" ] && ! grep -qw memory "$1" || { ls -l "$1"; cat "$1"; return 1; }; }
wait_for() { i=0; while [ $i -lt 600 ] && ! [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; }

# The sysctl.d example, applied as systemd-sysctl does at boot: quietly
# skipped on a kernel without the settings, applied on ours.
saved=$(sysctl -n fs.dentry-dir-max fs.dentry-negative 2>/dev/null | tr '\n' ' ')
cp /usr/share/doc/negative-dentry/examples/60-negative-dentry.conf /etc/sysctl.d/
out=$(/lib/systemd/systemd-sysctl 60-negative-dentry.conf 2>&1)
tap_check "systemd-sysctl applies the sysctl.d example" equals $? 0
tap_check "without a word" equals "$out" ""
if [ "$VMRUN_KERNEL" = base ]; then
	tap_check "a kernel without the settings has none of them" \
		fails test -e /proc/sys/fs/dentry-dir-max
else
	tap_check "fs.dentry-dir-max is 10000" equals "$(sysctl -n fs.dentry-dir-max)" 10000
	tap_check "fs.dentry-negative is 1" equals "$(sysctl -n fs.dentry-negative)" 1
	# shellcheck disable=SC2086 # the two values saved above
	set -- $saved
	sysctl -q fs.dentry-dir-max="$1" fs.dentry-negative="$2"
fi
rm /etc/sysctl.d/60-negative-dentry.conf

if [ "$VMRUN_KERNEL" = base ]; then
	tap_check "a unit with MemoryNegativeDentryMax= starts on a kernel without it" \
		systemctl start nd-limited
	tap_check "systemctl show reports the setting" \
		equals "$(show nd-limited MemoryNegativeDentryMax)" $LIMIT
	tap_check "there is no memory.negative_dentry.max" \
		fails test -e $lim/memory.negative_dentry.max
	tap_check "MemoryNegativeDentryCurrent is not set" \
		equals "$(show nd-limited MemoryNegativeDentryCurrent)" "[not set]"
	set_default 3000
	tap_check "with DefaultMemoryNegativeDentryMax=3000 a plain unit starts" \
		systemctl start nd-plain
	tap_done
fi

systemctl start nd-plain
tap_check "a unit without memory settings does not get the memory controller" \
	lacks_memory /sys/fs/cgroup/ndplain.slice/cgroup.subtree_control
systemctl stop nd-plain

tap_check "a unit with MemoryNegativeDentryMax=$LIMIT starts" systemctl start nd-limited
tap_check "a unit with only MemoryNegativeDentryMax= gets the memory controller" \
	grep -qw memory /sys/fs/cgroup/nd.slice/cgroup.subtree_control
tap_check "its cgroup holds $LIMIT" \
	equals "$(cat $lim/memory.negative_dentry.max)" $LIMIT
tap_check "systemctl show: MemoryNegativeDentryMax" \
	equals "$(show nd-limited MemoryNegativeDentryMax)" $LIMIT
wait_for /run/nd-flooded
sleep 2
tap_check "a flood of $FLOOD in the unit leaves at most $BOUND" \
	at_most "$(current)" $BOUND
tap_check "systemctl show: MemoryNegativeDentryCurrent" \
	equals "$(show nd-limited MemoryNegativeDentryCurrent)" "$(current)"
status=$(systemctl status --no-pager nd-limited)
tap_check "systemctl status: a NegDentries line with the limit" \
	contains "$status" "NegDentries: $(current) (max: $LIMIT)"
dbus=$(busctl introspect org.freedesktop.systemd1 \
	/org/freedesktop/systemd1/unit/nd_2dlimited_2eservice org.freedesktop.systemd1.Service)
tap_check "D-Bus: the Service interface has MemoryNegativeDentryMax" \
	contains "$dbus" ".MemoryNegativeDentryMax "
tap_check "D-Bus: and MemoryNegativeDentryCurrent" \
	contains "$dbus" ".MemoryNegativeDentryCurrent "
tap_check "systemd-analyze dump: the unit's own MemoryNegativeDentryMax" \
	contains "$(systemd-analyze dump)" "MemoryNegativeDentryMax: $LIMIT
"

tap_check "systemctl set-property changes it live" \
	systemctl set-property nd-limited MemoryNegativeDentryMax=500
tap_check "to 500 in the cgroup" \
	equals "$(cat $lim/memory.negative_dentry.max)" 500
echo 123 >$lim/memory.negative_dentry.max
systemctl daemon-reload
tap_check "which daemon-reload writes again over another value" \
	settles $lim/memory.negative_dentry.max 500
tap_check "and systemctl still shows" equals "$(show nd-limited MemoryNegativeDentryMax)" 500
# Without a limit the unit would need no memory controller, and systemd
# would take it away with the file: keep it, to see what is written.
systemctl set-property nd-limited MemoryAccounting=yes
tap_check "infinity sets max" \
	systemctl set-property nd-limited MemoryNegativeDentryMax=infinity
tap_check "in the cgroup" \
	equals "$(cat $lim/memory.negative_dentry.max)" max
tap_check "and systemctl shows infinity" \
	equals "$(show nd-limited MemoryNegativeDentryMax)" infinity

tap_check "systemd-run -p MemoryNegativeDentryMax=500" \
	systemd-run --unit nd-run -p MemoryNegativeDentryMax=500 /bin/sleep infinity
tap_check "gives the transient unit 500" \
	settles $cg/nd-run.service/memory.negative_dentry.max 500

out=$(systemctl set-property nd-limited MemoryNegativeDentryMax=junk 2>&1)
tap_check "set-property refuses junk" fails [ $? -eq 0 ]
tap_check "with a message" contains "$out" "Failed to parse MemoryNegativeDentryMax=junk"
out=$(systemctl set-property nd-limited MemoryNegativeDentryMax=9223372036854775807 2>&1)
tap_check "set-property refuses a value out of range" fails [ $? -eq 0 ]
tap_check "with a message" contains "$out" "out of range"
out=$(systemd-run -p MemoryNegativeDentryMax=-5 /bin/true 2>&1)
tap_check "systemd-run refuses -5" fails [ $? -eq 0 ]
tap_check "with a message" contains "$out" "MemoryNegativeDentryMax=-5"

tap_check "a unit with MemoryNegativeDentryMax=lots still loads" \
	equals "$(show nd-bad LoadState)" loaded
tap_check "and starts, without a limit" systemctl start nd-bad
tap_check "its setting stays infinity" \
	equals "$(show nd-bad MemoryNegativeDentryMax)" infinity
out=$(systemd-analyze verify $units/nd-bad.service 2>&1)
tap_check "systemd-analyze verify names the bad value" \
	contains "$out" "Invalid negative dentry limit 'lots'"

# A default for every unit but slices, written only where nobody else
# wrote a limit.
plain=/sys/fs/cgroup/ndplain.slice/nd-plain.service
set_default 3000
tap_check "systemctl show: DefaultMemoryNegativeDentryMax" \
	equals "$(systemctl show -P DefaultMemoryNegativeDentryMax)" 3000
systemctl start nd-plain
tap_check "DefaultMemoryNegativeDentryMax=3000 limits a unit without its own" \
	equals "$(cat $plain/memory.negative_dentry.max)" 3000
tap_check "but not its slice" \
	equals "$(cat /sys/fs/cgroup/ndplain.slice/memory.negative_dentry.max)" max
tap_check "systemd-analyze dump: MemoryNegativeDentryMax from the default" \
	contains "$(systemd-analyze dump)" "MemoryNegativeDentryMax: 3000 (default)"
tap_check "a unit's own setting wins over the default" \
	equals "$(cat $lim/memory.negative_dentry.max)" max
systemd-run --unit nd-runtime --scope /bin/sleep infinity >/dev/null 2>&1 &
i=0
while [ $i -lt 100 ] && ! [ -d $cg/nd-runtime.scope ]; do sleep 0.1; i=$((i + 1)); done
tap_check "a scope gets the default" \
	settles $cg/nd-runtime.scope/memory.negative_dentry.max 3000
# as a runtime writes a unified key into its container's scope
echo 700 >$cg/nd-runtime.scope/memory.negative_dentry.max
systemctl daemon-reload
applied
tap_check "a limit someone else wrote survives daemon-reload under a default" \
	equals "$(cat $cg/nd-runtime.scope/memory.negative_dentry.max)" 700
tap_check "systemd-analyze dump: says the kernel holds another value" \
	contains "$(systemd-analyze dump)" "MemoryNegativeDentryMax: 3000 (default) (different value in kernel: 700)"
# An empty value is the default, with set-property as in a unit file: not
# infinity, which would replace what the runtime wrote.
tap_check "set-property MemoryNegativeDentryMax= (empty) is taken" \
	systemctl set-property --runtime nd-runtime.scope MemoryNegativeDentryMax=
applied
tap_check "and leaves the limit someone else wrote" \
	equals "$(cat $cg/nd-runtime.scope/memory.negative_dentry.max)" 700
tap_check "the unit is back on the default" \
	equals "$(show nd-runtime.scope MemoryNegativeDentryMax)" 3000
tap_check "set-property of a value, then of an empty one, on a plain unit" \
	systemctl set-property --runtime nd-plain MemoryNegativeDentryMax=1234
tap_check "sets the value" settles $plain/memory.negative_dentry.max 1234
systemctl set-property --runtime nd-plain MemoryNegativeDentryMax=
tap_check "and goes back to the default over it, which systemd wrote" \
	settles $plain/memory.negative_dentry.max 3000
tap_check "and its runtime drop-in has the empty value" \
	grep -qx "MemoryNegativeDentryMax=" /run/systemd/system.control/nd-plain.service.d/50-NegativeDentryMax.conf
# The names of our first packages, which later ones still take.
tap_check "the old name: set-property NegativeDentryMax=1500" \
	systemctl set-property --runtime nd-plain NegativeDentryMax=1500
tap_check "sets the value" settles $plain/memory.negative_dentry.max 1500
tap_check "under the new name, in the drop-in file an old set-property wrote" \
	grep -qx "MemoryNegativeDentryMax=1500" /run/systemd/system.control/nd-plain.service.d/50-NegativeDentryMax.conf
tap_check "which the old D-Bus property reads too" \
	equals "$(show nd-plain NegativeDentryMax)" 1500
systemctl set-property --runtime nd-plain NegativeDentryMax=
tap_check "and an empty old name goes back to the default" \
	settles $plain/memory.negative_dentry.max 3000
tap_check "the old manager property reads the default" \
	equals "$(systemctl show -P DefaultNegativeDentryMax)" 3000
tap_check "systemd-run -p MemoryNegativeDentryMax= gives the default" \
	systemd-run --unit nd-run-default -p MemoryNegativeDentryMax= /bin/sleep infinity
tap_check "to the transient unit" \
	settles $cg/nd-run-default.service/memory.negative_dentry.max 3000
systemctl stop nd-run-default
set_default 2500
tap_check "a new default replaces the old one" \
	settles $plain/memory.negative_dentry.max 2500
applied
tap_check "and leaves the one someone else wrote" \
	equals "$(cat $cg/nd-runtime.scope/memory.negative_dentry.max)" 700
systemctl daemon-reexec
applied
tap_check "across daemon-reexec too" \
	equals "$(cat $plain/memory.negative_dentry.max) $(cat $cg/nd-runtime.scope/memory.negative_dentry.max)" \
	"2500 700"
# memory accounting keeps the file once the unit needs no limit
systemctl set-property --runtime nd-plain MemoryAccounting=yes
set_default ""
tap_check "without a default, what systemd wrote goes back to max" \
	settles $plain/memory.negative_dentry.max max
# What systemd wrote goes with the cgroup: a runtime writing the same value
# into the unit's next cgroup is not taken for systemd, whose reload would
# then write max over it. A target that wants the unit keeps it loaded
# while stopped, with its record; unloaded, the record would go anyway.
printf '[Unit]\nWants=nd-plain.service\n' >$units/nd-plain-holder.target
systemctl daemon-reload
systemctl start nd-plain-holder.target
set_default 2600
tap_check "a new default is written" settles $plain/memory.negative_dentry.max 2600
systemctl stop nd-plain
set_default ""
systemctl start nd-plain
echo 2600 >$plain/memory.negative_dentry.max
systemctl daemon-reload
applied
tap_check "in the unit's next cgroup, a runtime's equal value survives a reload" \
	equals "$(cat $plain/memory.negative_dentry.max)" 2600
systemctl stop nd-plain-holder.target nd-runtime.scope nd-plain

# Prefix drop-ins where runtimes and kubelet put their cgroups; kubelet's
# systemd cgroup driver makes kubepods-burstable-pod<uid>.slice.
dropin kubepods-burstable-.slice Slice 5000
dropin docker-.scope Scope 4000
dropin crio-.scope Scope 4500
systemctl daemon-reload
systemd-run --unit nd-pod --slice=kubepods-burstable-podnd1.slice /bin/sleep infinity
pods=/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice
tap_check "kubepods-burstable-.slice.d: a pod slice gets the pod-level cap" \
	equals "$(cat $pods/kubepods-burstable-podnd1.slice/memory.negative_dentry.max)" 5000
tap_check "and kubepods-burstable.slice itself does not" \
	equals "$(cat $pods/memory.negative_dentry.max)" max
for runtime in docker crio; do
	systemd-run --unit $runtime-nd1 --scope /bin/sleep infinity >/dev/null 2>&1 &
	i=0
	while [ $i -lt 100 ] && ! [ -d $cg/$runtime-nd1.scope ]; do sleep 0.1; i=$((i + 1)); done
done
tap_check "docker-.scope.d: a docker-<id>.scope gets 4000" \
	settles $cg/docker-nd1.scope/memory.negative_dentry.max 4000
tap_check "crio-.scope.d: a crio-<id>.scope gets 4500" \
	settles $cg/crio-nd1.scope/memory.negative_dentry.max 4500

# Guaranteed pods sit directly under kubepods.slice, as
# kubepods-pod<uid>.slice: kubepods-.slice.d reaches them, and also the QoS
# slices kubepods-burstable.slice and kubepods-besteffort.slice, whose own
# drop-ins of the same name, more specific, override it.
kube=/sys/fs/cgroup/kubepods.slice
dropin kubepods-.slice Slice 3500
dropin kubepods-burstable.slice Slice infinity
dropin kubepods-besteffort.slice Slice infinity
systemctl daemon-reload
systemd-run --unit nd-gpod --slice=kubepods-podnd2.slice /bin/sleep infinity
systemd-run --unit nd-bepod --slice=kubepods-besteffort-podnd3.slice /bin/sleep infinity
tap_check "kubepods-.slice.d: a guaranteed pod's slice gets 3500" \
	settles $kube/kubepods-podnd2.slice/memory.negative_dentry.max 3500
tap_check "the QoS slices' own drop-ins keep them unlimited" \
	equals "$(cat $pods/memory.negative_dentry.max $kube/kubepods-besteffort.slice/memory.negative_dentry.max)" \
	"$(printf 'max\nmax')"
tap_check "a burstable pod keeps kubepods-burstable-.slice.d's 5000" \
	equals "$(cat $pods/kubepods-burstable-podnd1.slice/memory.negative_dentry.max)" 5000
tap_check "a best-effort pod without a drop-in of its prefix gets 3500" \
	settles $kube/kubepods-besteffort.slice/kubepods-besteffort-podnd3.slice/memory.negative_dentry.max 3500
systemctl stop nd-pod nd-gpod nd-bepod docker-nd1.scope crio-nd1.scope
rm -r "$units/kubepods-.slice.d" "$units/kubepods-burstable.slice.d" \
	"$units/kubepods-besteffort.slice.d"

tap_done
