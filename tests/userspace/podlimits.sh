#!/bin/sh
# In the Debian guest: negative-dentry-podlimits, what the DaemonSet of
# userspace/podlimits runs on each node, on real cgroups named as the
# kubelet names them, with the systemd driver (slices systemd makes) and
# the cgroupfs driver (folders under /sys/fs/cgroup/kubepods) at once, and
# a fake API server that answers only for the node's own pods. On a kernel
# without negative dentry limits (VMRUN_KERNEL=base) it must write nothing
# and say why.
. ./tap.sh

pl=negative-dentry-podlimits
cg=/sys/fs/cgroup
textfile=/run/nd-podlimits.prom
export NODE_NAME=guest NEGATIVE_DENTRY_POD_MAX=3000 \
	NEGATIVE_DENTRY_API=http://127.0.0.1:8765 \
	NEGATIVE_DENTRY_PODLIMITS_TEXTFILE=$textfile

# The API server: team's pods may go lower than its 2000, big's have no
# limit; the pod of another node must not be asked for.
cat >/tmp/nd-api.py <<'EOF'
import http.server, json, urllib.parse
def pod(ns, name, uid, notes):
    return {"metadata": {"namespace": ns, "name": name, "uid": uid,
                         "annotations": notes}, "status": {}}
PODS = [pod("team", "low", "1111-aa", {"negative-dentry/max": "500"}),
        pod("big", "whole", "4444-dd", {}),
        pod("open", "plain", "3333-cc", {}),
        pod("team", "greedy", "5555-ee", {"negative-dentry/max": "5000"})]
NS = [{"metadata": {"name": "team", "annotations": {"negative-dentry/max": "2000"}}},
      {"metadata": {"name": "big", "annotations": {"negative-dentry/max": "max"}}},
      {"metadata": {"name": "open"}}]
class API(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query)
        items = {"/api/v1/namespaces": NS,
                 "/api/v1/pods": PODS if q.get("fieldSelector") == ["spec.nodeName=guest"] else []}.get(url.path)
        if items is None:
            return self.send_error(404)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(json.dumps({"items": items}).encode())
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", 8765), API).serve_forever()
EOF
python3 /tmp/nd-api.py &
api=$!
within 10 python3 -c 'import socket; socket.create_connection(("127.0.0.1", 8765))'

# The systemd driver's pods: slices systemd makes, with a process in each.
sdpod() {
	systemd-run --quiet --unit "nd-plpod-$2" --slice="$1-pod$2.slice" \
		-p MemoryAccounting=yes /bin/sleep infinity
}
sdpod kubepods-burstable 1111_aa
sdpod kubepods 4444_dd
burstable=$cg/kubepods.slice/kubepods-burstable.slice
low=$burstable/kubepods-burstable-pod1111_aa.slice
whole=$cg/kubepods.slice/kubepods-pod4444_dd.slice
# The cgroupfs driver's: folders under the root, memory enabled down to
# them, as the kubelet makes them.
echo +memory >$cg/cgroup.subtree_control
mkdir -p $cg/kubepods/burstable/pod3333-cc $cg/kubepods/pod5555-ee
echo +memory >$cg/kubepods/cgroup.subtree_control
echo +memory >$cg/kubepods/burstable/cgroup.subtree_control
plain=$cg/kubepods/burstable/pod3333-cc
greedy=$cg/kubepods/pod5555-ee
# an unknown pod of each driver: the API server has not named it yet
sdpod kubepods-besteffort 7777_77
mkdir $cg/kubepods/burstable/pod8888-88
unknown_sd=$cg/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod7777_77.slice
unknown_fs=$cg/kubepods/burstable/pod8888-88

cleanup() {
	kill $api 2>/dev/null
	systemctl stop nd-plpod-1111_aa nd-plpod-4444_dd nd-plpod-7777_77 2>/dev/null
	rmdir $unknown_fs $plain $greedy $cg/kubepods/burstable $cg/kubepods 2>/dev/null
	rm -rf $textfile /var/tmp/nd-podlimits
}
limit() { cat "$1/memory.negative_dentry.max"; }

if [ "$VMRUN_KERNEL" = base ]; then
	$pl once >/tmp/pl.out 2>&1
	tap_check "on a kernel without the limits a pass exits 0" equals $? 0
	tap_check "and writes no limit" fails test -e $low/memory.negative_dentry.max
	tap_check "and says so to node_exporter" \
		contains "$(cat $textfile)" 'negative_dentry_podlimits_applied{reason="kernel"} 0'
	cleanup
	tap_done
fi

$pl once >/tmp/pl.out 2>&1
tap_check "a pass exits 0" equals $? 0
tap_check "a systemd-driver pod takes its own lower value" equals "$(limit $low)" 500
tap_check "a guaranteed systemd-driver pod takes its namespace's max" equals "$(limit $whole)" max
tap_check "a cgroupfs-driver pod takes the node's default" equals "$(limit $plain)" 3000
tap_check "a guaranteed cgroupfs-driver pod asking above its namespace gets the namespace's" \
	equals "$(limit $greedy)" 2000
tap_check "pods the API server has not named get the default" \
	equals "$(limit $unknown_sd) $(limit $unknown_fs)" "3000 3000"
tap_check "the QoS and kubepods cgroups above them keep none" \
	equals "$(cat $burstable/memory.negative_dentry.max $cg/kubepods/burstable/memory.negative_dentry.max $cg/kubepods/memory.negative_dentry.max)" \
	"max
max
max"
tap_check "it tells node_exporter it applied them, and whose cgroups they are" sh -c \
	"grep -qx 'negative_dentry_podlimits_applied 1' $textfile &&
	 grep -qx 'negative_dentry_pod_info{cgroup=\"/kubepods/pod5555-ee\",pod_namespace=\"team\",pod_name=\"greedy\",container_name=\"\"} 1' $textfile"

# Stock systemd never writes the file; ours writes it only for a unit that
# sets MemoryNegativeDentryMax=: a reload leaves the agent's value.
systemctl daemon-reload
tap_check "a daemon-reload leaves a pod slice's value" holds $low/memory.negative_dentry.max 500

# The limit it wrote holds a flood of missing names in the pod.
mkdir -p /var/tmp/nd-podlimits
systemd-run --quiet --wait --slice=kubepods-burstable-pod1111_aa.slice \
	negflood -p pl- /var/tmp/nd-podlimits 20000 >/dev/null
tap_check "a flood in the pod passes its limit: an event" \
	at_least "$(sed -n 's/^max //p' $low/memory.negative_dentry.events)" 1
tap_check "and reclaim brings its count back within the settled bound" \
	within 10 sh -c "[ \$(cat $low/memory.negative_dentry.current) -le $(settled_bound 500) ]"

# A restart takes over: a value taken away is put back, and SIGTERM ends it.
echo max >$low/memory.negative_dentry.max
$pl run >/tmp/pl.run 2>&1 &
runner=$!
tap_check "run puts back a value taken away" settles $low/memory.negative_dentry.max 500
kill -TERM $runner
wait $runner
tap_check "SIGTERM ends it with status 0" equals $? 0
tap_check "leaving the pods' limits" equals "$(limit $low) $(limit $plain)" "500 3000"

NEGATIVE_DENTRY_POD_MAX=20k $pl once >/tmp/pl.out 2>&1
tap_check "a default that is not a count stops it with status 2" equals $? 2
cleanup
