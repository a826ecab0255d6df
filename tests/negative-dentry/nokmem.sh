#!/bin/sh
# Booted with cgroup.memory=nokmem, the kernel charges no slab to cgroups
# and so counts no negative dentries: memory.negative_dentry.max must
# refuse a limit with EOPNOTSUPP and keep "max", rather than take a limit
# that can never act.
grep -qw cgroup.memory=nokmem /proc/cmdline || {
	echo "nokmem: not booted with cgroup.memory=nokmem"
	exit 1
}
cg=/sys/fs/cgroup/nd_nokmem
echo +memory >/sys/fs/cgroup/cgroup.subtree_control || exit 1
mkdir "$cg" || exit 1
# /bin/echo, not the shell's: dash's builtin echo reports every failed
# write as "I/O error", whatever the errno (the Debian guest's sh).
err=$( (/bin/echo 5000 >"$cg/memory.negative_dentry.max") 2>&1 )
status=$?
max=$(cat "$cg/memory.negative_dentry.max")
rmdir "$cg"
echo "nokmem: write status $status ($err); memory.negative_dentry.max reads $max"
case $err in *"not supported"*) ;; *) exit 1 ;; esac
[ "$status" -ne 0 ] && [ "$max" = max ]
