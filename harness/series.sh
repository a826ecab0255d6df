#!/bin/sh
# Edit patches/ as commits of a git tree of the base kernel.
#
#   harness/series.sh import   build/series: the base tree as a git repo,
#                              patches/series applied as commits (git am)
#   harness/series.sh export   patches/: the commits after the base, as
#                              git format-patch files, and patches/series
#
# Edit and commit in build/series (one commit a patch, kernel-style
# message), export, then build as usual: the build applies patches/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/build/series

case ${1:-} in
import)
	"$root/harness/assemble.py" tree >/dev/null
	rm -rf "$dev"
	cp -a "$root/build/src/base" "$dev"
	cd "$dev"
	git init -q
	git add -A -f
	git -c user.name=base -c user.email=base@localhost commit -q -m base
	git tag base
	grep -v '^#' "$root/patches/series" | while read -r p; do
		[ -n "$p" ] && git am -q --committer-date-is-author-date "$root/patches/$p"
	done
	git log --oneline base..
	;;
export)
	cd "$dev"
	rm -f "$root"/patches/*.patch
	git format-patch -q --no-signature --zero-commit -N -o "$root/patches" base..
	(cd "$root/patches" && ls -- *.patch) >"$root/patches/series"
	cat "$root/patches/series"
	;;
*)
	sed -n '2,10s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac
