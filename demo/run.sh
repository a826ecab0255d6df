#!/bin/sh
# make run: a container that probes for files that do not exist.
#
# A cgroup, like the one a container runtime creates, runs negflood: it
# stats N missing names on ext4 (as NSS init or a health check does). Each
# failed lookup leaves a negative dentry behind. Every second we print the
# system's negative dentry count (/proc/sys/fs/dentry-state, 5th field) and
# the cgroup's memory: the dentries are kernel memory charged to it.
N=${N:-300000}
cg=/sys/fs/cgroup/demo
probe=$TESTFS/probe

negatives() { cut -f5 /proc/sys/fs/dentry-state; }
stat_of() { sed -n "s/^$1 //p" $cg/memory.stat; }
kib() { echo $(($1 / 1024)); }

echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg "$probe"
echo "demo: cgroup $cg stats $N missing names in $probe"
printf '%6s %12s %16s %16s\n' seconds negatives "memory.current" "slab_reclaimable"
before=$(negatives)
(echo 0 >$cg/cgroup.procs && exec negflood "$probe" "$N") &
flood=$!
t=0
while kill -0 $flood 2>/dev/null; do
	printf '%6d %12d %13d KiB %13d KiB\n' $t "$(negatives)" \
		"$(kib "$(cat $cg/memory.current)")" "$(kib "$(stat_of slab_reclaimable)")"
	sleep 1
	t=$((t + 1))
done
wait $flood || exit 1
after=$(negatives)
printf '%6s %12d %13d KiB %13d KiB\n' end "$after" \
	"$(kib "$(cat $cg/memory.current)")" "$(kib "$(stat_of slab_reclaimable)")"
echo "demo: the flood left $((after - before)) more negative dentries, charged to $cg"
echo "demo: nothing limits them: they stay until memory pressure or umount"
[ $((after - before)) -ge $((N * 9 / 10)) ]
