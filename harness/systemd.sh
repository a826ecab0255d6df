#!/bin/sh
# Debian 12's systemd with userspace/systemd/series: MemoryNegativeDentryMax=.
#
#   harness/systemd.sh build         source (apt-get source, Debian's patches
#                                    applied; harness/deps.sh userspace
#                                    installs what that and the build
#                                    need), our series on top, meson
#                                    build of what the series changes, and
#                                    its unit tests
#   harness/systemd.sh install ROOT  put the built libraries and programs
#                                    in a Debian root filesystem
#   harness/systemd.sh deb           Debian's packages of it, as Debian
#                                    builds them (man pages, LTO), with
#                                    the series in debian/patches, in
#                                    build/deb/systemd/ (make systemd-deb),
#                                    at the version of package-version,
#                                    which a changed series must raise
#   harness/systemd.sh import|export edit the series as commits of a git
#                                    tree (build/systemd/series), as
#                                    harness/series.py does for the kernel
#
# The build uses debian/rules' meson options (userspace/systemd/meson-options),
# less LTO and man pages, so the libraries export what Debian's other systemd
# programs link against.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$root/harness/layout.py" ccache-env)"
patches=$root/userspace/systemd
version=$(cat "$patches/version")
work=$root/build/systemd
base=$work/src
tree=$work/tree
obj=$work/obj
tests="test-load-fragment"
targets="src/core/libsystemd-core-252.so src/shared/libsystemd-shared-252.so
systemctl systemd-run systemd $tests"

source_tree() {
	[ "$(cat "$base/.negdentry-base-version" 2>/dev/null)" = "$version" ] && return
	"$root/harness/deps.sh" userspace
	rm -rf "$work/dl" "$base"
	mkdir -p "$work/dl"
	(cd "$work/dl" && apt-get source -q --download-only "systemd=$version" >/dev/null 2>&1)
	dpkg-source -x "$work/dl"/systemd_*.dsc "$base" >/dev/null
	echo "$version" >"$base/.negdentry-base-version"
}

case ${1:-} in
build)
	source_tree
	"$root/harness/assemble.py" sync "$base" "$tree" "$patches"
	if [ ! -f "$obj/build.ninja" ]; then
		# one option a line, spaces and all
		set --
		while IFS= read -r opt; do
			case $opt in '#'* | '') ;; *) set -- "$@" "$opt" ;; esac
		done <"$patches/meson-options"
		CC="ccache gcc" meson setup "$obj" "$tree" "$@" -Db_lto=false \
			-Dman=false -Dinstall-tests=false -Dtests=true >"$work/meson.log" 2>&1 ||
			{ tail -30 "$work/meson.log" >&2; exit 1; }
	fi
	# shellcheck disable=SC2086
	ninja -C "$obj" $targets >"$work/ninja.log" 2>&1 ||
		{ grep -B2 -A8 -m3 "error" "$work/ninja.log" >&2; exit 1; }
	for t in $tests; do
		"$obj/$t" >"$work/$t.log" 2>&1 || { tail -20 "$work/$t.log" >&2; exit 1; }
		echo "systemd: $t passed"
	done
	;;
install)
	dest=$2
	libdir=/usr/lib/x86_64-linux-gnu/systemd
	install -m 644 "$obj/src/core/libsystemd-core-252.so" "$dest$libdir/"
	install -m 644 "$obj/src/shared/libsystemd-shared-252.so" "$dest$libdir/"
	install -m 755 "$obj/systemd" "$dest/usr/lib/systemd/systemd"
	install -m 755 "$obj/systemctl" "$obj/systemd-run" "$dest/usr/bin/"
	# The build tree's run paths, as meson install would rewrite them.
	for f in "$dest$libdir/libsystemd-core-252.so" "$dest/usr/lib/systemd/systemd" \
		"$dest/usr/bin/systemctl" "$dest/usr/bin/systemd-run"; do
		patchelf --set-rpath "$libdir" "$f"
	done
	;;
deb)
	source_tree
	out=$root/build/deb/systemd
	# The packages' version sorts after Debian's own and before its next
	# upload. package-version records the series it was given to, so that
	# a changed series cannot go out under a version machines already
	# have, which apt would never replace.
	read -r pkgversion recorded <"$patches/package-version"
	case $pkgversion in
	"$version"+negdentry[0-9]*) ;;
	*)
		echo "systemd.sh: $pkgversion in userspace/systemd/package-version is not $version+negdentryN" >&2
		exit 1
		;;
	esac
	# shellcheck disable=SC2046
	sum=$(cd "$patches" && cat series $(cat series) | sha256sum | cut -c1-16)
	if [ "$sum" != "$recorded" ]; then
		echo "systemd.sh: the series changed since $pkgversion: raise its number in" >&2
		echo "userspace/systemd/package-version and write $sum after it" >&2
		exit 1
	fi
	# Only when the version or the series changed: the link with LTO
	# takes minutes even when ccache has every object.
	sum="$pkgversion $sum"
	if [ "$(cat "$out/.negdentry-series" 2>/dev/null)" = "$sum" ]; then
		echo "systemd: packages of $pkgversion are up to date in $out"
		exit 0
	fi
	# dpkg-source -x applied Debian's patches; dpkg-buildpackage applies
	# ours, the last in debian/patches/series, as a Debian upload would.
	pkg=$work/pkg/systemd-$pkgversion
	rm -rf "$work/pkg" && mkdir -p "$work/pkg"
	cp -a "$base" "$pkg"
	while IFS= read -r p; do
		cp "$patches/$p" "$pkg/debian/patches/"
		echo "$p" >>"$pkg/debian/patches/series"
	done <"$patches/series"
	{
		printf 'systemd (%s) bookworm; urgency=medium\n\n' "$pkgversion"
		printf '  * Add MemoryNegativeDentryMax= and DefaultMemoryNegativeDentryMax=\n'
		printf '    (memory.negative_dentry.max), from userspace/systemd.\n\n'
		printf ' -- Negative dentry limits <negdentry@localhost>  %s\n\n' \
			"$(git -C "$root" log -1 --format=%aD -- userspace/systemd)"
		cat "$base/debian/changelog"
	} >"$pkg/debian/changelog"
	# Not the test suite (make check runs the parser's), nor the
	# installer's udebs; ccache keeps a rebuild short.
	log=$work/pkg.log
	(cd "$pkg" && CC="ccache gcc" DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
		DEB_BUILD_PROFILES=noudeb dpkg-buildpackage -b -uc -us) >"$log" 2>&1 ||
		{ tail -30 "$log" >&2; exit 1; }
	rm -rf "$out" && mkdir -p "$out"
	mv "$work/pkg"/*.deb "$out/"
	echo "$sum" >"$out/.negdentry-series"
	ls "$out"
	;;
import)
	source_tree
	"$root/harness/series.py" import "$base" "$patches" "$work/series"
	;;
export)
	"$root/harness/series.py" export "$base" "$patches" "$work/series"
	;;
*)
	sed -n '2,22s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac
