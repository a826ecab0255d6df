#!/bin/sh
# harness/insn_trace.py, in the guest: system calls whose instructions it
# counts, in a memcg child as in bench/icount.sh. Each group is announced
# by a "trace-op <name> <calls>" line; nd_bench traced marks each call.
# bench.quick=1 (make check): the first group only.
. ./lib.sh
cg=/sys/fs/cgroup/trace
work=$TESTFS/trace
run() { (echo 0 >"$cg/cgroup.procs" && exec "$@"); }
traced() {	# traced NAME OP FILE...: OP on each FILE under $work
	name=$1 op=$2
	shift 2
	echo "trace-op $name $#"
	run nd_bench traced "$op" $(for f in "$@"; do echo "$work/$f"; done)
}

echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg $work
nd_bench files $work 100
# warm the code paths, and the inode blocks the lookups below read
run nd_bench rate create $work 100 0.05 1 >/dev/null
run nd_bench rate positive $work 100 0.05 1 >/dev/null
fresh
nd_bench traced start
traced create stat new1 new2 new3
if [ "$quick" = 1 ]; then
	nd_bench traced start	# the end mark
	exit 0
fi
traced uncached stat file1 file2 file3
traced negative stat new1 new2 new3
fresh
traced unlink unlink file4 file5 file6
traced rename rename file7 file8 file9
if ours; then
	echo $ARMED_DIR_MAX >/proc/sys/fs/dentry-dir-max
	echo $ARMED_MAX >"$cg/memory.negative_dentry.max"
fi
traced armed-create stat new4 new5 new6
nd_bench traced start	# the end mark, as the stepper sees it
