#!/bin/sh
# harness/fresh-check.sh [TARGET]: make TARGET (check) as a new user meets
# it, on nothing but a minimal Debian 12.
#
# Makes a root with debootstrap --variant=minbase from the mirror the host's
# apt uses, gives it the host's apt sources (the same archive), bind-mounts
# a clean clone of this repository's HEAD at /src, and there, chrooted, runs
# the set-up lines of README.md's "Set-up" block and then make TARGET. No
# package of the host is used: what the project needs, its own scripts must
# install. Everything lives in build/fresh/, made anew each run; the mounts
# live in a mount namespace of their own and go with it.
#
# The last line is "fresh-check: TARGET passed|failed in M min S s"; the
# exit status is make's. What it printed is also in build/fresh/run.log.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-check}
work=$root/build/fresh
rootfs=$work/root
start=$(date +%s)

# The README's set-up, less the clone (the bind mount stands for it).
setup=$(sed -n '/^<!-- set-up -->$/,/^<!-- \/set-up -->$/s/^    //p' "$root/README.md" |
	grep -v '^git clone')
[ -n "$setup" ] || { echo "fresh-check: no set-up block in README.md" >&2; exit 2; }

mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

rm -rf "$work"
mkdir -p "$work"
echo "fresh-check: debootstrap bookworm from $mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
	{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
# The host's apt sources and Acquire settings: the same archive, no packages.
rm -f "$rootfs/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && cp "$f" "$rootfs$f"
done
for f in /etc/apt/apt.conf.d/*; do
	grep -qs '^Acquire::' "$f" && cp "$f" "$rootfs$f"
done
cp -L /etc/resolv.conf "$rootfs/etc/resolv.conf"

git clone -q --no-local "$root" "$work/src"
echo "fresh-check: $(git -C "$work/src" log -1 --format='%h %s')"
mkdir -p "$rootfs/src"

# In a mount and PID namespace of its own: the mounts, and any process left
# behind, end with it.
{
	rc=0
	unshare --mount --pid --fork --propagation private sh -eu -c '
		r=$1 src=$2 setup=$3 target=$4
		mount --rbind /dev "$r/dev"
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount -t tmpfs tmpfs "$r/tmp"
		mount --bind "$src" "$r/src"
		exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			sh -euxc "cd /src; $setup; make $target" </dev/null
	' fresh-check "$rootfs" "$work/src" "$(echo "$setup" | paste -sd';')" "$target" 2>&1 || rc=$?
	echo $rc >"$work/status"
} | tee "$work/run.log"
status=$(cat "$work/status")
took=$(($(date +%s) - start))
result=$([ $status -eq 0 ] && echo passed || echo failed)
echo "fresh-check: $target $result in $((took / 60)) min $((took % 60)) s"
exit $status
