#!/bin/sh
# prometheusrule.sh [NAMESPACE]: negative-dentry-alerts.yml as a
# PrometheusRule of the Prometheus Operator, on standard output:
#   sh prometheusrule.sh | kubectl apply -f -
# The rules file stays the one source, which promtool tests. A Prometheus
# loads the rules its ruleSelector matches: label the PrometheusRule as it
# asks (kube-prometheus-stack: release=<its Helm release>).
set -eu
here=$(dirname "$0")
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
sed '/./s/^/  /' "$here/negative-dentry-alerts.yml"
