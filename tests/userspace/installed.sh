#!/bin/sh
# The Debian guest booted the kernel it installed from our package: that
# package is installed, this is its kernel, and it has the limit.
release=$(uname -r)
echo "# running $release"
dpkg-query -W -f='# ${Package} ${Version} ${Status}\n' "linux-image-$release" || exit 1
case $release in *-negdentry) ;; *) echo "# not our kernel"; exit 1 ;; esac
[ "$(dpkg-query -W -f='${Status}' "linux-image-$release")" = "install ok installed" ] &&
	mkdir /sys/fs/cgroup/nd_installed &&
	echo 1000 >/sys/fs/cgroup/nd_installed/memory.negative_dentry.max &&
	[ "$(cat /sys/fs/cgroup/nd_installed/memory.negative_dentry.max)" = 1000 ]
