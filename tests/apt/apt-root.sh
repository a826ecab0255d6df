# shellcheck shell=sh
# An apt root of its own in $a, for the tests that run apt itself on
# package lists: . ./apt-root.sh once $a is set. apta runs an apt command
# there; sources makes apt read the repositories named, under $a/repos;
# candidate and simulated say what apt would choose.
#
# APT::Default-Release, empty for none
release=
apta() {
	cmd=$1
	shift
	"$cmd" -o Dir="$a" -o Dir::Etc="$a/etc" -o Dir::State::status="$a/status" \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		-o APT::Default-Release="$release" "$@"
}
# sources REPO...: the repositories apt reads
sources() {
	for r; do echo "deb [trusted=yes] file:$a/repos/$r ./"; done >"$a/etc/sources.list"
	apta apt-get update >"$a/update.log" 2>&1 && ! grep -q '^[WE]:' "$a/update.log" ||
		{ echo "apt-get update failed:"; cat "$a/update.log"; exit 1; }
}
candidate() { apta apt-cache policy "$1" | awk '$1 == "Candidate:" { print $2 }'; }
# simulated PACKAGE [ARG...]: the version apt-get would install
simulated() {
	p=$1
	shift
	apta apt-get -s -q "$@" | awk -v p="$p" '$1 == "Inst" && $2 == p { print ($3 ~ /^\[/ ? $4 : $3) }' | tr -d '('
}
mkdir -p "$a/etc/preferences.d" "$a/lists/partial" "$a/cache/archives/partial"
