#!/usr/bin/python3
"""The Kubernetes manifests of userspace/, checked offline on the host.

kubectl, which needs an API server for --dry-run=client, is used only to
build userspace/kustomization.yaml (kubectl kustomize; Debian's, unpacked by
harness/deps.sh). Then each object it gives must be:
- of a kind Kubernetes serves at that apiVersion, with only the fields its
  type has and values its enums take (SCHEMA: the part of the API these
  manifests use, as in the API reference), so that a misspelt field fails
  here as kubectl's strict validation would fail it in a cluster;
- in the namespace negative-dentry if its kind is namespaced, in none if not;
- consistent: a DaemonSet's selector matches its pods, each mount names a
  volume, each ConfigMap volume a ConfigMap of the build, each command a
  script of a mounted ConfigMap, each variable set one the script reads;
- a read-only hostPath mount read-only all the way down
  (recursiveReadOnly: Enabled), as readOnly alone leaves the mounts below
  it writable;
- a hostPath of systemd's folders of type Directory, not made where it
  is missing.
Both builds are checked: userspace/ and userspace/podlimits/, which has
negative-dentry-podlimits in negative-dentry-kubepods's place. Every
DaemonSet's pods must be system-node-critical, with a ResourceQuota of the
namespace that admits the class; a service account a DaemonSet names must
be bound to a role that lets it list what its script asks the API server
for. The node scripts must pass tests/kubernetes/kubepods.sh and
podlimits.py, on fake nodes: their results are tests of this run.
The admission policy's binding must name it, and its expression, whose shape
is fixed here, must let through exactly the CRI-O annotations of ANNOTATIONS
that set memory.negative_dentry.max only, and on an update (UPDATES) those
too that the pod already had, unchanged. The podlimits policy, also of a
fixed shape, must let a pod's negative-dentry/max only lower its
namespace's (POD_MAX). prometheusrule.sh must carry
negative-dentry-alerts.yml's groups. Prints TAP; exits 1 if a test failed.
"""
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
USERSPACE = os.path.join(ROOT, "userspace")
KUBECTL = os.path.join(ROOT, "build", "tools", "usr", "bin", "kubectl")
NAMESPACE = "negative-dentry"

# Types by name: a dict of field -> type, where a type is str, int, bool,
# dict (a map of strings), a set (a string out of those), a type name, or a
# one-element list (a list of that type).
META = {"name": str, "namespace": str, "labels": dict, "annotations": dict}
TOP = {"apiVersion": str, "kind": str, "metadata": "ObjectMeta"}
SCHEMA = {
    "ObjectMeta": META,
    "v1/Namespace": TOP,
    "v1/ServiceAccount": TOP,
    "rbac.authorization.k8s.io/v1/ClusterRole": {**TOP,
                                                 "rules": ["PolicyRule"]},
    "PolicyRule": {"apiGroups": [str], "resources": [str], "verbs": [str]},
    "rbac.authorization.k8s.io/v1/ClusterRoleBinding": {
        **TOP, "roleRef": "RoleRef", "subjects": ["Subject"]},
    "RoleRef": {"apiGroup": str, "kind": {"ClusterRole", "Role"},
                "name": str},
    "Subject": {"kind": {"ServiceAccount", "User", "Group"}, "name": str,
                "namespace": str},
    "v1/ConfigMap": {**TOP, "data": dict},
    "v1/ResourceQuota": {**TOP, "spec": "ResourceQuotaSpec"},
    "ResourceQuotaSpec": {"hard": dict, "scopes": [str],
                          "scopeSelector": "ScopeSelector"},
    "ScopeSelector": {"matchExpressions": ["ScopedResourceSelector"]},
    "ScopedResourceSelector": {
        "scopeName": {"Terminating", "NotTerminating", "BestEffort",
                      "NotBestEffort", "PriorityClass",
                      "CrossNamespacePodAffinity"},
        "operator": {"In", "NotIn", "Exists", "DoesNotExist"},
        "values": [str]},
    "apps/v1/DaemonSet": {**TOP, "spec": "DaemonSetSpec"},
    "DaemonSetSpec": {"selector": "LabelSelector",
                      "template": "PodTemplateSpec",
                      "updateStrategy": "DaemonSetUpdateStrategy"},
    "DaemonSetUpdateStrategy": {"type": {"RollingUpdate", "OnDelete"},
                                "rollingUpdate": dict},
    "LabelSelector": {"matchLabels": dict},
    "PodTemplateSpec": {"metadata": "ObjectMeta", "spec": "PodSpec"},
    "PodSpec": {"automountServiceAccountToken": bool,
                "serviceAccountName": str,
                "priorityClassName": str, "nodeSelector": dict,
                "tolerations": ["Toleration"], "containers": ["Container"],
                "terminationGracePeriodSeconds": int, "volumes": ["Volume"]},
    "Toleration": {"key": str, "operator": {"Exists", "Equal"},
                   "value": str,
                   "effect": {"NoSchedule", "PreferNoSchedule", "NoExecute"}},
    "Container": {"name": str, "image": str, "command": [str],
                  "args": [str], "env": ["EnvVar"],
                  "securityContext": "SecurityContext",
                  "resources": "ResourceRequirements",
                  "volumeMounts": ["VolumeMount"]},
    "EnvVar": {"name": str, "value": str, "valueFrom": "EnvVarSource"},
    "EnvVarSource": {"fieldRef": "ObjectFieldSelector"},
    "ObjectFieldSelector": {"fieldPath": str, "apiVersion": str},
    "SecurityContext": {"runAsUser": int, "privileged": bool,
                        "allowPrivilegeEscalation": bool,
                        "readOnlyRootFilesystem": bool,
                        "capabilities": "Capabilities",
                        "seLinuxOptions": "SELinuxOptions",
                        "seccompProfile": "SeccompProfile"},
    "SELinuxOptions": {"user": str, "role": str, "type": str, "level": str},
    "SeccompProfile": {"type": {"RuntimeDefault", "Unconfined",
                                "Localhost"},
                       "localhostProfile": str},
    "Capabilities": {"add": [str], "drop": [str]},
    "ResourceRequirements": {"requests": dict, "limits": dict},
    "VolumeMount": {"name": str, "mountPath": str, "readOnly": bool,
                    "recursiveReadOnly": {"Disabled", "IfPossible",
                                          "Enabled"}},
    "Volume": {"name": str, "hostPath": "HostPathVolumeSource",
               "configMap": "ConfigMapVolumeSource", "emptyDir": dict},
    "HostPathVolumeSource": {"path": str,
                             "type": {"", "DirectoryOrCreate", "Directory",
                                      "FileOrCreate", "File", "Socket",
                                      "CharDevice", "BlockDevice"}},
    "ConfigMapVolumeSource": {"name": str, "defaultMode": int},
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy":
        {**TOP, "spec": "ValidatingAdmissionPolicySpec"},
    "ValidatingAdmissionPolicySpec": {
        "failurePolicy": {"Fail", "Ignore"},
        "matchConstraints": "MatchResources",
        "matchConditions": ["MatchCondition"],
        "variables": ["Variable"],
        "validations": ["Validation"]},
    "Variable": {"name": str, "expression": str},
    "MatchCondition": {"name": str, "expression": str},
    "MatchResources": {"resourceRules": ["NamedRuleWithOperations"]},
    "NamedRuleWithOperations": {
        "apiGroups": [str], "apiVersions": [str], "resources": [str],
        "operations": [{"CREATE", "UPDATE", "DELETE", "CONNECT", "*"}]},
    "Validation": {"expression": str, "message": str,
                   "messageExpression": str,
                   "reason": {"Unauthorized", "Forbidden", "Invalid",
                              "RequestEntityTooLarge"}},
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding":
        {**TOP, "spec": "ValidatingAdmissionPolicyBindingSpec"},
    "ValidatingAdmissionPolicyBindingSpec": {
        "policyName": str, "validationActions": [{"Deny", "Warn", "Audit"}]},
    "monitoring.coreos.com/v1/PrometheusRule": {**TOP, "spec": "RuleSpec"},
    "RuleSpec": {"groups": ["RuleGroup"]},
    "RuleGroup": {"name": str, "interval": str, "rules": ["Rule"]},
    "Rule": {"alert": str, "record": str, "expr": str, "for": str,
             "labels": dict, "annotations": dict},
}
CLUSTER_SCOPED = {"Namespace", "ValidatingAdmissionPolicy",
                  "ValidatingAdmissionPolicyBinding", "ClusterRole",
                  "ClusterRoleBinding"}

