#!/bin/sh
# harness/deps.sh [userspace | --list]: install, with apt-get, what the
# project needs on Debian 12. Only missing packages are installed, so it is
# quick when everything is there.
#
#   (nothing)   the kernel build, both guests' tools, the busybox guest,
#               the tests, make deb and make bench: all make run needs
#   userspace   also a deb-src entry and the build dependencies of the
#               pinned Debian systemd (make check builds it for the Debian
#               guest), and Debian's kubectl unpacked into build/tools
#               (tests/kubernetes)
#   fstests     also what building fstests needs (make fstests)
#   btf         also what make btf-check builds its eBPF program with
#   --list      print the packages and why, one per line
#
# docs/setup.md, "What gets installed", gives the same list; make check's
# harness suite fails if the two differ.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)

# package (=version when pinned), then why
packages() {
	cat <<EOF
linux-source-6.12=$(cat "$root/base-version") the base kernel source, at the pinned version
build-essential gcc, make, libc6-dev (static guest programs), dpkg-dev
bc kernel build
bison kernel build
flex kernel build
libelf-dev kernel build (objtool)
libssl-dev kernel build (certificate tools)
perl kernel build, checkpatch.pl
python3 the harness, the KUnit parser
patch applying patches/ to the base
git series editing, git apply of the combined patch
cpio the busybox guest's initramfs, kernel headers
xz-utils unpacking linux-source-6.12
ccache keeping compiled objects across clean builds
qemu-system-x86 booting the guests (TCG)
busybox-static the busybox guest, busybox in container images
e2fsprogs mkfs.ext4 of the guests' disks
util-linux mkswap of the guest's swap disk, unshare for fresh-check
gnuplot-nox make run's and make bench's plots
gawk the demo's plot data (demo/plot.sh)
debootstrap the Debian guest's root, make fresh-check's root
patchelf run paths of our systemd installed in the Debian guest
debhelper make deb: kernel packages (bindeb-pkg)
dwarves make deb and make btf-check: pahole, which makes the kernel's BTF
linux-config-6.12 make deb CONFIG=cloud or debian: Debian's own kernel configurations
rsync make deb: headers_install of the linux-headers package
kmod make deb: depmod of the packaged modules
stress-ng the stress suite's load, staged into the busybox guest
gdb make insn-trace: single-stepping the guests through QEMU's gdb stub
prometheus promtool, for tests/prometheus: the metrics file and the alert rules
python3-yaml tests/kubernetes: reading the Kubernetes manifests
apt-utils apt-ftparchive, for make repo and tests/apt's package lists
gpg make repo: signing the repository
gpg-agent make repo: gpg keeps secret keys through it
EOF
}

if [ "${1:-}" = --list ]; then
	packages
	exit 0
fi

missing=
for pkg in $(packages | cut -d' ' -f1); do
	name=${pkg%%=*}
	status=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
	case $pkg in
	*=*) [ "$status" = "install ok installed ${pkg#*=}" ] || missing="$missing $pkg" ;;
	*) case $status in "install ok installed"*) ;; *) missing="$missing $pkg" ;; esac ;;
	esac
done
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	apt-get update -q >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
# fstests' build dependencies (../shared/fstests/README.md): xfslibs-dev
# even for ext4, as configure needs xfs/xfs.h and libhandle.
if [ "${1:-}" = fstests ]; then
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends autoconf automake libtool \
		libtool-bin pkgconf xfslibs-dev uuid-dev libacl1-dev libattr1-dev \
		libaio-dev libgdbm-dev libgdbm-compat-dev libcap-dev >/dev/null
	exit 0
fi
# make btf-check: clang for the CO-RE program, bpftool for its vmlinux.h,
# and the static libraries of its loader.
if [ "${1:-}" = btf ]; then
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends clang llvm bpftool \
		libbpf-dev libzstd-dev zlib1g-dev >/dev/null
	exit 0
fi
[ "${1:-}" = userspace ] || exit 0

# kubectl kustomize for tests/kubernetes: Debian's kubernetes-client,
# unpacked into build/tools rather than installed, as a kubectl of another
# package (the Google Cloud SDK's) may own /usr/bin/kubectl.
tools=$root/build/tools
if ! [ -x "$tools/usr/bin/kubectl" ]; then
	echo "deps: unpacking kubernetes-client into $tools"
	mkdir -p "$tools"
	rm -f "$tools"/kubernetes-client_*.deb
	(
		cd "$tools"
		apt-get download -q kubernetes-client >/dev/null 2>&1 || {
			apt-get update -q >/dev/null
			apt-get download -q kubernetes-client >/dev/null
		}
	)
	dpkg-deb -x "$tools"/kubernetes-client_*.deb "$tools"
	rm -f "$tools"/kubernetes-client_*.deb
fi

# Debian's systemd, built from source for the Debian guest: apt-get source
# needs a deb-src entry, and the build its build dependencies.
systemd=$(cat "$root/userspace/systemd/version")
if ! grep -qs '^ *\(deb-src\|Types:.*deb-src\)' /etc/apt/sources.list /etc/apt/sources.list.d/*; then
	printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" \
		"Suites: bookworm bookworm-updates" "Components: main" \
		"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" \
		>/etc/apt/sources.list.d/negdentry-deb-src.sources
	apt-get update -q >/dev/null
fi
# A dry run names what is missing without downloading anything.
plan=$(apt-get build-dep -s -q "systemd=$systemd" 2>&1) || {
	apt-get update -q >/dev/null
	plan=$(apt-get build-dep -s -q "systemd=$systemd" 2>&1) ||
		{ echo "$plan" >&2; exit 1; }
}
if echo "$plan" | grep -q '^Inst '; then
	echo "deps: installing the build dependencies of systemd $systemd"
	apt-get build-dep -y -q "systemd=$systemd" >/dev/null
fi
