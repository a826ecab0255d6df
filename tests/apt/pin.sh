#!/bin/sh
# On the host: userspace/apt/negdentry.pref, as apt itself reads it, picks
# our packages over Debian's, even over Debian's next point release, and
# nothing else; without it, that point release would replace ours. It
# holds on a host that sets APT::Default-Release, and where apt has lost
# our repository's index. The user guide's rollback names our installed
# packages, and not those removed but for their configuration files. The
# repositories are package indexes alone (apt-cache and apt-get -s need
# no packages) in an apt root of their own. TAP; exits 1 if a test
# failed.
# make repo-check installs the real packages in the Debian guest.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$here/../userspace/tap.sh"
debian=$(cat "$here/../../userspace/systemd/version")
ours=$debian+negdentry1
# Debian's next upload: the same upstream, the next deb12uN
next=$(echo "$debian" | awk -F'deb12u' '{ print $1 "deb12u" $2 + 1 }')
# bookworm-backports' systemd
backports=254.26-1~bpo12+1
a=$(mktemp -d)
trap 'status=$?; rm -rf "$a"; tap_exit $status' EXIT
# shellcheck source=tests/apt/apt-root.sh
. "$here/apt-root.sh"

# stanza PACKAGE=VERSION: the fields an index and dpkg's status share;
# udev and systemd are built from systemd's source, as Debian's are
stanza() {
	p=${1%%=*}
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\n' "$p" "${1#*=}"
	[ "$p" = bash ] || printf 'Source: systemd\n'
	printf 'Maintainer: nobody <nobody@localhost>\nDescription: %s\n' "$p"
}
# repo NAME ORIGIN CODENAME PACKAGE=VERSION...: a flat repository's index;
# a -backports one is NotAutomatic and ButAutomaticUpgrades, as Debian's
repo() {
	dir=$a/repos/$1 origin=$2 codename=$3 auto=
	shift 3
	mkdir -p "$dir"
	for pv; do
		stanza "$pv"
		printf 'Filename: ./%s.deb\nSize: 1\n\n' "${pv%%=*}"
	done >"$dir/Packages"
	case $codename in *-backports) auto=yes ;; esac
	apt-ftparchive -o APT::FTPArchive::Release::Origin="$origin" \
		-o APT::FTPArchive::Release::Codename="$codename" \
		-o APT::FTPArchive::Release::NotAutomatic="$auto" \
		-o APT::FTPArchive::Release::ButAutomaticUpgrades="$auto" \
		release "$dir" >"$dir/Release.tmp" && mv "$dir/Release.tmp" "$dir/Release"
}
# installed PACKAGE=VERSION...: what dpkg has installed
installed() {
	for pv; do
		stanza "$pv"
		printf 'Status: install ok installed\n\n'
	done >"$a/status"
}
pinned() { cp "$here/../../userspace/apt/negdentry.pref" "$a/etc/preferences.d/"; }
unpinned() { rm -f "$a/etc/preferences.d/negdentry.pref"; }
repo ours negdentry negdentry "systemd=$ours" "udev=$ours"
repo debian Debian bookworm "systemd=$debian" "udev=$debian" "systemd-timesyncd=$debian" \
	bash=5.2.15-2+b2
repo debian-next Debian bookworm "systemd=$next" "udev=$next" bash=5.2.15-2+b9
repo backports "Debian Backports" bookworm-backports "systemd=$backports" "udev=$backports"
installed "systemd=$debian" "udev=$debian" bash=5.2.15-2+b2

sources ours debian
pinned
tap_check "pinned: apt-get install systemd takes ours ($ours)" \
	equals "$(simulated systemd install systemd)" "$ours"
tap_check "pinned: apt-get upgrade takes ours for every package ours has" \
	equals "$(simulated udev upgrade)" "$ours"

installed "systemd=$ours" "udev=$ours" bash=5.2.15-2+b2
sources ours debian debian-next
tap_check "pinned: Debian's next upload ($next) is not the candidate" \
	equals "$(candidate systemd)" "$ours"
tap_check "pinned: apt-get upgrade leaves our systemd alone" \
	equals "$(simulated systemd upgrade)" ""
tap_check "pinned: apt-get upgrade still takes Debian's packages ours lacks" \
	equals "$(simulated bash upgrade)" 5.2.15-2+b9
