#!/bin/sh
# The make bench scenarios, run in the guest on the base or our kernel:
# each line of ./scenarios, in order, sets its sizes and runs the function
# scenario_NAME below. Prints "bench <scenario> <row> <metric> <value>"
# and "series <scenario> <row> <ms> <count>" lines, and "progress: NAME"
# before each; harness/bench.py collects them. A scenario our kernel's
# feature is missing from (the base kernel has no limits) runs without
# limits, as rows of their own.
. ./lib.sh
cg=/sys/fs/cgroup/bench
work=$TESTFS/bench

emit() { echo "bench $*"; }
negatives() { cut -f5 /proc/sys/fs/dentry-state; }
dentries() { cut -f1 /proc/sys/fs/dentry-state; }
# slab_bytes CGROUP: its reclaimable slab (dentries, inodes), in bytes
slab_bytes() { sed -n 's/^slab_reclaimable //p' "$cg/$1/memory.stat"; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
# run CGROUP COMMAND...: run a command inside a cgroup
run() { (echo 0 >"$cg/$1/cgroup.procs" && shift && exec "$@"); }
# must COMMAND...: run a command whose failure fails the run, which goes on
# to the other scenarios; harness/bench.py reads the exit status
failed=0
must() { "$@" || { echo "bench: $* exited $?" >&2; failed=1; }; }
limits() {	# limits DIR_MAX CGROUP MAX: set both limits, if we have them
	ours || return 0
	echo "$1" >/proc/sys/fs/dentry-dir-max
	echo "$3" >"$cg/$2/memory.negative_dentry.max"
}
evictions() {	# evictions CGROUP: its negative dentries reclaimed or killed
	ours || { echo 0; return; }
	echo $(($(sed -n 's/^negative_dentry_reclaimed //p' "$cg/$1/memory.stat") +
		$(sed -n 's/^negative_dentry_killed //p' "$cg/$1/memory.stat")))
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b ? a / b : 0 }'; }
# CPU time in ms: of a cgroup, of the kworkers
cgroup_ms() { echo $(($(sed -n 's/^usage_usec //p' "$cg/$1/cpu.stat") / 1000)); }
kworker_ms() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		awk '$2 ~ /^\(kworker/ { t += $14 + $15 } END { print t * 10 }'
}

echo +memory +cpu >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg $work
echo +memory +cpu >$cg/cgroup.subtree_control

# What monitoring pays: a read of memory.stat, of a leaf and of a parent
# of READ_CGROUPS children, with 64 cpus possible and 2 online. First, so
# that both kernels read in the same state: the later scenarios leave the
# base a million negative dentries.
scenario_reads() {
	mkdir $cg/reads $cg/leaf
	echo +memory >$cg/reads/cgroup.subtree_control
	(cd $cg/reads && mkdir $(seq 1 $READ_CGROUPS | sed 's/^/c/'))
	row=children-$READ_CGROUPS
	# a first read flushes what making the cgroups left to flush
	nd_bench read $cg/reads/memory.stat 10 >/dev/null
	emit reads leaf memory_stat_us "$(nd_bench read $cg/leaf/memory.stat $READS)"
	emit reads $row memory_stat_us "$(nd_bench read $cg/reads/memory.stat $READS)"
	if ours; then
		emit reads $row current_us \
			"$(nd_bench read $cg/reads/memory.negative_dentry.current $READS)"
	fi
	emit reads $row possible_cpus "$(cat /sys/devices/system/cpu/possible)"
	(cd $cg/reads && rmdir c*)
	rmdir $cg/reads $cg/leaf
}

scenario_lookup() {
	mkdir $cg/lookup
	nd_bench files $work/lookup 1000
	if ours; then rows="off armed over"; else rows=base; fi
	for row in $rows; do
		case $row in
		off) limits 0 lookup max ;;
		armed) limits $ARMED_DIR_MAX lookup $ARMED_MAX ;;
		over) limits 1000 lookup 1000 ;;
		esac
		for mode in positive negative create; do
			for threads in 1 2; do
				fresh
				run lookup nd_bench rate $mode $work/lookup 1000 0.2 $threads >/dev/null
				emit lookup $row $mode-$threads \
					"$(run lookup nd_bench rate $mode $work/lookup 1000 $SECS $threads)"
			done
		done
		limits 0 lookup max
	done
	rmdir $cg/lookup
}

