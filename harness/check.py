#!/usr/bin/python3
"""Run every test of the project and end with "N passed, N failed".

Each suite boots a guest with harness/vmrun.py (its console goes to
build/check/<suite>.log) and judges what came back:
  harness    vm-run's own promises: exit status, WARN, timeout, bad script;
             README.md's package table is the one harness/deps.sh installs;
             the Prometheus metrics and alerts (tests/prometheus, no guest);
  upstream   the cgroup selftests test_core, test_kmem and test_memcontrol
             on the base and the patched kernel: each result must be the
             one tests/upstream/known-results expects, and both kernels
             must agree;
  kunit      our KUnit suites, run at boot of both patched kernels, their
             KTAP read off the console with tools/testing/kunit's parser;
  selftests  our kselftests (dentry_dir_max, test_negative_dentry) on both
             patched kernels: every test they declare must pass; and a
             boot with cgroup.memory=nokmem, where a limit is refused;
  checkpatch scripts/checkpatch.pl --strict over the combined patch and
             over each patch of patches/series;
  w1         the C files our kernel changes compile with no more W=1
             warnings than the base kernel's;
  bench      make bench's quick mode runs to the end;
  userspace  systemd, containers and our kernel package in the Debian
             guest;
  stress     load, cgroup churn, mounts, freezes and injected faults on the
             debug kernel, then what must hold afterwards (make stress is
             the long form).
Run from the Makefile (make check), which builds what this needs first.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(ROOT, "build", "check")


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, name, why=""):
        if ok:
            self.passed += 1
            print(f"  PASS {name}", flush=True)
        else:
            self.failed += 1
            print(f"  FAIL {name}{': ' + why if why else ''}", flush=True)
        return ok


class Guest:
    def __init__(self, args):
        self.args = args

    @staticmethod
    def image(kernel):
        """kernel is base|patched, then -debug|-fast: patched-debug."""
        return os.path.join(ROOT, "build", "obj", kernel,
                            "arch/x86/boot/bzImage")

    def run(self, kernel, script, timeout, log, append="", image=None):
        """Boot `kernel` (or `image`), run `script`; return (status,
        console lines). Scripts under tests/userspace/ run in the Debian
        guest, the others in the busybox guest."""
        path = os.path.join(LOGS, log + ".log")
        guest = ["--guest", "debian", "--rootfs", self.args.rootfs] \
            if script.startswith("tests/userspace/") else \
            ["--initramfs", self.args.initramfs]
        cmd = [os.path.join(ROOT, "harness", "vmrun.py"),
               "--image", image or self.image(kernel),
               "--kernel", kernel.split("-")[0], *guest,
               "--timeout", str(timeout),
               "--append", append, os.path.join(ROOT, script)]
        if self.args.kvm:
            cmd.insert(1, "--kvm")
        start = time.monotonic()
        with open(path, "w") as out:
            status = subprocess.run(cmd, stdout=out,
                                    stderr=subprocess.STDOUT).returncode
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
        print(f"  ran {script} on {kernel}: status {status}, "
              f"{time.monotonic() - start:.0f} s, log {os.path.relpath(path)}",
              flush=True)
        for line in lines:
            if line.startswith("vm-run:"):
                print(f"    {line}")
        return status, lines


def readme_packages():
    """(package, why) rows of README.md's "What gets installed" table."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    section = text.split("### What gets installed", 1)[-1].split("\n#", 1)[0]
    return re.findall(r"^\| `([^`]+)` \| (.+?) \|$", section, re.M)


def harness_suite(guest, r):
    listed = subprocess.run([os.path.join(ROOT, "harness", "deps.sh"),
                             "--list"], capture_output=True, text=True,
                            check=True).stdout
    want = [tuple(line.split(" ", 1)) for line in listed.splitlines()]
    r.check(readme_packages() == want,
            "README.md lists the packages harness/deps.sh installs",
            f"README {readme_packages()} != deps.sh {want}")
    res = subprocess.run(["sh", os.path.join(ROOT, "tests", "prometheus",
                                             "run.sh")],
                         capture_output=True, text=True)
    lines = (res.stdout + res.stderr).splitlines()
    for line in lines[-40:] if res.returncode else []:
        print(f"    {line}")
    r.check(res.returncode == 0, "tests/prometheus: negative-dentry-metrics "
            "output, promtool check metrics and test rules",
            "; ".join(l for l in lines if l.startswith("not ok")))
    kernel = "patched-debug"
    status, _ = guest.run(kernel, "tests/harness/exit3.sh", 300, "exit3")
    r.check(status == 3, "vm-run exits with the script's status",
            f"got {status}, want 3")
    status, lines = guest.run(kernel, "tests/harness/warn.sh", 300, "warn")
    warned = any("WARNING: CPU:" in l and "lkdtm" in l for l in lines)
    r.check(status == 99 and warned, "a kernel WARN fails the run",
            f"got {status}, want 99 with the lkdtm WARNING reported")
    status, _ = guest.run(kernel, "tests/harness/hang.sh", 45, "hang")
    r.check(status == 124, "a guest that never finishes is killed",
            f"got {status}, want 124")
    res = subprocess.run([os.path.join(ROOT, "harness", "vmrun.py"),
                          "--image", guest.image(kernel), "--initramfs",
                          guest.args.initramfs, "tests/harness/missing.sh"],
                         capture_output=True, text=True, cwd=ROOT)
    r.check(res.returncode == 2 and "cannot read script" in res.stderr,
            "a missing script is a clear error", res.stderr.strip())


TAP = re.compile(r"^(ok|not ok) \d+ (# SKIP )?(.+?)\s*$")


def parse_selftests(lines):
    """TAP of kselftest programs, each announced by 'selftest: NAME'.
    Returns {(program, test): pass|fail|skip}."""
    results, prog = {}, None
    for line in lines:
        if line.startswith("selftest: ") and " exited " not in line:
            prog = line.split()[1]
        elif prog and TAP.match(line):
            ok, skip, name = TAP.match(line).groups()
            results[(prog, name)] = "skip" if skip else \
                "pass" if ok == "ok" else "fail"
    return results


def declared_tests(source):
    """The tests a cgroup selftest declares: the T(name) of its tests[]."""
    with open(source) as f:
        return re.findall(r"^\s*T\((\w+)\)", f.read(), re.M)


def known_results(path, flavour):
    """Lines 'program test flavour result reason' where flavour is debug,
    fast or any and result is fail, skip or flaky."""
    known = {}
    with open(os.path.join(ROOT, path)) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                prog, test, where, result, reason = line.split(None, 4)
                if where in ("any", flavour):
                    known[(prog, test)] = (result, reason.strip())
    return known


def upstream_suite(guest, r):
    for flavour in ("debug", "fast"):
        upstream_pair(guest, r, flavour)


def upstream_pair(guest, r, flavour):
    """Each result must be the known one (pass, or as listed); if the base
    kernel of the flavour was built (make check FULL=1 for debug), ours
    must also give the base's results."""
    known = known_results("tests/upstream/known-results", flavour)
    seen = {}
    for kernel in ("base", "patched"):
        if f"{kernel}-{flavour}" not in guest.args.kernels.split():
            continue
        status, lines = guest.run(f"{kernel}-{flavour}",
                                  "tests/upstream/run.sh", 2400,
                                  f"upstream-{kernel}-{flavour}")
        kernel = f"{kernel}-{flavour}"
        r.check(status == 0, f"upstream selftests on {kernel}: clean run",
                f"vm-run status {status}")
        results = parse_selftests(lines)
        for prog in ("test_core", "test_kmem", "test_memcontrol"):
            want = declared_tests(os.path.join(
                ROOT, "build/src/base/tools/testing/selftests/cgroup",
                prog + ".c"))
            missing = [t for t in want if (prog, t) not in results]
            r.check(want and not missing, f"{kernel} {prog} ran all its "
                    f"{len(want)} tests", f"no result for {missing}")
        for key, got in sorted(results.items()):
            want, reason = known.get(key, ("pass", ""))
            name = f"{kernel} {key[0]} {key[1]}"
            if want == "flaky":
                print(f"  ({name}: {got}; flaky: {reason})")
            else:
                r.check(got == want, name, f"{got}, want {want}")
        seen[kernel] = results
    if f"base-{flavour}" not in seen:
        return
    base, ours = seen[f"base-{flavour}"], seen[f"patched-{flavour}"]
    differ = sorted(k for k in base.keys() | ours.keys()
                    if base.get(k) != ours.get(k)
                    and known.get(k, ("",))[0] != "flaky")
    r.check(not differ, f"upstream selftests ({flavour}): patched results "
            "equal base's",
            ", ".join(f"{p} {t}" for p, t in differ))


