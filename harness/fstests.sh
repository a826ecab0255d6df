#!/bin/sh
# harness/fstests.sh [SOURCE]: make fstests. Builds fstests from SOURCE (a
# tarball or a tree of kdave/xfstests; by default the tarball in
# ../shared/fstests/), stages it with tests/fstests/ into
# build/fstests/guest/, and runs its selection (tests/fstests/tests.txt)
# in the Debian guest on the fast base kernel and on ours with the limits
# armed. Results, test by test, in build/fstests/results.txt; it fails if
# ours fails a test the base passes. fstests is outside code: nothing
# built from it is committed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/fstests
src=${1:-}
if [ -z "$src" ]; then
	src=$(ls "$root"/../shared/fstests/xfstests-*.tar.gz 2>/dev/null | tail -1)
fi
if [ -z "$src" ] || [ ! -e "$src" ]; then
	cat >&2 <<EOF
fstests: no fstests source. Give one with FSTESTS=<tarball or tree>:
fstests is not packaged by Debian; its home is
https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git (tested here: the
v2026.01.27 tag).
EOF
	exit 2
fi
src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")

# Build once for each source.
stamp=$(ls -ld --time-style=+%s "$src" | awk '{ print $6 }')-$src
tree=$out/xfstests
if [ "$(cat "$out/built" 2>/dev/null)" != "$stamp" ]; then
	"$root/harness/deps.sh" fstests
	rm -rf "$tree" "$out/built"
	mkdir -p "$tree"
	if [ -d "$src" ]; then
		cp -a "$src/." "$tree/"
	else
		tar -xzf "$src" -C "$tree" --strip-components=1
	fi
	echo "fstests: building $src"
	make -C "$tree" -j"$(nproc)" >"$out/build.log" 2>&1 ||
		{ tail -20 "$out/build.log" >&2; exit 1; }
	echo "$stamp" >"$out/built"
fi

guest=$out/guest
rm -rf "$guest"
mkdir -p "$guest"
cp "$root"/tests/fstests/run.sh "$root"/tests/fstests/tests.txt "$guest/"
cp -a "$tree" "$guest/xfstests"
rm -rf "$guest/xfstests/results"

for kernel in base patched; do
	start=$(date +%s)
	"$root/harness/vmrun.py" --guest debian --rootfs "$root/build/debian/rootfs" \
		--image "$("$root/harness/layout.py" image $kernel fast)" \
		--kernel $kernel --timeout 7200 --log "$out/$kernel.log" \
		"$guest/run.sh" >/dev/null && status=0 || status=$?
	echo "fstests: $kernel in $(($(date +%s) - start)) s, vm-run status $status"
	# vmrun.py's own verdicts, whatever the tests' results: a timeout or
	# no exit status on either kernel, kernel problems on ours (the base's
	# are the environment's, and its log has them).
	case $kernel:$status in *:124 | *:125 | patched:99) incomplete=1 ;; esac
	sed -n 's/^fstests: \([^ ]* [^ ]* [a-z]*\)$/\1/p' "$out/$kernel.log" >"$out/$kernel.txt"
	# A guest that died or hung ran short.
	grep -q '^fstests: done' "$out/$kernel.log" ||
		{ echo "fstests: the $kernel guest did not get to the end" >&2; incomplete=1; }
done
python3 "$root/harness/fstests_compare.py" "$out/base.txt" "$out/patched.txt" \
	"$out/results.txt"
[ -z "${incomplete:-}" ]
