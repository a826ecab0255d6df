#!/bin/sh
# A parent's limit over many children, booted with 64 cpus possible and 2
# online (-smp 64 maxcpus=2), as cloud guests have many more possible than
# online: the changes a cpu keeps waiting must still reach the limit.
cd "$TESTFS" || exit 1
echo "selftest: test_negative_dentry"
test_negative_dentry test_negdentry_many_children
echo "selftest: test_negative_dentry exited $?"
