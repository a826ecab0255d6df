#!/bin/sh
# harness/unversioned-objects.sh OBJ: remove the objects of the kernel build
# folder OBJ that export symbols without a version (CRC) of each in their
# .cmd files, for make to build them again.
#
# kbuild records an object's command in its .cmd file after the compile,
# and only then appends the versions of its exports there: genksyms
# preprocesses the source again, a window of a second or more. A build
# killed in it leaves an object that looks built to make, and modpost later
# finds exports without a CRC. make deletes what it was building on SIGINT
# or SIGTERM, not on SIGKILL, which a session's end may send. Only objects
# compiled from a source (a source_ line, which fixdep writes) carry
# versions: a composite one (ld -r) has them in its parts' .cmd files. The
# test of an export is kbuild's own (gen_symversions, scripts/Makefile.build).
set -eu
obj=${1:?usage: unversioned-objects.sh OBJ}
grep -qx CONFIG_MODVERSIONS=y "$obj/.config" || exit 0
find "$obj" -name '*.o' -exec grep -lF __export_symbol_ {} + |
	while IFS= read -r o; do
		cmd=$(dirname "$o")/.$(basename "$o").cmd
		[ -f "$cmd" ] || continue
		grep -q '^source_[^ ]* := .*\.[cS]$' "$cmd" || continue
		exports=$(nm "$o" 2>/dev/null |
			sed -n 's/^[0-9a-f]* [A-Za-z] __export_symbol_//p' | sort)
		versions=$(sed -n 's/^#SYMVER \([^ ]*\) .*/\1/p' "$cmd" | sort)
		[ "$exports" = "$versions" ] && continue
		echo "unversioned-objects: ${o#"$obj"/} lacks symbol versions: built again" >&2
		rm -f "$o" "$cmd"
	done
