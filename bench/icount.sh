#!/bin/sh
# make bench ICOUNT=1, in the guest: operations a second under QEMU's
# instruction clock (vmrun.py --icount), so the inverse of the instructions
# an operation takes. Prints "bench icount <row> <operation> <value>".
# Rows: base, or ours with no limit (off), with both limits set and not
# reached (armed), and over them (over).
. ./lib.sh
if [ "$quick" = 1 ]; then
	SECS=0.05 FILES=2000 TREE=2000
else
	SECS=0.3 FILES=30000 TREE=100000
fi
cg=/sys/fs/cgroup/icount
work=$TESTFS/icount

emit() { echo "bench icount $*"; }
run() { (echo 0 >"$cg/cgroup.procs" && exec "$@"); }
limits() {	# limits DIR_MAX MAX
	ours || return 0
	echo "$1" >/proc/sys/fs/dentry-dir-max
	echo "$2" >"$cg/memory.negative_dentry.max"
}

echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg $work
echo "progress: icount"
nd_bench files $work/lookup 1000
nd_bench tree $work/tree $TREE
if ours; then rows="off armed over"; else rows=base; fi
for row in $rows; do
	case $row in
	armed) limits $ARMED_DIR_MAX $ARMED_MAX ;;
	over) limits 1000 1000 ;;
	esac
	# a first run warms up; create's names must be new again after it
	for mode in positive negative create; do
		fresh
		run nd_bench rate $mode $work/lookup 1000 $SECS 1 >/dev/null
		[ $mode = create ] && fresh
		emit $row $mode "$(run nd_bench rate $mode $work/lookup 1000 $SECS 1)"
	done
	for mode in file rename unlink; do
		rm -rf $work/$mode
		nd_bench files $work/$mode $FILES
		fresh
		emit $row $mode "$(run nd_bench rate $mode $work/$mode $FILES $SECS 1)"
	done
	fresh
	emit $row walk "$(run nd_bench walk $work/tree)"
	limits 0 max
done
echo "progress: done"
