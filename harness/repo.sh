#!/bin/sh
# harness/repo.sh [DIR [CONFIG...]]: the apt repository that operators
# install from (make repo), in DIR (build/repo): our systemd (make
# systemd-deb) and the kernel packages make deb built of each CONFIG
# (cloud and debian: the ones a host boots), as a flat repository that
# apt-ftparchive indexes and gpg signs. Beside the packages go the public
# key and userspace/apt's sources and preferences files, which is all a
# machine needs: copy the folder to /srv/negdentry (docs/user-guide.md,
# "Installing with apt"). make repo-check makes one with the small kernel
# its guest boots.
#
# Each kernel gets a metapackage (harness/metapackages.sh), so that apt
# upgrade brings a kernel built on a newer base. Earlier builds stay: the
# packages go to a pool kept outside the build folder,
# /var/lib/negdentry/repo-pool (REPO_POOL), and the repository holds the
# whole pool, so that a host can go back to the kernel of ours it ran
# before; a package of the same file name replaces the one there. The
# packages come from build/deb (DEB_DIR).
#
# The key is generated on the first run and kept outside the build folder,
# in /var/lib/negdentry/repo-key, so that machines that trust it keep
# trusting the next repository; with GNUPGHOME and REPO_KEY set, the key
# REPO_KEY names signs instead.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$root/build/repo}
configs="cloud debian"
if [ $# -gt 1 ]; then
	shift
	configs=$*
fi
debs=${DEB_DIR:-$root/build/deb}
pool=${REPO_POOL:-/var/lib/negdentry/repo-pool}
set -- "$debs"/systemd/*.deb
[ -f "$1" ] || { echo "repo.sh: no systemd packages: make systemd-deb" >&2; exit 1; }
if [ -z "${REPO_KEY:-}" ]; then
	export GNUPGHOME=/var/lib/negdentry/repo-key
	REPO_KEY="negdentry repository <negdentry@localhost>"
	if ! gpg --batch --list-secret-keys "$REPO_KEY" >/dev/null 2>&1; then
		mkdir -p "$GNUPGHOME" && chmod 700 "$GNUPGHOME"
		gpg --batch --quiet --passphrase '' --quick-gen-key "$REPO_KEY" \
			ed25519 sign never
	fi
fi
rm -rf "$repo" && mkdir -p "$repo" "$pool"
# Not the -dbgsym packages, which Debian keeps in an archive of their own
# (debian-debug): they stay in build/deb/systemd.
for deb; do
	case $deb in *-dbgsym_*) ;; *) cp "$deb" "$pool/" ;; esac
done
for config in $configs; do
	k=$debs/patched-$config
	if [ -d "$k" ]; then
		cp "$k"/*.deb "$pool/"
	else
		echo "repo.sh: no $config kernel: make deb CONFIG=$config" >&2
	fi
done
"$root/harness/metapackages.sh" "$pool"
cp "$pool"/*.deb "$repo/"
cd "$repo"
apt-ftparchive packages . >Packages 2>"$repo.log"
xz -k Packages
# The origin is what userspace/apt/negdentry.pref pins.
apt-ftparchive -o APT::FTPArchive::Release::Origin=negdentry \
	-o APT::FTPArchive::Release::Label=negdentry \
	-o APT::FTPArchive::Release::Architectures=amd64 \
	release . >"$repo.Release"
mv "$repo.Release" Release
gpg --batch --yes --quiet --local-user "$REPO_KEY" --clearsign -o InRelease Release
gpg --batch --yes --quiet --local-user "$REPO_KEY" -abs -o Release.gpg Release
gpg --batch --export "$REPO_KEY" >negdentry-archive-keyring.gpg
cp "$root"/userspace/apt/negdentry.pref "$root"/userspace/apt/negdentry.sources .
echo "repo.sh: $(grep -c '^Package:' Packages) packages in $repo"