# The policy's expression with its literals as {}: the test below knows
# what this shape computes.
# UNCHANGED lets an update keep an annotation the pod had (oldObject is
# null for a create).
UNCHANGED = ("(oldObject != null && has(oldObject.metadata.annotations) && "
             "k in oldObject.metadata.annotations && "
             "oldObject.metadata.annotations[k] == "
             "object.metadata.annotations[k])")
POLICY_SHAPE = ("!has(object.metadata.annotations) || "
                "object.metadata.annotations.all(k, "
                "!(k.startsWith({}) || k.startsWith({})) || "
                "object.metadata.annotations[k].matches({}) || " +
                UNCHANGED + ")")
CRIO_KEYS = ["unified-cgroup.crio.io", "io.kubernetes.cri-o.UnifiedCgroup"]
ND = "memory.negative_dentry.max"
# (annotations, admitted)
ANNOTATIONS = [
    ({}, True),
    ({"example.com/other": "memory.max=1"}, True),
    ({"unified-cgroup.crio.io/app": ND + "=MTAwMA=="}, True),
    ({"io.kubernetes.cri-o.UnifiedCgroup.app": ND + "=1000"}, True),
    ({"unified-cgroup.crio.io/app": f"{ND}=1000;{ND}=2000"}, True),
    ({"unified-cgroup.crio.io/app": "memory.max=1000000"}, False),
    ({"io.kubernetes.cri-o.UnifiedCgroup.app": "pids.max=max"}, False),
    ({"unified-cgroup.crio.io/app": f"{ND}=1000;memory.max=1"}, False),
    ({"unified-cgroup.crio.io/app": f"memory.max=1;{ND}=1000"}, False),
    ({"unified-cgroup.crio.io/a": ND + "=1",
      "unified-cgroup.crio.io/b": "memory.high=1"}, False),
    ({"unified-cgroup.crio.io/app": " " + ND + "=1"}, False),
    ({"unified-cgroup.crio.io/app": ND + "=1;"}, False),
    ({"unified-cgroup.crio.io/app": ND + "x=1"}, False),
    ({"unified-cgroup.crio.io/app": ND}, False),
    ({"unified-cgroup.crio.io": "memory.max=1"}, False),
]
# Updates: (old annotations, new annotations, admitted). CRI-O reads a
# pod's annotations once, at RunPodSandbox: an update that keeps them
# must pass (a finalizer removed, a label added, on a pod made before the
# policy), while one that adds or changes a forbidden pair must not, as
# a pod whose sandbox is not yet made would be run with it.
FORBIDDEN = {"unified-cgroup.crio.io/app": "memory.max=1"}
ALLOWED = {"unified-cgroup.crio.io/app": ND + "=1000"}
UPDATES = [
    (FORBIDDEN, FORBIDDEN, True),
    (FORBIDDEN, {**FORBIDDEN, "example.com/label": "x"}, True),
    (FORBIDDEN, {}, True),
    (FORBIDDEN, ALLOWED, True),
    ({}, {}, True),
    (ALLOWED, {"unified-cgroup.crio.io/app": ND + "=2000"}, True),
    ({}, FORBIDDEN, False),
    (ALLOWED, FORBIDDEN, False),
    (FORBIDDEN, {"unified-cgroup.crio.io/app": "memory.max=2"}, False),
    (FORBIDDEN, {**FORBIDDEN, "unified-cgroup.crio.io/b": "pids.max=1"},
     False),
]

n = 0
failed = 0


def check(ok, name, why=""):
    global n, failed
    n += 1
    if not ok:
        failed += 1
        for line in str(why).splitlines():
            print(f"# {line}")
    print(f"{'ok' if ok else 'not ok'} {n} {name}")


def schema_errors(value, typ, path):
    """What in value does not fit typ, a line each."""
    if isinstance(typ, str):
        typ = SCHEMA[typ]
    if isinstance(typ, set):
        return [] if value in typ else [f"{path}: {value!r} not one of "
                                        f"{sorted(typ)}"]
    if isinstance(typ, list):
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        return [e for i, v in enumerate(value)
                for e in schema_errors(v, typ[0], f"{path}[{i}]")]
    if typ is dict:
        ok = isinstance(value, dict) and all(
            isinstance(v, str) for v in value.values())
        return [] if ok else [f"{path}: not a map of strings"]
    if isinstance(typ, dict):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        return [e for k, v in value.items()
                for e in ([f"{path}.{k}: no such field"] if k not in typ
                          else schema_errors(v, typ[k], f"{path}.{k}"))]
    # bool is an int in Python: ask for the exact type
    return [] if type(value) is typ else [f"{path}: not {typ.__name__}"]


