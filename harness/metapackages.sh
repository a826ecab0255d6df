#!/bin/sh
# harness/metapackages.sh DIR: for each kernel image and headers package in
# DIR (linux-image-RELEASE, linux-headers-RELEASE), a metapackage that
# depends on it, named by the release less its upstream version, as
# Debian's linux-image-cloud-amd64 is: linux-image-negdentry-cloud-amd64
# for linux-image-6.12.118-negdentry-cloud-amd64. It takes the version of
# the package it depends on, so the metapackage of a kernel on a newer
# base is newer, and apt upgrade (or apt-get upgrade --with-new-pkgs)
# installs that kernel beside the one running. Written into DIR.
set -eu
dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for deb in "$dir"/linux-image-*.deb "$dir"/linux-headers-*.deb; do
	[ -f "$deb" ] || continue
	package=$(dpkg-deb -f "$deb" Package)
	version=$(dpkg-deb -f "$deb" Version)
	kind=${package%%-[0-9]*}
	release=${package#"$kind"-}
	# debug symbols, and metapackages already made: not kernels
	case $release in *-dbg) continue ;; [0-9]*.[0-9]*-*) ;; *) continue ;; esac
	meta=$kind-${release#*-}
	mkdir -p "$work/$meta/DEBIAN"
	cat >"$work/$meta/DEBIAN/control" <<EOF
Package: $meta
Version: $version
Architecture: $(dpkg-deb -f "$deb" Architecture)
Maintainer: $(dpkg-deb -f "$deb" Maintainer)
Depends: $package (= $version)
Section: kernel
Priority: optional
Description: the newest ${kind#linux-} of our negative dentry kernel (${release#*-})
 Depends on $package. Upgrading this package
 installs a kernel built on a newer base beside the running one.
EOF
	dpkg-deb --root-owner-group --build "$work/$meta" \
		"$dir/${meta}_${version}_$(dpkg-deb -f "$deb" Architecture).deb" >/dev/null
done
