#!/usr/bin/python3
"""negative-dentry-podlimits on a fake node, on the host: a tree of plain
folders and files where the cgroups would be, named as the kubelet names
them with either driver, and a fake API server that answers only for the
node's own pods. The Debian guest runs it on real cgroups
(tests/userspace/podlimits.sh). Prints TAP; exits 1 if a test failed."""
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = os.path.join(HERE, "..", "..", "userspace", "podlimits",
                     "negative-dentry-podlimits")
NODE = "node-1"
C1 = "a" * 64
C2 = "b" * 64
MIRROR = {"kubernetes.io/config.mirror": "0123abcd",
          "kubernetes.io/config.hash": "0123abcd"}

NAMESPACES = {"team": {"negative-dentry/max": "2000"},
              "open": {},
              "big": {"negative-dentry/max": "max"},
              "typo": {"negative-dentry/max": "lots"},
              "zeros": {"negative-dentry/max": "0700"},
              "evil": {"negative-dentry/max": "max"}}
# (namespace, name, uid, annotations, containers {id: name}, native
# sidecars {id: name}, owner references)
PODS = [
    ("team", "lower", "1111-aa", {"negative-dentry/max": "500"}, {C1: "app"},
     {C2: "proxy"}, []),
    ("team", "higher", "2222-bb", {"negative-dentry/max": "5000"}, {}, {},
     []),
    ("open", "plain", "3333-cc", {}, {}, {}, []),
    ("big", "guaranteed", "4444-dd", {}, {}, {}, []),
    # a static pod's mirror: its cgroup has the manifest's hash for UID
    ("team", "static-mirror", "9999-ff", MIRROR, {}, {},
     [{"kind": "Node", "name": NODE}]),
    ("typo", "bad", "6666-ee", {"negative-dentry/max": "lots"}, {}, {}, []),
    ("zeros", "padded", "8888-88", {"negative-dentry/max": "0600"}, {}, {},
     []),
    # pods that claim other pods' cgroups with a mirror's annotations
    ("evil", "spoof", "7777-ee", {"kubernetes.io/config.hash": "1111-aa",
                                  "kubernetes.io/config.mirror": "x"},
     {}, {}, []),
    ("evil", "spoof-owned", "7778-ee",
     {"kubernetes.io/config.hash": "3333-cc",
      "kubernetes.io/config.mirror": "x"}, {}, {},
     [{"kind": "Node", "name": NODE}]),
]
# uid: (QoS, the value the pod should have)
WANT = {"1111-aa": ("burstable", "500"), "2222-bb": ("burstable", "2000"),
        "3333-cc": ("besteffort", "3000"), "4444-dd": ("", "max"),
        "0123abcd": ("burstable", "2000"), "6666-ee": ("burstable", "3000"),
        "5555-00": ("burstable", "3000"), "8888-88": ("burstable", "600")}

n = failed = 0


def check(ok, name, why=""):
    global n, failed
    n += 1
    failed += not ok
    for line in ([] if ok else str(why).splitlines()):
        print(f"# {line}")
    print(f"{'ok' if ok else 'not ok'} {n} {name}")


class API(http.server.BaseHTTPRequestHandler):
    up = True
    garbage = False
    lists = 0

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        query = urllib.parse.parse_qs(url.query)
        API.lists += url.path == "/api/v1/pods"
        if not API.up:
            self.send_error(503)
            return
        if API.garbage:
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'{"items": [')
            return
        if url.path == "/api/v1/namespaces":
            items = [{"metadata": {"name": k, "annotations": v}}
                     for k, v in NAMESPACES.items()]
        elif url.path == "/api/v1/pods":
            mine = query.get("fieldSelector") == [f"spec.nodeName={NODE}"]
            items = [{"metadata": {"namespace": ns, "name": name, "uid": uid,
                                   "annotations": notes,
                                   "ownerReferences": owners},
                      "status": {"containerStatuses": [
                          {"name": c, "containerID": f"containerd://{i}"}
                          for i, c in ids.items()],
                          "initContainerStatuses": [
                          {"name": c, "containerID": f"cri-o://{i}"}
                          for i, c in sidecars.items()]}}
                     for ns, name, uid, notes, ids, sidecars, owners in PODS
                     ] if mine else []
        else:
            self.send_error(404)
            return
        body = json.dumps({"items": items}).encode()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def pod_dir(root, driver, qos, uid):
    if driver == "systemd":
        u = uid.replace("-", "_")
        if not qos:
            return f"{root}/kubepods.slice/kubepods-pod{u}.slice"
        return (f"{root}/kubepods.slice/kubepods-{qos}.slice/"
                f"kubepods-{qos}-pod{u}.slice")
    return f"{root}/kubepods/{qos + '/' if qos else ''}pod{uid}"


