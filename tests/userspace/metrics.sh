#!/bin/sh
# In the Debian guest: negative-dentry-metrics (userspace/prometheus), run
# by its timer, read by node_exporter's textfile collector, while a unit
# with MemoryNegativeDentryMax= floods in a slice with a larger limit of its
# own; its cgroup filters, set in /etc/default/negative-dentry-metrics;
# node_exporter's sysctl collector with the flags userspace/prometheus's
# README gives for the machine-wide counts; a run that succeeds logs
# nothing, a failed one says why. Printed as TAP.
#
# On a kernel without negative dentry limits (VMRUN_KERNEL=base): the
# program runs and writes a file node_exporter takes, with no cgroup's
# series and one saying the kernel lacks the limits, and the sysctl
# collector serves fs.dentry-state.
# shellcheck disable=SC2317 # functions called by wait_for and tap_check
. ./tap.sh

LIMIT=1000
SLICE_LIMIT=$((LIMIT * 100))
BOUND=$(settled_bound $LIMIT)
prom=/var/lib/prometheus/node-exporter/negative-dentry.prom
# A slice of its own (a dash in a slice's name would nest it: nd-x.slice is
# in nd.slice, which systemd.sh uses).
slice=ndmetrics.slice
cgroup=/$slice/nd-metrics-flood.service
timer=negative-dentry-metrics.timer
svc=negative-dentry-metrics.service
defaults=/etc/default/negative-dentry-metrics
# fs.dentry-state's six fields, named as proc_sys_fs(5) does
dentry_state=fs.dentry-state:nr_dentry,nr_unused,age_limit,want_pages,nr_negative,dummy
if [ "$VMRUN_KERNEL" = base ]; then
	sysctls="--collector.sysctl.include=$dentry_state"
else
	sysctls="--collector.sysctl.include=$dentry_state --collector.sysctl.include=fs.dentry-dir-max"
fi
cp /etc/default/prometheus-node-exporter /var/tmp/prometheus-node-exporter.default
echo "ARGS=\"--collector.sysctl $sysctls\"" >/etc/default/prometheus-node-exporter

# Over the limit every round, with fresh names.
cat >/var/tmp/nd-metrics-flood.sh <<'EOF'
i=0
while :; do
	i=$((i + 1))
	negflood -p "r$i-" /var/tmp/nd-metrics 1500 >/dev/null
	sleep 1
done
EOF
cat >/etc/systemd/system/$slice <<EOF
[Slice]
MemoryNegativeDentryMax=$SLICE_LIMIT
EOF
cat >/etc/systemd/system/nd-metrics-flood.service <<EOF
[Service]
Slice=$slice
MemoryNegativeDentryMax=$LIMIT
ExecStart=/bin/sh /var/tmp/nd-metrics-flood.sh
EOF
mkdir -p /var/tmp/nd-metrics
systemctl daemon-reload
systemctl restart prometheus-node-exporter
systemctl start nd-metrics-flood
systemctl enable --now $timer 2>&1 | sed 's/^/# /'

