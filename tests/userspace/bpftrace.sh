#!/bin/sh
# The bpftrace programs of userspace/bpftrace, on the distribution kernels
# of make distro-check, which have BPF and kprobes (make check's have
# neither); harness/distro-rootfs.sh installs them with bpftrace and the
# kernel's headers, which bpftrace needs where the kernel has no BTF.
# Each runs while floods it should see go on, and what it prints must name
# the flood's cgroup, directory and program and add up to the kernel's own
# counters. On the base kernel only creators.bt applies.
. ./tap.sh
bt=/usr/local/share/negative-dentry/bpftrace
top=/sys/fs/cgroup/nd-bt
work=/var/tmp/nd-bt
debugfs=/sys/kernel/debug/negative_dentry
negflood=$(command -v negflood)
# The boot's module loads over first: they slowed the attaching of
# kprobes, through ftrace, to seconds under TCG.
udevadm settle
mkdir -p $top $work/a $work/b $work/frozen
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
id=$(stat -c %i $top)

# trace PROGRAM: bpftrace runs PROGRAM, printing to /tmp/PROGRAM.out,
# and has attached its probes (compiling takes a while under TCG). It
# prints "Attaching N probes..." before it attaches them: a flood started
# then went uncounted, and a SIGINT that came while a kprobe was still
# being attached left bpftrace running for good, on the base kernel too.
# The variable, which bpftrace's own tests use, has it say when all are
# attached.
trace() {
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 bpftrace "$bt/$1" >"/tmp/$1.out" 2>&1 &
	echo $! >"/tmp/$1.pid"
	within 300 grep -q '^__BPFTRACE_NOTIFY_PROBES_ATTACHED' "/tmp/$1.out"
}
# stop PROGRAM: on SIGINT, bpftrace prints its maps and exits, within a
# few seconds. bpftrace 0.17 can miss it: its poll loop leaves only when
# epoll_wait() is interrupted, so a signal handled while it is elsewhere,
# or still attaching, sets the flag that nothing reads again, and it runs
# on for good (upstream fixed it in 0.19 and 0.21). So SIGTERM follows
# every 5 s: bpftrace keeps its handler for that one, where it resets
# SIGINT's before it prints the maps. The first time, the program's
# signal masks are shown; one that has not exited within a minute has
# its threads' states and kernel stacks shown, and the tasks blocked in
# the kernel (sysrq w), before it is killed.
stop() {
	echo "progress: stopping $1"
	start=$(date +%s)
	pid=$(cat "/tmp/$1.pid")
	kill -INT "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 60 ]; do
		sleep 1
		i=$((i + 1))
		if [ $((i % 5)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
			[ $i -eq 5 ] && echo "# $1 ran on 5 s after SIGINT:" \
				$(grep -E '^Sig(Pnd|Blk|Ign|Cgt)' "/proc/$pid/status")
			kill -TERM "$pid"
		fi
	done
	if kill -0 "$pid" 2>/dev/null; then
		for t in /proc/"$pid"/task/*; do
			echo "# $1 thread ${t##*/} $(cat "$t/comm"): state $(cut -d' ' -f3 "$t/stat")," \
				"wchan $(cat "$t/wchan"), syscall $(cut -d' ' -f1 "$t/syscall")"
			sed 's/^/#   /' "$t/stack"
		done
		echo w >/proc/sysrq-trigger
		kill -KILL "$pid"
		sed 's/^/# /' "/tmp/$1.out"
	fi
	wait "$pid"
	echo "progress: $1 ended after $(($(date +%s) - start)) s"
}
# total PROGRAM [TEXT...]: the sum of PROGRAM's map values on the lines
# that hold every TEXT
total() {
	f=/tmp/$1.out
	shift
	awk 'BEGIN { for (i = 1; i < ARGC; i++) w[i] = ARGV[i]; n = ARGC - 1; ARGC = 1 }
		/^@/ { for (i = 1; i <= n; i++) if (index($0, w[i]) == 0) next
			s += $NF } END { print s + 0 }' "$@" <"$f"
}
flood() {
	echo "progress: flooding $2 with $3 names"
	(echo 0 >$top/cgroup.procs && exec timeout 600 "$negflood" -p "$1-" "$2" "$3") >/dev/null
}
stat_of() { awk -v k="$1" '$1 == k { print $2 }' $top/memory.stat; }
# steady: the cgroup's reclaimed count has stopped moving for a second,
# so that every reclaim run has ended and reported
steady() {
	last=-1 i=0
	while [ "$(stat_of negative_dentry_reclaimed)" != "$last" ] && [ $i -lt 30 ]; do
		last=$(stat_of negative_dentry_reclaimed)
		sleep 1
		i=$((i + 1))
	done
}

tap_check "creators.bt attaches" trace creators.bt
flood c $work 3000
stop creators.bt
tap_check "creators.bt counts the flood's 3000 lookups to its cgroup and program" \
	at_least "$(total creators.bt "[$id, negflood]")" 3000
[ -f $top/memory.negative_dentry.max ] || tap_done

for p in cgroup-reclaim.bt dir-reclaim.bt kills.bt; do
	tap_check "$p attaches" trace $p
done
mount | grep -q " $(dirname $debugfs) " || mount -t debugfs debugfs "$(dirname $debugfs)"
reclaimed=$(stat_of negative_dentry_reclaimed) killed=$(cat $debugfs/killed)
# The cgroup's limit, then a directory's.
echo 1000 >$top/memory.negative_dentry.max
flood a $work/a 20000
echo max >$top/memory.negative_dentry.max
echo 256 >/proc/sys/fs/dentry-dir-max
flood b $work/b 5000
steady
echo 0 >/proc/sys/fs/dentry-dir-max
# Kills: reclaim leaves a frozen filesystem alone, so a flood there goes
# past the kill threshold, max(4 x 1000, 10000), and the rest are killed.
truncate -s 64M $work/frozen.img && mkfs.ext4 -q $work/frozen.img &&
	mount -o loop $work/frozen.img $work/frozen && fsfreeze -f $work/frozen
echo 1000 >$top/memory.negative_dentry.max
flood k $work/frozen 15000
fsfreeze -u $work/frozen
steady
for p in cgroup-reclaim.bt dir-reclaim.bt kills.bt; do stop $p; done
umount $work/frozen
reclaimed=$(($(stat_of negative_dentry_reclaimed) - reclaimed))
killed=$(($(cat $debugfs/killed) - killed))
echo "# memory.stat: $reclaimed reclaimed; debugfs: $killed killed"
dir_b=$(total dir-reclaim.bt ", $(stat -c %i $work/b)]")
tap_check "cgroup-reclaim.bt names the cgroup over its limit" \
	at_least "$(total cgroup-reclaim.bt "[$id, ")" 1
tap_check "dir-reclaim.bt names the directory over fs.dentry-dir-max" \
	at_least "$dir_b" 1
tap_check "the two reclaim programs add up to memory.stat's count" \
	equals $(($(total cgroup-reclaim.bt "[$id, ") + dir_b)) "$reclaimed"
tap_check "the frozen filesystem's flood was killed in part" at_least "$killed" 1
tap_check "kills.bt counts as many kills as the kernel, all for the cgroup" \
	equals "$(total kills.bt '[cgroup, negflood]')" "$killed"
tap_done
