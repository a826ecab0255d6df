#!/usr/bin/python3
"""Run every test of the project and end with "N passed, N failed, N skipped".

SUITES declares each suite: its name, what it checks, the function that
runs it, its guest script, guest, kernels and timeout, and about how long
it takes. A suite boots guests with harness/vmrun.py (their consoles go to
build/check/) and judges what came back; `check.py --list` prints the
suites and what each checks. Run from the Makefile (make check), which
builds what this needs first. --jobs 2 runs two suites at once, each
printed whole when it ends (on 2 cores no faster: each guest keeps both
busy). docs/harness.md says how to add a suite.
"""
import argparse
import dataclasses
import io
import os
import re
import shutil
import subprocess
import sys
import time

import assemble
from guest import Run, programs
import layout
import restated
from results import SUMMARY, Results
import series_check

ROOT = layout.ROOT
LOGS = layout.CHECK_LOGS

# How long a guest may take, in seconds, before vm-run kills it, for the
# scripts a suite runs besides its declared one; each is several times
# what the run takes on a loaded 2-core machine under TCG.
TIMEOUT_SCRIPT = 300        # a boot and a script of a few seconds
TIMEOUT_HANG = 45           # the harness's own test of a guest that hangs
TIMEOUT_NOKMEM = 600        # the nokmem boot's refused limit
TIMEOUT_INSTALLED = 600     # a boot of the kernel our package installed


@dataclasses.dataclass
class Suite:
    """A suite of make check: run(guest, r, suite) makes its checks,
    booting @script in @guest ("busybox" or "debian") on each of @kernels,
    and of @full_kernels too with --full (make check FULL=1), each boot
    killed after @timeout seconds. @seconds is about how long the whole
    suite takes without --full, to start the longest first with --jobs.
    @distro says how make distro-check runs it on the distribution's
    kernels: {"kernels": "both" or "ours", and fields to replace}, or, as a
    string, why it does not."""
    name: str
    what: str
    run: object
    seconds: int
    script: str = None
    guest: str = "busybox"
    kernels: tuple = ()
    timeout: int = TIMEOUT_SCRIPT
    append: str = ""
    full_kernels: tuple = ()
    distro: object = None

    def booted(self, full):
        """The kernels the suite boots, with --full or without."""
        return self.kernels + (self.full_kernels if full else ())


