#!/bin/sh
# In the Debian guest that make repo-check prepares (harness/repo-rootfs.sh):
# an operator installs our systemd from the repository make repo builds,
# with apt-get and the pin of userspace/apt; Debian's next upload of
# systemd then comes out, and the pin keeps ours; last, the rollback to
# Debian's packages, and what the operator sees after it: the unit files
# still set MemoryNegativeDentryMax=, systemd ignores it and says so, and the
# metrics say that a limit is configured and not applied.
. ./tap.sh
export DEBIAN_FRONTEND=noninteractive
# apt and dpkg without their progress lines, which would fill the log
apt_get() { apt-get -q -o Dpkg::Use-Pty=0 "$@"; }
debian=$(dpkg-query -W -f '${Version}' systemd)
ours=$(awk '/^Package: systemd$/ { p = 1 } p && /^Version:/ { print $2; exit }' /srv/negdentry/Packages)
next=$(awk '/^Version:/ { print $2; exit }' /srv/debian-next/Packages)
echo "# Debian $debian, ours $ours, Debian's next $next"
cgroup=/sys/fs/cgroup/system.slice/nd-apt.service
# versions: the version of each installed package built from systemd's
# source, once each
versions() {
	dpkg-query -W -f '${source:Package} ${Version}\n' | awk '$1 == "systemd" { print $2 }' | sort -u
}
upgradable() { apt-get -s -q upgrade | awk '$1 == "Inst" { print $2, $4 }' | tr -d '('; }
applied() {
	systemctl stop nd-apt 2>/dev/null
	systemd-run -q --unit nd-apt -p MemoryNegativeDentryMax="$1" sleep 600 &&
		holds $cgroup/memory.negative_dentry.max "$1"
}
metric() { negative-dentry-metrics -o - | awk -v m="$1" '$1 == m { print $2 }'; }

tap_check "Debian's systemd runs, without MemoryNegativeDentryMax=" \
	equals "$(systemctl show -P DefaultMemoryNegativeDentryMax)" ""
apt-get update -q >/dev/null 2>&1

# What the user guide tells the operator to do, the signed repository's
# key last so that apt is first seen to refuse it unsigned.
cp /srv/negdentry/negdentry.sources /etc/apt/sources.list.d/
cp /srv/negdentry/negdentry.pref /etc/apt/preferences.d/
tap_check "apt refuses the repository without its key" \
	mentions "$(apt-get update 2>&1)" "NO_PUBKEY\|not signed"
cp /srv/negdentry/negdentry-archive-keyring.gpg /usr/share/keyrings/
tap_check "with the key, apt-get update reads it without a warning" \
	fails mentions "$(apt-get update 2>&1)" "^[WE]:"
tap_check "apt-get install systemd" apt_get install -y systemd
tap_check "every package of systemd's source is ours" equals "$(versions)" "$ours"
tap_check "the running systemd is ours (the package re-executed it)" \
	equals "$(systemctl show -P DefaultMemoryNegativeDentryMax)" infinity
tap_check "MemoryNegativeDentryMax= reaches the cgroup" applied 100
tap_check "the man page documents MemoryNegativeDentryMax=" \
	zgrep -q MemoryNegativeDentryMax= /usr/share/man/man5/systemd.resource-control.5.gz
kernel=linux-image-$(uname -r)
tap_check "apt knows the running kernel's package from the repository" \
	mentions "$(apt-cache policy "$kernel")" "file:/srv/negdentry"
tap_check "and reinstalls it" apt_get install -y --reinstall "$kernel"

# Debian's next upload of systemd comes out.
echo "deb [trusted=yes] file:/srv/debian-next ./" >/etc/apt/sources.list.d/debian-next.list
apt-get update -q >/dev/null 2>&1
tap_check "apt-cache policy shows Debian's $next held back" \
	mentions "$(apt-cache policy systemd)" "$next"
tap_check "apt-get upgrade" apt_get upgrade -y
tap_check "the pin kept every package ours" equals "$(versions)" "$ours"
tap_check "MemoryNegativeDentryMax= still reaches the cgroup" applied 200
mv /etc/apt/preferences.d/negdentry.pref /tmp/
tap_check "without the pin, apt-get upgrade would install $next" \
	contains "$(upgradable)" "systemd $next"
mv /tmp/negdentry.pref /etc/apt/preferences.d/

# The rollback of the user guide: the pin and the repository go, and
# each package of ours goes back to Debian's release. Without the next
# upload, Debian's release is older than ours: a downgrade.
mkdir -p /etc/systemd/system/ndapt.slice.d
printf '[Slice]\nMemoryNegativeDentryMax=300\n' >/etc/systemd/system/ndapt.slice.d/limit.conf
rm /etc/apt/preferences.d/negdentry.pref /etc/apt/sources.list.d/negdentry.sources \
	/etc/apt/sources.list.d/debian-next.list
apt-get update -q >/dev/null 2>&1
tap_check "apt-get install --allow-downgrades PACKAGE/bookworm..." \
	apt_get install -y --allow-downgrades $(dpkg-query -W \
	-f '${db:Status-Status} ${Package} ${Version}\n' |
	awk '$1 == "installed" && $3 ~ /\+negdentry/ { print $2 "/bookworm" }')
tap_check "every package of systemd's source is Debian's $debian" equals "$(versions)" "$debian"
tap_check "the running systemd is Debian's" \
	equals "$(systemctl show -P DefaultMemoryNegativeDentryMax)" ""
tap_check "it ignores MemoryNegativeDentryMax= in a unit file, and says so" \
	mentions "$(systemd-analyze verify ndapt.slice 2>&1)" "Unknown key 'MemoryNegativeDentryMax'"
systemctl daemon-reload
systemd-run -q --unit nd-apt-after --slice ndapt.slice sleep 600
tap_check "the kernel's limit stays max in a unit started after" \
	holds /sys/fs/cgroup/ndapt.slice/memory.negative_dentry.max max
tap_check "a unit started before keeps its limit until it restarts" \
	holds $cgroup/memory.negative_dentry.max 200
tap_check "metrics: the kernel has the limits" equals "$(metric negative_dentry_kernel_supported)" 1
tap_check "metrics: systemd does not know MemoryNegativeDentryMax=" \
	equals "$(metric negative_dentry_systemd_supported)" 0
tap_check "metrics: a file sets it (NegativeDentryLimitNotApplied fires)" \
	at_least "$(metric negative_dentry_systemd_configured)" 1
tap_done
