#!/usr/bin/python3
"""Run every test of the project and end with "N passed, N failed".

Each suite boots a guest with harness/vmrun.py (its console goes to
build/check/<suite>.log) and judges what came back:
  harness    vm-run's own promises: exit status, WARN, timeout, bad script;
  upstream   the cgroup selftests test_core, test_kmem and test_memcontrol
             on the base and the patched kernel: each result must be the
             one tests/upstream/known-results expects, and both kernels
             must agree;
  checkpatch scripts/checkpatch.pl --strict over the combined patch.
Run from the Makefile (make check), which builds what this needs first.
"""
import argparse
import os
import re
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

    def run(self, kernel, script, timeout, log, append=""):
        """Boot `kernel`, run `script`; return (status, console lines)."""
        path = os.path.join(LOGS, log + ".log")
        cmd = [os.path.join(ROOT, "harness", "vmrun.py"),
               "--image", self.image(kernel),
               "--kernel", kernel.split("-")[0],
               "--initramfs", self.args.initramfs, "--timeout", str(timeout),
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


def harness_suite(guest, r):
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


TAP = re.compile(r"^(ok|not ok) \d+ (# SKIP )?(\S+)")


def parse_selftests(lines):
    """TAP of kselftest programs, each announced by 'selftest: NAME'.
    Returns ({(program, test): pass|fail|skip}, {program: planned count})."""
    results, plans, prog = {}, {}, None
    for line in lines:
        if line.startswith("selftest: ") and " exited " not in line:
            prog = line.split()[1]
        elif prog and re.match(r"^1\.\.\d+$", line):
            plans[prog] = int(line[3:])
        elif prog and TAP.match(line):
            ok, skip, name = TAP.match(line).groups()
            results[(prog, name)] = "skip" if skip else \
                "pass" if ok == "ok" else "fail"
    return results, plans


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
    known = known_results("tests/upstream/known-results", flavour)
    seen = {}
    for kernel in ("base", "patched"):
        status, lines = guest.run(f"{kernel}-{flavour}",
                                  "tests/upstream/run.sh", 2400,
                                  f"upstream-{kernel}-{flavour}")
        kernel = f"{kernel}-{flavour}"
        r.check(status == 0, f"upstream selftests on {kernel}: clean run",
                f"vm-run status {status}")
        results, plans = parse_selftests(lines)
        for prog in ("test_core", "test_kmem", "test_memcontrol"):
            got = sum(1 for p, _ in results if p == prog)
            r.check(got and got == plans.get(prog), f"{kernel} {prog} ran "
                    f"all its tests", f"{got} results of {plans.get(prog)}")
        for key, got in sorted(results.items()):
            want, reason = known.get(key, ("pass", ""))
            name = f"{kernel} {key[0]} {key[1]}"
            if want == "flaky":
                print(f"  ({name}: {got}; flaky: {reason})")
            else:
                r.check(got == want, name, f"{got}, want {want}")
        seen[kernel] = results
    base, ours = seen[f"base-{flavour}"], seen[f"patched-{flavour}"]
    differ = sorted(k for k in base.keys() | ours.keys()
                    if base.get(k) != ours.get(k)
                    and known.get(k, ("",))[0] != "flaky")
    r.check(not differ, f"upstream selftests ({flavour}): patched results "
            "equal base's",
            ", ".join(f"{p} {t}" for p, t in differ))


def checkpatch_suite(guest, r):
    if not os.path.getsize(guest.args.patch):
        print("  (no kernel changes yet: nothing to check)")
        return
    res = subprocess.run(
        ["perl", "scripts/checkpatch.pl", "--strict", "--no-signoff",
         "--terse", "--show-types", guest.args.patch],
        cwd=os.path.join(ROOT, "build", "src", "patched"),
        capture_output=True, text=True)
    print("\n".join("    " + l for l in res.stdout.splitlines()))
    r.check(res.returncode == 0, "checkpatch --strict on the combined patch")


SUITES = {"harness": harness_suite, "upstream": upstream_suite,
          "checkpatch": checkpatch_suite}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--initramfs", required=True)
    ap.add_argument("--patch", required=True, help="from make patch")
    ap.add_argument("--kvm", action="store_true")
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
