#!/bin/sh
# The upstream cgroup selftests, run from the ext4 test filesystem as
# kselftest would run them. check.py reads their TAP output.
cd "$TESTFS" || exit 1
for t in test_core test_kmem test_memcontrol; do
	echo "selftest: $t"
	"$t"
	echo "selftest: $t exited $?"
done