tap_check "pinned: apt-cache policy shows the held-back Debian upload" \
	contains "$(apta apt-cache policy systemd)" "$next"
# A host with APT::Default-Release "bookworm", the usual advice once
# backports is added: Debian's bookworm packages get 990 then.
release=bookworm
tap_check "Default-Release bookworm: Debian's next upload is not the candidate" \
	equals "$(candidate systemd)" "$ours"
tap_check "Default-Release bookworm: apt-get upgrade leaves our systemd alone" \
	equals "$(simulated systemd upgrade)" ""
release=
unpinned
tap_check "unpinned: apt-get upgrade would replace ours with $next" \
	equals "$(simulated systemd upgrade)" "$next"

# A machine that already has Debian's next upload, when our repository
# comes: apt keeps Debian's newer systemd rather than downgrade it.
installed "systemd=$next" "udev=$next" bash=5.2.15-2+b9
sources ours debian debian-next
pinned
tap_check "pinned: Debian's newer systemd, installed, is not downgraded" \
	equals "$(simulated systemd upgrade)" ""
release=bookworm
tap_check "Default-Release bookworm: nor with Debian's at 990" \
	equals "$(simulated systemd upgrade)" ""
release=
installed "systemd=$ours" "udev=$ours" bash=5.2.15-2+b2

# Our repository's index gone while ours is installed: its sources file
# dropped (by configuration management, say), or the lists purged (rm -rf
# /var/lib/apt/lists/* in an image build) and ours not fetched again.
# apt then knows ours from dpkg's status alone, at priority 100.
for release in "" bookworm; do
	on="${release:+, Default-Release $release}"
	sources debian debian-next backports
	tap_check "pinned, our sources dropped$on: neither Debian's next upload nor backports' is the candidate" \
		equals "$(candidate systemd)" "$ours"
	tap_check "pinned, our sources dropped$on: apt-get upgrade leaves our systemd alone" \
		equals "$(simulated systemd upgrade)" ""
	sources ours debian debian-next backports
	rm -f "$a"/lists/*_repos_ours_*
	tap_check "pinned, our lists purged$on: apt-get upgrade leaves our systemd alone" \
		equals "$(simulated systemd upgrade)" ""
done
release=
# A host still on Debian's systemd, with the pin but not our repository,
# takes Debian's uploads as before, and not backports'.
installed "systemd=$debian" "udev=$debian" bash=5.2.15-2+b2
sources debian debian-next backports
tap_check "pinned, without our repository: Debian's installed systemd takes Debian's next upload" \
	equals "$(simulated systemd upgrade)" "$next"
installed "systemd=$ours" "udev=$ours" bash=5.2.15-2+b2
unpinned

# The rollback of the user guide: the pin and the repository removed,
# then each package of ours installed again at the Debian release's, as
# its apt-get install line names them, taken from the guide and run on
# our dpkg status, with an apt-get that prints what it was given. A
# package removed but for its configuration files (rc), such as
# systemd-timesyncd on a machine that runs chrony, is not installed and
# must not be named.
sources debian
tap_check "rolled back: without /bookworm, apt keeps what is installed" \
	equals "$(candidate systemd)" "$ours"
{
	stanza "systemd-timesyncd=$ours"
	printf 'Status: deinstall ok config-files\n\n'
} >>"$a/status"
mkdir "$a/bin"
printf '#!/bin/sh\necho "$@"\n' >"$a/bin/apt-get"
chmod +x "$a/bin/apt-get"
rollback=$(sed -n '/^    apt-get install --allow-downgrades/,/)$/s/^    //p' "$here/../../docs/user-guide.md")
named=$(PATH=$a/bin:$PATH DPKG_ADMINDIR=$a sh -c "$rollback")
tap_check "rolled back: the guide's line names our installed packages, at Debian's release" \
	equals "$named" "install --allow-downgrades systemd/bookworm udev/bookworm"
# shellcheck disable=SC2086 # the words the line gave apt-get
tap_check "rolled back: PACKAGE/bookworm --allow-downgrades takes Debian's" \
	equals "$(simulated systemd $named)" "$debian"
# shellcheck disable=SC2086
tap_check "rolled back: and does not install systemd-timesyncd again" \
	equals "$(simulated systemd-timesyncd $named)" ""
# the EXIT trap removes the apt root and prints the results
exit 0