def cel_string(literal):
    """The value of a single-quoted CEL string literal."""
    assert literal[0] == literal[-1] == "'"
    return re.sub(r"\\(.)", r"\1", literal[1:-1])


def admitted(expression, annotations, old=None):
    """What POLICY_SHAPE, with the literals of expression, says of a pod
    with these annotations, created (old None) or updated from a pod with
    the annotations old; RE2's $ is the end of the text."""
    literals = re.findall(r"'(?:[^'\\]|\\.)*'", expression)
    one, two, pattern = (cel_string(x) for x in literals)
    pattern = re.sub(r"\$$", r"\\Z", pattern)
    return all(not (k.startswith(one) or k.startswith(two)) or
               re.search(pattern, v) or
               (UNCHANGED in expression and old is not None and
                old.get(k) == v)
               for k, v in annotations.items())


def daemonset_checks(ds, configmaps, scripts):
    name = ds["metadata"]["name"]
    spec = ds["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"].get("labels", {})
    check(spec["selector"]["matchLabels"].items() <= labels.items(),
          f"{name}: the selector matches its pods")
    volumes = {v["name"]: v for v in pod["volumes"]}
    for c in pod["containers"]:
        mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
        check(set(mounts.values()) <= volumes.keys(),
              f"{name}: each mount names a volume", mounts)
        # the script the container runs, and the variables it sets
        for path, vol in mounts.items():
            cm = volumes[vol].get("configMap")
            if not cm:
                continue
            check(cm["name"] in configmaps,
                  f"{name}: volume {vol} is a ConfigMap of the build",
                  f"{cm['name']} not in {sorted(configmaps)}")
            keys = configmaps.get(cm["name"], {})
            run = [w for w in " ".join(c["command"]).split()
                   if w.startswith(path + "/")]
            check(run and all(w[len(path) + 1:] in keys for w in run),
                  f"{name}: runs a script of ConfigMap {cm['name']}",
                  f"{run} against {sorted(keys)}")
            for var in (e["name"] for e in c.get("env", [])):
                # a shell's $VAR or ${VAR}, Python's environ "VAR"
                read = re.compile(r"\$\{?" + var + r"\b|\"" + var + '"')
                check(any(read.search(line) for k in keys
                          for line in scripts[k].splitlines()
                          if not line.lstrip().startswith("#")),
                      f"{name}: the script reads ${var}")
        # readOnly alone leaves the mounts below a hostPath writable (the
        # node's /sys/fs/cgroup, /proc/sys, /run below its /)
        for m in c["volumeMounts"]:
            if "hostPath" not in volumes.get(m["name"], {}):
                continue
            rro = m.get("recursiveReadOnly")
            check(rro is None or m.get("readOnly") is True,
                  f"{name}: {m['mountPath']}: recursiveReadOnly only "
                  "with readOnly")
            if m.get("readOnly"):
                check(rro == "Enabled", f"{name}: read-only hostPath "
                      f"{m['mountPath']} is read-only all the way down",
                      f"recursiveReadOnly: {rro}")
    for vol in volumes.values():
        if "hostPath" in vol:
            check(vol["hostPath"]["path"].startswith("/"),
                  f"{name}: hostPath {vol['name']} is absolute")
            # made where it is missing, it would fool the script's
            # test of a systemd node
            if vol["hostPath"]["path"].startswith("/etc/systemd"):
                check(vol["hostPath"].get("type") == "Directory",
                      f"{name}: hostPath {vol['name']} must be there "
                      "already (type Directory)",
                      f"type: {vol['hostPath'].get('type')}")


