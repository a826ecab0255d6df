#!/bin/sh
# Build one kernel: harness/kernel.sh patched|base debug|fast|btf
#
# Both kernels use the same configuration: tinyconfig plus the fragments in
# config/ (debug.config only for the debug flavour, fast.config for the fast
# one, patched.config for the options only our kernel has). The fast
# flavour has filesystems.config too, for the filesystems suite and
# fstests. The debug one has it only with FILESYSTEMS=1 (make check
# FULL=1): none of make check's suites on it mounts those filesystems, and
# they make a fifth of its objects. The btf flavour is the fast one with
# btf.config, for make btf-check. Builds are incremental in the object
# directory harness/layout.py names, compiled through ccache.
set -eu
kernel=$1 flavour=$2
root=$(cd "$(dirname "$0")/.." && pwd)
src=$("$root/harness/layout.py" src "$kernel")
obj=$("$root/harness/layout.py" obj "$kernel" "$flavour")

case $kernel in patched|base) ;; *) echo "kernel.sh: KERNEL must be patched or base, not '$kernel'" >&2; exit 2;; esac
case $flavour in
debug)
	fragments="guest test debug"
	if [ "${FILESYSTEMS:-}" = 1 ]; then fragments="guest filesystems test debug"; fi
	;;
fast) fragments="guest filesystems test fast" ;;
btf) fragments="guest filesystems test fast btf" ;;
*) echo "kernel.sh: flavour must be debug, fast or btf, not '$flavour'" >&2; exit 2 ;;
esac

eval "$("$root/harness/layout.py" ccache-env)"
export KBUILD_BUILD_TIMESTAMP="2024-01-01" KBUILD_BUILD_USER=negdentry KBUILD_BUILD_HOST=qemu
kmake() { make -s -C "$src" O="$obj" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" "$@"; }

started=$(date +%s)

# Regenerate the configuration only when a fragment or the base changed;
# kbuild then rebuilds just what the changed options touch.
mkdir -p "$obj"
[ -f "$root/config/$kernel.config" ] && fragments="$fragments $kernel"
files=$(for f in $fragments; do echo "$root/config/$f.config"; done)
sum=$(cat $files "$src/.negdentry-base-version" | sha256sum | cut -c1-16)
if [ "$(cat "$obj/.negdentry-config" 2>/dev/null)" != "$sum" ]; then
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $files >/dev/null
	kmake olddefconfig
	# A requested option that Kconfig dropped is a broken fragment: stop.
	missing=$(grep -h '^CONFIG_' $files | while IFS= read -r want; do
		opt=${want%%=*} val=${want#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$obj/.config" && echo "$want"
		else
			grep -qx "$want" "$obj/.config" || echo "$want"
		fi
	done)
	if [ -n "$missing" ]; then
		echo "kernel.sh: options not in the final config:" >&2
		echo "$missing" >&2
		exit 1
	fi
	echo "$sum" >"$obj/.negdentry-config"
fi

kmake bzImage
# The time it took, as each of make check's suites shows its own.
echo "kernel.sh: $("$root/harness/layout.py" image "$kernel" "$flavour")" \
	"($(($(date +%s) - started)) s${CHECK_STARTED:+; $((($(date +%s) - CHECK_STARTED) / 60)) min since make check began})"
