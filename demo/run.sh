#!/bin/sh
# make run: two containers probe for files that do not exist.
#
# Two sibling cgroups, like those a container runtime creates, run the same
# flood: negflood stats N missing names on ext4, as NSS initialisation or a
# health check does, and each failed lookup leaves a negative dentry behind.
# One cgroup has memory.negative_dentry.max set, the other has not. While
# they run we print their negative dentries; "sample" lines feed the plot
# demo/plot.sh draws. Then a table, and the time rmdir takes.
N=${N:-400000}
MAX=${MAX:-50000}
cg=/sys/fs/cgroup/demo

now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
negatives() { cut -f5 /proc/sys/fs/dentry-state; }
current() { cat "$cg/$1/memory.negative_dentry.current"; }
stat_of() { sed -n "s/^$2 //p" "$cg/$1/memory.stat"; }
row() { printf '%-28s %12s %12s\n' "$@"; }

echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg "$TESTFS/limited" "$TESTFS/unlimited"
echo +memory >$cg/cgroup.subtree_control
mkdir $cg/limited $cg/unlimited
echo "$MAX" >$cg/limited/memory.negative_dentry.max
echo "demo: two cgroups stat $N missing names each;" \
	"memory.negative_dentry.max is $MAX in one, max in the other"

start=$(now_ms)
pids=
for which in limited unlimited; do
	(echo 0 >$cg/$which/cgroup.procs && exec negflood "$TESTFS/$which" "$N") &
	pids="$pids $!"
done
running() { for p in $pids; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
row seconds limited unlimited
last=0
while running; do
	t=$(($(now_ms) - start))
	echo "sample $t $(current limited) $(current unlimited)"
	if [ $((t - last)) -ge 1000 ]; then
		row "$((t / 1000))" "$(current limited)" "$(current unlimited)"
		last=$t
	fi
	sleep 0.2
done
wait
sleep 2
t=$(($(now_ms) - start))
echo "sample $t $(current limited) $(current unlimited)"

echo
row "" limited unlimited
row "memory.negative_dentry.max" "$MAX" max
row "negative dentries" "$(current limited)" "$(current unlimited)"
row "dentry slab (KiB)" \
	"$(($(stat_of limited slab_reclaimable) / 1024))" \
	"$(($(stat_of unlimited slab_reclaimable) / 1024))"
row "reclaimed by the limit" "$(stat_of limited negative_dentry_reclaimed)" \
	"$(stat_of unlimited negative_dentry_reclaimed)"
row "killed on dput" "$(stat_of limited negative_dentry_killed)" \
	"$(stat_of unlimited negative_dentry_killed)"
row "times over the limit" \
	"$(sed -n 's/^max //p' $cg/limited/memory.negative_dentry.events)" \
	"$(sed -n 's/^max //p' $cg/unlimited/memory.negative_dentry.events)"

# rmdir returns at once; the removed cgroup's negative dentries are drained
# in the background.
before=$(negatives)
left_after=$((before - $(current limited) - $(current unlimited)))
t0=$(now_ms)
rmdir $cg/limited $cg/unlimited
t1=$(now_ms)
while [ "$(negatives)" -gt $((left_after + N / 100)) ] &&
	[ $(($(now_ms) - t1)) -lt 60000 ]; do
	sleep 0.1
done
t2=$(($(now_ms)))
row "rmdir of both (ms)" "$((t1 - t0))" ""
row "drained after rmdir (ms)" "$((t2 - t1))" ""
echo "demo: system negative dentries $before before rmdir, $(negatives) after"
[ "$(negatives)" -le $((left_after + N / 100)) ]
