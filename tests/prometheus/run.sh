#!/bin/sh
# On the host: userspace/prometheus/negative-dentry-metrics on the fake
# cgroup tree data/, with each awk found (the Debian guest has mawk),
# must write expected.prom; its cgroup filters must keep what they name,
# and bad arguments must fail with a message and leave the file alone;
# its service must log nothing for a run that succeeds;
# promtool check metrics must take what it writes; promtool test rules
# must pass the alerts' tests. TAP; exits 1 if a test failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
prom=$here/../../userspace/prometheus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A systemd that knows MemoryNegativeDentryMax=, whatever this machine runs,
# asked through a chroot of the -s root that runs it here; fake_systemctl
# OUTPUT [STATUS] makes another.
fake_systemctl() {
	printf '#!/bin/sh\nprintf "%s"\nexit %d\n' "$1" "${2:-0}" >"$tmp/fake/systemctl"
	chmod +x "$tmp/fake/systemctl"
}
mkdir -p "$tmp/fake"
printf '#!/bin/sh\nshift\nexec "$@"\n' >"$tmp/fake/chroot"
chmod +x "$tmp/fake/chroot"
fake_systemctl 'infinity\n'
PATH=$tmp/fake:$PATH
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
# metrics ROOT FILE [ARG...]: the program, with a umask that would hide
# the file
metrics() {
	root=$1 file=$2
	shift 2
	(umask 077 && sh "$prom/negative-dentry-metrics" -r "$root" -s "$here/systemd" -o "$file" "$@")
}
equals() { [ "$1" = "$2" ] || { printf '%s\n!=\n%s\n' "$1" "$2"; return 1; }; }
# the cgroup labels of the current series in file $1, one per line
cgroups() { sed -n 's/^cgroup_negative_dentry_current{cgroup="\([^"]*\)".*/\1/p' "$1"; }
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
check "and writes no cgroup's series" equals "$(grep -c '^cgroup_' "$tmp/base.prom")" 0
check "but that the kernel has no limits" grep -qx 'negative_dentry_kernel_supported 0' "$tmp/base.prom"
check "which promtool takes" lint "$tmp/base.prom"
check "a cgroup root that is not there is an error" \
	fails sh "$prom/negative-dentry-metrics" -r "$tmp/none" -o -
check "and a systemd root that is not there" \
	fails sh "$prom/negative-dentry-metrics" -r "$here/data" -s "$tmp/none" -o -

# What systemd knows and what it was told. expected.prom has a systemd
# that knows the property, and the files of systemd/ that set it to a
# number: a drop-in, a transient unit and a unit with spaces around its
# "=", the last counted once though enabled by a link; not an empty value
# nor a default of infinity.
machine() { metrics "$1" - | grep "^negative_dentry_$2 "; }
check "files that set the property to a number are counted" \
	equals "$(machine "$here/data" systemd_configured)" "negative_dentry_systemd_configured 3"
fake_systemctl ''
check "a systemd that shows it empty does not know it" \
	equals "$(machine "$here/data" systemd_supported)" "negative_dentry_systemd_supported 0"
fake_systemctl 'System has not been booted with systemd' 1
check "without a systemd to ask there is no such series" \
	equals "$(machine "$here/data" systemd_supported)" ""
fake_systemctl 'infinity\n'
mkdir -p "$tmp/nomemory/init.scope"
check "nor a kernel series where no cgroup has the memory controller" \
	equals "$(machine "$tmp/nomemory" kernel_supported)" ""
# Booted with cgroup.memory=nokmem, the kernel has the files but refuses
# every limit (EOPNOTSUPP): proc/cmdline under the -s root says so.
cp -R "$here/systemd" "$tmp/nokmem"
mkdir "$tmp/nokmem/proc"
# kernel_with CMDLINE: negative_dentry_kernel_supported on data/, the
# kernel booted with CMDLINE
kernel_with() {
	echo "$1" >"$tmp/nokmem/proc/cmdline"
	sh "$prom/negative-dentry-metrics" -r "$here/data" -s "$tmp/nokmem" -o - |
		grep '^negative_dentry_kernel_supported '
}
for cmdline in "ro cgroup.memory=nokmem quiet" "cgroup.memory=nosocket,nokmem" \
	"root=/dev/vda cgroup.memory=nokmem,nosocket"; do
	check "booted with $cmdline: the kernel has no limits" \
		equals "$(kernel_with "$cmdline")" "negative_dentry_kernel_supported 0"
done
for cmdline in "ro quiet" "cgroup.memory=nosocket" "x.cgroup.memory=nokmem"; do
	check "booted with $cmdline: it has them" \
		equals "$(kernel_with "$cmdline")" "negative_dentry_kernel_supported 1"
done

