#!/bin/sh
# Edit a patch series as commits of a git tree of its base.
#
#   harness/series.sh import [BASE PATCHES DEV]
#        DEV: the BASE tree as a git repo, PATCHES/series applied as
#        commits (git am)
#   harness/series.sh export [BASE PATCHES DEV]
#        PATCHES: the commits of DEV after the base, as git format-patch
#        files, and PATCHES/series
#
# Without BASE PATCHES DEV: the kernel, build/src/base, patches/ and
# build/series. Edit and commit in DEV (one commit a patch, kernel-style
# message), export, then build as usual: the build applies the series.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}
if [ $# -ge 4 ]; then
	base=$2 patches=$3 dev=$4
else
	base=$root/build/src/base patches=$root/patches dev=$root/build/series
	[ "$cmd" = import ] && "$root/harness/assemble.py" tree >/dev/null
fi

case $cmd in
import)
	rm -rf "$dev"
	cp -a "$base" "$dev"
	cd "$dev"
	git init -q
	git add -A -f
	git -c user.name=base -c user.email=base@localhost commit -q -m base
	git tag base
	grep -v '^#' "$patches/series" | while read -r p; do
		[ -n "$p" ] && git am -q --committer-date-is-author-date "$patches/$p"
	done
	git log --oneline base..
	;;
export)
	cd "$dev"
	rm -f "$patches"/*.patch
	git format-patch -q --no-signature --zero-commit --abbrev=9 -N -o "$patches" base..
	(cd "$patches" && ls -- *.patch) >"$patches/series"
	cat "$patches/series"
	;;
*)
	sed -n '2,14s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac
