#!/bin/sh
# harness/deb.sh small|debian: linux-image and linux-headers packages of
# our kernel, in build/deb/.
#
#   small   the fast flavour of make check's configuration (minutes: it
#           packages the kernel make check builds)
#   debian  Debian's own amd64 configuration, from the linux-config-6.12
#           package, with our options: a distribution kernel. It builds
#           thousands of modules: hours on two cores.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src=$("$root/harness/layout.py" src patched)
export CCACHE_DIR="${CCACHE_DIR:-/var/cache/negdentry-ccache}"
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=negdentry KBUILD_BUILD_HOST=qemu

case ${1:-} in
small)
	"$root/harness/kernel.sh" patched fast
	obj=$("$root/harness/layout.py" obj patched fast)
	;;
debian)
	obj=$("$root/harness/layout.py" obj patched debian)
	mkdir -p "$obj"
	if [ ! -f "$obj/.config" ]; then
		xz -dc /usr/src/linux-config-6.12/config.amd64_none_amd64.xz >"$obj/.config"
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			"$root/config/patched.config" >/dev/null
		make -s -C "$src" O="$obj" olddefconfig
	fi
	;;
*)
	sed -n '2,10s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac

# dpkg-buildpackage leaves the packages next to the object directory.
# kbuild passes it --no-check-builddeps for bindeb-pkg, so a missing
# package would only show as a command failing deep in the build:
# --check-builddeps, which comes after, has it name them first.
rm -f "$obj"/../*.deb "$obj"/../*.buildinfo "$obj"/../*.changes
make -s -C "$src" O="$obj" CC="ccache gcc" -j"$(nproc)" \
	KDEB_PKGVERSION="$(make -s -C "$src" O="$obj" kernelrelease)-1" \
	DPKG_FLAGS=--check-builddeps bindeb-pkg >"$obj/../deb.log" 2>&1 ||
	{ tail -30 "$obj/../deb.log" >&2; exit 1; }
mkdir -p "$root/build/deb"
rm -f "$root/build/deb"/*.deb
mv "$obj"/../linux-image-*.deb "$obj"/../linux-headers-*.deb "$root/build/deb/"
rm -f "$obj"/../*.deb "$obj"/../*.buildinfo "$obj"/../*.changes
ls "$root/build/deb"