# Filters on the cgroup path, an extended regular expression each.
metrics "$here/data" "$tmp/in.prom" -i '^/system\.slice/'
check "-i keeps the cgroups it matches" equals "$(cgroups "$tmp/in.prom")" \
'/system.slice/system-systemd\\x2dfsck.slice
/system.slice/system-systemd\\x2dfsck.slice/systemd-fsck@dev-disk-by\\x2dlabel-root.service
/system.slice/web.service'
check "and each of their families" equals "$(grep -c '^cgroup_' "$tmp/in.prom")" 18
metrics "$here/data" "$tmp/ex.prom" -x '^/machine\.slice/.*\.scope($|/)|^/user\.slice/'
# cgroups cuts /user.slice/say "hi" at its escaped quote
# shellcheck disable=SC1003
check "-x leaves out the cgroups it matches, but for those with a limit of their own" \
	equals "$(cgroups "$tmp/ex.prom")" \
'/machine.slice
/machine.slice/libpod-3f2a9c.scope
/system.slice
/system.slice/system-systemd\\x2dfsck.slice
/system.slice/system-systemd\\x2dfsck.slice/systemd-fsck@dev-disk-by\\x2dlabel-root.service
/system.slice/web.service
/user.slice
/user.slice/say \'
metrics "$here/data" "$tmp/both.prom" -i '^/[^/]*$' -x '^/user'
check "-i and -x together: top level, less user.slice" equals "$(cgroups "$tmp/both.prom")" \
'/machine.slice
/system.slice'
NEGATIVE_DENTRY_CGROUP_INCLUDE='^/[^/]*$' NEGATIVE_DENTRY_CGROUP_EXCLUDE='^/user' \
	metrics "$here/data" "$tmp/env.prom"
check "the environment sets the same filters" diff -u "$tmp/both.prom" "$tmp/env.prom"
# A Kubernetes node (systemd cgroup driver) filtered as the metrics
# DaemonSet filters it: its pods, and of their containers those with a
# limit of their own, whose series the alerts need.
pod=$tmp/kubepods/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-poda.slice
for d in "${pod%/*/*}" "${pod%/*}" "$pod" "$pod/crio-limited.scope" "$pod/crio-free.scope"; do
	mkdir -p "$d"
	cp "$here/data/system.slice/web.service/memory."* "$d/"
done
echo max >"$pod/crio-free.scope/memory.negative_dentry.max"
exclude=$(sed -n "/NEGATIVE_DENTRY_CGROUP_EXCLUDE/{n;s/^ *value: '\(.*\)'\$/\1/p;}" "$prom/metrics-daemonset.yaml")
metrics "$tmp/kubepods" "$tmp/kubepods.prom" -x "$exclude"
check "the DaemonSet's -x keeps pods, and containers with a limit of their own" \
	equals "$(cgroups "$tmp/kubepods.prom")" \
'/kubepods.slice
/kubepods.slice/kubepods-burstable.slice
/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-poda.slice
/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-poda.slice/crio-limited.scope'
metrics "$here/data" "$tmp/none.prom" -i '^/nothing'
check "a filter matching nothing writes no cgroup's series" \
	equals "$(grep -c '^cgroup_' "$tmp/none.prom")" 0

# Bad arguments: exit 2, a message, and the file written before stays.
# bad WHAT MESSAGE ARG...: so with each awk, whose own check refuses a
# regular expression.
cp "$tmp/in.prom" "$tmp/kept.prom"
bad() {
	what=$1 message=$2
	shift 2
	for awk in mawk gawk busybox; do
		[ -d "$tmp/$awk/bin" ] || continue
		PATH=$tmp/$awk/bin:$PATH metrics "$here/data" "$tmp/kept.prom" "$@" 2>"$tmp/bad.err"
		check "$awk, $what: exits 2" equals $? 2
		check "$awk, $what: says \"$message\"" grep -q "$message" "$tmp/bad.err"
		check "$awk, $what: leaves the file as it was" \
			diff -u "$tmp/in.prom" "$tmp/kept.prom"
	done
}
bad "-i with a bad regular expression" "not a regular expression" -i '['
bad "-x with a bad regular expression" "not a regular expression" -x 'a[b'
bad "an unknown option" usage -q
bad "-o without its file" usage -o
bad "an operand" usage extra

# The service logs nothing for a run that succeeds (systemd's messages
# about it are at info), and what the program prints above that.
unit() { sed -n "s/^$1=//p" "$prom/negative-dentry-metrics.service"; }
check "the service drops systemd's info messages about its runs (LogLevelMax=notice)" \
	equals "$(unit LogLevelMax)" notice
check "and logs what the program prints at warning (SyslogLevel=warning)" \
	equals "$(unit SyslogLevel)" warning

