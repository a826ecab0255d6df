#!/bin/sh
# The userspace paths to the negative dentry limit, in the Debian guest.
# The systemd test goes last: it turns default memory accounting off.
if [ "$VMRUN_KERNEL" != base ]; then
	sh ./containers.sh
fi
sh ./systemd.sh