class Guest:
    """Boots make check's kernels: "patched-debug" is the debug flavour
    of our kernel, booted from its object folder."""

    def __init__(self, args):
        self.args = args

    @staticmethod
    def image(kernel):
        """kernel is base|patched, then -debug|-fast: patched-debug."""
        return layout.image(*kernel.split("-"))

    def boot(self, kernel, guest, image):
        """Run's fields that say what boots: the image and the guest."""
        if guest == "debian":
            return {"image": image or self.image(kernel), "guest": guest,
                    "rootfs": self.args.rootfs}
        return {"image": image or self.image(kernel),
                "initramfs": self.args.initramfs}

    def run(self, kernel, script, timeout, log, append="", image=None,
            smp="2", guest="busybox"):
        """Boot `kernel` (or `image`) with `smp` cpus in `guest`, run
        `script`; return (status, console lines)."""
        path = os.path.join(LOGS, log + ".log")
        run = Run(**self.boot(kernel, guest, image),
                  script=os.path.join(ROOT, script),
                  kernel=kernel.split("-")[0], timeout=timeout, smp=smp,
                  append=append, kvm=self.args.kvm)
        start = time.monotonic()
        with open(path, "w") as out:
            status = subprocess.run(run.argv(), stdout=out,
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


def documented_packages():
    """(package, why) rows of docs/setup.md's "What gets installed" table."""
    with open(os.path.join(ROOT, "docs", "setup.md")) as f:
        text = f.read()
    section = text.split("## What gets installed", 1)[-1].split("\n#", 1)[0]
    return re.findall(r"^\| `([^`]+)` \| (.+?) \|$", section, re.M)


# Tests of userspace/ that need no guest: (script, what it checks).
HOST_TESTS = [
    ("tests/prometheus/run.sh", "negative-dentry-metrics output, promtool "
     "check metrics and test rules"),
    ("tests/kubernetes/check.py", "the Kubernetes manifests build with "
     "kubectl kustomize, fit their types and refer to each other; the "
     "admission policy's table"),
    ("tests/apt/pin.sh", "apt, reading userspace/apt's pin, keeps our "
     "systemd over Debian's next upload, and rolls back"),
    ("tests/apt/kernel.sh", "make repo gives each kernel a metapackage and "
     "keeps earlier builds; apt upgrade brings a kernel on a newer base"),
]


def harness_suite(guest, r, suite):
    listed = subprocess.run([os.path.join(ROOT, "harness", "deps.sh"),
                             "--list"], capture_output=True, text=True,
                            check=True).stdout
    want = [tuple(line.split(" ", 1)) for line in listed.splitlines()]
    r.check(documented_packages() == want,
            "docs/setup.md lists the packages harness/deps.sh installs",
            f"docs/setup.md {documented_packages()} != deps.sh {want}")
    copied, wrong = restated.check()
    r.check(copied and not wrong, "the selftests' copies of the kernel's "
            f"constants match it ({len(copied)} in negative_dentry_util.h)",
            "; ".join(wrong) or "none found")
    import mutants  # it imports this module
    for mutant in mutants.MUTANTS:
        stale = mutants.mutated(mutant)[1]
        r.check(not stale, f"make mutants: {mutant.name} still applies to "
                "the patched tree", "; ".join(stale))
    for script, what in HOST_TESTS:
        res = subprocess.run([os.path.join(ROOT, script)],
                             capture_output=True, text=True)
        lines = (res.stdout + res.stderr).splitlines()
        for line in lines[-40:] if res.returncode else []:
            print(f"    {line}")
        r.check(res.returncode == 0, f"{script}: {what}",
                "; ".join(l for l in lines if l.startswith("not ok")))
    kernel = suite.kernels[0]
    status, _ = guest.run(kernel, "tests/harness/exit3.sh", suite.timeout,
                          "exit3")
    r.check(status == 3, "vm-run exits with the script's status",
            f"got {status}, want 3")
    status, lines = guest.run(kernel, "tests/harness/warn.sh",
                              suite.timeout, "warn")
    warned = any("WARNING: CPU:" in l and "lkdtm" in l for l in lines)
    r.check(status == 99 and warned, "a kernel WARN fails the run",
            f"got {status}, want 99 with the lkdtm WARNING reported")
    status, lines = guest.run(kernel, "tests/harness/kasan.sh",
                              suite.timeout, "kasan")
    reported = any("BUG: KASAN: slab-use-after-free" in l for l in lines)
    r.check(status == 99 and reported, "a KASAN report fails the run",
            f"got {status}, want 99 with KASAN's report")
    status, _ = guest.run(kernel, "tests/harness/hang.sh", TIMEOUT_HANG,
                          "hang")
    r.check(status == 124, "a guest that never finishes is killed",
            f"got {status}, want 124")
    missing = Run(**guest.boot(kernel, "busybox", None),
                  script="tests/harness/missing.sh")
    res = subprocess.run(missing.argv(), capture_output=True, text=True,
                         cwd=ROOT)
    r.check(res.returncode == 2 and "cannot read script" in res.stderr,
            "a missing script is a clear error", res.stderr.strip())


KUNIT_TOOL = "tools/testing/kunit"
SOURCE_TARBALL = "/usr/src/linux-source-6.12.tar.xz"


def kunit_tool():
    """The folder of tools/testing/kunit's parser: the base tree's, or,
    before the base is extracted (the harness's unit tests run first), the
    parser's two files taken from Debian's source tarball."""
    tree = os.path.join(layout.src("base"), KUNIT_TOOL)
    if os.path.exists(os.path.join(tree, "kunit_parser.py")):
        return tree
    own = os.path.join(layout.BUILD, "kunit-tool")
    if not os.path.exists(os.path.join(own, "kunit_printer.py")):
        os.makedirs(own, exist_ok=True)
        subprocess.run(["tar", "-xJf", SOURCE_TARBALL, "-C", own,
                        "--strip-components=4", "--wildcards",
                        f"*/{KUNIT_TOOL}/kunit_parser.py",
                        f"*/{KUNIT_TOOL}/kunit_printer.py"], check=True)
    return own


def kunit_parser():
    """tools/testing/kunit's KTAP parser, silenced: it prints its own
    report as it parses."""
    sys.path.insert(0, kunit_tool())
    import kunit_parser as parser  # pylint: disable=import-outside-toplevel
    import kunit_printer  # pylint: disable=import-outside-toplevel
    if not isinstance(parser.stdout._output, io.StringIO):
        parser.stdout = kunit_printer.Printer(io.StringIO())
    return parser


# kselftest.h writes a skip as "ok N # SKIP name", where KTAP, and the
# parser, has "ok N name # SKIP"; and the cgroup selftests of 6.12 write
# no version line, which the parser starts at.
KSFT_SKIP = re.compile(r"^(\s*(?:not )?ok \d+) # SKIP (.*)$")


def as_ktap(lines):
    """One program's TAP as the parser reads it."""
    out = []
    for line in lines:
        m = KSFT_SKIP.match(line)
        out.append(f"{m.group(1)} {m.group(2)} # SKIP" if m else line)
    if not any("TAP version" in line for line in out):
        out.insert(0, "TAP version 13")
    return out


STATUS = {"SUCCESS": "pass", "SKIPPED": "skip"}


def parse_selftests(lines):
    """The results of the kselftest programs a guest script ran, read with
    the kernel's KTAP parser: {(program, test): pass|fail|skip}. A test a
    program's plan promised and never reported is "crashed"."""
    parser = kunit_parser()
    results = {}
    for prog, chunk in programs(lines):
        top = parser.parse_run_tests(as_ktap(chunk))
        for case in top.subtests:
            name = case.name or "crashed"
            results[(prog, name)] = STATUS.get(case.status.name, "fail")
    return results


def declared_tests(source):
    """The tests a selftest declares: the T(name) of a cgroup selftest's
    tests[], or kselftest_harness's TEST_F(fixture, name) and
    TEST_F_TIMEOUT(fixture, name, seconds), which it reports as
    fixture.name."""
    with open(source) as f:
        text = f.read()
    return re.findall(r"^\s*T\((\w+)\)", text, re.M) + \
        [f"{fix}.{name}" for fix, name in
         re.findall(r"^TEST_F(?:_TIMEOUT)?\((\w+), (\w+)[,)]", text, re.M)]


# make distro-check's kernels, built from Debian's configurations. Their
# known results come from its Debian guest, so they share one flavour in
# the lists of known results: distro.
DISTRO_FLAVOURS = ("cloud", "debian")


def known_results(path, flavour):
    """Lines 'program test flavour result reason' where flavour is debug,
    fast, distro (any of DISTRO_FLAVOURS) or any and result is fail, skip,
    retry (must pass in one of UPSTREAM_RUNS runs) or flaky (any result)."""
    wanted = {"any", flavour}
    if flavour in DISTRO_FLAVOURS:
        wanted.add("distro")
    known = {}
    with open(os.path.join(ROOT, path)) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                prog, test, where, result, reason = line.split(None, 4)
                if where in wanted:
                    known[(prog, test)] = (result, reason.strip())
    return known


def upstream_suite(guest, r, suite):
    """On the suite's kernels; with --full (make check FULL=1) on the debug
    ones too, which takes 3 minutes more of make check's budget."""
    flavours = sorted({k.split("-")[1] for k in suite.kernels})
    if guest.args.full and "debug" not in flavours:
        flavours.insert(0, "debug")
    for flavour in flavours:
        upstream_pair(guest, r, suite, flavour)


# A test listed "retry" fails now and then on both kernels alike: it must
# pass in one of this many runs of its program on each.
UPSTREAM_RUNS = 3


def upstream_rerun(guest, suite, kernel, key):
    """Run key's program alone again on kernel; return key's result."""
    folder = os.path.join(LOGS, "upstream-rerun")
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(ROOT, suite.script), folder)
    with open(os.path.join(folder, "programs"), "w") as f:
        f.write(key[0] + "\n")
    status, lines = guest.run(kernel, os.path.join(
        folder, os.path.basename(suite.script)), suite.timeout,
        f"upstream-rerun-{kernel}-{key[1]}", guest=suite.guest)
    return parse_selftests(lines).get(key, f"no result (vm-run {status})")


