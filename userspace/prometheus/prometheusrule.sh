#!/bin/sh
# prometheusrule.sh [-r RUNBOOKS] [-p] [NAMESPACE]: negative-dentry-alerts.yml
# as a PrometheusRule of the Prometheus Operator, on standard output:
#   sh prometheusrule.sh -r https://git.example.com/ops/negative-dentry/README.md | kubectl apply -f -
# The rules file stays the one source, which promtool tests. A Prometheus
# loads the rules its ruleSelector matches: label the PrometheusRule as it
# asks (kube-prometheus-stack: release=<its Helm release>).
#
# -r RUNBOOKS gives each alert a runbook_url annotation, RUNBOOKS#alertname
# in lower case: the address of this folder's README.md where your
# operators read it (a Git server, a wiki), whose "#### AlertName"
# headings are the runbooks. This project publishes them nowhere, so
# there is no default. -p writes the rules file itself, with those
# annotations, for a Prometheus that loads rule_files.
set -eu
here=$(dirname "$0")
usage="usage: ${0##*/} [-r RUNBOOKS_URL] [-p] [NAMESPACE]"
runbooks= plain=
while getopts r:p opt; do
	case $opt in
	r) runbooks=$OPTARG ;;
	p) plain=1 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }
case $runbooks in
'' | http://* | https://*) ;;
*) echo "${0##*/}: $runbooks: not an http(s) URL" >&2; exit 2 ;;
esac
# The rules, each alert's annotations opening with its runbook_url if asked.
rules() {
	RUNBOOKS=$runbooks awk '
		/^      - alert: / { name = $3 }
		{ print }
		/^        annotations:$/ && name != "" && ENVIRON["RUNBOOKS"] != "" {
			printf "          runbook_url: \"%s#%s\"\n", ENVIRON["RUNBOOKS"], tolower(name)
			name = ""
		}' "$here/negative-dentry-alerts.yml"
}
if [ -n "$plain" ]; then
	rules
	exit
fi
printf '%s\n' \
	"apiVersion: monitoring.coreos.com/v1" \
	"kind: PrometheusRule" \
	"metadata:" \
	"  name: negative-dentry" \
	"  namespace: ${1:-negative-dentry}" \
	"  labels:" \
	"    app.kubernetes.io/name: negative-dentry" \
	"spec:"
# the rules file's lines, two spaces in: spec.groups is its groups
rules | sed '/./s/^/  /'
