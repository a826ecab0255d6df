#!/bin/sh
# The userspace paths to the negative dentry limit, in the Debian guest.
# The systemd test goes last: it turns default memory accounting off.
sh ./containers.sh
sh ./metrics.sh
sh ./systemd.sh