def upstream_pair(guest, r, suite, flavour):
    """Each result must be the known one (pass, or as listed); if the base
    kernel of the flavour was built (make check FULL=1 for debug), ours
    must also give the base's results."""
    known = known_results("tests/upstream/known-results", flavour)
    seen = {}
    for kernel in ("base", "patched"):
        if f"{kernel}-{flavour}" not in guest.args.kernels.split():
            continue
        status, lines = guest.run(f"{kernel}-{flavour}", suite.script,
                                  suite.timeout,
                                  f"upstream-{kernel}-{flavour}",
                                  guest=suite.guest)
        kernel = f"{kernel}-{flavour}"
        r.check(status == 0, f"upstream selftests on {kernel}: clean run",
                f"vm-run status {status}")
        results = parse_selftests(lines)
        for prog in UPSTREAM_SELFTESTS:
            want = declared_tests(os.path.join(
                layout.src("base"), "tools/testing/selftests/cgroup",
                prog + ".c"))
            missing = [t for t in want if (prog, t) not in results]
            r.check(want and not missing, f"{kernel} {prog} ran all its "
                    f"{len(want)} tests", f"no result for {missing}")
        for key, got in sorted(results.items()):
            want, reason = known.get(key, ("pass", ""))
            name = f"{kernel} {key[0]} {key[1]}"
            if want == "flaky":
                print(f"  ({name}: {got}; flaky: {reason})")
                continue
            if want == "retry":
                runs = [got]
                while runs[-1] != "pass" and len(runs) < UPSTREAM_RUNS:
                    runs.append(upstream_rerun(guest, suite, kernel, key))
                if len(runs) > 1:
                    print(f"  ({name}: {', '.join(runs)}; retry: {reason})")
                got = results[key] = runs[-1]
                want = "pass"
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
    ok, report = series_check.checkpatch(patch, *flags)
    for line in report.splitlines():
        print(f"    {line}")
    r.check(ok, f"checkpatch --strict {name}")


