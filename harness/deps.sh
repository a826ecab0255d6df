#!/bin/sh
# Install what the build, the guests and the tests need on Debian 12, with
# the kernel source at the version base-version pins. Only missing packages
# are installed, so this is quick when everything is there.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$root/base-version")
want="linux-source-6.12=$version
build-essential bc bison flex libelf-dev libssl-dev perl python3 patch
git cpio xz-utils ccache qemu-system-x86 busybox-static e2fsprogs util-linux
gnuplot-nox debootstrap gawk patchelf $*"

missing=
for pkg in $want; do
	name=${pkg%%=*}
	status=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
	case $pkg in
	*=*) [ "$status" = "install ok installed ${pkg#*=}" ] || missing="$missing $pkg" ;;
	*) case $status in "install ok installed"*) ;; *) missing="$missing $pkg" ;; esac ;;
	esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
