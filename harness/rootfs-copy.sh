# shellcheck shell=sh
# Sourced by the scripts that make a root of their own from make
# debian-rootfs's Debian guest (workloads-rootfs.sh, repo-rootfs.sh):
# copy_rootfs SRC DIR copies SRC to DIR anew, ready for apt-get in a
# chroot: apt's downloads kept across runs in DIR.apt, /proc mounted for
# the maintainer scripts (a JRE's runs java), both unmounted when the
# script exits, however it exits.
copy_rootfs() {
	copy_dir=$2
	copy_unmount
	trap copy_unmount EXIT
	trap 'exit 1' HUP INT TERM
	rm -rf --one-file-system "$copy_dir"
	mkdir -p "$copy_dir.apt/partial"
	cp -a "$1" "$copy_dir"
	cp /etc/resolv.conf "$copy_dir/etc/resolv.conf"
	mount -t proc proc "$copy_dir/proc"
	mount --bind "$copy_dir.apt" "$copy_dir/var/cache/apt/archives"
}

# what a run that was stopped left mounted, then what this one mounts
copy_unmount() {
	for m in "$copy_dir/var/cache/apt/archives" "$copy_dir/proc"; do
		! mountpoint -q "$m" || umount "$m"
	done
}
