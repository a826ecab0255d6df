#!/bin/sh
# harness/timed.sh NAME COMMAND [ARG...]: run COMMAND, then say how long it
# took, as make check's kernels and suites say of themselves ("N min since
# make check began" where CHECK_STARTED is set), so that a run from nothing
# shows where its time went. Exits with COMMAND's status.
set -u
name=$1
shift
started=$(date +%s)
"$@"
status=$?
now=$(date +%s)
echo "$name: $((now - started)) s${CHECK_STARTED:+; $(((now - CHECK_STARTED) / 60)) min since make check began}"
exit $status