# Lookups in one directory while the other cpu adds and frees children
# there: each negative child changes the count in the directory's inode,
# beside i_dir_seq, and each negative a memcg counts goes to
# the cpu's stock, then the ancestors' atomics. Wall clock on 2 vCPUs: what
# dozens of cores would feel takes a bare-metal run (docs/bench/results.md).
scenario_contention() {
	mkdir $cg/contend
	nd_bench files $work/contend 1000
	if ours; then rows="off armed"; else rows=base; fi
	for row in $rows; do
		[ $row = armed ] && limits $ARMED_DIR_MAX contend $ARMED_MAX
		for churn in churn create; do
			fresh
			run contend nd_bench rate positive $work/contend 1000 0.2 1 >/dev/null
			run contend nd_bench rate $churn $work/contend 1000 $SECS 1 \
				>/tmp/churn &
			emit contention $row lookups-$churn \
				"$(run contend nd_bench rate positive $work/contend 1000 $SECS 1)"
			wait
			emit contention $row $churn "$(cat /tmp/churn)"
		done
		limits 0 contend max
	done
	rmdir $cg/contend
}

# Files created, closed and unlinked under new names, as programs make
# temporary files: each unlink leaves a negative dentry, unless
# fs.dentry-negative=1 (Linux 6.13's, the first patch of our series)
# frees it. Rows: the base kernel; ours without limits (off), with
# fs.dentry-negative=1 (drop), with the limits armed and not reached
# (armed), both (both), and a cgroup limit of 1000 bounding them (max-1000).
# Then the negative dentries, dentries and slab the run left.
scenario_tmpfiles() {
	mkdir $cg/tmpfiles
	if ours; then rows="off drop armed both max-1000"; else rows=base; fi
	for row in $rows; do
		case $row in
		drop | both) echo 1 >/proc/sys/fs/dentry-negative ;;
		esac
		case $row in
		armed | both) limits $ARMED_DIR_MAX tmpfiles $ARMED_MAX ;;
		max-1000) limits 0 tmpfiles 1000 ;;
		esac
		mkdir -p $work/tmp-$row-warm $work/tmp-$row
		run tmpfiles nd_bench rate tmp $work/tmp-$row-warm 1000 0.2 1 >/dev/null
		fresh
		negs=$(negatives) dents=$(dentries) slab=$(slab_bytes tmpfiles)
		emit tmpfiles $row pairs_per_s \
			"$(run tmpfiles nd_bench rate tmp $work/tmp-$row 1000 $SECS 1)"
		emit tmpfiles $row negatives $(($(negatives) - negs))
		emit tmpfiles $row dentries $(($(dentries) - dents))
		emit tmpfiles $row slab_kib $((($(slab_bytes tmpfiles) - slab) / 1024))
		if ours; then
			emit tmpfiles $row current \
				"$(cat $cg/tmpfiles/memory.negative_dentry.current)"
			echo 0 >/proc/sys/fs/dentry-negative
			limits 0 tmpfiles max
		fi
	done
	rmdir $cg/tmpfiles
}

scenario_pollution() {
	mkdir $cg/victim
	nd_bench files $work/victim 1000
	if ours; then rows="unlimited limited"; else rows=unlimited; fi
	for row in $rows; do
		fresh
		mkdir $cg/flooder
		[ $row = limited ] && limits 0 flooder 10000
		before=$(run victim nd_bench rate positive $work/victim 1000 $SECS 1)
		must run flooder nd_bench runaway /proc/sys/fs/dentry-state \
			$work/flood-$row "$POLLUTE" 1 >/dev/null
		after=$(run victim nd_bench rate positive $work/victim 1000 $SECS 1)
		emit pollution $row before "$before"
		emit pollution $row after "$after"
		emit pollution $row after_over_before "$(ratio "$after" "$before")"
		emit pollution $row negatives "$(negatives)"
		rmdir $cg/flooder
	done
	rmdir $cg/victim
}

