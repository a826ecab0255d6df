#!/bin/sh
# On the host: userspace/prometheus/negative-dentry-metrics on the fake
# cgroup tree data/, with each awk found (the Debian guest has mawk),
# must write expected.prom; promtool check metrics must take what it
# writes; promtool test rules must pass the alerts' tests. TAP; exits 1 if
# a test failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
prom=$here/../../userspace/prometheus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

check() {
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/log" 2>&1; then
		echo "ok $n $name"
	else
		failed=$((failed + 1))
		sed 's/^/# /' "$tmp/log"
		echo "not ok $n $name"
	fi
}
# metrics ROOT FILE: the program, with a umask that would hide the file
metrics() { (umask 077 && sh "$prom/negative-dentry-metrics" -r "$1" -o "$2"); }
only() { [ "$(ls -A "$1")" = "$2" ] || { ls -A "$1"; return 1; }; }
readable() { [ -n "$(find "$1" -perm -444)" ] || { ls -l "$1"; return 1; }; }
fails() { ! "$@"; }
lint() { promtool check metrics <"$1"; }

# data/ plus names git would keep badly: a newline, bytes not UTF-8
cp -R "$here/data" "$tmp/root"
for name in "$(printf 'two\nlines')" "$(printf 'bad\377')"; do
	mkdir "$tmp/root/user.slice/$name"
	cp "$tmp/root/user.slice/memory."* "$tmp/root/user.slice/$name/"
done

for awk in mawk gawk busybox; do
	path=$(command -v $awk) || continue
	mkdir "$tmp/$awk" "$tmp/$awk/bin"
	ln -s "$path" "$tmp/$awk/bin/awk"
	out=$tmp/$awk/negative-dentry.prom
	PATH=$tmp/$awk/bin:$PATH metrics "$tmp/root" "$out" 2>"$tmp/$awk.err"
	check "$awk: exits 0" [ $? -eq 0 ]
	check "$awk: writes expected.prom" diff -u "$here/expected.prom" "$out"
	check "$awk: leaves no temporary file" only "$tmp/$awk" "bin
negative-dentry.prom"
	check "$awk: the file is readable by all" readable "$out"
	check "$awk: says which cgroup is not UTF-8" grep -q "not UTF-8: /user.slice/bad" "$tmp/$awk.err"
done
check "promtool check metrics takes it" lint "$out"

# A kernel without negative dentry limits: no cgroup has the files.
mkdir -p "$tmp/base/init.scope" "$tmp/base/system.slice"
echo 0 >"$tmp/base/system.slice/memory.current"
metrics "$tmp/base" "$tmp/base.prom"
check "without the kernel's files: exits 0" [ $? -eq 0 ]
check "and writes HELP and TYPE only" [ "$(grep -vc '^#' "$tmp/base.prom")" = 0 ]
check "which promtool takes" lint "$tmp/base.prom"
check "a cgroup root that is not there is an error" \
	fails sh "$prom/negative-dentry-metrics" -r "$tmp/none" -o -

check "promtool check rules negative-dentry-alerts.yml" \
	promtool check rules "$prom/negative-dentry-alerts.yml"
check "promtool test rules negative-dentry-alerts.test.yml" \
	promtool test rules "$prom/negative-dentry-alerts.test.yml"
echo "1..$n"
[ $failed -eq 0 ]
