#!/bin/sh
# Both limits on every filesystem containers use, in the Debian guest:
# ext4, xfs and btrfs on loop devices; tmpfs; overlayfs with its upper
# layer on ext4 and on xfs (podman's storage); fuse-overlayfs (rootless
# podman's); and NFSv4 served and mounted over loopback, which revalidates
# its negatives. On each, printed as TAP:
#
# - a cgroup's negative dentries are counted to it, and not to a sibling;
# - a cgroup's limit holds them down, by reclaim and kill;
# - a removed cgroup's are drained from its parent;
# - fs.dentry-dir-max holds a directory's down;
# - the filesystem remounts read-only and back, freezes and thaws with
#   reclaim due, and unmounts with a removed cgroup's drain due, where it
#   has those operations.
#
# tmpfs keeps no negative dentry: its lookups and unlinks leave none
# (simple_lookup()'s always_delete_dentry). That is what it is checked
# for; the limits have nothing to act on there (check_tmpfs()).
. ./tap.sh

# Missing names a flood looks up
N=3000
LIMIT=500
DIR_MAX=256
# By its path: a search of $PATH would leave negative dentries on the root
# filesystem, looked up at every run, in the cgroup it runs in.
negflood=$(command -v negflood)
sh=$(command -v sh) rm=$(command -v rm)
top=/sys/fs/cgroup/fstest
images=/var/tmp/fsimages
mnt=/mnt/fstest

current() { cat "$top/$1/memory.negative_dentry.current"; }
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$top/$1/memory.stat"; }
# in CGROUP COMMAND...: run COMMAND in the cgroup
in_cg() { cg=$1; shift; (echo 0 >"$top/$cg/cgroup.procs" && exec "$@"); }
# flood CGROUP DIR COUNT: COUNT missing names looked up in DIR
flood() { in_cg "$1" "$negflood" -p "n$(date +%s%N)-" "$2" "$3" >/dev/null; }
# soon TEST...: TEST holds within 10 s (reclaim and drains are work items)
soon() { within 10 "$@"; }
current_below() { at_most "$(current "$1")" "$2"; }

# The filesystems, each mounted at $mnt/<name>, with a directory d/ to
# look names up in. The NFS export and the overlay layers sit on the ext4
# and xfs mounts, so those go first.
mkfs_loop() {	# mkfs_loop NAME SIZE MKFS...: an image, made and mounted
	name=$1 size=$2
	shift 2
	truncate -s "$size" "$images/$name.img"
	"$@" "$images/$name.img" >/dev/null 2>&1 &&
		mkdir -p "$mnt/$name" &&
		mount -o loop "$images/$name.img" "$mnt/$name"
}
overlay_on() {	# overlay_on NAME LOWERFS
	base=$mnt/$2/ovl-$1
	mkdir -p "$base/lower/d" "$base/upper" "$base/work" "$mnt/$1"
	mount -t overlay overlay -o "lowerdir=$base/lower,upperdir=$base/upper,workdir=$base/work" "$mnt/$1"
}
fuse_overlay_on() {	# fuse_overlay_on NAME LOWERFS: the daemon in its own cgroup
	base=$mnt/$2/fuse-$1
	mkdir -p "$base/lower/d" "$base/upper" "$base/work" "$mnt/$1" "$top/fuse-daemon"
	in_cg fuse-daemon fuse-overlayfs -o "lowerdir=$base/lower,upperdir=$base/upper,workdir=$base/work" "$mnt/$1"
}
nfs_export() {	# nfs_export NAME FS: FS's folder nfs/ over NFSv4 on loopback
	mkdir -p "$mnt/$2/nfs/d" "$mnt/$1"
	echo "$mnt/$2/nfs 127.0.0.1(rw,no_root_squash,no_subtree_check,fsid=0)" >/etc/exports
	systemctl start nfs-server.service && exportfs -ra &&
		mount -t nfs4 127.0.0.1:/ "$mnt/$1"
}
mount_fs() {
	case $1 in
	ext4) mkfs_loop ext4 512M mkfs.ext4 -q -F ;;
	xfs) mkfs_loop xfs 512M mkfs.xfs -f ;;
	btrfs) mkfs_loop btrfs 512M mkfs.btrfs -f ;;
	tmpfs) mkdir -p "$mnt/tmpfs" && mount -t tmpfs tmpfs "$mnt/tmpfs" ;;
	overlay-ext4) overlay_on overlay-ext4 ext4 ;;
	overlay-xfs) overlay_on overlay-xfs xfs ;;
	fuse-overlayfs) fuse_overlay_on fuse-overlayfs ext4 ;;
	nfs4) nfs_export nfs4 ext4 ;;
	esac && mkdir -p "$mnt/$1/d"
}
# Filesystems that freeze (FIFREEZE): not tmpfs, overlayfs, FUSE or NFS.
freezes() { case $1 in ext4 | xfs | btrfs) return 0 ;; esac; return 1; }

# What tmpfs does instead: neither lookups nor unlinks leave a negative
# dentry there, so the limits, the drain and the rest have nothing to act
# on, and are not claimed. Called from check_fs() after its flood.
check_tmpfs() {
	tap_check "tmpfs: $N lookups of missing names leave no negative dentry" \
		equals "$(current tmpfs/count)" 0
	# Every program by its path, as negflood: a search of $PATH leaves
	# negative dentries on the root filesystem, counted here.
	if in_cg tmpfs/count "$sh" -ec "i=0; while [ \$i -lt 300 ]; do
		: >'$dir/f'\$i; i=\$((i + 1)); done; $rm '$dir'/f*"; then
		left=$(current tmpfs/count)
	else
		left="(the files could not be made and unlinked)"
	fi
	tap_check "tmpfs: 300 files created and unlinked leave none either" \
		equals "$left" 0
	rmdir "$top/tmpfs/count" "$top/tmpfs/sib" "$top/tmpfs/limit" \
		"$top/tmpfs/dirmax"
	tap_check "tmpfs: unmounts" umount "$mnt/tmpfs"
	rmdir "$top/tmpfs"
}

