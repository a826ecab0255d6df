#!/bin/sh
# In the Debian guest, on the kernel make btf-check builds with BTF: a
# CO-RE program (nd_core.bpf.c) loads with libbpf, relocated against the
# kernel's BTF, attaches to a BTF tracepoint of the directory limit and
# reads struct dentry while the limit reclaims. On a kernel without BTF,
# as our packages were built before, the first two checks fail.
. ./tap.sh
dir=/var/tmp/nd-core-dir

tap_check "the kernel has BTF" test -s /sys/kernel/btf/vmlinux
mkdir -p $dir
echo 256 >/proc/sys/fs/dentry-dir-max
tap_check "a CO-RE program loads, attaches and reads struct dentry" \
	./core_check ./nd_core.bpf.o $dir
echo 0 >/proc/sys/fs/dentry-dir-max
tap_done