def priority_checks(by_kind):
    """Both DaemonSets' pods are node-critical: the limits and the alerts
    on them matter most under memory pressure, when the kubelet evicts;
    and the namespace's quota lets them be where a cluster limits the
    class (GKE)."""
    allowed = [e["values"] for q in by_kind.get("ResourceQuota", [])
               for e in q["spec"].get("scopeSelector", {}).get(
                   "matchExpressions", [])
               if e["scopeName"] == "PriorityClass" and e["operator"] == "In"]
    for ds in by_kind["DaemonSet"]:
        name = ds["metadata"]["name"]
        pc = ds["spec"]["template"]["spec"].get("priorityClassName")
        check(pc == "system-node-critical", f"{name}: its pods are "
              "scheduled on a full node and evicted last "
              "(system-node-critical)", f"priorityClassName: {pc}")
        check(any(pc in v for v in allowed),
              f"{name}: a ResourceQuota of the namespace admits pods of "
              f"{pc}", allowed)


def node_script_checks():
    """The node scripts on fake nodes (tests/kubernetes/kubepods.sh and
    podlimits.py), their results as tests of this run."""
    here = os.path.join(ROOT, "tests", "kubernetes")
    for name, argv in [("kubepods.sh", ["sh", f"{here}/kubepods.sh"]),
                       ("podlimits.py", [sys.executable,
                                         f"{here}/podlimits.py"])]:
        res = subprocess.run(argv, capture_output=True, text=True)
        why = []
        results = 0
        for line in res.stdout.splitlines():
            m = re.match(r"(ok|not ok) \d+ (.*)", line)
            if line.startswith("# "):
                why.append(line[2:])
            elif m:
                results += 1
                check(m[1] == "ok", f"{name}: {m[2]}", "\n".join(why))
                why = []
        check(res.returncode == 0 and results > 0, f"{name}: exits 0",
              res.stderr)


# The podlimits policy: its variables and its validation, which
# pod_max_admitted() models.
POD_MAX_VARIABLES = {
    "mine": "has(object.metadata.annotations) && 'negative-dentry/max' in "
            "object.metadata.annotations ? "
            "object.metadata.annotations['negative-dentry/max'] : ''",
    "theirs": "namespaceObject != null && "
              "has(namespaceObject.metadata.annotations) && "
              "'negative-dentry/max' in namespaceObject.metadata.annotations "
              "? namespaceObject.metadata.annotations['negative-dentry/max'] "
              ": ''",
    "kept": "oldObject != null && has(oldObject.metadata.annotations) && "
            "'negative-dentry/max' in oldObject.metadata.annotations && "
            "oldObject.metadata.annotations['negative-dentry/max'] == "
            "variables.mine",
}
# Only pods with the annotation are judged: the policy's Fail reaches no
# other pod.
POD_MAX_MATCH = ("has(object.metadata.annotations) && 'negative-dentry/max' "
                 "in object.metadata.annotations")
POD_MAX_VALIDATION = (
    "variables.mine == '' || variables.kept || "
    "(variables.mine.matches('^[0-9]{1,18}$') && "
    "(!variables.theirs.matches('^[0-9]{1,18}$') || "
    "int(variables.mine) <= int(variables.theirs)))")
# (namespace's value, pod's, the pod's before an update or None for a
# create, admitted); None for no annotation
POD_MAX = [
    (None, None, None, True),
    ("2000", None, None, True),
    ("2000", "500", None, True),
    ("2000", "2000", None, True),
    ("2000", "2001", None, False),
    ("2000", "max", None, False),
    ("max", "99999", None, True),
    (None, "99999", None, True),
    ("lots", "5", None, True),
    (None, "20k", None, False),
    (None, "-1", None, False),
    (None, " 5", None, False),
    (None, "", None, True),
    (None, "1" * 19, None, False),
    ("2000", "5000", "5000", True),
    ("2000", "400", "5000", True),
    ("2000", "5000", "500", False),
    ("2000", "5000", "", False),
]


def pod_max_admitted(ns, mine, old, create):
    count = re.compile(r"[0-9]{1,18}")
    if mine is None:  # matchConditions: not judged
        return True
    mine = mine or ""
    theirs = ns or ""
    kept = not create and old is not None and old == mine
    return mine == "" or kept or (
        bool(count.fullmatch(mine)) and
        (not count.fullmatch(theirs) or int(mine) <= int(theirs)))


def flat(text):
    return " ".join(text.split())