# Each filesystem's checks, in a cgroup of its own: fstest/<name>, with
# children count/ and sib/ (no limit), limit/ and dirmax/.
check_fs() {
	fs=$1 dir=$mnt/$1/d
	mkdir "$top/$fs"
	# Never reached: a limit on the path arms the drain of removed children.
	echo 1000000 >"$top/$fs/memory.negative_dentry.max"
	echo +memory >"$top/$fs/cgroup.subtree_control"
	mkdir "$top/$fs/count" "$top/$fs/sib" "$top/$fs/limit" "$top/$fs/dirmax"
	flood "$fs/count" "$dir" $N
	if [ "$fs" = tmpfs ]; then
		check_tmpfs
		return
	fi
	tap_check "$fs: the looking-up cgroup counts its $N negative dentries" \
		at_least "$(current "$fs/count")" $N
	tap_check "$fs: its sibling counts none" equals "$(current "$fs/sib")" 0
	tap_check "$fs: the parent counts its child's" \
		at_least "$(current "$fs")" $N

	echo $LIMIT >"$top/$fs/limit/memory.negative_dentry.max"
	flood "$fs/limit" "$dir" $((4 * N))
	tap_check "$fs: a limit of $LIMIT holds down $((4 * N)) lookups" \
		soon current_below "$fs/limit" $LIMIT
	if [ "$fs" != tmpfs ]; then
		freed=$(($(stat_of "$fs/limit" negative_dentry_reclaimed) +
			$(stat_of "$fs/limit" negative_dentry_killed)))
		tap_check "$fs: reclaimed or killed what was over it" \
			at_least "$freed" $((4 * N - LIMIT))
	fi

	tap_check "$fs: fs.dentry-dir-max takes $DIR_MAX" \
		sh -c "echo $DIR_MAX >/proc/sys/fs/dentry-dir-max"
	mkdir -p "$mnt/$fs/dirmax"
	flood "$fs/dirmax" "$mnt/$fs/dirmax" $N
	tap_check "$fs: fs.dentry-dir-max $DIR_MAX holds a directory down" \
		soon current_below "$fs/dirmax" $DIR_MAX
	echo 0 >/proc/sys/fs/dentry-dir-max

	rmdir "$top/$fs/count" "$top/$fs/dirmax"
	tap_check "$fs: a removed cgroup's are drained from its parent" \
		soon current_below "$fs" $LIMIT

	# With reclaim due: a limit lowered under what the cgroup holds.
	flood "$fs/sib" "$dir" $N
	if [ "$fs" != tmpfs ] && [ "$fs" != nfs4 ] && [ "$fs" != fuse-overlayfs ]; then
		echo 10 >"$top/$fs/sib/memory.negative_dentry.max"
		tap_check "$fs: remounts read-only and back with reclaim due" \
			sh -c "mount -o remount,ro '$mnt/$fs' && mount -o remount,rw '$mnt/$fs'"
		flood "$fs/sib" "$dir" $N
		tap_check "$fs: and reclaim goes on after it" \
			soon current_below "$fs/sib" 10
		echo max >"$top/$fs/sib/memory.negative_dentry.max"
	fi
	if freezes "$fs"; then
		flood "$fs/limit" "$dir" $N
		tap_check "$fs: freezes with reclaim due" fsfreeze -f "$mnt/$fs"
		echo 10 >"$top/$fs/limit/memory.negative_dentry.max"
		flood "$fs/limit" "$dir" $N
		sleep 1
		tap_check "$fs: reclaim leaves a frozen filesystem alone" \
			at_least "$(current "$fs/limit")" $((N / 2))
		fsfreeze -u "$mnt/$fs"
		flood "$fs/limit" "$dir" 10
		tap_check "$fs: and goes on at the first lookup after the thaw" \
			soon current_below "$fs/limit" 10
	fi
	flood "$fs/sib" "$dir" $N
	rmdir "$top/$fs/sib" "$top/$fs/limit"
	tap_check "$fs: unmounts with a removed cgroup's drain due" \
		umount "$mnt/$fs"
	tap_check "$fs: nothing is left counted" \
		soon current_below "$fs" 0
	rmdir "$top/$fs"
}

if [ ! -f /sys/fs/cgroup/memory.negative_dentry.max ] &&
	[ ! -f /sys/fs/cgroup/init.scope/memory.negative_dentry.max ]; then
	echo "filesystems: the kernel has no memory.negative_dentry.max"
	tap_check "the kernel has the negative dentry limits" false
	tap_done
fi
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$top" "$images" "$mnt"
echo +memory >"$top/cgroup.subtree_control"
# Umount order: what sits on ext4 and xfs first.
for fs in ext4 xfs btrfs tmpfs overlay-ext4 overlay-xfs fuse-overlayfs nfs4; do
	tap_check "$fs: mounts" mount_fs $fs
done
for fs in tmpfs btrfs overlay-ext4 overlay-xfs fuse-overlayfs nfs4; do
	mountpoint -q "$mnt/$fs" && check_fs $fs
done
systemctl stop nfs-server.service
for fs in ext4 xfs; do
	mountpoint -q "$mnt/$fs" && check_fs $fs
done
tap_done
