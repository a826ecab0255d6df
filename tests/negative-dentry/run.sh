#!/bin/sh
# Our selftests, fs.dentry-dir-max and memory.negative_dentry.*, run from
# the ext4 test filesystem. A RAM disk gives the umount tests a filesystem
# of their own to mount and unmount (brd is a module in Debian's kernels).
#
# selftests.exclude=PROGRAM:TEST,... on the kernel command line leaves
# those tests out (make check's debug kernel: harness/check.py says why).
[ -b /dev/ram0 ] || modprobe brd
mke2fs /dev/ram0 >/dev/null 2>&1 || exit 1
export NEGATIVE_DENTRY_SCRATCH=/dev/ram0
excluded=
for word in $(cat /proc/cmdline); do
	case $word in selftests.exclude=*) excluded=$(echo "${word#*=}" | tr , ' ') ;; esac
done
programs=$(sed '/^#/d; s/ .*//' programs)
cd "$TESTFS" || exit 1
for t in $programs; do
	set --
	for pair in $excluded; do
		# a kselftest harness test is reported as fixture.name
		test=${pair#*:}
		[ "${pair%%:*}" = "$t" ] && set -- "$@" -T "${test#*.}"
	done
	echo "selftest: $t"
	"$t" "$@"
	echo "selftest: $t exited $?"
done