scenario_storm() {
	if ours; then rows="unlimited max-20000 max-5000"; else rows=unlimited; fi
	for row in $rows; do
		fresh
		mkdir $cg/build
		echo +memory >$cg/build/cgroup.subtree_control
		mkdir $cg/build/cc $cg/build/junk
		[ $row != unlimited ] && limits 0 build "${row#max-}"
		# the compile has run before: its include path is warm
		mkdir -p $work/storm-$row
		(cd $work/storm-$row && run build/cc nd_bench storm 16 400 2 >/dev/null)
		before=$(evictions build/cc)
		(echo 0 >$cg/build/junk/cgroup.procs &&
			exec nd_bench runaway /proc/sys/fs/dentry-state \
				$work/junk-$row "$STORM_FLOOD" 1 >/dev/null) &
		junk=$!
		set -- $(cd $work/storm-$row &&
			run build/cc nd_bench storm 16 400 "$STORM_ROUNDS")
		evicted=$(($(evictions build/cc) - before))
		must wait $junk
		emit storm $row seconds "$1"
		emit storm $row negative_lookups "$2"
		emit storm $row evicted "$evicted"
		# each eviction of a hot missing name costs a lookup that misses
		emit storm $row hit_rate "$(awk -v l="$2" -v e="$evicted" \
			'BEGIN { printf "%.4f", l ? 1 - e / l : 0 }')"
		rmdir $cg/build/cc $cg/build/junk $cg/build
	done
}

scenario_teardown() {
	mke2fs /dev/ram0 >/dev/null 2>&1
	mkdir -p /mnt/scratch
	row=unlimited
	for n in $TEARDOWN; do
		fresh
		mkdir $cg/teardown
		# A limit never reached: on ours, only a limit arms the drain.
		[ -e $cg/teardown/memory.negative_dentry.max ] &&
			echo 1000000000 >$cg/teardown/memory.negative_dentry.max
		must run teardown nd_bench runaway /proc/sys/fs/dentry-state \
			$work/teardown-$n "$n" 1 >/dev/null
		before=$(negatives)
		t0=$(now_ms)
		rmdir $cg/teardown
		t1=$(now_ms)
		while [ "$(negatives)" -gt $((before - n * 99 / 100)) ] &&
			[ $(($(now_ms) - t1)) -lt 20000 ]; do
			sleep 0.05
		done
		t2=$(now_ms)
		emit teardown n$n rmdir_ms $((t1 - t0))
		emit teardown n$n negatives_left $(($(negatives) - before + n))
		if [ "$(negatives)" -le $((before - n * 99 / 100)) ]; then
			emit teardown n$n drained_ms $((t2 - t1))
		fi
		fresh
		mount -t ext4 /dev/ram0 /mnt/scratch
		must nd_bench runaway /proc/sys/fs/dentry-state /mnt/scratch/d "$n" 1 >/dev/null
		t0=$(now_ms)
		umount /mnt/scratch
		emit teardown n$n umount_ms $(($(now_ms) - t0))
	done
}

# What a user who owns a cgroup (a delegated subtree, say) costs everyone
# else by flipping its limit in a loop: each flip off and on would patch
# kernel text and interrupt every cpu if the static key followed it.
scenario_flip() {
	mkdir $cg/neighbour $cg/flipper
	nd_bench files $work/neighbour 1000
	if ours; then rows="quiet flipping"; else rows=quiet; fi
	for row in $rows; do
		fresh
		if [ $row = flipping ]; then
			(n=0
			trap 'echo $n >/tmp/flips; exit 0' TERM
			while :; do
				echo 5 >$cg/flipper/memory.negative_dentry.max
				echo max >$cg/flipper/memory.negative_dentry.max
				n=$((n + 1))
			done) &
			flipper=$!
			t0=$(now_ms)
		fi
		emit flip $row positive-1 \
			"$(run neighbour nd_bench rate positive $work/neighbour 1000 $SECS 1)"
		if [ $row = flipping ]; then
			kill $flipper
			wait $flipper
			emit flip $row flips_per_s \
				$(($(cat /tmp/flips) * 1000 / ($(now_ms) - t0 + 1)))
		fi
	done
	rmdir $cg/neighbour $cg/flipper
}

