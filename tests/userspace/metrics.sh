#!/bin/sh
# In the Debian guest: negative-dentry-metrics (userspace/prometheus), run
# by its timer, read by node_exporter's textfile collector, while a unit
# with NegativeDentryMax= floods; printed as TAP.
#
# On a kernel without negative dentry limits (VMRUN_KERNEL=base): the
# program runs and writes a file node_exporter takes, with no series.
# shellcheck disable=SC2317 # functions called by wait_for and tap_check
. ./tap.sh

LIMIT=1000
BOUND=$((LIMIT + LIMIT / 8))
prom=/var/lib/prometheus/node-exporter/negative-dentry.prom
# A slice of its own (a dash in a slice's name would nest it: nd-x.slice is
# in nd.slice, which systemd.sh uses).
slice=ndmetrics.slice
cgroup=/$slice/nd-metrics-flood.service
timer=negative-dentry-metrics.timer
svc=negative-dentry-metrics.service

# Over the limit every round, with fresh names.
cat >/var/tmp/nd-metrics-flood.sh <<'EOF'
i=0
while :; do
	i=$((i + 1))
	negflood -p "r$i-" /var/tmp/nd-metrics 1500 >/dev/null
	sleep 1
done
EOF
cat >/etc/systemd/system/nd-metrics-flood.service <<EOF
[Service]
Slice=$slice
NegativeDentryMax=$LIMIT
ExecStart=/bin/sh /var/tmp/nd-metrics-flood.sh
EOF
mkdir -p /var/tmp/nd-metrics
systemctl daemon-reload
systemctl start prometheus-node-exporter nd-metrics-flood
systemctl enable --now $timer 2>&1 | sed 's/^/# /'

scrape() { metrics=$(curl -s http://localhost:9100/metrics); }
# the value of series NAME of the flood unit's cgroup in $metrics
value() {
	printf '%s\n' "$metrics" | awk -v name="$1{" -v cg="cgroup=\"$cgroup\"" \
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
done_here() {
	systemctl disable --now $timer 2>/dev/null
	systemctl stop $slice
	tap_done
}

wait_for test -e $prom
tap_check "the timer is active" equals "$(systemctl is-active $timer)" active
tap_check "its run wrote $prom" test -s $prom
wait_for ran
tap_check "and exited 0, sandboxed" ran
wait_for served
tap_check "node_exporter serves metrics" served
tap_check "node_textfile_scrape_error is 0" has "node_textfile_scrape_error 0"
tap_check "node_exporter read negative-dentry.prom" \
	has "node_textfile_mtime_seconds{file=\"$prom\"}"

if [ "$VMRUN_KERNEL" = base ]; then
	tap_check "the file has no series" \
		equals "$(grep -vc '^#' $prom)" 0
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
printf '%s\n' "$metrics" | grep "cgroup=\"$cgroup\"" | sed 's/^/# /'
tap_check "node_exporter has the unit's current series, with its unit label" \
	has "cgroup_negative_dentry_current{cgroup=\"$cgroup\",unit=\"nd-metrics-flood.service\"} "
tap_check "current is above 0, at most $BOUND" \
	between "$(value cgroup_negative_dentry_current)" 1 $BOUND
tap_check "max is $LIMIT" equals "$(value cgroup_negative_dentry_max)" $LIMIT
tap_check "events_total{event=\"max\"} is at least 1" \
	between "$(value cgroup_negative_dentry_events_total)" 1 999999999
tap_check "reclaimed_total is above 0" \
	between "$(value cgroup_negative_dentry_reclaimed_total)" 1 999999999
tap_check "node_textfile_scrape_error is still 0" has "node_textfile_scrape_error 0"
done_here
