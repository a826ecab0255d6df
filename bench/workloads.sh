#!/bin/sh
# The negative dentries that programs from Debian's packages make, the
# figures behind the recommended DefaultMemoryNegativeDentryMax= (docs/user-
# guide.md, "Choosing a value"). Run by make workloads in the Debian guest
# with a JVM and gcc added (harness/workloads-rootfs.sh), on our kernel.
#
# Each workload runs in a memory cgroup of its own, after the dentry cache
# was dropped, so that it makes its negative dentries itself rather than
# finding another cgroup's. Its memory.negative_dentry.current is read
# after one run and after RUNS runs: the first says what a start costs,
# the second whether the count keeps growing (new names each run) or the
# later runs find the first run's cached misses. Prints
#   workload: NAME first N after RUNS M
# and exits 1 if a workload failed, which gives no figure.
set -u
failed=0
RUNS=10
top=/sys/fs/cgroup/ndw
mkdir -p $top
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
echo +memory >$top/cgroup.subtree_control
work=/var/tmp/ndw
mkdir -p $work

# measure NAME COMMAND...: COMMAND run RUNS times in cgroup ndw/NAME/run,
# with $CG the cgroup ndw/NAME (relative to the root) for what makes
# cgroups of its own beside it
measure() {
	name=$1
	shift
	cg=$top/$name
	mkdir -p $cg/run
	echo +memory >$cg/cgroup.subtree_control
	sync
	echo 2 >/proc/sys/vm/drop_caches
	i=0
	while [ $i -lt $RUNS ]; do
		if ! (echo 0 >$cg/run/cgroup.procs && export CG="/ndw/$name" && "$@") \
			>$work/$name.out 2>&1; then
			echo "workload: $name failed"
			tail -5 $work/$name.out | sed 's/^/# /'
			failed=1
			return
		fi
		i=$((i + 1))
		[ $i -gt 1 ] || first=$(cat $cg/memory.negative_dentry.current)
	done
	echo "workload: $name first $first after $RUNS $(cat $cg/memory.negative_dentry.current)"
}

# A small C project searched through a long include path, as a build
# with many -I flags does: 12 files, each including 8 of 24 headers that
# sit in the last of 16 directories.
project=$work/cproject
mkdir -p $project/src
incs=
for d in $(seq 1 16); do
	mkdir -p $project/inc$d
	incs="$incs -I$project/inc$d"
done
for h in $(seq 1 24); do
	echo "int h$h(void);" >$project/inc16/h$h.h
done
for c in $(seq 1 12); do
	{
		for h in $(seq "$c" $((c + 7))); do echo "#include <h$h.h>"; done
		echo "#include <stdio.h>"
		echo "int f$c(void) { return printf(\"%d\", $c); }"
	} >$project/src/f$c.c
done
compile() {
	for c in "$project"/src/*.c; do
		# shellcheck disable=SC2086 # the -I flags
		gcc -O1 $incs -c "$c" -o "$work/$(basename "$c" .c).o" || return 1
	done
}

# apt-get update from a repository of files: the guest has no network.
# Its index lists the packages installed, as a mirror's lists many.
repo=$work/repo
mkdir -p $repo
cp /var/lib/dpkg/status $repo/Packages
{
	echo "Suite: ndw"
	echo "Date: $(date -Ru)"
	echo "SHA256:"
	echo " $(sha256sum <$repo/Packages | cut -d' ' -f1) $(wc -c <$repo/Packages) Packages"
} >$repo/Release
echo "deb [trusted=yes] file:$repo ./" >$work/sources.list
apt_update() {
	apt-get update -q -o Dir::Etc::sourcelist="$work/sources.list" \
		-o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0
}

# A health check: a local HTTP endpoint (node_exporter), ten requests; the
# client's side, as node_exporter's lookups are its own cgroup's.
health() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		curl -sf -o /dev/null http://localhost:9100/metrics || return 1
	done
}
systemctl start prometheus-node-exporter
i=0
while [ $i -lt 100 ] && ! curl -sf -o /dev/null http://localhost:9100/metrics; do
	sleep 0.2
	i=$((i + 1))
done

# A container started by podman, from a busybox image made here, left
# running: its cgroup, under $CG, would be drained at removal.
image=$work/image
mkdir -p $image/bin $image/proc $image/sys $image/dev $image/tmp
cp /usr/local/bin/busybox $image/bin/
for applet in sh sleep; do ln -sf busybox $image/bin/$applet; done
tar -C $image -c . | podman import -q - localhost/ndw >/dev/null
container() {
	podman run -d --cgroup-manager=cgroupfs --cgroup-parent="$CG" \
		--network=none localhost/ndw sleep 600
}

measure python python3 -c 'import json, ssl, urllib.request, subprocess'
measure java java -version
measure getent sh -c 'getent passwd nobody && getent group nogroup && getent hosts localhost && getent services http'
measure health-check health
measure gcc compile
measure apt-update apt_update
measure podman container
podman rm -f -t 0 -a >/dev/null
echo "workloads: done"
exit $failed