def object_checks(objects, what):
    """The checks every object of a build passes; its objects by kind."""
    for o in objects:
        kind, name = o["kind"], o["metadata"]["name"]
        typ = f"{o['apiVersion']}/{kind}"
        check(typ in SCHEMA, f"{what}: {kind} {name}: {o['apiVersion']} "
              "serves it")
        errors = schema_errors(o, typ, kind) if typ in SCHEMA else []
        check(not errors, f"{what}: {kind} {name}: every field is one of "
              "its type", "\n".join(errors))
        want = None if kind in CLUSTER_SCOPED else NAMESPACE
        check(o["metadata"].get("namespace") == want,
              f"{what}: {kind} {name}: in " +
              (f"namespace {want}" if want else "no namespace"))
    by_kind = {}
    for o in objects:
        by_kind.setdefault(o["kind"], []).append(o)
    configmaps = {c["metadata"]["name"]: c["data"]
                  for c in by_kind["ConfigMap"]}
    scripts = {k: v for data in configmaps.values() for k, v in data.items()}
    for ds in by_kind["DaemonSet"]:
        daemonset_checks(ds, configmaps, scripts)
        account_checks(ds, by_kind, configmaps)
    priority_checks(by_kind)
    return by_kind


def account_checks(ds, by_kind, configmaps):
    """A DaemonSet's service account is bound to a role that lets it list
    what its script asks the API server for, and nothing more."""
    pod = ds["spec"]["template"]["spec"]
    name = ds["metadata"]["name"]
    sa = pod.get("serviceAccountName")
    if not sa:
        check(pod.get("automountServiceAccountToken") is False,
              f"{name}: without an account of its own, it gets no token")
        return
    check(sa in [o["metadata"]["name"]
                 for o in by_kind.get("ServiceAccount", [])],
          f"{name}: its service account {sa} is in the build")
    roles = {r["metadata"]["name"]: r for r in by_kind.get("ClusterRole", [])}
    granted = set()
    for b in by_kind.get("ClusterRoleBinding", []):
        if {"kind": "ServiceAccount", "name": sa,
                "namespace": NAMESPACE} in b["subjects"] and \
                b["roleRef"]["name"] in roles:
            for rule in roles[b["roleRef"]["name"]]["rules"]:
                granted |= {(g, r, v) for g in rule["apiGroups"]
                            for r in rule["resources"] for v in rule["verbs"]}
    asked = {("", r, "list") for data in configmaps.values()
             for text in data.values()
             for r in re.findall(r'api_get\(f?"/api/v1/(\w+)', text)}
    check(asked and granted == asked, f"{name}: its role grants what its "
          "script asks the API server, and no more",
          f"granted {sorted(granted)}, asked {sorted(asked)}")


