#!/bin/sh
# harness/initramfs.sh OUT PROGRAM... : the busybox guest's initramfs.
# Debian's static busybox with all its applets, guest/init, a minimal /etc,
# and the given static test programs in /usr/local/bin.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
stage=$out.d
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/etc" "$stage/usr/local/bin" "$stage/proc" \
	"$stage/dev" "$stage/sys" "$stage/root"
cp /bin/busybox "$stage/bin/busybox"
for applet in $(/bin/busybox --list-full); do
	[ -e "$stage/$applet" ] && continue
	mkdir -p "$stage/$(dirname "$applet")"
	ln -s /bin/busybox "$stage/$applet"
done
cp "$root/guest/init" "$stage/init"
chmod 755 "$stage/init"
cp "$@" "$stage/usr/local/bin/"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"
echo "127.0.0.1 localhost" >"$stage/etc/hosts"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$stage"
