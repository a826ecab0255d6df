#!/bin/sh
# In the Debian guest with our systemd: NegativeDentryMax=, printed as TAP.
#
# On a kernel without negative dentry limits (VMRUN_KERNEL=base) only the
# tolerance is checked: the unit starts, and systemctl shows the setting.
. ./tap.sh

LIMIT=1000
FLOOD=20000
BOUND=$((LIMIT + LIMIT / 8))
units=/etc/systemd/system
cg=/sys/fs/cgroup/system.slice
# Slices of their own, where no other unit asks for the memory controller.
lim=/sys/fs/cgroup/nd.slice/nd-limited.service

# Memory accounting off by default, so that a unit gets the memory
# controller only from its own settings.
mkdir -p /etc/systemd/system.conf.d
printf '[Manager]\nDefaultMemoryAccounting=no\n' >/etc/systemd/system.conf.d/negdentry-test.conf
systemctl daemon-reexec

cat >$units/nd-plain.service <<EOF
[Service]
Slice=nd-plain.slice
ExecStart=/bin/sleep infinity
EOF
cat >$units/nd-limited.service <<EOF
[Service]
Slice=nd.slice
NegativeDentryMax=$LIMIT
ExecStart=/bin/sh -c 'negflood /var/tmp/nd-unit $FLOOD && touch /run/nd-flooded; exec sleep infinity'
EOF
cat >$units/nd-bad.service <<EOF
[Service]
NegativeDentryMax=lots
ExecStart=/bin/sleep infinity
EOF
mkdir -p /var/tmp/nd-unit
systemctl daemon-reload

show() { systemctl show -P "$2" "$1"; }
current() { cat "$lim/memory.negative_dentry.current"; }
wait_for() { i=0; while [ $i -lt 600 ] && ! [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; }

if [ "$VMRUN_KERNEL" = base ]; then
	tap_check "a unit with NegativeDentryMax= starts on a kernel without it" \
		systemctl start nd-limited
	tap_check "systemctl show reports the setting" \
		equals "$(show nd-limited NegativeDentryMax)" $LIMIT
	tap_check "there is no memory.negative_dentry.max" \
		fails test -e $lim/memory.negative_dentry.max
	tap_check "NegativeDentryCurrent is not set" \
		equals "$(show nd-limited NegativeDentryCurrent)" "[not set]"
	tap_done
fi

systemctl start nd-plain
tap_check "a unit without memory settings does not get the memory controller" \
	fails grep -qw memory /sys/fs/cgroup/nd-plain.slice/cgroup.subtree_control
systemctl stop nd-plain

tap_check "a unit with NegativeDentryMax=$LIMIT starts" systemctl start nd-limited
tap_check "a unit with only NegativeDentryMax= gets the memory controller" \
	grep -qw memory /sys/fs/cgroup/nd.slice/cgroup.subtree_control
tap_check "its cgroup holds $LIMIT" \
	equals "$(cat $lim/memory.negative_dentry.max)" $LIMIT
tap_check "systemctl show: NegativeDentryMax" \
	equals "$(show nd-limited NegativeDentryMax)" $LIMIT
wait_for /run/nd-flooded
sleep 2
tap_check "a flood of $FLOOD in the unit leaves at most $BOUND" \
	at_most "$(current)" $BOUND
tap_check "systemctl show: NegativeDentryCurrent" \
	equals "$(show nd-limited NegativeDentryCurrent)" "$(current)"

tap_check "systemctl set-property changes it live" \
	systemctl set-property nd-limited NegativeDentryMax=500
tap_check "to 500 in the cgroup" \
	equals "$(cat $lim/memory.negative_dentry.max)" 500
systemctl daemon-reload
tap_check "which survives daemon-reload" \
	equals "$(cat $lim/memory.negative_dentry.max) $(show nd-limited NegativeDentryMax)" "500 500"
# Without a limit the unit would need no memory controller, and systemd
# would take it away with the file: keep it, to see what is written.
systemctl set-property nd-limited MemoryAccounting=yes
tap_check "infinity sets max" \
	systemctl set-property nd-limited NegativeDentryMax=infinity
tap_check "in the cgroup" \
	equals "$(cat $lim/memory.negative_dentry.max)" max
tap_check "and systemctl shows infinity" \
	equals "$(show nd-limited NegativeDentryMax)" infinity

tap_check "systemd-run -p NegativeDentryMax=500" \
	systemd-run --unit nd-run -p NegativeDentryMax=500 /bin/sleep infinity
tap_check "gives the transient unit 500" \
	equals "$(cat $cg/nd-run.service/memory.negative_dentry.max)" 500

out=$(systemctl set-property nd-limited NegativeDentryMax=junk 2>&1)
tap_check "set-property refuses junk" fails [ $? -eq 0 ]
tap_check "with a message" contains "$out" "Failed to parse NegativeDentryMax=junk"
out=$(systemctl set-property nd-limited NegativeDentryMax=9223372036854775807 2>&1)
tap_check "set-property refuses a value out of range" fails [ $? -eq 0 ]
tap_check "with a message" contains "$out" "out of range"
out=$(systemd-run -p NegativeDentryMax=-5 /bin/true 2>&1)
tap_check "systemd-run refuses -5" fails [ $? -eq 0 ]
tap_check "with a message" contains "$out" "NegativeDentryMax=-5"

tap_check "a unit with NegativeDentryMax=lots still loads" \
	equals "$(show nd-bad LoadState)" loaded
tap_check "and starts, without a limit" systemctl start nd-bad
tap_check "its setting stays infinity" \
	equals "$(show nd-bad NegativeDentryMax)" infinity
out=$(systemd-analyze verify $units/nd-bad.service 2>&1)
tap_check "systemd-analyze verify names the bad value" \
	contains "$out" "Invalid negative dentry limit 'lots'"

tap_done