def checkpatch(r, name, patch, *flags):
    res = subprocess.run(
        ["perl", "scripts/checkpatch.pl", "--strict", "--terse",
         "--show-types", *flags, patch],
        cwd=os.path.join(ROOT, "build", "src", "patched"),
        capture_output=True, text=True)
    for line in res.stdout.splitlines():
        print(f"    {line}")
    r.check(res.returncode == 0, f"checkpatch --strict {name}")


# A backport of an upstream commit keeps upstream's message: commit ids
# this tree has no history for, written as upstream wrote them, and its
# wording. Its code is checked like ours.
BACKPORT_IGNORE = "GIT_COMMIT_ID,UNKNOWN_COMMIT_ID,REPEATED_WORD"


def is_backport(patch):
    """Its message says "commit <sha1> upstream.", as stable backports do."""
    with open(patch, errors="replace") as f:
        return re.search(r"^commit [0-9a-f]{40} upstream\.$", f.read(),
                         re.M) is not None


def checkpatch_suite(guest, r):
    checkpatch(r, "the combined patch", os.path.abspath(guest.args.patch),
               "--no-signoff")
    with open(os.path.join(ROOT, "patches", "series")) as f:
        for name in f.read().split():
            patch = os.path.join(ROOT, "patches", name)
            flags = ["--ignore", BACKPORT_IGNORE] if is_backport(patch) else []
            checkpatch(r, f"patches/{name}", patch, *flags)


def w1_warnings(kernel, objects):
    """W=1 warnings per source file, compiling @objects of @kernel in an
    object directory of their own, configured like the fast kernel."""
    obj = os.path.join(ROOT, "build", "obj", f"{kernel}-w1")
    os.makedirs(obj, exist_ok=True)
    shutil.copy(os.path.join(ROOT, "build", "obj", f"{kernel}-fast",
                             ".config"), os.path.join(obj, ".config"))
    make = ["make", "-s", "-C", os.path.join(ROOT, "build", "src", kernel),
            f"O={obj}", "CC=ccache gcc", f"-j{os.cpu_count()}"]
    subprocess.run(make + ["olddefconfig"], check=True)
    res = subprocess.run(make + ["W=1"] + objects, capture_output=True,
                         text=True)
    counts = {}
    for line in res.stderr.splitlines():
        m = re.match(r".*?/src/\w+/(\S+?):\d+:\d+: warning:", line)
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
            print(f"    {kernel}: {line}")
    return res.returncode, counts


def w1_suite(guest, r):
    """No new W=1 warnings in the C files our kernel touches."""
    with open(os.path.join(ROOT, "build/src/patched/.negdentry-manifest")) as f:
        sources = [p for p in f.read().split() if p.endswith(".c") and
                   p.split("/")[0] in ("fs", "mm") and "/tests/" not in p]
    objects = [p[:-2] + ".o" for p in sources]
    ours_status, ours = w1_warnings("patched", objects)
    r.check(ours_status == 0, "W=1 build of the touched files")
    base_status, base = w1_warnings(
        "base", [o for o in objects
                 if os.path.exists(os.path.join(ROOT, "build/src/base",
                                                o[:-2] + ".c"))])
    for src in sources:
        r.check(ours.get(src, 0) <= base.get(src, 0), f"W=1 {src}",
                f"{ours.get(src, 0)} warnings, base has {base.get(src, 0)}")


KUNIT_SUITES = ("negative_dentry", "negative_dentry_evict",
                "negative_dentry_lru", "memcg_negative_dentry")


def kunit_suite(guest, r):
    sys.path.insert(0, os.path.join(ROOT, "build/src/patched/tools/testing/kunit"))
    import kunit_parser
    for kernel in ("patched-debug", "patched-fast"):
        status, lines = guest.run(
            kernel, "tests/kunit/run.sh", 600, f"kunit-{kernel}",
            append="kunit.enable=1 kunit.filter_glob=*negative_dentry*")
        r.check(status == 0, f"{kernel} kunit boot: clean run",
                f"vm-run status {status}")
        top = kunit_parser.parse_run_tests(lines)
        suites = {suite.name: suite for suite in top.subtests}
        for name in KUNIT_SUITES:
            suite = suites.get(name)
            if not r.check(suite and suite.subtests,
                           f"{kernel} kunit {name} ran", "no results"):
                continue
            for case in suite.subtests:
                r.check(case.status == kunit_parser.TestStatus.SUCCESS,
                        f"{kernel} kunit {name}.{case.name}",
                        case.status.name)


