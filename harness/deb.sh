#!/bin/sh
# harness/deb.sh patched|base small|cloud|debian: linux-image and
# linux-headers packages of a kernel, in build/deb/<kernel>-<config>/.
#
#   small   the fast flavour of make check's configuration (minutes: it
#           packages the kernel make check builds)
#   cloud   Debian's cloud-amd64 configuration, what Debian's cloud images
#           boot (1,138 modules), with config/distro.config
#   debian  Debian's generic amd64 configuration (4,230 modules), the same
#
# The patched kernel adds config/patched.config less its KUnit tests, which
# Debian does not build. The object folder is kept, and compiles go
# through ccache: an interrupted build resumes where it stopped.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:-} config=${2:-}
usage() { sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 2; }
case $kernel in patched | base) ;; *) usage ;; esac
src=$("$root/harness/layout.py" src "$kernel")
eval "$("$root/harness/layout.py" ccache-env)"
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=negdentry KBUILD_BUILD_HOST=qemu
kmake() { make -s -C "$src" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" "$@"; }

case $config in
small)
	"$root/harness/kernel.sh" "$kernel" fast
	obj=$("$root/harness/layout.py" obj "$kernel" fast)
	;;
cloud | debian)
	flavour=amd64_none_amd64
	[ "$config" = cloud ] && flavour=amd64_none_cloud-amd64
	debconfig=/usr/src/linux-config-6.12/config.$flavour.xz
	[ -f "$debconfig" ] || {
		echo "deb.sh: $debconfig is missing: apt-get install linux-config-6.12" >&2
		exit 1
	}
	obj=$("$root/harness/layout.py" obj "$kernel" "$config")
	fragments="$root/config/distro.config"
	[ "$kernel" = patched ] && fragments="$fragments $root/config/patched.config"
	sum=$(cat "$debconfig" $fragments "$src/.negdentry-base-version" |
		sha256sum | cut -c1-16)
	mkdir -p "$obj"
	# As kernel.sh: a new configuration only when an input changed, so
	# that a resumed build keeps what it compiled.
	if [ "$(cat "$obj/.negdentry-config" 2>/dev/null)" != "$sum" ]; then
		xz -dc "$debconfig" >"$obj/.config"
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			$fragments >/dev/null
		# Debian builds no KUnit; our tests stay in make check's kernels.
		# The release names the kernel and Debian's flavour, as Debian's
		# own do (6.12.118-negdentry-cloud-amd64, 6.12.118-base-amd64).
		sed -i '/^CONFIG_NEGATIVE_DENTRY_KUNIT_TEST=/d' "$obj/.config"
		name=negdentry
		[ "$kernel" = base ] && name=base
		"$src/scripts/config" --file "$obj/.config" --set-str LOCALVERSION \
			"-$name-${flavour#amd64_none_}"
		kmake olddefconfig
		if [ "$kernel" = patched ]; then
			grep -qx CONFIG_NEGATIVE_DENTRY_LIMITS=y "$obj/.config" || {
				echo "deb.sh: CONFIG_NEGATIVE_DENTRY_LIMITS=y did not stay" >&2
				exit 1
			}
		fi
		echo "$sum" >"$obj/.negdentry-config"
	fi
	;;
*)
	usage
	;;
esac

# Objects a killed build left without their symbol versions are built
# again (harness/unversioned-objects.sh says how that comes about).
"$root/harness/unversioned-objects.sh" "$obj"

# dpkg-buildpackage leaves the packages next to the object directory.
# kbuild passes it --no-check-builddeps for bindeb-pkg, so a missing
# package would only show as a command failing deep in the build:
# --check-builddeps, which comes after, has it name them first.
out=$root/build/deb/$kernel-$config
log=$obj.deb.log
rm -f "$obj"/../*.deb "$obj"/../*.buildinfo "$obj"/../*.changes
start=$(date +%s)
# No -dbg package: the DWARF behind the BTF would make one of gigabytes.
export DEB_BUILD_PROFILES=pkg.linux-upstream.nokerneldbg
kmake KDEB_PKGVERSION="$(kmake kernelrelease)-1" \
	DPKG_FLAGS=--check-builddeps bindeb-pkg >"$log" 2>&1 ||
	{ tail -30 "$log" >&2; exit 1; }
# modpost's warnings are the ones a modules build alone shows (a symbol an
# inline of ours reaches and nothing exports, say): none is allowed.
if grep -q "^WARNING: modpost:" "$log"; then
	grep "^WARNING: modpost:" "$log" >&2
	exit 1
fi
rm -rf "$out" && mkdir -p "$out"
mv "$obj"/../linux-image-*.deb "$obj"/../linux-headers-*.deb "$out/"
rm -f "$obj"/../*.deb "$obj"/../*.buildinfo "$obj"/../*.changes
echo "deb.sh: $kernel $config in $(($(date +%s) - start)) s:"
ls "$out"
