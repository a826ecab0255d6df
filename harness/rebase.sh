#!/bin/sh
# harness/rebase.sh: move the kernel base to the newest linux-source-6.12
# of Debian's archive, and say whether systemd's pin is the newest too.
#
# The kernel: the version apt would install (after apt-get update), each
# patch of patches/series applied in order to that version's source with
# git apply, as harness/assemble.py applies them. On the first patch that
# does not apply it prints git apply's reasons, changes nothing and exits
# 1. If all apply, base-version names the new version, deps.sh installs
# its source and make tree assembles it; make rebase then runs make check
# on it. Exit 3 when the base is the newest already.
#
# systemd: userspace/systemd/version beside the newest Debian 12 upload;
# a newer one is printed (moving the pin means refreshing the series on
# its source: docs/setup.md), and does not fail the run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/build/rebase
pkg=linux-source-6.12
have=$(cat "$root/base-version")

apt-get update -q >/dev/null
newest=$(apt-cache policy $pkg | sed -n 's/^ *Candidate: //p')

systemd_have=$(cat "$root/userspace/systemd/version")
systemd_newest=$(apt-cache policy systemd |
	sed -n 's/^ *\([0-9][^ ]*\) [0-9]*$/\1/p' | head -1)
if [ -n "$systemd_newest" ] && [ "$systemd_newest" != "$systemd_have" ] &&
	dpkg --compare-versions "$systemd_newest" gt "$systemd_have"; then
	echo "rebase: systemd $systemd_newest is in the archive; userspace/systemd is on $systemd_have"
else
	echo "rebase: systemd $systemd_have is the newest"
fi

if [ -z "$newest" ] || ! dpkg --compare-versions "$newest" gt "$have"; then
	echo "rebase: $pkg $have is the newest"
	exit 3
fi
echo "rebase: $pkg $have -> $newest"

rm -rf "$work"
mkdir -p "$work/deb" "$work/src"
(cd "$work" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$newest" >/dev/null)
dpkg-deb -x "$work"/${pkg}_*.deb "$work/deb"
tar -xf "$work/deb/usr/src/$pkg.tar.xz" -C "$work/src" --strip-components=1

# Outside any git repository, so that git apply patches plain files.
grep -v -e '^#' -e '^[[:space:]]' "$root/patches/series" | while IFS= read -r patch; do
	if ! (cd "$work/src" && GIT_CEILING_DIRECTORIES=$work \
		git apply --check "$root/patches/$patch" 2>"$work/reasons"); then
		echo "rebase: $patch does not apply to $newest:" >&2
		sed 's/^/    /' "$work/reasons" >&2
		echo "rebase: nothing changed; refresh that patch on $newest" >&2
		exit 1
	fi
	(cd "$work/src" && GIT_CEILING_DIRECTORIES=$work git apply "$root/patches/$patch")
	echo "rebase: $patch applies"
done
rm -rf "$work"

echo "$newest" >"$root/base-version"
"$root/harness/deps.sh"
"$root/harness/assemble.py" tree
echo "rebase: base-version is $newest; commit it once make check passes"