def checkpatch_suite(guest, r, suite):
    """The combined patch, and each patch of build/series (make patch) as
    it would be mailed, with the new files it adds."""
    checkpatch(r, "the combined patch", os.path.abspath(guest.args.patch),
               "--no-signoff")
    names = sorted(n for n in os.listdir(layout.SERIES_OUT)
                   if n.endswith(".patch") and "cover-letter" not in n)
    r.check(names, "make patch wrote the series", layout.SERIES_OUT)
    for name in names:
        checkpatch(r, f"build/series/{name}",
                   os.path.join(layout.SERIES_OUT, name))


def w1_warnings(kernel, objects):
    """W=1 warnings per source file, compiling @objects of @kernel in an
    object directory of their own, configured like the fast kernel."""
    obj = layout.obj(kernel, "w1")
    os.makedirs(obj, exist_ok=True)
    shutil.copy(os.path.join(layout.obj(kernel, "fast"), ".config"),
                os.path.join(obj, ".config"))
    make = ["make", "-s", "-C", layout.src(kernel),
            f"O={obj}", "CC=ccache gcc", f"-j{os.cpu_count()}"]
    env = dict(os.environ, **layout.ccache_env())
    subprocess.run(make + ["olddefconfig"], check=True, env=env)
    res = subprocess.run(make + ["W=1"] + objects, capture_output=True,
                         text=True, env=env)
    counts = {}
    for line in res.stderr.splitlines():
        m = re.match(r".*?/src/\w+/(\S+?):\d+:\d+: warning:", line)
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
            print(f"    {kernel}: {line}")
    return res.returncode, counts


def w1_suite(guest, r, suite):
    """No new W=1 warnings in the C files our kernel touches."""
    with open(os.path.join(layout.src("patched"), ".negdentry-manifest")) as f:
        sources = [p for p in f.read().split() if p.endswith(".c") and
                   p.split("/")[0] in ("fs", "mm") and "/tests/" not in p]
    objects = [p[:-2] + ".o" for p in sources]
    ours_status, ours = w1_warnings("patched", objects)
    r.check(ours_status == 0, "W=1 build of the touched files")
    base_status, base = w1_warnings(
        "base", [o for o in objects
                 if os.path.exists(os.path.join(layout.src("base"),
                                                o[:-2] + ".c"))])
    for src in sources:
        r.check(ours.get(src, 0) <= base.get(src, 0), f"W=1 {src}",
                f"{ours.get(src, 0)} warnings, base has {base.get(src, 0)}")


def kunit_suites():
    """The KUnit suites the series declares: the .name of each struct
    kunit_suite in the *_kunit.c files that patches/series adds."""
    names = []
    for path in (f for _, files in assemble.series_entries(
            os.path.join(ROOT, "patches")) for f in files):
        if path.endswith("_kunit.c"):
            with open(os.path.join(ROOT, path)) as f:
                names += re.findall(r"struct kunit_suite \w+ = \{\s*"
                                    r'\.name = "(\w+)"', f.read())
    return names



def kunit_suite(guest, r, suite):
    parser = kunit_parser()
    for kernel in suite.kernels:
        status, lines = guest.run(kernel, suite.script, suite.timeout,
                                  f"kunit-{kernel}", append=suite.append)
        r.check(status == 0, f"{kernel} kunit boot: clean run",
                f"vm-run status {status}")
        top = parser.parse_run_tests(lines)
        ran = {test.name: test for test in top.subtests}
        for name in kunit_suites():
            test = ran.get(name)
            if not r.check(test and test.subtests,
                           f"{kernel} kunit {name} ran", "no results"):
                continue
            for case in test.subtests:
                r.check(case.status == parser.TestStatus.SUCCESS,
                        f"{kernel} kunit {name}.{case.name}",
                        case.status.name)


