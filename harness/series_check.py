#!/usr/bin/python3
"""make series-check: every patch of the series builds and passes checkpatch.

For each patch of build/series (make patch), in order, on the base: check
out its commit in build/src/series, configure the fast kernel's options
afresh (a patch may add options), build fs/ and mm/ incrementally, check
that every symbol their objects use is defined (by an object of fs/ or mm/,
or in the base kernel's System.map: the rest of the kernel), and run
scripts/checkpatch.pl --strict on the patch as mailed, new files included.
Then build fs/ and mm/ of the last patch with CONFIG_NEGATIVE_DENTRY_LIMITS
off, and with it on but CONFIG_MEMCG off (the directory limit alone). Logs
in build/series-check/; ends with "N passed, N failed".
"""
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

import layout
from results import Results

ROOT = layout.ROOT
TREE = layout.src("series")
FRAGMENTS = ("guest", "test", "fast", "patched")
# The whole series in the other configurations it must build in.
VARIANTS = {
    "off": ("CONFIG_NEGATIVE_DENTRY_LIMITS=n\n",
            "CONFIG_NEGATIVE_DENTRY_LIMITS off"),
    "nomemcg": ("CONFIG_MEMCG=n\n", "CONFIG_MEMCG off (no cgroup limit)"),
}
# The trees here have no upstream history, so checkpatch cannot look up a
# commit id a message cites (our Fixes: tags); it still checks their form.
# A backport also keeps upstream's message: its commit ids as upstream
# wrote them, and upstream's wording. Its code is checked like ours.
ALWAYS_IGNORE = "UNKNOWN_COMMIT_ID"
BACKPORT_IGNORE = "GIT_COMMIT_ID,UNKNOWN_COMMIT_ID,REPEATED_WORD"


def is_backport(patch):
    """Its message says "commit <sha1> upstream.", as stable backports do."""
    with open(patch, errors="replace") as f:
        return re.search(r"^commit [0-9a-f]{40} upstream\.$", f.read(),
                         re.M) is not None


def checkpatch(patch, *flags):
    """checkpatch --strict of @patch; (passed, its report)."""
    flags += ("--ignore",
              BACKPORT_IGNORE if is_backport(patch) else ALWAYS_IGNORE)
    res = subprocess.run(["perl", "scripts/checkpatch.pl", "--strict",
                          "--terse", "--show-types", *flags, patch],
                         cwd=TREE, capture_output=True, text=True)
    return res.returncode == 0, res.stdout


def kmake(obj, *targets, log=None):
    cmd = ["make", "-s", "-C", TREE, f"O={obj}", "CC=ccache gcc",
           "HOSTCC=ccache gcc", f"-j{os.cpu_count()}", *targets]
    env = dict(os.environ, **layout.ccache_env())
    with open(log or os.devnull, "a") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT,
                              env=env).returncode


def configure(obj, extra=""):
    """tinyconfig and the fast kernel's fragments, resolved by this tree's
    Kconfig: options a patch has yet to add are dropped here, not earlier."""
    os.makedirs(obj, exist_ok=True)
    paths = [os.path.join(ROOT, "config", f + ".config") for f in FRAGMENTS]
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            digest.update(f.read())
    # A seed a patch's Kconfig resolves; made again when a fragment changes.
    seed = os.path.join(obj, f".config.seed-{digest.hexdigest()[:16]}")
    if not os.path.exists(seed):
        kmake(obj, "tinyconfig")
        subprocess.run([os.path.join(TREE, "scripts/kconfig/merge_config.sh"),
                        "-m", "-O", obj, os.path.join(obj, ".config"),
                        *paths],
                       check=True, capture_output=True)
        shutil.copy(os.path.join(obj, ".config"), seed)
    with open(seed) as f, open(os.path.join(obj, ".config"), "w") as out:
        out.write(f.read() + extra)
    return kmake(obj, "olddefconfig") == 0


def symbols(paths, flag):
    """The symbols nm lists with @flag (-u undefined, --defined-only)."""
    names = set()
    for i in range(0, len(paths), 200):
        res = subprocess.run(["nm", flag, *paths[i:i + 200]],
                             capture_output=True, text=True)
        for line in res.stdout.splitlines():
            words = line.split()
            if len(words) >= 2 and not line.endswith(":"):
                names.add(words[-1])
    return names


def undefined_symbols(obj, system_map):
    """Symbols the objects built into fs/ and mm/ use that neither they nor
    the base kernel define: a reference to something a later patch adds.
    The objects are those the thin archives name: an object a later patch
    left in the folder, on an earlier run, is not part of this build."""
    objects = []
    for d in ("fs", "mm"):
        archive = os.path.join(os.path.abspath(obj), d, "built-in.a")
        objects += subprocess.run(["ar", "t", archive], capture_output=True,
                                  text=True, check=True).stdout.split()
    defined = symbols(objects, "--defined-only")
    with open(system_map) as f:
        defined |= {line.split()[2] for line in f if len(line.split()) == 3}
    return sorted(symbols(objects, "-u") - defined)


def main():
    patches = sorted(glob.glob(os.path.join(layout.SERIES_OUT, "0*.patch")))
    patches = [p for p in patches if not p.endswith("-cover-letter.patch")]
    commits = subprocess.run(["git", "-C", TREE, "rev-list", "--reverse",
                              "base..series"], capture_output=True,
                             text=True).stdout.split()
    if not patches or len(patches) != len(commits):
        sys.exit("series-check: run make patch first (build/series and "
                 "build/src/series disagree)")
    system_map = os.path.join(layout.obj("base", "fast"), "System.map")
    if not os.path.exists(system_map):
        sys.exit(f"series-check: no {system_map}: build the fast base kernel "
                 "(harness/kernel.sh base fast)")
    logs = layout.SERIES_CHECK_LOGS
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    obj = layout.obj("series", "check")
    r = Results()
    for patch, commit in zip(patches, commits):
        name = os.path.basename(patch)[:-len(".patch")]
        log = os.path.join(logs, name + ".log")
        subprocess.run(["git", "-C", TREE, "checkout", "-q", commit],
                       check=True)
        start = time.monotonic()
        built = configure(obj) and kmake(obj, "fs/", "mm/", log=log) == 0
        r.check(built, f"{name}: fs/ and mm/ build "
                f"({time.monotonic() - start:.0f} s)", f"see {log}")
        if built:
            missing = undefined_symbols(obj, system_map)
            r.check(not missing, f"{name}: every symbol fs/ and mm/ use is "
                    "defined", " ".join(missing))
        ok, report = checkpatch(patch)
        for line in report.splitlines():
            print(f"    {line}")
        r.check(ok, f"{name}: checkpatch --strict")
    for name, (extra, what) in VARIANTS.items():
        other = layout.obj("series", name)
        log = os.path.join(logs, f"config-{name}.log")
        r.check(configure(other, extra) and
                kmake(other, "fs/", "mm/", log=log) == 0,
                f"the whole series with {what}: fs/ and mm/ build",
                f"see {log}")
    subprocess.run(["git", "-C", TREE, "checkout", "-q", "series"], check=True)
    print(r.summary())
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