def make_node(root, driver, value="max"):
    top = f"{root}/{'kubepods.slice' if driver == 'systemd' else 'kubepods'}"
    os.makedirs(top)
    with open(f"{top}/memory.negative_dentry.max", "w") as f:
        f.write("max\n")
    for uid, (qos, _) in WANT.items():
        d = pod_dir(root, driver, qos, uid)
        os.makedirs(d)
        with open(f"{d}/memory.negative_dentry.max", "w") as f:
            f.write(value + "\n")
    pod = pod_dir(root, driver, "burstable", "1111-aa")
    if driver == "systemd":
        os.makedirs(f"{pod}/cri-containerd-{C1}.scope")
        os.makedirs(f"{pod}/crio-{C2}.scope")
    else:
        os.makedirs(f"{pod}/{C1}")
        os.makedirs(f"{pod}/crio-{C2}")


def read(path):
    with open(f"{path}/memory.negative_dentry.max") as f:
        return f.read().strip()


def run(env, *args, **kw):
    return subprocess.run([sys.executable, AGENT, *args], env=env,
                          capture_output=True, text=True, timeout=60, **kw)


def values(root, driver):
    return {uid: read(pod_dir(root, driver, qos, uid))
            for uid, (qos, _) in WANT.items()}


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), API)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    tmp = tempfile.mkdtemp()
    cmdline = f"{tmp}/cmdline"
    with open(cmdline, "w") as f:
        f.write("console=ttyS0 quiet\n")
    base = {"PATH": os.environ["PATH"], "NODE_NAME": NODE,
            "NEGATIVE_DENTRY_POD_MAX": "3000",
            "NEGATIVE_DENTRY_API": f"http://127.0.0.1:{server.server_port}",
            "NEGATIVE_DENTRY_CMDLINE": cmdline}
    want = {uid: v for uid, (_, v) in WANT.items()}

    for driver in ("systemd", "cgroupfs"):
        root = f"{tmp}/{driver}"
        make_node(root, driver)
        env = {**base, "NEGATIVE_DENTRY_CGROUP_ROOT": root,
               "NEGATIVE_DENTRY_PODLIMITS_TEXTFILE": f"{root}.prom"}
        res = run(env, "once")
        check(res.returncode == 0, f"{driver}: a pass exits 0", res.stderr)
        got = values(root, driver)
        check(got == want, f"{driver}: each pod has the value of its "
              "annotation, namespace or the node, the lowest of the pod's "
              "and its namespace's", f"{got}\nwanted {want}")
        top = "kubepods.slice" if driver == "systemd" else "kubepods"
        check(read(f"{root}/{top}") == "max",
              f"{driver}: the kubepods cgroup above them keeps none")
        with open(f"{root}.prom") as f:
            prom = f.read()
        pod = pod_dir(root, driver, "burstable", "1111-aa")[len(root):]
        scope = ("cri-containerd-" + C1 + ".scope" if driver == "systemd"
                 else C1)
        sidecar = f"crio-{C2}.scope" if driver == "systemd" else f"crio-{C2}"
        for line in ["negative_dentry_podlimits_applied 1",
                     f'negative_dentry_pod_info{{cgroup="{pod}",'
                     'pod_namespace="team",pod_name="lower",'
                     'container_name=""} 1',
                     f'negative_dentry_pod_info{{cgroup="{pod}/{scope}",'
                     'pod_namespace="team",pod_name="lower",'
                     'container_name="app"} 1',
                     f'negative_dentry_pod_info{{cgroup="{pod}/{sidecar}",'
                     'pod_namespace="team",pod_name="lower",'
                     'container_name="proxy"} 1']:
            check(line in prom.splitlines(),
                  f"{driver}: it tells node_exporter {line}", prom)
        check("5555" not in prom, f"{driver}: a pod the API did not name "
              "has no info series", prom)
        check("spoof" not in prom, f"{driver}: a pod that claims another's "
              "cgroup with a mirror pod's annotations gets nothing", prom)
        lint = subprocess.run(["promtool", "check", "metrics"], input=prom,
                              capture_output=True, text=True)
        check(lint.returncode == 0, f"{driver}: promtool check metrics "
              "takes what it writes", lint.stdout + lint.stderr)

    # a second agent, as after a restart or a rollout, changes nothing
    root = f"{tmp}/systemd"
    env = {**base, "NEGATIVE_DENTRY_CGROUP_ROOT": root,
           "NEGATIVE_DENTRY_PODLIMITS_TEXTFILE": f"{root}.prom"}
    stamps = {uid: os.stat(f"{pod_dir(root, 'systemd', q, uid)}/"
                           "memory.negative_dentry.max").st_mtime_ns
              for uid, (q, _) in WANT.items()}
    time.sleep(0.01)
    run(env, "once")
    check(stamps == {uid: os.stat(f"{pod_dir(root, 'systemd', q, uid)}/"
                                  "memory.negative_dentry.max").st_mtime_ns
                     for uid, (q, _) in WANT.items()},
          "a restarted agent writes nothing that is already right")

    # without the API server: a new agent gives the default to a pod
    # without a limit, as it cannot tell "max" from none, and leaves the
    # others as they are
    API.up = False
    fresh = pod_dir(root, "systemd", "burstable", "7777-77")
    os.makedirs(fresh)
    with open(f"{fresh}/memory.negative_dentry.max", "w") as f:
        f.write("max\n")
    res = run(env, "once")
    got = values(root, "systemd")
    check(res.returncode == 0 and got == {**want, "4444-dd": "3000"} and
          read(fresh) == "3000", "with the API server down, a pod keeps "
          "its limit and one without gets the default",
          f"{res.stderr}{got} new {read(fresh)}")
    with open(f"{root}.prom") as f:
        prom = f.read()
    check('negative_dentry_podlimits_applied{reason="api"} 0' in prom,
          "and node_exporter hears that the API server did not answer",
          prom)
    API.up = True

    # run: a new pod is seen within a few seconds; a pod the API server
    # never names (5555-00) is not asked for again and again; SIGTERM
    # ends it
    API.lists = 0
    started = time.monotonic()
    agent = subprocess.Popen([sys.executable, AGENT, "run"], env=env,
                             stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    late = pod_dir(root, "systemd", *WANT["3333-cc"][:1], "3333-cc")
    with open(f"{late}/memory.negative_dentry.max", "w") as f:
        f.write("max\n")
    deadline = time.monotonic() + 10
    while read(late) != "3000" and time.monotonic() < deadline:
        time.sleep(0.1)
    check(read(late) == "3000", "run puts back a limit taken away, within "
          "seconds", read(late))
    time.sleep(max(0, started + 5 - time.monotonic()))
    check(API.lists <= 2, "in 5 s, with a pod cgroup the API server never "
          "names, it lists the pods at most twice", API.lists)
    agent.send_signal(signal.SIGTERM)
    try:
        status = agent.wait(timeout=10)
    except subprocess.TimeoutExpired:
        agent.kill()
        status = None
    check(status == 0, "SIGTERM ends it with status 0", status)
    check(not os.path.exists(f"{root}.prom"), "and it removes its textfile, "
          "so that no series outlives it")

    # an answer cut short is the API server not answering
    API.garbage = True
    res = run(env, "once")
    with open(f"{root}.prom") as f:
        prom = f.read()
    check(res.returncode == 0 and
          'negative_dentry_podlimits_applied{reason="api"} 0' in prom,
          "an answer cut short is a failure of the API server, not of the "
          "agent", res.stderr + prom)
    API.garbage = False

    # where it cannot apply limits, it writes nothing and says why
    for name, setup, reason in [
            ("a node without kubepods cgroups", "nokubepods", "nokubepods"),
            ("a kernel without the file", "nofile", "kernel"),
            ("a kernel booted with cgroup.memory=nokmem", "nokmem",
             "nokmem")]:
        root = f"{tmp}/{setup}"
        make_node(root, "systemd")
        if setup == "nokubepods":
            os.rename(f"{root}/kubepods.slice", f"{root}/elsewhere.slice")
        if setup == "nofile":
            for dirpath, _, files in os.walk(root):
                for f in files:
                    os.unlink(os.path.join(dirpath, f))
                    open(os.path.join(dirpath, "cgroup.procs"), "w").close()
        cmd = f"{tmp}/cmdline-{setup}"
        with open(cmd, "w") as f:
            f.write("quiet cgroup.memory=nokmem\n" if setup == "nokmem"
                    else "quiet\n")
        env = {**base, "NEGATIVE_DENTRY_CGROUP_ROOT": root,
               "NEGATIVE_DENTRY_CMDLINE": cmd,
               "NEGATIVE_DENTRY_PODLIMITS_TEXTFILE": f"{root}.prom"}
        res = run(env, "once")
        with open(f"{root}.prom") as f:
            prom = f.read()
        if setup == "nokubepods":
            untouched = True
        elif setup == "nofile":
            untouched = not any("memory.negative_dentry.max" in files
                                for _, _, files in os.walk(root))
        else:
            untouched = set(values(root, "systemd").values()) == {"max"}
        check(res.returncode == 0 and untouched and
              f'negative_dentry_podlimits_applied{{reason="{reason}"}} 0'
              in prom, f"on {name} it writes no limit and says so",
              res.stderr + prom)

    # bad input stops it before it writes anything
    root = f"{tmp}/bad"
    make_node(root, "systemd")
    for name, env, args in [
            ("a default that is not a count", {"NEGATIVE_DENTRY_POD_MAX":
                                               "20k"}, ["once"]),
            ("a negative default", {"NEGATIVE_DENTRY_POD_MAX": "-1"},
             ["once"]),
            ("no node name", {"NODE_NAME": ""}, ["once"]),
            ("an unknown mode", {}, ["sometimes"])]:
        env = {**base, "NEGATIVE_DENTRY_CGROUP_ROOT": root,
               "NEGATIVE_DENTRY_PODLIMITS_TEXTFILE": f"{root}.prom", **env}
        res = run(env, *args)
        check(res.returncode == 2 and res.stderr and
              set(values(root, "systemd").values()) == {"max"} and
              not os.path.exists(f"{root}.prom"),
              f"{name} stops it with status 2, a reason, and nothing "
              "written", res.stderr)
    server.shutdown()
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