def main():
    built = {}
    for what in ("userspace", "userspace/podlimits"):
        build = subprocess.run([KUBECTL, "kustomize",
                                os.path.join(ROOT, what)],
                               capture_output=True, text=True)
        check(build.returncode == 0, f"kubectl kustomize builds {what}/",
              build.stderr)
        built[what] = list(yaml.safe_load_all(build.stdout)) if \
            build.returncode == 0 else []
    objects = built["userspace"]
    rule = subprocess.run(["sh", os.path.join(USERSPACE, "prometheus",
                                              "prometheusrule.sh")],
                          capture_output=True, text=True, check=True)
    objects.append(yaml.safe_load(rule.stdout))
    kinds = sorted(o["kind"] for o in objects)
    check(kinds == ["ConfigMap", "ConfigMap", "DaemonSet", "DaemonSet",
                    "Namespace", "PrometheusRule", "ResourceQuota",
                    "ValidatingAdmissionPolicy",
                    "ValidatingAdmissionPolicyBinding"],
          "the build holds the objects the README names", kinds)
    names = sorted(f"{o['kind']}/{o['metadata']['name']}"
                   for o in built["userspace/podlimits"]
                   if o["kind"] not in ("ConfigMap",))
    check(names == ["ClusterRole/negative-dentry-podlimits",
                    "ClusterRoleBinding/negative-dentry-podlimits",
                    "DaemonSet/negative-dentry-metrics",
                    "DaemonSet/negative-dentry-podlimits",
                    "Namespace/negative-dentry",
                    "ResourceQuota/negative-dentry-critical-pods",
                    "ServiceAccount/negative-dentry-podlimits",
                    "ValidatingAdmissionPolicy/negative-dentry-pod-max",
                    "ValidatingAdmissionPolicy/"
                    "negative-dentry-unified-cgroup",
                    "ValidatingAdmissionPolicyBinding/negative-dentry-pod-max",
                    "ValidatingAdmissionPolicyBinding/"
                    "negative-dentry-unified-cgroup"],
          "the podlimits build has podlimits in kubepods's place", names)
    by_kind = object_checks(objects, "userspace")
    pl_kind = object_checks(built["userspace/podlimits"], "podlimits")
    ns = by_kind["Namespace"][0]["metadata"]
    check(ns["name"] == NAMESPACE and ns["labels"].get(
        "pod-security.kubernetes.io/enforce") == "privileged",
        "the namespace lets its pods mount host paths")
    node_script_checks()

    policies = {p["metadata"]["name"]: p
                for p in pl_kind["ValidatingAdmissionPolicy"]}
    bindings = {b["spec"]["policyName"]: b["spec"]["validationActions"]
                for b in pl_kind["ValidatingAdmissionPolicyBinding"]}
    pod_max = policies["negative-dentry-pod-max"]["spec"]
    check(bindings.get("negative-dentry-pod-max") == ["Deny"],
          "podlimits: the binding denies what the pod-max policy refuses")
    check(any(r["resources"] == ["pods"] and
              {"CREATE", "UPDATE"} <= set(r["operations"])
              for r in pod_max["matchConstraints"]["resourceRules"]),
          "podlimits: the pod-max policy judges pods as they are created "
          "and updated")
    variables = {v["name"]: flat(v["expression"])
                 for v in pod_max.get("variables", [])}
    check([flat(c["expression"]) for c in
           pod_max.get("matchConditions", [])] == [POD_MAX_MATCH],
          "podlimits: the pod-max policy judges only pods with the "
          "annotation", pod_max.get("matchConditions"))
    (validation,) = pod_max["validations"]
    check(variables == POD_MAX_VARIABLES and
          flat(validation["expression"]) == POD_MAX_VALIDATION,
          "podlimits: the pod-max policy's expressions are those this "
          "test models", f"{variables}\n{validation['expression']}")
    for ns_value, mine, old, want in POD_MAX:
        got = pod_max_admitted(ns_value, mine, old, old is None)
        check(got == want, f"podlimits: it {'admits' if want else 'refuses'}"
              f" negative-dentry/max {mine!r} in a namespace of {ns_value!r}"
              + (f", updated from {old!r}" if old is not None else ""))

    policy = by_kind["ValidatingAdmissionPolicy"][0]
    binding = by_kind["ValidatingAdmissionPolicyBinding"][0]
    check(binding["spec"]["policyName"] == policy["metadata"]["name"] and
          binding["spec"]["validationActions"] == ["Deny"],
          "the binding denies what the policy refuses")
    rules = policy["spec"]["matchConstraints"]["resourceRules"]
    check(any(r["resources"] == ["pods"] and r["apiGroups"] == [""] and
              {"CREATE", "UPDATE"} <= set(r["operations"]) for r in rules),
          "the policy judges pods as they are created and updated")
    (validation,) = policy["spec"]["validations"]
    expression = validation["expression"]
    literals = re.findall(r"'(?:[^'\\]|\\.)*'", expression)
    check(re.sub(r"'(?:[^'\\]|\\.)*'", "{}", expression) == POLICY_SHAPE,
          "the policy's expression has the shape this test evaluates",
          expression)
    check([cel_string(x) for x in literals[:2]] == CRIO_KEYS,
          "it judges both names of CRI-O's annotation", literals)
    for annotations, want in ANNOTATIONS:
        got = admitted(expression, annotations) if len(literals) == 3 \
            else None
        check(got == want, f"it {'admits' if want else 'refuses'} "
              f"{annotations or 'a pod without annotations'}")
    for old, annotations, want in UPDATES:
        got = admitted(expression, annotations, old) \
            if len(literals) == 3 else None
        check(got == want, f"it {'admits' if want else 'refuses'} an "
              f"update from {old or 'none'} to {annotations or 'none'}")

    with open(os.path.join(USERSPACE, "prometheus",
                           "negative-dentry-alerts.yml")) as f:
        alerts = yaml.safe_load(f)
    check(objects[-1]["spec"] == alerts,
          "prometheusrule.sh carries negative-dentry-alerts.yml's groups")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
