#!/bin/sh
# harness/repo-rootfs.sh SRC DIR REPO: the Debian guest's root SRC copied to DIR
# for make repo-check, as a machine is before it meets our packages:
# Debian's own systemd again (make debian-rootfs copied ours over it), and
# three repositories in /srv, read in the guest with file: URIs:
#
#   /srv/negdentry     REPO, as harness/repo.sh makes what operators
#                      install from
#   /srv/debian        Debian's packages of the installed systemd, which
#                      stand for Debian's archive (the guest is offline)
#   /srv/debian-next   the same packages as Debian's next upload would
#                      number them, one deb12uN on: its contents are
#                      Debian's, without MemoryNegativeDentryMax=, as a real
#                      point release's would be
#
# Made anew each time; the downloaded packages are kept in DIR.apt.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src=$1 dir=$2 repo=$3
version=$(cat "$root/userspace/systemd/version")
next=$(echo "$version" | awk -F'deb12u' '{ print $1 "deb12u" $2 + 1 }')
[ -f "$repo/InRelease" ] || { echo "repo-rootfs: no repository in $repo: harness/repo.sh" >&2; exit 1; }
# shellcheck source=harness/rootfs-copy.sh
. "$root/harness/rootfs-copy.sh"
copy_rootfs "$src" "$dir"
# shellcheck disable=SC2016
packages=$(chroot "$dir" dpkg-query -W -f '${source:Package} ${Package}\n' |
	awk '$1 == "systemd" { print $2 }')
pinned=$(for p in $packages; do printf '%s=%s ' "$p" "$version"; done)
echo "repo-rootfs: apt-get install --reinstall $pinned"
chroot "$dir" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --reinstall $pinned" >"$dir.log" 2>&1 ||
	{ tail -20 "$dir.log" >&2; exit 1; }
mkdir -p "$dir/srv/debian" "$dir/srv/debian-next"
cp -a "$repo" "$dir/srv/negdentry"
for p in $packages; do
	for deb in "$dir.apt/${p}_${version}_"*.deb; do :; done
	cp "$deb" "$dir/srv/debian/"
	# The next upload: the version and the exact dependencies on it
	# raised, the files untouched.
	x=$dir.next/$p
	rm -rf "$x" && mkdir -p "$dir.next" && dpkg-deb -R "$deb" "$x"
	sed -i "s/$version/$next/g" "$x/DEBIAN/control"
	dpkg-deb -b -Zxz "$x" "$dir/srv/debian-next/" >/dev/null
done
rm -rf "$dir.next"
for r in debian debian-next; do
	(
		cd "$dir/srv/$r"
		apt-ftparchive packages . >Packages 2>/dev/null
		apt-ftparchive -o APT::FTPArchive::Release::Origin=Debian \
			-o APT::FTPArchive::Release::Codename=bookworm release . >../Release.tmp
		mv ../Release.tmp Release
	)
done
# Only the repositories above: a guest would wait on deb.debian.org.
echo "deb [trusted=yes] file:/srv/debian ./" >"$dir/etc/apt/sources.list"
echo "repo-rootfs: $(echo "$packages" | wc -w) packages of Debian's systemd, $next beside them"
