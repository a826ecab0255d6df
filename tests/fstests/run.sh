#!/bin/sh
# make fstests, in the Debian guest: fstests' dcache-relevant tests on
# ext4, xfs and overlayfs over ext4, each test in a ./check of its own,
# killed after 5 minutes. harness/fstests.sh stages the built fstests tree
# beside this script as xfstests/, with the selection in tests.txt.
#
# On our kernel the limits are armed so that they reclaim during the tests:
# fs.dentry-dir-max 256 (the least it takes), memory.negative_dentry.max
# 1000 on the cgroup the tests run in, and fs.dentry-negative=1. Each
# result is printed as "fstests: <fs> <test> pass|fail|notrun|hang" for
# harness/fstests.sh to compare with the base kernel's.
set -u
here=$PWD
imgs=/var/tmp/fstests
mkdir -p "$imgs" /mnt/test /mnt/scratch
# Users some tests run as.
groupadd -f fsgqa
id fsgqa >/dev/null 2>&1 || useradd -m -g fsgqa fsgqa
id 123456-fsgqa >/dev/null 2>&1 || useradd -m -g fsgqa 123456-fsgqa

# arm FILE VALUE: write it, and stop if it does not hold, so that a
# value the kernel refuses cannot leave a limit unarmed unseen
arm() {
	echo "$2" >"$1" && [ "$(cat "$1")" = "$2" ] ||
		{ echo "fstests: could not set $1 to $2"; exit 1; }
}
if [ "$VMRUN_KERNEL" = patched ]; then
	arm /proc/sys/fs/dentry-dir-max 256
	arm /proc/sys/fs/dentry-negative 1
	cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
	arm "$(dirname "$cg")/memory.negative_dentry.max" 1000
	echo "fstests: limits armed on $(dirname "$cg")"
fi

devices() {	# devices MKFS...: two 2 GiB loop devices, each made by MKFS
	losetup -D
	for d in test scratch; do
		rm -f "$imgs/$d.img"
		truncate -s 2G "$imgs/$d.img"
	done
	TEST_DEV=$(losetup -f --show "$imgs/test.img")
	SCRATCH_DEV=$(losetup -f --show "$imgs/scratch.img")
	# Both made: under -overlay, fstests makes its layers on the scratch
	# device's filesystem and does not make that one itself.
	"$@" "$TEST_DEV" >/dev/null 2>&1 && "$@" "$SCRATCH_DEV" >/dev/null 2>&1
}

# run NAME FSTYP OVERLAY KIND: the tests of tests.txt marked KIND or all,
# on FSTYP, through overlayfs if OVERLAY is -overlay
run() {
	name=$1 fstyp=$2 overlay=$3
	cat >"$here/xfstests/local.config" <<EOF
export FSTYP=$fstyp
export TEST_DEV=$TEST_DEV
export TEST_DIR=/mnt/test
export SCRATCH_DEV=$SCRATCH_DEV
export SCRATCH_MNT=/mnt/scratch
EOF
	for t in $(grep -v '^#' "$here/tests.txt" | awk -v k="$4" '$2 == k || $2 == "all" { print $1 }'); do
		log=/tmp/fstests.$$.log
		(cd "$here/xfstests" && timeout 300 ./check $overlay "$t") >"$log" 2>&1
		status=$?
		if [ $status = 124 ]; then
			result=hang
			umount -l /mnt/test /mnt/scratch 2>/dev/null
		elif grep -q "^Not run:" "$log"; then
			result=notrun
		elif grep -q "^Passed all 1 tests" "$log"; then
			result=pass
		else
			result=fail
		fi
		echo "fstests: $name $t $result"
		[ $result = pass ] || sed 's/^/#   /' "$log" | tail -15
	done
	umount /mnt/test /mnt/scratch 2>/dev/null
}

# names MOUNT: names of 1 to 255 bytes, around the 32, 36 and 40 bytes where
# dentries keep names inline or not, missing, made, renamed and removed;
# 256 bytes refused. fstests has no test of these lengths.
name_of() { head -c "$1" /dev/zero | tr '\0' "$2"; }
names() {
	d=$1/names
	mkdir "$d" || return 1
	for len in 1 31 32 33 35 36 37 38 39 40 41 254 255; do
		a=$d/$(name_of $len a) b=$d/$(name_of $len b)
		[ ! -e "$a" ] && touch "$a" && [ -f "$a" ] && mv "$a" "$b" &&
			[ ! -e "$a" ] && [ -f "$b" ] && rm "$b" && [ ! -e "$b" ] ||
			{ echo "names: $len bytes"; return 1; }
	done
	! touch "$d/$(name_of 256 c)" 2>/dev/null && rmdir "$d"
}
names_on() {	# names_on NAME: names() on the test device, mounted
	mount "$TEST_DEV" /mnt/test && names /mnt/test
	status=$?
	umount /mnt/test
	[ $status = 0 ] && echo "fstests: $1 names pass" || echo "fstests: $1 names fail"
}

devices mkfs.ext4 -q -F
names_on ext4
run ext4 ext4 "" local
# Made again: after ext4's tests the scratch device was seen to hold no
# ext4 file system, and under -overlay fstests mounts it as ext4 without
# making it, so every overlayfs test failed.
devices mkfs.ext4 -q -F
run overlay ext4 -overlay overlay
devices mkfs.xfs -f
names_on xfs
run xfs xfs "" local
losetup -D
echo "fstests: done"