def program_list(path):
    """The lines of a program list (tests/*/programs), split into words,
    less comments."""
    with open(os.path.join(ROOT, path)) as f:
        return [line.split() for line in f
                if line.strip() and not line.startswith("#")]


# {program: the C file under tools/testing/selftests that declares its
# tests}, and the upstream programs make check runs.
OUR_SELFTESTS = {words[0]: words[1] for words in
                 program_list("tests/negative-dentry/programs")}
UPSTREAM_SELFTESTS = [words[0] for words in
                      program_list("tests/upstream/programs")]


# The tests make check leaves out on its debug kernel, some ten times
# slower under TCG than the fast one, where they take one to four minutes
# each (17 of the 25 minutes the two programs took there): their point is
# volume, floods of 100,000 names or more dentries than a kernel constant
# (a run's budget of 65,536, the kill threshold of 10,000), and the tests
# left in take the same paths with fewer. They run on the fast kernel, and
# with FULL=1 on the debug one too.
VOLUME_TESTS = {
    "dentry_dir_max": ("dir_max.any_name_length", "dir_max.bounds_a_flood",
                       "dir_max.rename_keeps_the_directory_limit"),
    "test_negative_dentry": ("test_negdentry_limit",
                             "test_negdentry_rmdir_drains",
                             "test_negdentry_drain_behind_positives",
                             "test_negdentry_drain_past_budget_keeps_lru_order",
                             "test_negdentry_limit_behind_positives",
                             "test_negdentry_reclaim_stops_when_frozen"),
}


def selftests_suite(guest, r, suite):
    for kernel in suite.kernels:
        left_out = {(prog, test) for prog, tests in VOLUME_TESTS.items()
                    for test in tests} \
            if kernel.endswith("-debug") and not guest.args.full else set()
        exclude = ",".join(sorted(f"{p}:{t}" for p, t in left_out))
        status, lines = guest.run(
            kernel, suite.script, suite.timeout, f"selftests-{kernel}",
            guest=suite.guest,
            append=f"selftests.exclude={exclude}" if exclude else "")
        r.check(status == 0, f"{kernel} selftests: clean run",
                f"vm-run status {status}")
        results = parse_selftests(lines)
        for prog, source in OUR_SELFTESTS.items():
            declared = declared_tests(os.path.join(
                layout.src("patched"), "tools/testing/selftests", source))
            undeclared = set(VOLUME_TESTS.get(prog, ())) - set(declared)
            r.check(not undeclared, f"{kernel} {prog}: the tests left out "
                    "on the debug kernel exist", f"no {sorted(undeclared)}")
            r.check(declared, f"{kernel} {prog} declares tests",
                    f"none found in {source}")
            for test in declared:
                got = results.get((prog, test), "missing")
                if (prog, test) not in left_out:
                    r.check(got == "pass", f"{kernel} {prog} {test}", got)
                elif got == "missing":
                    r.skip(f"{kernel} {prog} {test}",
                           "a volume test, left out here (FULL=1 runs it)")
                else:
                    r.check(False, f"{kernel} {prog} {test} is left out", got)
        # 64 cpus possible and 2 online, as make bench boots
        status, lines = guest.run(kernel, "tests/negative-dentry/possible-cpus.sh",
                                  TIMEOUT_SCRIPT, f"possible-cpus-{kernel}",
                                  append="maxcpus=2", smp="64",
                                  guest=suite.guest)
        got = parse_selftests(lines).get(
            ("test_negative_dentry", "test_negdentry_many_children"),
            "missing")
        r.check(status == 0 and got == "pass", f"{kernel} 64 cpus possible: "
                "test_negdentry_many_children", f"status {status}, {got}")
        status, _ = guest.run(kernel, "tests/negative-dentry/nokmem.sh",
                              TIMEOUT_NOKMEM, f"nokmem-{kernel}",
                              append="cgroup.memory=nokmem", guest=suite.guest)
        r.check(status == 0, f"{kernel} cgroup.memory=nokmem: a limit is "
                "refused", f"vm-run status {status}")