OUR_SELFTESTS = {
    "dentry_dir_max":
        "filesystems/negative_dentries/dentry_dir_max.c",
    "test_negative_dentry": "cgroup/test_negative_dentry.c",
}


def selftests_suite(guest, r):
    for kernel in ("patched-debug", "patched-fast"):
        status, lines = guest.run(kernel, "tests/negative-dentry/run.sh",
                                  3600, f"selftests-{kernel}")
        r.check(status == 0, f"{kernel} selftests: clean run",
                f"vm-run status {status}")
        results = parse_selftests(lines)
        for prog, source in OUR_SELFTESTS.items():
            for test in declared_tests(os.path.join(
                    ROOT, "build/src/patched/tools/testing/selftests",
                    source)):
                got = results.get((prog, test), "missing")
                r.check(got == "pass", f"{kernel} {prog} {test}", got)
        status, _ = guest.run(kernel, "tests/negative-dentry/nokmem.sh", 600,
                              f"nokmem-{kernel}", append="cgroup.memory=nokmem")
        r.check(status == 0, f"{kernel} cgroup.memory=nokmem: a limit is "
                "refused", f"vm-run status {status}")


def quick_bench(guest, out, *flags):
    """Run make bench's quick form into @out; print its boots' outcome."""
    res = subprocess.run([os.path.join(ROOT, "harness", "bench.py"),
                          "--initramfs", guest.args.initramfs, "--quick",
                          "--rounds", "1", "--out", out, *flags],
                         capture_output=True, text=True)
    for line in res.stdout.splitlines() + res.stderr.splitlines():
        if (line.startswith(("bench:", "    | ")) or "status" in line or
                "booting it again" in line):
            print(f"    {line}")
    return res


def bench_suite(guest, r):
    """make bench's quick mode, wall clock and ICOUNT=1, runs to the end and
    produces numbers, and make insn-trace's steps through its first calls:
    so that neither can rot. No timing or count is judged."""
    out = os.path.join(ROOT, "build", "bench-quick")
    res = quick_bench(guest, out)
    r.check(res.returncode == 0, "bench quick mode: numbers for every "
            "scenario on both kernels", res.stderr.strip()[-300:])
    for png in ("runaway.png", "teardown.png"):
        path = os.path.join(out, png)
        r.check(os.path.exists(path) and os.path.getsize(path) > 0,
                f"bench quick mode: {png}")
    res = quick_bench(guest, os.path.join(ROOT, "build", "bench-icount-quick"),
                      "--icount")
    r.check(res.returncode == 0, "bench ICOUNT=1 quick mode: numbers for "
            "every operation on both kernels", res.stderr.strip()[-300:])
    res = subprocess.run([os.path.join(ROOT, "harness", "insn_trace.py"),
                          "--initramfs", guest.args.initramfs, "--quick",
                          "--out", os.path.join(ROOT, "build", "insn-quick")],
                         capture_output=True, text=True)
    r.check(res.returncode == 0, "make insn-trace quick mode: every marked "
            "call stepped on both kernels",
            (res.stdout + res.stderr).strip()[-300:])


# What our systemd adds to the D-Bus API, and where its man page lists it.
DBUS_PROPERTIES = {"Manager": ["DefaultNegativeDentryMax"]}
for unit_type in ("Service", "Socket", "Mount", "Swap", "Slice", "Scope"):
    DBUS_PROPERTIES[unit_type] = ["NegativeDentryMax", "NegativeDentryCurrent"]


def undocumented_dbus_properties(tree):
    """Our properties missing from an interface of org.freedesktop.systemd1(5)."""
    with open(os.path.join(tree, "man", "org.freedesktop.systemd1.xml")) as f:
        text = f.read()
    missing = []
    for iface, props in DBUS_PROPERTIES.items():
        block = re.search(r"interface org\.freedesktop\.systemd1\.%s \{\n(.*?)\n  \};"
                          % iface, text, re.S)
        for prop in props:
            if not block or f"readonly t {prop} = ...;" not in block.group(1):
                missing.append(f"{iface}.{prop}")
    return missing


