#!/bin/sh
# harness/debian-rootfs.sh DIR: a Debian 12 root filesystem for the Debian
# guest, made by debootstrap with guest/debian/packages and kept until that
# list changes. Adds the vm-run unit, the Prometheus metrics program and its
# units, the Kubernetes node script, and the static test programs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
list=$root/guest/debian/packages
sum=$(sha256sum "$list" | cut -c1-16)
if [ "$(cat "$dir.stamp" 2>/dev/null)" != "$sum" ]; then
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$(dirname "$dir")"
	echo "debian-rootfs: debootstrap bookworm: $(cat "$list")"
	debootstrap --variant=minbase --include="$(tr ' ' ',' <"$list")" \
		bookworm "$dir.tmp" http://deb.debian.org/debian >"$dir.log" 2>&1 ||
		{ tail -20 "$dir.log" >&2; exit 1; }
	echo guest >"$dir.tmp/etc/hostname"
	# The NFS server starts when tests/userspace/filesystems.sh asks, not
	# at every boot of the guest.
	chroot "$dir.tmp" systemctl disable -q nfs-server.service rpcbind.service \
		rpcbind.socket nfs-client.target 2>/dev/null || true
	# root logs in on the console without a password, for debugging
	sed -i 's/^root:[^:]*:/root::/' "$dir.tmp/etc/shadow"
	mv "$dir.tmp" "$dir"
	echo "$sum" >"$dir.stamp"
fi
install -m 755 "$root/guest/debian/vmrun-guest" "$dir/usr/local/sbin/vmrun-guest"
install -m 644 "$root/guest/debian/vmrun.service" "$dir/etc/systemd/system/vmrun.service"
mkdir -p "$dir/etc/systemd/system/default.target.wants"
ln -sf /etc/systemd/system/vmrun.service "$dir/etc/systemd/system/default.target.wants/vmrun.service"
# The Prometheus metrics of userspace/prometheus, not enabled.
install -m 755 "$root/userspace/prometheus/negative-dentry-metrics" "$dir/usr/local/sbin/"
install -m 644 "$root/userspace/prometheus/negative-dentry-metrics.service" \
	"$root/userspace/prometheus/negative-dentry-metrics.timer" "$dir/etc/systemd/system/"
# What the Kubernetes DaemonSets of userspace/kubepods and
# userspace/podlimits run on a node.
install -m 755 "$root/userspace/kubepods/negative-dentry-kubepods" \
	"$root/userspace/podlimits/negative-dentry-podlimits" "$dir/usr/local/sbin/"
# The sysctl.d example of userspace/sysctl.d, where Debian keeps examples:
# in /etc/sysctl.d it would apply to every suite.
install -D -m 644 "$root/userspace/sysctl.d/60-negative-dentry.conf" \
	"$dir/usr/share/doc/negative-dentry/examples/60-negative-dentry.conf"
shift
[ $# -eq 0 ] || install -m 755 "$@" "$dir/usr/local/bin/"