def quick_bench(guest, out, *flags):
    """Run make bench's quick form into @out; print its boots' outcome."""
    res = subprocess.run([os.path.join(ROOT, "harness", "bench.py"),
                          "--initramfs", guest.args.initramfs, "--quick",
                          "--rounds", "1", "--out", out, *flags],
                         capture_output=True, text=True)
    for line in res.stdout.splitlines() + res.stderr.splitlines():
        if line.startswith(("bench:", "    | ")) or "status" in line:
            print(f"    {line}")
    return res


def bench_suite(guest, r, suite):
    """make bench's quick mode, wall clock and ICOUNT=1, runs to the end and
    produces numbers, and make insn-trace's steps through its first calls:
    so that neither can rot. No timing or count is judged."""
    out = os.path.join(layout.BUILD, "bench-quick")
    res = quick_bench(guest, out)
    r.check(res.returncode == 0, "bench quick mode: numbers for every "
            "scenario on both kernels", res.stderr.strip()[-300:])
    for png in ("runaway.png", "teardown.png"):
        path = os.path.join(out, png)
        r.check(os.path.exists(path) and os.path.getsize(path) > 0,
                f"bench quick mode: {png}")
    if not guest.args.full:
        return  # the instruction clock's quick forms: make check FULL=1
    res = quick_bench(guest, os.path.join(layout.BUILD, "bench-icount-quick"),
                      "--icount")
    r.check(res.returncode == 0, "bench ICOUNT=1 quick mode: numbers for "
            "every operation on both kernels", res.stderr.strip()[-300:])
    res = subprocess.run([os.path.join(ROOT, "harness", "insn_trace.py"),
                          "--initramfs", guest.args.initramfs, "--quick",
                          "--out", os.path.join(layout.BUILD, "insn-quick")],
                         capture_output=True, text=True)
    r.check(res.returncode == 0, "make insn-trace quick mode: every marked "
            "call stepped on both kernels",
            (res.stdout + res.stderr).strip()[-300:])


# What our systemd adds to the D-Bus API, and where its man page lists it.
DBUS_PROPERTIES = {"Manager": ["DefaultMemoryNegativeDentryMax"]}
for unit_type in ("Service", "Socket", "Mount", "Swap", "Slice", "Scope"):
    DBUS_PROPERTIES[unit_type] = ["MemoryNegativeDentryMax",
                                "MemoryNegativeDentryCurrent"]


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


def userspace_suite(guest, r, suite):
    """systemd, podman, crun, runc, OCI bundles and libcgroup in the Debian
    guest; our systemd's own unit tests; our kernel's package."""
    obj = os.path.join(layout.BUILD, "systemd", "obj")
    res = subprocess.run([os.path.join(obj, "test-load-fragment")],
                         capture_output=True, text=True)
    r.check(res.returncode == 0, "systemd test-load-fragment (with "
            "config_parse_negative_dentry_max)", res.stderr[-300:])
    tree = os.path.join(layout.BUILD, "systemd", "tree")
    res = subprocess.run(["bash", os.path.join(tree, "tools",
                                               "check-directives.sh"),
                          tree, obj],
                         capture_output=True, text=True)
    r.check(res.returncode == 0, "systemd check-directives",
            (res.stdout + res.stderr)[-300:])
    missing = undocumented_dbus_properties(tree)
    r.check(not missing, "org.freedesktop.systemd1(5) lists our D-Bus properties "
            "on the manager and every unit type", f"missing: {missing}")
    tap_suite(guest, r, suite)
    # The kernel the Debian guest has installed from our package.
    boot = os.path.join(guest.args.rootfs, "boot")
    images = sorted(f for f in os.listdir(boot) if f.startswith("vmlinuz-"))
    if r.check(images, "our kernel package installed a kernel", "no vmlinuz"):
        status, lines = guest.run("patched", "tests/userspace/installed.sh",
                                  TIMEOUT_INSTALLED, "userspace-installed",
                                  image=os.path.join(boot, images[-1]),
                                  guest="debian")
        r.check(status == 0, f"the installed {images[-1]} boots and runs",
                "\n".join(l for l in lines if l.startswith("#"))[-300:])


def tap_suite(guest, r, suite):
    """The suite's script on each of its kernels, as tap_run() judges it."""
    for kernel in suite.kernels:
        tap_run(guest, r, suite, kernel)


