#!/bin/sh
# In the Debian guest: the container and libcgroup paths to
# memory.negative_dentry.max, printed as TAP.
#
# - podman run --cgroup-conf, with crun and with runc: the container's
#   cgroup holds the value and a flood inside it stays bounded; a bad value
#   fails the container with the kernel's error;
# - an OCI bundle with linux.resources.unified, as CRI-O and containerd
#   send it, run by crun and by runc directly;
# - libcgroup: cgcreate, cgset, cgget, and a cgconfig.conf stanza;
# - with systemd: a runtime's limit in a container's scope survives
#   daemon-reload, and a libpod-.scope.d drop-in limits every container.
#
# On a kernel without the feature (VMRUN_KERNEL=base): the unified key fails
# a container, and the drop-in does not.
#
# The container image is made here from a tarball (there is no registry):
# busybox and negflood, both static.
. ./tap.sh

LIMIT=1000
FLOOD=20000
BOUND=$(settled_bound $LIMIT)
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
for applet in sh cat sleep echo true; do ln -sf busybox $image/bin/$applet; done
tar -C $image -c . | podman import -q - localhost/negflood >/dev/null
tap_check "podman imports the test image" \
	podman image exists localhost/negflood

# The container's cgroup, as the host sees it: crun puts the container in
# a cgroup of its own, container/, in the scope systemd made for it.
cgroup_of() {
	echo "/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$(podman inspect -f '{{.State.Pid}}' "$1")/cgroup")"
}
# The container's systemd scope, libpod-<id>.scope, where unit settings go
scope_of() { cgroup_of "$1" | sed 's|\(/libpod-[0-9a-f]*\.scope\).*|\1|'; }
scope_dropin=/etc/systemd/system/libpod-.scope.d
# set_scope_dropin N [SETTING]: the drop-in, with MemoryNegativeDentryMax=N
# or SETTING=N
set_scope_dropin() {
	mkdir -p $scope_dropin
	printf '[Scope]\n%s=%s\n' "${2:-MemoryNegativeDentryMax}" "$1" \
		>$scope_dropin/50-negative-dentry.conf
	systemctl daemon-reload
}

if [ "$VMRUN_KERNEL" = base ]; then
	# What a cluster-wide unified key does to a node without the feature,
	# and the drop-in that is safe there.
	for runtime in crun runc; do
		err=$(podman run --rm --runtime $runtime --network none \
			--cgroup-conf memory.negative_dentry.max=$LIMIT \
			localhost/negflood true 2>&1)
		status=$?
		echo "$err" | sed 's/^/# /'
		tap_check "podman --runtime $runtime: the key fails a container on a kernel without it" \
			fails [ $status -eq 0 ]
	done
	set_scope_dropin $LIMIT
	tap_check "a libpod-.scope.d drop-in with MemoryNegativeDentryMax= starts containers anyway" \
		podman run --rm --network none localhost/negflood true
	rm -rf $scope_dropin
	systemctl daemon-reload
	tap_done
fi

# podman's systemd cgroup manager puts a container in libpod-<id>.scope,
# and runc and crun write the unified key there themselves: the unit has
# no MemoryNegativeDentryMax=, and systemctl daemon-reload must keep the value.
for runtime in crun runc; do
	id=$(podman run -d --runtime $runtime --network none \
		--cgroup-conf memory.negative_dentry.max=700 localhost/negflood sleep 1000)
	cg=$(cgroup_of "$id")
	tap_check "podman -d --runtime $runtime: the container runs in its scope" \
		contains "$cg" "/libpod-$id.scope"
	tap_check "podman -d --runtime $runtime: which holds 700" \
		equals "$(cat "$cg/memory.negative_dentry.max")" 700
	systemctl daemon-reload
	tap_check "podman -d --runtime $runtime: 700 survives systemctl daemon-reload" \
		equals "$(cat "$cg/memory.negative_dentry.max")" 700
	podman rm -f -t 0 "$id" >/dev/null
done

# A prefix drop-in gives every podman container a limit.
set_scope_dropin 4000
id=$(podman run -d --network none localhost/negflood sleep 1000)
tap_check "a libpod-.scope.d drop-in gives a podman container's scope its limit" \
	equals "$(cat "$(scope_of "$id")/memory.negative_dentry.max")" 4000
podman rm -f -t 0 "$id" >/dev/null
# The name of our first packages, in drop-ins written then.
set_scope_dropin 4100 NegativeDentryMax
id=$(podman run -d --network none localhost/negflood sleep 1000)
tap_check "so does one with the old name, NegativeDentryMax=" \
	equals "$(cat "$(scope_of "$id")/memory.negative_dentry.max")" 4100
podman rm -f -t 0 "$id" >/dev/null
rm -rf $scope_dropin
systemctl daemon-reload

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
