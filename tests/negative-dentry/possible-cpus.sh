#!/bin/sh
# A parent's limit over many children, booted with 64 cpus possible and 2
# online (-smp 64 maxcpus=2), as cloud guests have many more possible than
# online, and as make bench boots. Charges reach the counters at once, so
# the limit does not depend on the cpus; what this boot would catch is code
# that walks or sizes by the possible cpus where it means the online ones
# (the readers of .current, the drain of the stocks) and gets a count or a
# cpumask wrong there. It is not a test of many cpus at once.
cd "$TESTFS" || exit 1
echo "selftest: test_negative_dentry"
test_negative_dentry test_negdentry_many_children
echo "selftest: test_negative_dentry exited $?"