def tap_run(guest, r, suite, kernel, append=None):
    """Boot @kernel, run the suite's script, which frames TAP programs as
    tests/userspace/tap.sh does: every test must pass, the run must be
    clean."""
    name = suite.name
    status, lines = guest.run(kernel, suite.script, suite.timeout,
                              f"{name}-{kernel}", guest=suite.guest,
                              append=suite.append if append is None else append)
    r.check(status == 0, f"{kernel} {name}: clean run",
            f"vm-run status {status}")
    results = parse_selftests(lines)
    r.check(results, f"{kernel} {name}: tests ran", "no TAP")
    for (prog, test), got in sorted(results.items()):
        r.check(got == "pass", f"{kernel} {prog}: {test}", got)


def filesystems_suite(guest, r, suite):
    """tests/userspace/filesystems.sh, in the Debian guest, on the fast
    patched kernel; with FULL=1 on the debug one too, for lockdep and
    KASAN under each filesystem's own locking (its 2.5 minutes with floods
    of a third the size were the first to go from make check's hour)."""
    for kernel in suite.booted(guest.args.full):
        tap_run(guest, r, suite, kernel)


def stress_suite(guest, r, suite):
    """build/stress/stress.sh (tests/stress, staged by make with stress-ng)
    for --stress-duration seconds of load; the suite's timeout is what
    its checks may take beyond that."""
    for kernel in suite.kernels:
        stress_run(guest, r, suite, kernel)


def stress_run(guest, r, suite, kernel):
    duration = guest.args.stress_duration
    status, lines = guest.run(kernel, suite.script, duration + suite.timeout,
                              f"stress-{kernel}", guest=suite.guest,
                              append=f"stress.duration={duration} {suite.append}")
    for line in lines:
        if line.startswith("# ") and not line.startswith("# not ok"):
            print(f"    {line}")
    r.check(status == 0, f"{kernel} stress {duration} s: a clean run",
            f"vm-run status {status}")
    results = parse_selftests(lines)
    r.check(results, f"{kernel} stress: its checks ran", "no TAP")
    for (_, test), got in sorted(results.items()):
        r.check(got == "pass", f"{kernel} stress: {test}", got)


SUITES = [
    Suite("harness", "vm-run's own promises (exit status, WARN, KASAN, "
          "timeout, bad script); docs/setup.md's package table is what "
          "harness/deps.sh installs; the host tests of userspace/ "
          "(HOST_TESTS); every mutant of make mutants still applies; the "
          "selftests' copies of the kernel's constants match it",
          harness_suite, 85, kernels=("patched-debug",),
          distro="checks of the harness and the host, the same whatever "
          "kernel"),
    Suite("upstream", "the cgroup selftests test_core, test_kmem and "
          "test_memcontrol: each result the one tests/upstream/known-results "
          "expects, and ours the base's", upstream_suite, 200,
          script="tests/upstream/run.sh", kernels=("base-fast", "patched-fast"),
          timeout=2400, distro={"kernels": "both"}),
    Suite("kunit", "our KUnit suites at boot, read with tools/testing/kunit's "
          "parser", kunit_suite, 15, script="tests/kunit/run.sh",
          kernels=("patched-debug", "patched-fast"), timeout=600,
          append="kunit.enable=1 kunit.filter_glob=*negative_dentry*",
          distro="Debian's configurations build no KUnit"),
    Suite("selftests", "our kselftests, every test they declare; a boot "
          "with 64 CPUs possible, where a parent's limit binds over many "
          "children; a boot with cgroup.memory=nokmem, where a limit is "
          "refused", selftests_suite, 560,
          script="tests/negative-dentry/run.sh",
          kernels=("patched-debug", "patched-fast"), timeout=3600,
          distro={"kernels": "ours"}),
    Suite("checkpatch", "checkpatch.pl --strict over the combined patch and "
          "each patch of the series as mailed", checkpatch_suite, 60,
          distro="a check of the source, whatever the configuration"),
    Suite("w1", "the C files we change have no more W=1 warnings than the "
          "base's", w1_suite, 120,
          distro="a check of the source, whatever the configuration"),
    Suite("bench", "make bench's quick mode runs to the end (FULL=1: also "
          "ICOUNT=1 and insn-trace)", bench_suite, 240,
          distro="make bench boots the test kernels; nothing is timed on "
          "the distribution's"),
    Suite("userspace", "systemd, containers, the metrics and our kernel "
          "package in the Debian guest; our systemd's own unit tests",
          userspace_suite, 260, script="tests/userspace/run.sh",
          guest="debian", kernels=("patched-fast", "base-fast"),
          timeout=1800, distro={"kernels": "both", "run": "tap_suite",
                                "timeout": 3600}),
    Suite("filesystems", "both limits on ext4, xfs, btrfs, tmpfs, overlayfs, "
          "fuse-overlayfs and NFSv4, in the Debian guest (FULL=1: on the "
          "debug kernel too)", filesystems_suite, 100,
          script="tests/userspace/filesystems.sh", guest="debian",
          kernels=("patched-fast",), full_kernels=("patched-debug",),
          timeout=1800, distro={"kernels": "ours"}),
    Suite("stress", "load, cgroup churn, mounts, freezes and injected "
          "faults, then what must hold afterwards", stress_suite, 220,
          script="build/stress/stress.sh", kernels=("patched-debug",),
          timeout=1200, append="kmemleak=on",
          distro={"kernels": "ours", "append": "stress.faults=off"}),
]
SUITE = {suite.name: suite for suite in SUITES}


