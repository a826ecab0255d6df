#!/bin/sh
# On the host: make repo's kernel metapackages and kept builds, with
# stand-in packages (dpkg-deb builds of nothing but their control files)
# of our systemd and of kernels on two bases. harness/repo.sh, run as make
# repo runs it, must give each kernel a metapackage that depends on it at
# its version, and keep the kernel of the first base in the repository of
# the second. apt, reading that repository, must then bring the newer
# kernel with apt-get upgrade --with-new-pkgs (as apt upgrade does), keep
# it back with a plain apt-get upgrade, and still offer the older one. TAP;
# exits 1 if a test failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$here/../userspace/tap.sh"
a=$(mktemp -d)
trap 'status=$?; rm -rf "$a"; tap_exit $status' EXIT
# shellcheck source=tests/apt/apt-root.sh
. "$here/apt-root.sh"

# deb DIR PACKAGE VERSION: a stand-in package in DIR
deb() {
	mkdir -p "$a/pkg/$2/DEBIAN" "$1"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: nobody <nobody@localhost>\nDescription: %s\n' \
		"$2" "$3" "$2" >"$a/pkg/$2/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$a/pkg/$2" "$1/$2_$3_amd64.deb" >/dev/null
	rm -rf "$a/pkg/$2"
}
# kernel UPSTREAM: our cloud kernel's packages on that base, as make deb
# CONFIG=cloud leaves them
kernel() {
	k=$1-negdentry-cloud-amd64
	rm -rf "$a/deb/patched-cloud"
	deb "$a/deb/patched-cloud" "linux-image-$k" "$k-1"
	deb "$a/deb/patched-cloud" "linux-headers-$k" "$k-1"
}
# field PACKAGE FIELD: the field of the package in the repository's index
field() {
	awk -v p="$1" -v f="$2:" '$1 == "Package:" { on = $2 == p } on && $1 == f { $1 = ""; print substr($0, 2) }' \
		"$a/repos/ours/Packages"
}
repo() {
	GNUPGHOME=$a/gnupg REPO_KEY=test REPO_POOL=$a/pool DEB_DIR=$a/deb \
		"$here/../../harness/repo.sh" "$a/repos/ours" cloud >"$a/repo.log" 2>&1 ||
		{ cat "$a/repo.log"; exit 1; }
}

mkdir -m 700 "$a/gnupg"
GNUPGHOME=$a/gnupg gpg --batch --quiet --passphrase '' --quick-gen-key test ed25519 sign never
deb "$a/deb/systemd" systemd 252.39-1~deb12u2+negdentry1
kernel 6.12.117
repo
meta=linux-image-negdentry-cloud-amd64
tap_check "each kernel package has a metapackage" \
	equals "$(field $meta Depends)" "linux-image-6.12.117-negdentry-cloud-amd64 (= 6.12.117-negdentry-cloud-amd64-1)"
tap_check "the headers too" \
	equals "$(field linux-headers-negdentry-cloud-amd64 Depends)" \
	"linux-headers-6.12.117-negdentry-cloud-amd64 (= 6.12.117-negdentry-cloud-amd64-1)"
tap_check "at the version of the kernel it depends on" \
	equals "$(field $meta Version)" 6.12.117-negdentry-cloud-amd64-1

kernel 6.12.118
repo
tap_check "a kernel on a newer base makes a newer metapackage" \
	equals "$(field $meta Version | sort -V | tail -1)" 6.12.118-negdentry-cloud-amd64-1
tap_check "and the kernel of the earlier base stays in the repository" \
	equals "$(field linux-image-6.12.117-negdentry-cloud-amd64 Version)" 6.12.117-negdentry-cloud-amd64-1

# A host that installed the metapackage on the first base
printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nStatus: install ok installed\nDepends: %s\nMaintainer: nobody <nobody@localhost>\nDescription: m\n\n' \
	$meta 6.12.117-negdentry-cloud-amd64-1 \
	"linux-image-6.12.117-negdentry-cloud-amd64 (= 6.12.117-negdentry-cloud-amd64-1)" >"$a/status"
printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nStatus: install ok installed\nMaintainer: nobody <nobody@localhost>\nDescription: k\n\n' \
	linux-image-6.12.117-negdentry-cloud-amd64 6.12.117-negdentry-cloud-amd64-1 >>"$a/status"
# Signed with the repository's key, which apt trusts as a host trusts it
mkdir -p "$a/etc/trusted.gpg.d"
cp "$a/repos/ours/negdentry-archive-keyring.gpg" "$a/etc/trusted.gpg.d/"
sources ours
tap_check "apt-get upgrade --with-new-pkgs installs the kernel on the newer base" \
	equals "$(simulated linux-image-6.12.118-negdentry-cloud-amd64 upgrade --with-new-pkgs)" \
	6.12.118-negdentry-cloud-amd64-1
tap_check "and leaves the running one installed" \
	equals "$(apta apt-get -s -q upgrade --with-new-pkgs | grep -c '^Remv')" 0
tap_check "a plain apt-get upgrade keeps the metapackage back" \
	equals "$(simulated $meta upgrade)" ""
tap_check "the kernel of the earlier base can be installed again" \
	equals "$(candidate linux-image-6.12.117-negdentry-cloud-amd64)" 6.12.117-negdentry-cloud-amd64-1
# the EXIT trap removes the apt root and prints the results
exit 0
