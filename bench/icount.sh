#!/bin/sh
# make bench ICOUNT=1, in the guest: operations a second under QEMU's
# instruction clock (vmrun.py --icount), so the inverse of the instructions
# an operation takes. Prints "bench icount <row> <operation> <value>".
# Rows: ours with no limit (off), with both limits set and not reached
# (armed), and over them (over); the base kernel runs the same rows, in the
# same order, with no limits to set, so that each of ours is compared with
# a base row of the same history (the dentries and slabs the rows before
# left), not with the first. The -uuid and -git operations
# use new names of 36 and 38 bytes, which an earlier version of ours put
# out of line (DNAME_INLINE_LEN 36); bytes-* is the slab a negative dentry of such a name takes,
# weighed in a new cgroup so that nothing freed meanwhile counts.
. ./lib.sh
if [ "$quick" = 1 ]; then
	SECS=0.05 FILES=2000 TREE=2000 NAMES=2000
else
	SECS=0.3 FILES=30000 TREE=100000 NAMES=20000
fi
cg=/sys/fs/cgroup/icount
work=$TESTFS/icount

emit() { echo "bench icount $*"; }
run() { (echo 0 >"$cg/run/cgroup.procs" && exec "$@"); }
# weigh MODE: the slab bytes, reclaimable (dentries) or not (names), that
# NAMES new negative dentries of MODE's shape take, with the limits of $cg
weigh() {
	w=$cg-weigh
	rm -rf $work/names && mkdir $work/names && fresh
	mkdir $w
	ours && cat $cg/memory.negative_dentry.max >$w/memory.negative_dentry.max
	(echo 0 >"$w/cgroup.procs" && exec nd_bench negatives $1 $work/names $NAMES)
	awk -v n=$NAMES '$1 == "slab" { print int($2 / n) }' $w/memory.stat
	rmdir $w
}
limits() {	# limits DIR_MAX MAX
	ours || return 0
	echo "$1" >/proc/sys/fs/dentry-dir-max
	echo "$2" >"$cg/memory.negative_dentry.max"
}

echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg $work
echo +memory >$cg/cgroup.subtree_control
mkdir $cg/a $cg/b $cg/run
echo "progress: icount"
nd_bench files $work/lookup 1000
nd_bench tree $work/tree $TREE
for row in off armed over; do
	case $row in
	armed) limits $ARMED_DIR_MAX $ARMED_MAX ;;
	over) limits 1000 1000 ;;
	esac
	# a first run warms up; create's names must be new again after it
	for mode in positive negative create create-uuid create-git; do
		fresh
		run nd_bench rate $mode $work/lookup 1000 $SECS 1 >/dev/null
		case $mode in create*) fresh ;; esac
		emit $row $mode "$(run nd_bench rate $mode $work/lookup 1000 $SECS 1)"
	done
	for mode in file file-git rename unlink; do
		rm -rf $work/$mode
		nd_bench files $work/$mode $FILES
		fresh
		emit $row $mode "$(run nd_bench rate $mode $work/$mode $FILES $SECS 1)"
	done
	fresh
	emit $row walk "$(run nd_bench walk $work/tree)"
	# not over the limits: reclaim would free what is being weighed, and
	# what fill-* creates over
	if [ $row != over ]; then
		emit $row bytes-short "$(weigh create)"
		emit $row bytes-git "$(weigh create-git)"
		# Files created over cached negative dentries, from two directories
		# in turn, whose negatives one cgroup made (fill-same) or two
		# (fill-alt): in fill-alt each create uncharges another cgroup than
		# the last one, what a cpu pays when it changes cgroup.
		for kind in same alt; do
			rm -rf $work/$kind && mkdir -p $work/$kind/a $work/$kind/b
			fresh
			(echo 0 >$cg/a/cgroup.procs &&
				exec nd_bench negatives create $work/$kind/a $NAMES)
			[ $kind = alt ] && maker=b || maker=a
			(echo 0 >$cg/$maker/cgroup.procs &&
				exec nd_bench negatives create $work/$kind/b $NAMES)
			emit $row fill-$kind \
				"$(run nd_bench rate fill $work/$kind $((2 * NAMES)) $SECS 1)"
		done
	fi
	limits 0 max
done
echo "progress: done"
