#!/bin/sh
# The userspace paths to the negative dentry limit, in the Debian guest.
# The systemd test goes last: it turns default memory accounting off. Each
# prints its own TAP; the run fails if any of them does.
status=0
for t in containers.sh metrics.sh kubepods.sh podlimits.sh systemd.sh; do
	sh ./$t || status=1
done
exit $status
