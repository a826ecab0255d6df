#!/bin/sh
# make stress: the negative dentry limits under everything at once, on the
# debug kernel in the busybox guest (and on the cloud kernels in the
# Debian guest, for make distro-check), for stress.duration= seconds
# (kernel command line; 600 by default). Concurrently:
#   - floods of missing names from every cpu in cgroups limited to 300,
#     1000 and "max", with fs.dentry-dir-max 256;
#   - stress-ng's dentry, dir, rename, link, getdent and filename stressors
#     (Debian's stress-ng, staged here with its libraries by make);
#   - cgroup churn: a cgroup made, a flooder moved in, limits set and
#     lifted, and the cgroup removed while its negatives are pending;
#   - a small ext2 on a RAM disk (busybox's mke2fs makes ext2) mounted,
#     flooded, remounted read-only and back, frozen and thawed with a
#     removed directory queued for reclaim, unmounted;
#   - drop_caches, and a memory hog under memory.max;
#   - for the middle third: failslab and fail_page_alloc on the flooders
#     and the churn.
# Then it checks what must hold afterwards, as TAP. vm-run fails the run on
# any kernel warning, lockdep or KASAN report on the console. Boot with
# kmemleak=on for the leak check, and with stress.faults=off on a kernel
# without fault injection (a distribution's).
. ./tap.sh
stress_ng="$PWD/lib/ld-linux-x86-64.so.2 --library-path $PWD/lib $PWD/stress-ng"
duration=600 faults=on
for word in $(cat /proc/cmdline); do
	case $word in
	stress.duration=*) duration=${word#*=} ;;
	stress.faults=*) faults=${word#*=} ;;
	esac
done
# The test filesystem has to be one of its own, which checkpoint() can
# freeze: the busybox guest's test disk is; the Debian guest's TESTFS is
# a folder of its root, so there an ext4 image on a loop device is
# mounted on it.
if ! awk -v d="$TESTFS" '$2 == d { found = 1 } END { exit !found }' /proc/mounts; then
	truncate -s 2G /var/tmp/stress.img && mkfs.ext4 -q -F /var/tmp/stress.img &&
		mount -o loop /var/tmp/stress.img "$TESTFS" || exit 1
fi
cg=/sys/fs/cgroup/stress
work=$TESTFS/stress
dbg=/sys/kernel/debug
log=/tmp/stress
ncpu=$(nproc)
# Seconds since boot: the wall clock of the guest may jump while it runs.
now() { cut -d. -f1 /proc/uptime; }
start=$(now)
deadline=$((start + duration))
# No fork: a loop whose check failed to fork (failslab, a short memory)
# would end early and quietly. Each loop says when it ended.
seconds_up() { read -r up _ </proc/uptime; up=${up%%.*}; }
running() { seconds_up; [ "$up" -lt "$deadline" ] && [ ! -e "$log/stop" ]; }
ended() { seconds_up; echo "$up" >"$log/$1.ended"; }
# Mark the calling (sub)shell for fault injection, before it execs; with
# stress.faults=off the kernel may have no fault injection at all.
faulty() { [ "$faults" = off ] || echo 1 >/proc/self/make-it-fail; }
count() { echo $(($(cat "$1" 2>/dev/null || echo 0) + 1)) >"$1"; }
current() { cat "$cg/$1/memory.negative_dentry.current"; }
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$cg/$1/memory.stat"; }
nr_negative() { awk '{ print $5 }' /proc/sys/fs/dentry-state; }

rm -rf "$log" "$work"
mkdir -p "$log" "$work/keep"
echo "stress: $duration s on $ncpu cpus"

# Files of known content, checked at the end.
i=0
while [ $i -lt 200 ]; do
	seq $i $((i + 300)) >"$work/keep/f$i"
	i=$((i + 1))
done
(cd "$work/keep" && sha256sum f*) >"$log/keep.sums"

echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir "$cg"
echo +memory >"$cg/cgroup.subtree_control"
echo 256 >/proc/sys/fs/dentry-dir-max
[ -e $dbg/kmemleak ] && echo clear >$dbg/kmemleak
# Which removed cgroups are released, should one stay dying.
trace=/sys/kernel/tracing
echo 1 >$trace/events/cgroup/cgroup_rmdir/enable
echo 1 >$trace/events/cgroup/cgroup_release/enable
[ -e $dbg/kmemleak ] && echo scan=off >$dbg/kmemleak

# Flooders of one cgroup, round after round of new names, over 8
# directories: fs.dentry-dir-max keeps each under about 256, so together
# they can go over the cgroup's limit. A round that fails is counted as
# the faults' if the fault window was open when it began or ended.
flood_loop() {
	name=$1
	echo "$2" >"$cg/$name/memory.negative_dentry.max"
	round=0
	while running; do
		dir=$work/$name/d$((round % 8))
		mkdir -p "$dir"
		window=$(cat "$log/faults.on" 2>/dev/null)
		(echo 0 >"$cg/$name/cgroup.procs" && faulty &&
			exec negflood -t "$ncpu" -p "r$round-" "$dir" 1000) \
			>/dev/null 2>&1 ||
			if [ -n "$window" ] || [ -e "$log/faults.on" ]; then
				count "$log/$name.faulted"
			else
				count "$log/$name.failed"
			fi
		round=$((round + 1))
		count "$log/$name.rounds"
	done
	ended "$name"
}

# The highest .current of a cgroup, sampled.
watch_peak() {
	peak=0
	while running; do
		n=$(current "$1")
		[ "$n" -gt "$peak" ] && peak=$n && echo "$peak" >"$log/$1.peak"
		sleep 0.2
	done
}

# Cgroups made and removed under $cg/churn. They hold nothing but negative
# dentries and their flooder, so none may stay dying once the page cache
# (directory blocks a flooder read in) is dropped.
churn_loop() {
	i=0
	mkdir -p "$work/churn"
	while running; do
		i=$((i + 1))
		c=$cg/churn/c$i
		(faulty && exec mkdir "$c") 2>/dev/null ||
			{ count "$log/churn.mkdir-failed"; continue; }
		echo 500 >"$c/memory.negative_dentry.max"
		(echo 0 >"$c/cgroup.procs" && faulty &&
			exec negflood -p "c$i-" "$work/churn" 5000) >/dev/null 2>&1 &
		sleep 0.3
		echo max >"$c/memory.negative_dentry.max"
		echo 300 >"$c/memory.negative_dentry.max"
		kill $! 2>/dev/null
		wait $! 2>/dev/null
		rmdir "$c" && count "$log/churn.cycles"
	done
	ended churn
}

mount_loop() {
	mkdir -p /mnt/churn
	# A module in a distribution's kernel.
	[ -b /dev/ram0 ] || modprobe brd rd_nr=1 rd_size=4096
	mke2fs /dev/ram0 >/dev/null 2>&1 || return
	while running; do
		mount /dev/ram0 /mnt/churn || { count "$log/mount.failed"; sleep 1; continue; }
		mkdir -p /mnt/churn/d /mnt/churn/q
		(echo 0 >"$cg/mnt/cgroup.procs" &&
			negflood -p "m$(now)-" /mnt/churn/d 3000 &&
			exec negflood -p "q" /mnt/churn/q 400) >/dev/null 2>&1 ||
			count "$log/mnt.failed"
		rmdir /mnt/churn/q
		fsfreeze --freeze /mnt/churn && sleep 0.2 &&
			fsfreeze --unfreeze /mnt/churn && count "$log/freeze.cycles"
		{ mount -o remount,ro /mnt/churn && mount -o remount,rw /mnt/churn; } ||
			count "$log/remount.failed"
		umount /mnt/churn || { count "$log/umount.failed"; sleep 1; }
		count "$log/mount.cycles"
	done
	ended mount
}

# The page cache, then dentries and inodes, dropped in turn every 20 s:
# often enough to race with everything, seldom enough to let the floods
# reach their limits (some 1600 negatives between two drops of dentries
# on the debug kernel).
drop_loop() {
	n=1
	while running; do
		sleep 20
		echo $n >/proc/sys/vm/drop_caches
		n=$((3 - n))
		count "$log/drop.count"
	done
	ended drop
}

# failslab and fail_page_alloc on the tasks that have
# make-it-fail set (and their children, which inherit it): the flooders
# and the churn's mkdir of cgroups, each marked by faulty() in a subshell
# of its own before it execs. Not the loops' shells, which would die of a
# failed fork and end the load early.
faults() {
	for f in failslab fail_page_alloc; do
		echo "$2" >$dbg/$f/probability
		echo 1 >$dbg/$f/interval
		echo "$3" >$dbg/$f/times
		echo 0 >$dbg/$f/verbose
		echo "$1" >$dbg/$f/task-filter
	done
	# Sleeping allocations too: dentries, and the cgroups' own state.
	echo N >$dbg/failslab/ignore-gfp-wait
	echo N >$dbg/fail_page_alloc/ignore-gfp-wait
	echo 0 >$dbg/fail_page_alloc/min-order
}
# failslab and fail_page_alloc only: fail_function would fail
# memcg_negative_dentry_init() (open to it), but on 6.12 its kprobe
# handler draws a random number under crngs.lock in the int3 trap, which
# lockdep reports as an inconsistent lock state (fault-inject's, not ours).
fault_window() {
	sleep $((duration / 3))
	echo 1 >"$log/faults.on"
	faults Y 10 100000
	sleep $((duration / 3))
	for f in failslab fail_page_alloc; do
		echo $((100000 - $(cat $dbg/$f/times))) >"$log/$f.injected"
	done
	faults N 0 1
	rm "$log/faults.on"
}

for name in l300:300 l1000:1000 lmax:max sng:2000 mnt:1000 hog:max churn:max; do
	mkdir "$cg/${name%%:*}"
	echo "${name#*:}" >"$cg/${name%%:*}/memory.negative_dentry.max"
done
echo 48M >"$cg/hog/memory.max"
echo +memory >"$cg/churn/cgroup.subtree_control"

pids=
for name in l300:300 l1000:1000 lmax:max; do
	flood_loop "${name%%:*}" "${name#*:}" &
	pids="$pids $!"
	watch_peak "${name%%:*}" &
	pids="$pids $!"
done
churn_loop &
pids="$pids $!"
mount_loop &
pids="$pids $!"
drop_loop &
pids="$pids $!"
[ "$faults" = off ] || fault_window &
pids="$pids $!"
(echo 0 >"$cg/sng/cgroup.procs" && mkdir -p "$work/sng" &&
	$stress_ng --dentry 1 --dir 1 --rename 1 --link 1 --getdent 1 \
		--filename 1 --temp-path "$work/sng" --timeout "${duration}s" \
		--metrics-brief; echo $? >"$log/stress-ng.status") \
	>"$log/stress-ng.out" 2>&1 &
pids="$pids $!"
(echo 0 >"$cg/hog/cgroup.procs" &&
	exec $stress_ng --vm 1 --vm-bytes 96M --timeout "${duration}s") \
	>"$log/hog.out" 2>&1 &
pids="$pids $!"
for p in $pids; do
	wait "$p"
done
touch "$log/stop"
echo "stress: load ran $(($(now) - start)) s"

# Figures.
for name in l300 l1000 lmax; do
	echo "# $name: $(cat "$log/$name.rounds" 2>/dev/null || echo 0) rounds of 1000," \
		"peak $(cat "$log/$name.peak" 2>/dev/null || echo 0)," \
		"events $(awk '{ print $2 }' "$cg/$name/memory.negative_dentry.events")," \
		"reclaimed $(stat_of "$name" negative_dentry_reclaimed)," \
		"killed $(stat_of "$name" negative_dentry_killed)"
done
echo "# churn: $(cat "$log/churn.cycles" 2>/dev/null || echo 0) cgroups made, limited" \
	"and removed ($(cat "$log/churn.mkdir-failed" 2>/dev/null || echo 0) mkdir failures)"
echo "# mounts: $(cat "$log/mount.cycles" 2>/dev/null || echo 0) mount, flood, freeze," \
	"remount and umount cycles ($(cat "$log/mount.failed" 2>/dev/null || echo 0) mount and" \
	"$(cat "$log/umount.failed" 2>/dev/null || echo 0) umount failures," \
	"$(cat "$log/freeze.cycles" 2>/dev/null || echo 0) freezes);" \
	"drop_caches: $(cat "$log/drop.count" 2>/dev/null || echo 0)"
for f in failslab fail_page_alloc; do
	echo "# faults injected by $f: $(cat "$log/$f.injected" 2>/dev/null || echo 0)"
done
grep -E "dentry|dir |rename|link|getdent|filename" "$log/stress-ng.out" | sed 's/^/# /'

went_over_and_settled() {
	limit=$2
	events=$(awk '{ print $2 }' "$cg/$1/memory.negative_dentry.events")
	gone=$(($(stat_of "$1" negative_dentry_reclaimed) + $(stat_of "$1" negative_dentry_killed)))
	t=0
	while [ "$(current "$1")" -gt $(settled_bound "$limit") ] && [ $t -lt 600 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	echo "$1: $events events, $gone reclaimed or killed, $(current "$1") now"
	[ "$events" -ge 1 ] && [ "$gone" -gt 0 ] &&
		[ "$(current "$1")" -le $(settled_bound "$limit") ]
}
tap_check "cgroup limited to 300 went over, reclaimed and settled" \
	went_over_and_settled l300 300
tap_check "cgroup limited to 1000 went over, reclaimed and settled" \
	went_over_and_settled l1000 1000

# stress-ng's cgroup, and the small filesystem's, whose one directory
# fs.dentry-dir-max keeps under its cgroup's limit, may or may not pass
# their limits: they hold to them.
held_to_limit() {
	echo "$1: $(current "$1") now, limit $2"
	[ "$(current "$1")" -le $(settled_bound "$2") ]
}
tap_check "stress-ng's cgroup, limited to 2000, holds to its limit" \
	held_to_limit sng 2000
tap_check "the small filesystem's cgroup, limited to 1000, holds to its limit" \
	held_to_limit mnt 1000

faults_injected() {
	total=0
	for f in failslab fail_page_alloc; do
		total=$((total + $(cat "$log/$f.injected" 2>/dev/null || echo 0)))
	done
	echo "$total faults injected"
	[ "$total" -gt 0 ]
}
if [ "$faults" = off ]; then
	echo "# stress.faults=off: no faults injected"
else
	tap_check "faults were injected" faults_injected
fi

# Every load ran to the end: a loop that quit early tested less than it
# says.
loops_ran_to_the_end() {
	ok=0
	for name in l300 l1000 lmax churn mount drop; do
		at=$(cat "$log/$name.ended" 2>/dev/null || echo 0)
		[ "$at" -ge "$deadline" ] || { echo "$name ended at $at s, not $deadline s"; ok=1; }
	done
	return $ok
}
tap_check "every load loop ran until the end" loops_ran_to_the_end

# A flood or stress-ng run that failed outside the fault window is a
# lookup, a create or an unlink that failed where nothing was injected.
loads_succeeded() {
	ok=0
	for name in l300 l1000 lmax mnt; do
		echo "$name: $(cat "$log/$name.failed" 2>/dev/null || echo 0) floods failed," \
			"$(cat "$log/$name.faulted" 2>/dev/null || echo 0) under injected faults"
		[ -e "$log/$name.failed" ] && ok=1
	done
	echo "stress-ng exited $(cat "$log/stress-ng.status" 2>/dev/null || echo never)"
	[ "$(cat "$log/stress-ng.status" 2>/dev/null)" = 0 ] || ok=1
	return $ok
}
tap_check "the floods and stress-ng failed only under injected faults" \
	loads_succeeded

# Nothing the limits did kept the small filesystem from being remounted or
# unmounted: a drain or a reclaim that held its s_umount would.
mounted_and_frozen() {
	echo "$(cat "$log/mount.cycles" 2>/dev/null || echo 0) mount cycles," \
		"$(cat "$log/freeze.cycles" 2>/dev/null || echo 0) freezes;" \
		"failed: $(cat "$log/mount.failed" 2>/dev/null || echo 0) mounts," \
		"$(cat "$log/remount.failed" 2>/dev/null || echo 0) remounts," \
		"$(cat "$log/umount.failed" 2>/dev/null || echo 0) umounts"
	[ -e "$log/mount.cycles" ] && [ -e "$log/freeze.cycles" ] &&
		! [ -e "$log/mount.failed" ] && ! [ -e "$log/remount.failed" ] &&
		! [ -e "$log/umount.failed" ]
}
tap_check "the small filesystem was mounted, frozen, remounted and unmounted, every time" mounted_and_frozen

# While the test cgroups still hold their negative dentries: the counts
# of the top-level cgroups, ours among them, are no more than the
# negative dentries there are (the root cgroup's are in none), give or take
# what the cpus hold ahead. After the removals below this would be 0 <= N.
counts_agree() {
	total=0
	for c in /sys/fs/cgroup/*/memory.negative_dentry.current; do
		total=$((total + $(cat "$c")))
	done
	nr=$(nr_negative)
	echo "top-level cgroups count $total, nr_negative $nr"
	[ "$total" -ge 0 ] && [ "$total" -le $((nr + 64 * ncpu)) ]
}
tap_check "cgroup counts agree with nr_negative" counts_agree

# What each cgroup holds besides dentries, for the diagnosis of any that
# stays dying below.
held() {
	awk '$1 ~ /^(anon|file|shmem|kernel|sock|percpu)$/ {
		printf "%s %d KiB, ", $1, $2 / 1024 }' "$1/memory.stat"
	echo "swap $(($(cat "$1/memory.swap.current" 2>/dev/null || echo 0) / 1024)) KiB"
}
for c in "$cg"/*/; do
	echo "$(basename "$c"): $(held "$c")" >>"$log/held"
done

# Remove every test cgroup; what those under a limit left is drained, and
# what the rest left is dropped with the caches below.
for c in "$cg"/*/ "$cg"/churn/*/; do
	[ -d "$c" ] || continue
	for p in $(cat "$c/cgroup.procs"); do kill -9 "$p" 2>/dev/null; done
done
sleep 1
for c in "$cg"/churn/*/ "$cg"/*/; do
	[ -d "$c" ] && [ "$c" != "$cg/churn/" ] && rmdir "$c"
done
echo 0 >/proc/sys/fs/dentry-dir-max
rm -rf "$work/l300" "$work/l1000" "$work/lmax" "$work/churn" "$work/sng"


# Removed cgroups must not stay dying on our account: every drain ends
# (each holds its cgroup), and the churn cgroups, which held nothing but
# negative dentries, a flooder and the directory blocks it read, are all
# freed once those are dropped (checkpoint()). Others may stay dying
# longer for what they charged otherwise: all_freed() below.
dying() { awk '$1 == "nr_dying_descendants" { print $2 }' "$1/cgroup.stat"; }
drains() { cat $dbg/negative_dentry/drains; }
drains_end() {
	t=0
	while [ "$(drains)" -ne 0 ] && [ $t -lt 60 ]; do
		sleep 1
		t=$((t + 1))
	done
	echo "drains in flight after $t s: $(drains)"
	[ "$(drains)" -eq 0 ]
}
tap_check "every drain of a removed cgroup ends" drains_end

# Once the drains are done, the parent of the removed cgroups comes to
# hold no more than its live descendants (churn/, the removed churn
# cgroups' parent, is left). What a removed cgroup held that turned
# negative after its drain ran (a file unlinked later, a dentry in use
# then), or that no limit drained (lmax), is the parent's, and caches are
# dropped for it; that the drains
# themselves free what they should is the selftests' to judge
# (test_negdentry_rmdir_drains and the drain tests). memory.stat's
# negative_dentries is the same count.
living() {
	n=0
	for c in "$cg"/*/; do
		[ -d "$c" ] && n=$((n + $(cat "$c/memory.negative_dentry.current")))
	done
	echo $n
}
parent_holds_only_the_living() {
	t=0
	while [ "$(cat "$cg/memory.negative_dentry.current")" -ne "$(living)" ] &&
		[ $t -lt 60 ]; do
		echo 2 >/proc/sys/vm/drop_caches
		sleep 1
		t=$((t + 1))
	done
	stat=$(awk '$1 == "negative_dentries" { print $2 }' "$cg/memory.stat")
	echo "parent of the removed cgroups: $(cat "$cg/memory.negative_dentry.current")" \
		"after $t s; memory.stat $stat; its live descendants $(living)"
	[ "$(cat "$cg/memory.negative_dentry.current")" -eq "$(living)" ] &&
		[ "$stat" -eq "$(living)" ]
}
tap_check "the parent of the removed cgroups counts only its live descendants once the drains end" \
	parent_holds_only_the_living


# The page cache dropped, and the test filesystem's journal checkpointed
# (freezing does it): it keeps metadata blocks, charged to whoever read
# them, until then.
checkpoint() {
	sync
	fsfreeze --freeze "$TESTFS" && fsfreeze --unfreeze "$TESTFS"
	echo 3 >/proc/sys/vm/drop_caches
}
churn_freed() {
	checkpoint
	t=0
	while [ "$(dying "$cg/churn")" -ne 0 ] && [ $t -lt 30 ]; do
		sleep 1
		t=$((t + 1))
	done
	echo "churn cgroups dying after $t s: $(dying "$cg/churn");" \
		"all removed cgroups: $(dying "$cg")"
	[ "$(dying "$cg/churn")" -eq 0 ]
}
tap_check "no removed churn cgroup stays dying" churn_freed

# Every removed cgroup is freed once what it charged besides dentries is
# gone: page cache, including the test filesystem's metadata blocks that
# its journal keeps until a checkpoint (freezing checkpoints it); the
# writeback structures of a cgroup that had dirty inodes when it was
# removed, which only the next removal of a memory cgroup moves the then
# clean inodes off (cleanup_offline_cgwbs()); and swap entries that the
# swap slot cache keeps per cpu, charged, after their pages were freed
# (swapoff frees them). Say which step freed the last ones, and what held
# them.
all_freed() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	wait_dying
	echo "removed cgroups dying after drop_caches: $(dying "$cg")"
	[ "$(dying "$cg")" -eq 0 ] && return 0
	echo "they held, before removal:"
	cat "$log/held"
	echo "their parent holds now: $(held "$cg")"
	for step in checkpoint writeback reclaim swapoff writeback; do
		case $step in
		checkpoint) checkpoint ;;
		writeback)
			# Clean first: a dirty inode keeps its writeback
			# structure, and the thaw dirtied the superblock's.
			sync
			mkdir "$cg-kick" && rmdir "$cg-kick" ;;
		reclaim) echo 1G >"$cg/memory.reclaim" 2>/dev/null ;;
		swapoff) grep -q "^/dev/vdc " /proc/swaps &&
			swapoff /dev/vdc && swapon /dev/vdc ;;
		esac
		wait_dying
		echo "after the $step: $(dying "$cg") dying, their parent holds $(held "$cg")"
		[ "$(dying "$cg")" -eq 0 ] && return 0
	done
	grep -E "^(active|inactive)_file |^(unevictable|file_mapped|file_dirty|file_writeback) " \
		"$cg/memory.stat" | tr '\n' ' '
	echo
	echo "removed and never released:"
	grep -o "cgroup_rmdir: .*path=[^ ]*" "$trace/trace" | sed 's/.*path=//' | sort -u >"$log/removed"
	grep -o "cgroup_release: .*path=[^ ]*" "$trace/trace" | sed 's/.*path=//' | sort -u >"$log/released"
	grep -v -x -F -f "$log/released" "$log/removed"
	return 1
}
wait_dying() {
	t=0
	while [ "$(dying "$cg")" -ne 0 ] && [ $t -lt 10 ]; do
		sleep 1
		t=$((t + 1))
	done
}
tap_check "every removed cgroup is freed after reclaim" all_freed

no_leaks() {
	# A write fails once kmemleak has turned itself off (out of memory
	# for its own objects, say): then it found nothing because it looked
	# for nothing.
	echo scan >$dbg/kmemleak || { echo "kmemleak is off"; return 1; }
	sleep 5
	echo scan >$dbg/kmemleak || { echo "kmemleak is off"; return 1; }
	leaks=$(grep -c "unreferenced object" $dbg/kmemleak)
	echo "kmemleak: $leaks new unreferenced objects"
	head -40 $dbg/kmemleak
	[ "$leaks" -eq 0 ]
}
if grep -qw kmemleak=on /proc/cmdline; then
	tap_check "kmemleak finds nothing new" no_leaks
else
	echo "# not booted with kmemleak=on: no leak check"
fi
rmdir "$cg/churn"

tap_check "files made at the start are intact" \
	sh -c "cd '$work/keep' && sha256sum -c '$log/keep.sums' >/dev/null"
rmdir "$cg"
tap_done