def userspace_suite(guest, r):
    """systemd, podman, crun, runc, OCI bundles and libcgroup in the Debian
    guest; our systemd's own unit tests; our kernel's package."""
    obj = os.path.join(ROOT, "build", "systemd", "obj")
    res = subprocess.run([os.path.join(obj, "test-load-fragment")],
                         capture_output=True, text=True)
    r.check(res.returncode == 0, "systemd test-load-fragment (with "
            "config_parse_negative_dentry_max)", res.stderr[-300:])
    res = subprocess.run(["bash", os.path.join(ROOT, "build", "systemd", "tree",
                                               "tools", "check-directives.sh"),
                          os.path.join(ROOT, "build", "systemd", "tree"), obj],
                         capture_output=True, text=True)
    r.check(res.returncode == 0, "systemd check-directives",
            (res.stdout + res.stderr)[-300:])
    missing = undocumented_dbus_properties(os.path.join(ROOT, "build", "systemd", "tree"))
    r.check(not missing, "org.freedesktop.systemd1(5) lists our D-Bus properties "
            "on the manager and every unit type", f"missing: {missing}")
    for kernel in ("patched-fast", "base-fast"):
        status, lines = guest.run(kernel, "tests/userspace/run.sh", 1800,
                                  f"userspace-{kernel}")
        r.check(status == 0, f"{kernel} Debian guest: clean run",
                f"vm-run status {status}")
        results = parse_selftests(lines)
        r.check(results, f"{kernel} Debian guest: tests ran", "no TAP")
        for (prog, test), got in sorted(results.items()):
            r.check(got == "pass", f"{kernel} {prog}: {test}", got)
    # The kernel the Debian guest has installed from our package.
    boot = os.path.join(guest.args.rootfs, "boot")
    images = sorted(f for f in os.listdir(boot) if f.startswith("vmlinuz-"))
    if r.check(images, "our kernel package installed a kernel", "no vmlinuz"):
        status, lines = guest.run("patched", "tests/userspace/installed.sh",
                                  600, "userspace-installed",
                                  image=os.path.join(boot, images[-1]))
        r.check(status == 0, f"the installed {images[-1]} boots and runs",
                "\n".join(l for l in lines if l.startswith("#"))[-300:])


def stress_suite(guest, r):
    """build/stress/stress.sh (tests/stress, staged by make with stress-ng)
    on the debug kernel for --stress-duration seconds of load."""
    duration = guest.args.stress_duration
    status, lines = guest.run("patched-debug", "build/stress/stress.sh",
                              duration + 1200, "stress",
                              append=f"stress.duration={duration} "
                              "kmemleak=on")
    for line in lines:
        if line.startswith("# ") and not line.startswith("# not ok"):
            print(f"    {line}")
    r.check(status == 0, f"stress {duration} s: a clean run",
            f"vm-run status {status}")
    results = parse_selftests(lines)
    r.check(results, "stress: its checks ran", "no TAP")
    for (_, test), got in sorted(results.items()):
        r.check(got == "pass", f"stress: {test}", got)


SUITES = {"harness": harness_suite, "upstream": upstream_suite,
          "kunit": kunit_suite, "selftests": selftests_suite,
          "checkpatch": checkpatch_suite, "w1": w1_suite,
          "bench": bench_suite, "userspace": userspace_suite,
          "stress": stress_suite}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--initramfs", required=True)
    ap.add_argument("--patch", help="from make patch (the checkpatch suite)")
    ap.add_argument("--kernels", default="patched-debug base-fast patched-fast",
                    help="the kernels built, as make check's CHECK_KERNELS")
    ap.add_argument("--rootfs", help="the Debian guest's, from make "
                    "debian-rootfs")
    ap.add_argument("--kvm", action="store_true")
    ap.add_argument("--stress-duration", type=int, default=90,
                    help="seconds of load in the stress suite")
    ap.add_argument("suites", nargs="*", default=list(SUITES),
                    help=f"some of: {' '.join(SUITES)}")
    args = ap.parse_args()
    os.makedirs(LOGS, exist_ok=True)
    guest, r = Guest(args), Results()
    for name in args.suites:
        print(f"[{name}]", flush=True)
        SUITES[name](guest, r)
    print(f"{r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