def run_suites(guest, r, suites):
    """Run @suites in this process, in order; print each's checks."""
    for suite in suites:
        name = suite.name
        print(f"[{name}]", flush=True)
        start = time.monotonic()
        suite.run(guest, r, suite)
        print(f"  ({name}: {time.monotonic() - start:.0f} s{since_start()})",
              flush=True)


def since_start():
    """How long make check has run, from CHECK_STARTED (seconds since the
    epoch, which the Makefile sets), so that the tail of a run cut short
    says where the time went."""
    started = os.environ.get("CHECK_STARTED", "")
    if not started.isdigit():
        return ""
    return f"; {(time.time() - int(started)) / 60:.0f} min since make check began"


def run_suites_at_once(args):
    """Run args.suites as args.jobs children of this script at most at a
    time, longest first; return the counts of them all."""
    base = [sys.executable, os.path.abspath(__file__), "--jobs", "1",
            "--initramfs", args.initramfs, "--kernels", args.kernels,
            "--stress-duration", str(args.stress_duration)]
    if args.full:
        base.append("--full")
    for opt in ("patch", "rootfs"):
        if getattr(args, opt):
            base += [f"--{opt}", getattr(args, opt)]
    if args.kvm:
        base.append("--kvm")
    names = sorted(args.suites, key=lambda n: -SUITE[n].seconds)
    return run_at_once({n: base + [n] for n in names}, args.jobs, LOGS)


def run_at_once(commands, jobs, logs):
    """Run @commands (name: argv, first first), @jobs at a time, each
    ending in a Results summary; print each one's output when it ends, in
    logs/suite-<name>.out meanwhile. Return the Results of them all, a
    child that printed no summary counting as one failure."""
    waiting, running = list(commands), {}
    total = Results()
    while waiting or running:
        while waiting and len(running) < jobs:
            name = waiting.pop(0)
            out = open(os.path.join(logs, f"suite-{name}.out"), "w+")
            running[name] = (subprocess.Popen(
                commands[name], stdout=out, stderr=subprocess.STDOUT),
                out, time.monotonic())
        time.sleep(0.2)
        for name, (proc, out, start) in list(running.items()):
            if proc.poll() is None:
                continue
            del running[name]
            out.seek(0)
            lines = out.read().splitlines()
            out.close()
            tally = SUMMARY.fullmatch(lines[-1] if lines else "")
            for line in lines[:-1] if tally else lines:
                print(line)
            print(f"  ({name}: {time.monotonic() - start:.0f} s{since_start()})",
                  flush=True)
            if tally:
                total.add(tally)
            else:
                total.check(False, f"{name} ended with its tally",
                            f"status {proc.returncode}")
    return total


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
    ap.add_argument("--full", action="store_true",
                    help="also the upstream selftests on the debug kernels, "
                    "the filesystems suite on ours and the "
                    "instruction-clock quick runs (FULL=1)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="suites run at once, each in a child of this "
                    "script (1: in order, here)")
    ap.add_argument("--list", action="store_true",
                    help="print the suites and what each checks")
    ap.add_argument("suites", nargs="*", default=list(SUITE),
                    help=f"some of: {' '.join(SUITE)}")
    if "--list" in sys.argv[1:]:
        for suite in SUITES:
            print(f"{suite.name}: {suite.what}")
        return 0
    args = ap.parse_args()
    unknown = [n for n in args.suites if n not in SUITE]
    if unknown:
        ap.error(f"no suite {' '.join(unknown)}; the suites: "
                 f"{' '.join(SUITE)}")
    os.makedirs(LOGS, exist_ok=True)
    r = Results()
    if args.jobs > 1 and len(args.suites) > 1:
        r = run_suites_at_once(args)
    else:
        run_suites(Guest(args), r, [SUITE[n] for n in args.suites])
    print(r.summary())
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
