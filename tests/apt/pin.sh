#!/bin/sh
# On the host: userspace/apt/negdentry.pref, as apt itself reads it, picks
# our packages over Debian's, even over Debian's next point release, and
# nothing else; without it, that point release would replace ours. The
# repositories are package indexes alone (apt-cache and apt-get -s need no
# packages) in an apt root of their own, also as a host that sets
# APT::Default-Release. TAP; exits 1 if a test failed.
# make repo-check installs the real packages in the Debian guest.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$here/../userspace/tap.sh"
debian=$(cat "$here/../../userspace/systemd/version")
ours=$debian+negdentry1
# Debian's next upload: the same upstream, the next deb12uN
next=$(echo "$debian" | awk -F'deb12u' '{ print $1 "deb12u" $2 + 1 }')
a=$(mktemp -d)
trap 'status=$?; rm -rf "$a"; tap_exit $status' EXIT

# repo NAME ORIGIN CODENAME PACKAGE=VERSION...: a flat repository's index
repo() {
	dir=$a/repos/$1 origin=$2 codename=$3
	shift 3
	mkdir -p "$dir"
	for pv; do
		printf 'Package: %s\nVersion: %s\nArchitecture: amd64\n' "${pv%%=*}" "${pv#*=}"
		printf 'Maintainer: nobody <nobody@localhost>\nFilename: ./%s.deb\n' "${pv%%=*}"
		printf 'Size: 1\nDescription: %s\n\n' "${pv%%=*}"
	done >"$dir/Packages"
	apt-ftparchive -o APT::FTPArchive::Release::Origin="$origin" \
		-o APT::FTPArchive::Release::Codename="$codename" \
		release "$dir" >"$dir/Release.tmp" && mv "$dir/Release.tmp" "$dir/Release"
}
# sources REPO...: the repositories apt reads
sources() {
	for r; do echo "deb [trusted=yes] file:$a/repos/$r ./"; done >"$a/etc/sources.list"
	apta apt-get update >"$a/update.log" 2>&1 && ! grep -q '^[WE]:' "$a/update.log" ||
		{ echo "apt-get update failed:"; cat "$a/update.log"; exit 1; }
}
# installed PACKAGE=VERSION...: what dpkg has installed
installed() {
	for pv; do
		printf 'Package: %s\nStatus: install ok installed\nVersion: %s\n' "${pv%%=*}" "${pv#*=}"
		printf 'Architecture: amd64\nMaintainer: nobody <nobody@localhost>\n'
		printf 'Description: %s\n\n' "${pv%%=*}"
	done >"$a/status"
}
# APT::Default-Release, empty for none
release=
pinned() { cp "$here/../../userspace/apt/negdentry.pref" "$a/etc/preferences.d/"; }
unpinned() { rm -f "$a/etc/preferences.d/negdentry.pref"; }
apta() {
	cmd=$1
	shift
	"$cmd" -o Dir="$a" -o Dir::Etc="$a/etc" -o Dir::State::status="$a/status" \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		-o APT::Default-Release="$release" "$@"
}
candidate() { apta apt-cache policy "$1" | awk '$1 == "Candidate:" { print $2 }'; }
# simulated PACKAGE [ARG...]: the version apt-get would install
simulated() {
	p=$1
	shift
	apta apt-get -s -q "$@" | awk -v p="$p" '$1 == "Inst" && $2 == p { print ($3 ~ /^\[/ ? $4 : $3) }' | tr -d '('
}

mkdir -p "$a/etc/preferences.d" "$a/lists/partial" "$a/cache/archives/partial"
repo ours negdentry negdentry "systemd=$ours" "udev=$ours"
repo debian Debian bookworm "systemd=$debian" "udev=$debian" bash=5.2.15-2+b2
repo debian-next Debian bookworm "systemd=$next" "udev=$next" bash=5.2.15-2+b9
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
unpinned

# The rollback of the user guide: the pin and the repository removed,
# then each package of ours installed again at the Debian release's.
sources debian
tap_check "rolled back: without /bookworm, apt keeps what is installed" \
	equals "$(candidate systemd)" "$ours"
tap_check "rolled back: PACKAGE/bookworm --allow-downgrades takes Debian's" \
	equals "$(simulated systemd install --allow-downgrades systemd/bookworm udev/bookworm)" "$debian"
# the EXIT trap removes the apt root and prints the results
exit 0