# A user who owns a subtree of DELEG_CGROUPS cgroups writes its limit in a
# loop, lowering it every other write: what that costs everyone else, in
# the kworkers' CPU time and in another user's rmdir of RMDIRS cgroups.
scenario_delegated() {
	mkdir $cg/deleg $cg/other
	echo +memory >$cg/deleg/cgroup.subtree_control
	(cd $cg/deleg && mkdir $(seq 1 $DELEG_CGROUPS | sed 's/^/c/'))
	if ours; then rows="quiet writing"; else rows=quiet; fi
	for row in $rows; do
		fresh
		(cd $cg/other && mkdir $(seq 1 $RMDIRS | sed 's/^/r/'))
		if [ $row = writing ]; then
			(n=0
			trap 'echo $n >/tmp/writes; exit 0' TERM
			while :; do
				echo 5 >$cg/deleg/memory.negative_dentry.max
				echo 10 >$cg/deleg/memory.negative_dentry.max
				n=$((n + 2))
			done) &
			writer=$!
		fi
		kworker=$(kworker_ms)
		t0=$(now_ms)
		sleep $DELEG_SECS
		t1=$(now_ms)
		(cd $cg/other && rmdir r*)
		t2=$(now_ms)
		emit delegated $row kworker_cpu_ms $(($(kworker_ms) - kworker))
		emit delegated $row rmdir_ms $((t2 - t1))
		if [ $row = writing ]; then
			kill $writer
			wait $writer
			emit delegated $row writes_per_s \
				$(($(cat /tmp/writes) * 1000 / (t2 - t0 + 1)))
			echo max >$cg/deleg/memory.negative_dentry.max
		fi
	done
	(cd $cg/deleg && rmdir c*)
	rmdir $cg/deleg $cg/other
}

scenario_runaway() {
	if ours; then rows="max-300 max-1000 max-10000"; else rows=unlimited; fi
	for row in $rows; do
		fresh
		mkdir $cg/runaway
		before=$(negatives)
		if [ $row = unlimited ]; then
			count=/proc/sys/fs/dentry-state
		else
			limits 0 runaway "${row#max-}"
			count=$cg/runaway/memory.negative_dentry.current
		fi
		must run runaway nd_bench runaway $count $work/runaway-$row \
			"$RUNAWAY" 4 >/tmp/runaway
		sed -n "s/^series /series runaway $row /p" /tmp/runaway
		peak=$(sed -n 's/^peak //p' /tmp/runaway)
		emit runaway $row peak "$peak"
		[ $row = unlimited ] || emit runaway $row peak_over_max \
			"$(ratio "$peak" "${row#max-}")"
		sleep 2
		emit runaway $row negatives_end $(($(negatives) - before))
		emit runaway $row slab_kib \
			$(($(sed -n 's/^slab_reclaimable //p' $cg/runaway/memory.stat) / 1024))
		rmdir $cg/runaway
	done
}

# A flooder held to 10% of a cpu by cpu.max, and a neighbour looking up
# its own files: the kworkers' CPU time (reclaim's, mostly) is what the
# flooder costs outside its cpu.max.
scenario_pays() {
	mkdir $cg/bystander
	nd_bench files $work/bystander 1000
	if ours; then rows="max-1000 max-10000"; else rows=unlimited; fi
	for row in $rows; do
		fresh
		mkdir $cg/payer
		echo "10000 100000" >$cg/payer/cpu.max
		count=/proc/sys/fs/dentry-state
		if [ $row != unlimited ]; then
			limits 0 payer "${row#max-}"
			count=$cg/payer/memory.negative_dentry.current
		fi
		kworker=$(kworker_ms)
		payer=$(cgroup_ms payer)
		run payer nd_bench runaway $count $work/pay-$row 100000000 4 \
			"$PAY_SECS" >/tmp/pay &
		rate=$(run bystander nd_bench rate positive $work/bystander 1000 \
			"$PAY_SECS" 1)
		must wait $!
		payer=$(($(cgroup_ms payer) - payer))
		emit pays $row bystander_rate "$rate"
		emit pays $row flooder_lookups "$(sed -n 's/^flooded //p' /tmp/pay)"
		emit pays $row flooder_peak "$(sed -n 's/^peak //p' /tmp/pay)"
		emit pays $row flooder_cpu_ms $payer
		emit pays $row kworker_cpu_ms $(($(kworker_ms) - kworker))
		rmdir $cg/payer
	done
	rmdir $cg/bystander
}

# The scenarios, in the order of ./scenarios, each with its sizes
for name in $(sed '/^#/d; s/ .*//' scenarios); do
	sizes=$(awk -v n="$name" -v q="$quick" '$1 == n { print q == 1 ? $3 : $4 }' scenarios)
	for size in $(echo "$sizes" | tr , ' '); do
		[ "$size" = - ] || eval "${size%%=*}=\"$(echo "${size#*=}" | tr : ' ')\""
	done
	echo "progress: $name"
	"scenario_$name"
done
echo "progress: done"
exit $failed
