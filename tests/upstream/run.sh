#!/bin/sh
# The upstream cgroup selftests, run from the ext4 test filesystem as
# kselftest would run them. check.py reads their TAP output.
programs=$(sed '/^#/d' programs)
cd "$TESTFS" || exit 1
for t in $programs; do
	echo "selftest: $t"
	"$t"
	echo "selftest: $t exited $?"
done
