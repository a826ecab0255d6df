#!/bin/sh
# The bpftrace programs of userspace/bpftrace, on the distribution kernels
# of make distro-check, which have BPF and kprobes (make check's have
# neither); harness/distro-rootfs.sh installs them with bpftrace. Each runs
# while floods it should see go on, and what it prints must name the
# flood's cgroup and program and add up to the kernel's own counters. On
# the base kernel only creators.bt applies.
. ./tap.sh
bt=/usr/local/share/negative-dentry/bpftrace
top=/sys/fs/cgroup/nd-bt
work=/var/tmp/nd-bt
debugfs=/sys/kernel/debug/negative_dentry
negflood=$(command -v negflood)
mkdir -p $top $work/a $work/b
echo +memory >/sys/fs/cgroup/cgroup.subtree_control

# trace PROGRAM: bpftrace runs PROGRAM, printing to /tmp/PROGRAM.out,
# and has attached its probes (compiling takes a while under TCG)
trace() {
	bpftrace "$bt/$1" >"/tmp/$1.out" 2>&1 &
	echo $! >"/tmp/$1.pid"
	within 300 grep -q '^Attaching' "/tmp/$1.out"
}
# stop PROGRAM: on SIGINT, bpftrace prints its maps and exits
stop() { kill -INT "$(cat "/tmp/$1.pid")" && wait "$(cat "/tmp/$1.pid")"; }
# total PROGRAM [WORD...]: the sum of PROGRAM's map values on the lines
# that hold every WORD
total() {
	f=/tmp/$1.out
	shift
	awk -v words="$*" 'BEGIN { n = split(words, w, " ") }
		/^@/ { for (i = 1; i <= n; i++) if (index($0, w[i]) == 0) next
			s += $NF } END { print s + 0 }' "$f"
}
flood() { (echo 0 >$top/cgroup.procs && exec "$negflood" -p "$1-" "$2" "$3") >/dev/null; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' $top/memory.stat; }
current_below() { at_most "$(cat $top/memory.negative_dentry.current)" "$1"; }

tap_check "creators.bt attaches" trace creators.bt
flood c $work 3000
stop creators.bt
tap_check "creators.bt counts the flood's 3000 lookups to its cgroup and program" \
	at_least "$(total creators.bt nd-bt negflood)" 3000
[ -f $top/memory.negative_dentry.max ] || tap_done

for p in cgroup-reclaim.bt dir-reclaim.bt kills.bt; do
	tap_check "$p attaches" trace $p
done
mount | grep -q " $(dirname $debugfs) " || mount -t debugfs debugfs "$(dirname $debugfs)"
reclaimed=$(stat_of negative_dentry_reclaimed) killed=$(cat $debugfs/killed)
# The cgroup's limit, then a directory's.
echo 1000 >$top/memory.negative_dentry.max
flood a $work/a 20000
within 30 current_below 1200
echo max >$top/memory.negative_dentry.max
echo 256 >/proc/sys/fs/dentry-dir-max
flood b $work/b 5000
within 30 current_below 1600
echo 0 >/proc/sys/fs/dentry-dir-max
for p in cgroup-reclaim.bt dir-reclaim.bt kills.bt; do stop $p; done
reclaimed=$(($(stat_of negative_dentry_reclaimed) - reclaimed))
killed=$(($(cat $debugfs/killed) - killed))
echo "# memory.stat: $reclaimed reclaimed; debugfs: $killed killed"
tap_check "cgroup-reclaim.bt names the cgroup over its limit" \
	at_least "$(total cgroup-reclaim.bt nd-bt)" 1
tap_check "dir-reclaim.bt names the directory over fs.dentry-dir-max" \
	at_least "$(total dir-reclaim.bt ", $(stat -c %i $work/b)]")" 1
tap_check "the two reclaim programs add up to memory.stat's count" \
	equals $(($(total cgroup-reclaim.bt nd-bt) + $(total dir-reclaim.bt))) "$reclaimed"
tap_check "kills.bt counts as many kills as the kernel" equals "$(total kills.bt)" "$killed"
tap_done
