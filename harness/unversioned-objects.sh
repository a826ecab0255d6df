#!/bin/sh
# harness/unversioned-objects.sh OBJ: remove the objects of the kernel build
# folder OBJ that export symbols but have no versions (CRCs) of them in
# their .cmd files, for make to build them again.
#
# kbuild records an object's command in its .cmd file after the compile,
# and only then appends the versions of its exports there: genksyms
# preprocesses the source again, a window of a second or more. A build
# killed in it leaves an object that looks built to make, and modpost later
# finds exports without a CRC. make deletes what it was building on SIGINT
# or SIGTERM, not on SIGKILL, which a session's end may send. A composite
# object (ld -r) has no versions of its own: its parts' .cmd files have
# them. The test is kbuild's own (gen_symversions, scripts/Makefile.build).
set -eu
obj=${1:?usage: unversioned-objects.sh OBJ}
grep -qx CONFIG_MODVERSIONS=y "$obj/.config" || exit 0
find "$obj" -name '*.o' -exec grep -lF __export_symbol_ {} + |
	while read -r o; do
		cmd=$(dirname "$o")/.$(basename "$o").cmd
		[ -f "$cmd" ] || continue
		grep -q '^savedcmd_[^ ]* := ld ' "$cmd" && continue
		grep -q '^#SYMVER ' "$cmd" && continue
		nm "$o" 2>/dev/null | grep -q ' __export_symbol_' || continue
		echo "unversioned-objects: ${o#"$obj"/} has no symbol versions: built again" >&2
		rm -f "$o" "$cmd"
	done
