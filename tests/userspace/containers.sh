#!/bin/sh
# In the Debian guest: the container and libcgroup paths to
# memory.negative_dentry.max, printed as TAP.
#
# - podman run --cgroup-conf, with crun and with runc: the container's
#   cgroup holds the value and a flood inside it stays bounded; a bad value
#   fails the container with the kernel's error;
# - an OCI bundle with linux.resources.unified, as CRI-O and containerd
#   send it, run by crun and by runc directly;
# - libcgroup: cgcreate, cgset, cgget, and a cgconfig.conf stanza.
#
# The container image is made here from a tarball (there is no registry):
# busybox and negflood, both static.
. ./tap.sh

LIMIT=1000
FLOOD=20000
BOUND=$((LIMIT + LIMIT / 8))
flood_dir=/var/tmp/flood

# What a container prints: its limit, then its negative dentries once
# reclaim settles after a flood on a bind-mounted ext4 directory.
probe='cat /sys/fs/cgroup/memory.negative_dentry.max;
	negflood /flood $0 >/dev/null && sleep 2;
	cat /sys/fs/cgroup/memory.negative_dentry.current'

image=/var/tmp/image
mkdir -p $image/bin $image/usr/local/bin $image/proc $image/sys $image/dev \
	$image/tmp $image/flood
cp /usr/local/bin/busybox /usr/local/bin/negflood $image/bin/
for applet in sh cat sleep echo; do ln -sf busybox $image/bin/$applet; done
tar -C $image -c . | podman import -q - localhost/negflood >/dev/null
tap_check "podman imports the test image" \
	podman image exists localhost/negflood

# limit_and_bound NAME OUTPUT: the container printed LIMIT, then at most BOUND
limit_and_bound() {
	set -- "$1" $2
	tap_check "$1: the cgroup holds $LIMIT" equals "$2" $LIMIT
	tap_check "$1: $FLOOD lookups leave $3, at most $BOUND" at_most "$3" $BOUND
}

for runtime in crun runc; do
	rm -rf $flood_dir && mkdir -p $flood_dir
	out=$(podman run --rm --runtime $runtime --network none \
		--cgroup-conf memory.negative_dentry.max=$LIMIT \
		-v $flood_dir:/flood localhost/negflood sh -c "$probe" $FLOOD)
	limit_and_bound "podman --runtime $runtime" "$out"
	err=$(podman run --rm --runtime $runtime --network none \
		--cgroup-conf memory.negative_dentry.max=many \
		localhost/negflood true 2>&1)
	status=$?
	echo "$err" | sed 's/^/# /'
	tap_check "podman --runtime $runtime: a bad value fails the container" \
		fails [ $status -eq 0 ]
	tap_check "podman --runtime $runtime: with the kernel's error" \
		mentions "$err" "invalid argument"
done

# An OCI bundle as CRI-O and containerd hand it to the runtime.
bundle=/var/tmp/bundle
rm -rf $bundle && mkdir -p $bundle
cp -a $image $bundle/rootfs
for runtime in crun runc; do
	rm -rf $flood_dir && mkdir -p $flood_dir
	sed -e "s|@RUNTIME@|$runtime|" -e "s|@LIMIT@|$LIMIT|" \
		-e "s|@FLOOD@|$FLOOD|" -e "s|@FLOODDIR@|$flood_dir|" \
		oci-config.json >$bundle/config.json
	out=$($runtime run --bundle $bundle nd-oci-$runtime 2>&1)
	echo "$out" | sed 's/^/# /'
	limit_and_bound "OCI bundle, $runtime" "$out"
done

# libcgroup
cgcreate -g memory:/nd_libcgroup
tap_check "cgset sets the limit" \
	cgset -r memory.negative_dentry.max=$LIMIT nd_libcgroup
tap_check "cgget reads it" \
	equals "$(cgget -n -v -r memory.negative_dentry.max nd_libcgroup)" $LIMIT
tap_check "cgset of a bad value fails" \
	fails cgset -r memory.negative_dentry.max=-5 nd_libcgroup
tap_check "and leaves the limit" \
	equals "$(cat /sys/fs/cgroup/nd_libcgroup/memory.negative_dentry.max)" $LIMIT
cgdelete -g memory:/nd_libcgroup
cat >/var/tmp/cgconfig.conf <<EOF
group nd_cgconfig {
	memory {
		memory.negative_dentry.max = 2000;
	}
}
EOF
tap_check "cgconfigparser takes a cgconfig.conf stanza" \
	cgconfigparser -l /var/tmp/cgconfig.conf
tap_check "which sets the limit" \
	equals "$(cat /sys/fs/cgroup/nd_cgconfig/memory.negative_dentry.max)" 2000
cgdelete -g memory:/nd_cgconfig 2>/dev/null

tap_done
