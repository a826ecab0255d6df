#!/bin/sh
# harness/distro-rootfs.sh patched|base [cloud|debian]: the Debian guest of
# make distro-check, in build/distro/<kernel>-<config>/rootfs: a copy of make
# check's (build/debian/rootfs) with the kernel make deb CONFIG=<config>
# (cloud unless said) packaged installed by apt, as on a host, with
# initramfs-tools to make its initramfs (the disk drivers and most
# filesystems of Debian's kernels are modules), the test programs of the
# busybox guest, and bpftrace with userspace/bpftrace's programs and the
# kernel's headers package, which bpftrace reads the kernel's types from
# where it has no BTF (tests/userspace/bpftrace.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:-} config=${2:-cloud}
case $kernel-$config in
patched-cloud | base-cloud | patched-debian | base-debian) ;;
*) sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
debs=$root/build/deb/$kernel-$config
dir=$root/build/distro/$kernel-$config/rootfs
set -- "$debs"/linux-image-*.deb
[ -f "$1" ] || {
	echo "distro-rootfs: no package in $debs: make deb CONFIG=$config KERNEL=$kernel" >&2
	exit 1
}
mkdir -p "$(dirname "$dir")"
# shellcheck source=harness/rootfs-copy.sh
. "$root/harness/rootfs-copy.sh"
copy_rootfs "$root/build/debian/rootfs" "$dir"
cp "$1" "$debs"/linux-headers-*.deb "$dir/tmp/"
cp "$root"/build/guest/bin/* "$dir/usr/local/bin/"
mkdir -p "$dir/usr/local/share/negative-dentry/bpftrace"
cp "$root"/userspace/bpftrace/*.bt "$dir/usr/local/share/negative-dentry/bpftrace/"
# apt in the root, as for make debian-rootfs's dpkg: apt would look the
# root's users up on this machine otherwise. copy_rootfs mounted /proc for
# the maintainer scripts (update-initramfs reads the mounts).
# initramfs-tools first: the kernel's postinst makes the initramfs only
# with it configured, which apt does after the kernel in one transaction.
chroot "$dir" sh -c 'export DEBIAN_FRONTEND=noninteractive
	install="apt-get -q -y --no-install-recommends install"
	{ apt-get -q update && $install initramfs-tools bpftrace &&
		$install /tmp/linux-image-*.deb /tmp/linux-headers-*.deb; } \
		>/tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }
	rm /tmp/linux-image-*.deb /tmp/linux-headers-*.deb'
release=$(basename "$1" | sed 's/^linux-image-\([^_]*\)_.*/\1/')
for f in vmlinuz initrd.img config; do
	[ -f "$dir/boot/$f-$release" ] || {
		echo "distro-rootfs: the package left no /boot/$f-$release" >&2
		exit 1
	}
done
echo "$release" >"$dir/../release"
echo "distro-rootfs: $dir, with $release"