# negative-dentry-updates: Debian's newer uploads that the host does not
# get. A host root with the release its kernel reports, and apt-cache and
# dpkg-query that answer from $tmp/apt (madison.PACKAGE, the lines apt-cache
# madison prints; installed.systemd, the version dpkg-query gives).
updates_host() {
	mkdir -p "$tmp/host/proc/sys/kernel" "$tmp/apt"
	rm -f "$tmp/apt/"*
	echo "$1" >"$tmp/host/proc/sys/kernel/osrelease"
	[ -z "$2" ] || echo "$2" >"$tmp/apt/installed.systemd"
	for v in $3; do
		echo "   systemd | $v | http://deb.debian.org/debian bookworm/main amd64 Packages"
	done >"$tmp/apt/madison.systemd"
	for v in $4; do
		echo "linux-source-6.12 | $v | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages"
	done >"$tmp/apt/madison.linux-source-6.12"
}
printf '#!/bin/sh\ncat "%s/apt/madison.$2"\n' "$tmp" >"$tmp/fake/apt-cache"
printf '#!/bin/sh\ncat "%s/apt/installed.$4" 2>/dev/null\n' "$tmp" >"$tmp/fake/dpkg-query"
chmod +x "$tmp/fake/apt-cache" "$tmp/fake/dpkg-query"
updates() { sh "$prom/negative-dentry-updates" -s "$tmp/host" -o - | grep -v '^#'; }
held() { echo "negative_dentry_debian_update_held{package=\"$1\",ours=\"$2\",debian=\"$3\"} $4"; }
ours_sd=252.39-1~deb12u2+negdentry1
updates_host 6.12.117-negdentry-cloud-amd64 $ours_sd \
	"$ours_sd 252.40-1~deb12u1 252.39-1~deb12u2" "6.12.118-1~deb12u1 6.12.117-1~deb12u1"
check "a Debian systemd newer than ours is built on is held back" \
	equals "$(updates | grep systemd)" "$(held systemd $ours_sd 252.40-1~deb12u1 1)"
check "so is a newer Debian 6.12 kernel" \
	equals "$(updates | grep linux)" "$(held linux 6.12.117 6.12.118-1~deb12u1 1)"
sh "$prom/negative-dentry-updates" -s "$tmp/host" -o "$tmp/updates.prom"
check "promtool check metrics takes what it writes" lint "$tmp/updates.prom"
check "the file it writes is readable by all" readable "$tmp/updates.prom"
updates_host 6.12.118-negdentry-amd64 $ours_sd \
	"$ours_sd 252.39-1~deb12u2 252.38-1~deb12u1" "6.12.118-1~deb12u1"
check "built on Debian's newest systemd, none is held" \
	equals "$(updates | grep systemd)" "$(held systemd $ours_sd 252.39-1~deb12u2 0)"
check "nor on Debian's newest kernel" \
	equals "$(updates | grep linux)" "$(held linux 6.12.118 6.12.118-1~deb12u1 0)"
updates_host 6.12.118-cloud-amd64 252.39-1~deb12u2 "252.40-1~deb12u1" "6.12.118-1~deb12u1"
check "a host on Debian's own systemd and kernel has no series" \
	equals "$(updates)" ""
check "an operand is a usage error" \
	equals "$(sh "$prom/negative-dentry-updates" extra 2>&1 >/dev/null; echo $?)" "usage: negative-dentry-updates [-s ROOT] [-o FILE|-]
2"

check "promtool check rules negative-dentry-alerts.yml" \
	promtool check rules "$prom/negative-dentry-alerts.yml"
check "promtool test rules negative-dentry-alerts.test.yml" \
	promtool test rules "$prom/negative-dentry-alerts.test.yml"

# runbook_url: each alert's points at a heading of the README named as the
# alert, and the rules stay valid with it
url=https://git.example.com/ops/README.md
sh "$prom/prometheusrule.sh" -p -r "$url" >"$tmp/rules.yml"
alerts=$(sed -n 's/^      - alert: //p' "$prom/negative-dentry-alerts.yml")
check "prometheusrule.sh -p -r: promtool check rules takes it" \
	promtool check rules "$tmp/rules.yml"
for a in $alerts; do
	low=$(echo "$a" | tr 'A-Z' 'a-z')
	check "$a has a runbook_url to its runbook's heading" sh -c \
		"grep -qx '          runbook_url: \"$url#$low\"' '$tmp/rules.yml' &&
		 grep -qx '#### $a' '$prom/README.md'"
done
check "every alert has one runbook_url, no more" \
	equals "$(grep -c runbook_url "$tmp/rules.yml")" "$(echo "$alerts" | wc -l)"
check "the PrometheusRule carries them too" \
	equals "$(sh "$prom/prometheusrule.sh" -r "$url" | grep -c "runbook_url: \"$url#")" \
	"$(echo "$alerts" | wc -l)"
check "without -r, the rules are the file's" \
	equals "$(sh "$prom/prometheusrule.sh" -p)" "$(cat "$prom/negative-dentry-alerts.yml")"
check "a runbook address that is not http(s) is refused" \
	fails sh "$prom/prometheusrule.sh" -r "README.md"
echo "1..$n"
[ $failed -eq 0 ]
