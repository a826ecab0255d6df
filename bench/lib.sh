# Sourced by the bench scripts in the guest (guest.sh, icount.sh,
# insn_trace.sh): bench.quick from the kernel command line, and what all
# of them need.
for word in $(cat /proc/cmdline); do
	case $word in bench.quick=*) quick=${word#*=} ;; esac
done
# limits "not reached" in the armed rows: set, but far above the scenario
ARMED_DIR_MAX=1000000
ARMED_MAX=100000000
ours() { [ "$VMRUN_KERNEL" = patched ]; }
fresh() { sync; echo 2 >/proc/sys/vm/drop_caches; }