scrape() { metrics=$(curl -s http://localhost:9100/metrics); }
# value NAME [CGROUP]: the value of series NAME of CGROUP (default: the
# flood unit's) in $metrics
value() {
	printf '%s\n' "$metrics" | awk -v name="$1{" -v cg="cgroup=\"${2:-$cgroup}\"," \
		'index($0, name) == 1 && index($0, cg) { print $NF }'
}
between() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
wait_for() { i=0; while [ $i -lt 60 ] && ! "$@"; do sleep 1; i=$((i + 1)); done; }
# has LINE: a line of $metrics starts with LINE; if not, say which lines of
# its metric there are
has() {
	printf '%s\n' "$metrics" | awk -v l="$1" 'index($0, l) == 1 { f = 1 } END { exit !f }' &&
		return 0
	echo "no $1, but:"
	printf '%s\n' "$metrics" | grep -F "${1%%[{ ]*}" | grep -v '^#' | head -20
	return 1
}
served() { scrape && has node_textfile_scrape_error >/dev/null; }
# the service has run, and exited 0
ran() {
	set -- "$(systemctl show -P ExecMainExitTimestampMonotonic "$svc")" \
		"$(systemctl show -P ExecMainStatus "$svc")" "$(systemctl show -P Result "$svc")"
	echo "exited at $1 us, status $2, result $3"
	[ "$1" != 0 ] && [ "$2" = 0 ] && [ "$3" = success ]
}
# the cgroup labels in the file the program wrote
exported() { sed -n 's/^cgroup_negative_dentry_current{cgroup="\([^"]*\)".*/\1/p' $prom; }
done_here() {
	systemctl disable --now $timer 2>/dev/null
	systemctl stop $slice
	rm -f $defaults /etc/systemd/system/$slice
	mv /var/tmp/prometheus-node-exporter.default /etc/default/prometheus-node-exporter
	systemctl daemon-reload
	systemctl restart prometheus-node-exporter
	tap_done
}

wait_for test -e $prom
tap_check "the timer is active" equals "$(systemctl is-active $timer)" active
tap_check "its run wrote $prom" test -s $prom
wait_for ran
tap_check "and exited 0, sandboxed" ran
# Runs that succeed log nothing, neither systemd about the unit nor the
# program.
since=$(date +%s)
sleep 1
systemctl start $svc
systemctl start $svc
journalctl --sync
tap_check "two runs that succeed leave nothing in the journal" \
	equals "$(journalctl -q -u $svc --since "@$since" -o cat)" ""
wait_for served
tap_check "node_exporter serves metrics" served
tap_check "node_textfile_scrape_error is 0" has "node_textfile_scrape_error 0"
tap_check "node_exporter read negative-dentry.prom" \
	has "node_textfile_mtime_seconds{file=\"$prom\"}"
tap_check "its sysctl collector serves the negative dentries of the machine" \
	has "node_sysctl_fs_dentry_state_nr_negative "
tap_check "and all dentries" has "node_sysctl_fs_dentry_state_nr_dentry "
tap_check "and without an error" has 'node_scrape_collector_success{collector="sysctl"} 1'

# Whether what systemd is told can be applied: our systemd knows the
# property on both kernels; the slice and the unit set it.
tap_check "negative_dentry_systemd_supported is 1" has "negative_dentry_systemd_supported 1"
tap_check "negative_dentry_systemd_configured counts the slice and the unit" \
	between "$(printf '%s\n' "$metrics" | awk '$1 == "negative_dentry_systemd_configured" { print $2 }')" 2 99
if [ "$VMRUN_KERNEL" = base ]; then
	tap_check "the file has no cgroup's series" \
		equals "$(grep -c '^cgroup_' $prom)" 0
	tap_check "and says the kernel has no limits" has "negative_dentry_kernel_supported 0"
	tap_check "node_exporter has no cgroup_negative_dentry_current series" \
		fails has "cgroup_negative_dentry_current{"
	done_here
fi

# Until a run of the timer has seen the unit go over its limit.
i=0
while [ $i -lt 45 ] && ! between "$(value cgroup_negative_dentry_events_total)" 1 999999999; do
	sleep 2
	scrape
	i=$((i + 1))
done
printf '%s\n' "$metrics" | grep "cgroup=\"/$slice" | sed 's/^/# /'
tap_check "node_exporter has the unit's current series, with its name label" \
	has "cgroup_negative_dentry_current{cgroup=\"$cgroup\",name=\"nd-metrics-flood.service\"} "
tap_check "current is above 0, at most $BOUND" \
	between "$(value cgroup_negative_dentry_current)" 1 $BOUND
tap_check "max is $LIMIT" equals "$(value cgroup_negative_dentry_max)" $LIMIT
tap_check "events_total{event=\"max\"} is at least 1" \
	between "$(value cgroup_negative_dentry_events_total)" 1 999999999
tap_check "events_local_total{event=\"max\"} is at least 1" \
	between "$(value cgroup_negative_dentry_events_local_total)" 1 999999999
tap_check "reclaimed_total is above 0" \
	between "$(value cgroup_negative_dentry_reclaimed_total)" 1 999999999
tap_check "the slice's max is $SLICE_LIMIT" \
	equals "$(value cgroup_negative_dentry_max "/$slice")" $SLICE_LIMIT
tap_check "the slice's events_total counts the unit's events" \
	between "$(value cgroup_negative_dentry_events_total "/$slice")" 1 999999999
tap_check "but its events_local_total is 0: it never reached its own limit" \
	equals "$(value cgroup_negative_dentry_events_local_total "/$slice")" 0
tap_check "node_textfile_scrape_error is still 0" has "node_textfile_scrape_error 0"
tap_check "negative_dentry_kernel_supported is 1" has "negative_dentry_kernel_supported 1"
tap_check "node_sysctl_fs_dentry_dir_max is served" has "node_sysctl_fs_dentry_dir_max "

# The filter, from the service's environment file. The timer stops first:
# a start while its run is under way would join that run, with the old
# environment.
tap_check "without a filter the file has the slice" contains "$(exported)" "/$slice"
systemctl stop $timer $svc
echo "NEGATIVE_DENTRY_CGROUP_EXCLUDE='^/ndmetrics\.slice'" >$defaults
systemctl start $svc
tap_check "with $defaults excluding the slice, it keeps its unit, which has a limit of its own" \
	contains "$(exported)" "$cgroup"
echo "NEGATIVE_DENTRY_CGROUP_INCLUDE='^/system\.slice'" >$defaults
systemctl start $svc
tap_check "with $defaults including system.slice only, it has neither the slice nor its unit" \
	fails grep -q "cgroup=\"/$slice" $prom
tap_check "and still the other cgroups" contains "$(exported)" /system.slice
echo "NEGATIVE_DENTRY_CGROUP_INCLUDE='['" >$defaults
tap_check "a bad regular expression in it fails the service" fails systemctl start $svc
tap_check "which says why" contains "$(journalctl -q -u $svc -n 5 -o cat)" "not a regular expression"
tap_check "and leaves the file without the slice" fails grep -q "cgroup=\"/$slice" $prom
done_here
