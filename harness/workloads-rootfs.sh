#!/bin/sh
# harness/workloads-rootfs.sh SRC DIR: the Debian guest's root SRC (as make
# debian-rootfs leaves it, our systemd and kernel in it) copied to DIR, with
# the packages of guest/debian/packages-workloads added by apt in a chroot,
# for make workloads. Made anew each time, so that it has what SRC has
# now; the downloaded packages are kept in DIR.apt.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src=$1 dir=$2
packages=$(cat "$root/guest/debian/packages-workloads")
# shellcheck source=harness/rootfs-copy.sh
. "$root/harness/rootfs-copy.sh"
copy_rootfs "$src" "$dir"
echo "workloads-rootfs: apt-get install $packages"
chroot "$dir" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends $packages" \
	>"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; exit 1; }
