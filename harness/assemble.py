#!/usr/bin/python3
"""Assemble kernel trees from the pinned base, our files and patches/series.

  assemble.py tree    extract the base once into build/src/base, and bring
                      build/src/patched up to date: our files laid over the
                      base, then patches/series applied in order. Only files
                      whose content changes are rewritten, so kbuild rebuilds
                      only what depends on them.
  assemble.py diff    print one patch, base -> patched, for git apply -p1.
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
BASE = os.path.join(BUILD, "src", "base")
PATCHED = os.path.join(BUILD, "src", "patched")
TARBALL = "/usr/src/linux-source-6.12.tar.xz"
STAMP = ".negdentry-base-version"
MANIFEST = ".negdentry-manifest"


def die(msg):
    sys.exit(f"assemble: {msg}")


def pinned_version():
    with open(os.path.join(ROOT, "base-version")) as f:
        return f.read().strip()


def installed_version():
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "linux-source-6.12"],
        capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def tree_version(tree):
    try:
        with open(os.path.join(tree, STAMP)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return None


def ensure_base(version):
    """Extract the pinned base once; a new pin replaces both trees."""
    if tree_version(BASE) == version:
        return
    if installed_version() != version:
        die(f"linux-source-6.12 {version} is not installed "
            f"(have {installed_version()}); run harness/deps.sh")
    print(f"assemble: extracting linux-source-6.12 {version}", flush=True)
    for tree in (BASE, PATCHED, BASE + ".tmp"):
        shutil.rmtree(tree, ignore_errors=True)
    tmp = BASE + ".tmp"
    os.makedirs(tmp)
    subprocess.run(["tar", "-xf", TARBALL, "-C", tmp,
                    "--strip-components=1"], check=True)
    with open(os.path.join(tmp, STAMP), "w") as f:
        f.write(version + "\n")
    os.rename(tmp, BASE)


def ensure_patched_copy(version):
    if tree_version(PATCHED) == version:
        return
    print("assemble: copying base to the patched tree", flush=True)
    tmp = PATCHED + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run(["cp", "-a", BASE, tmp], check=True)
    os.rename(tmp, PATCHED)


def overlay_files():
    """Our files at kernel paths: everything under a top-level directory of
    ours that is also a top-level directory of the kernel."""
    files = []
    for top in sorted(os.listdir(ROOT)):
        if top.startswith(".") or not os.path.isdir(os.path.join(BASE, top)):
            continue
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                path = os.path.join(dirpath, name)
                files.append(os.path.relpath(path, ROOT))
    return sorted(files)


def series():
    path = os.path.join(ROOT, "patches", "series")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        names = [l.strip() for l in f]
    return [n for n in names if n and not n.startswith("#")]


def patch_targets(patch):
    """Paths a -p1 patch touches: names from '--- a/x' + '+++ b/y' pairs."""
    paths = set()
    with open(patch, errors="replace") as f:
        lines = f.read().splitlines()
    for old, new in zip(lines, lines[1:]):
        if not (old.startswith("--- ") and new.startswith("+++ ")):
            continue
        for name in (old[4:], new[4:]):
            name = name.split("\t")[0]
            if name != "/dev/null":
                paths.add(name.split("/", 1)[1])
    return paths


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def desired_contents(ours, patches):
    """Content of every file we change: base, then our files, then patches,
    computed in a scratch copy of just those files."""
    touched = set(ours)
    for p in patches:
        touched |= patch_targets(os.path.join(ROOT, "patches", p))
    with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
        for rel in touched:
            src = os.path.join(ROOT, rel) if rel in ours else \
                os.path.join(BASE, rel)
            if os.path.exists(src):
                os.makedirs(os.path.dirname(os.path.join(tmp, rel)),
                            exist_ok=True)
                shutil.copy2(src, os.path.join(tmp, rel))
        for p in patches:
            apply_patch(tmp, p)
        return {rel: read(os.path.join(tmp, rel)) for rel in touched}


def apply_patch(tree, name):
    rej = os.path.join(tree, ".rejects")
    res = subprocess.run(
        ["patch", "-p1", "--forward", "--force", "--fuzz=0",
         "--no-backup-if-mismatch",
         "-r", rej, "-d", tree, "-i", os.path.join(ROOT, "patches", name)],
        capture_output=True, text=True)
    if res.returncode == 0:
        return
    msg = [f"patches/{name} does not apply:", res.stdout + res.stderr]
    if os.path.exists(rej):
        with open(rej) as f:
            msg += ["failing hunks:", f.read()]
    die("\n".join(msg))


def sync_tree():
    version = pinned_version()
    os.makedirs(BUILD, exist_ok=True)
    ensure_base(version)
    ensure_patched_copy(version)
    ours = overlay_files()
    want = desired_contents(set(ours), series())
    old = read(os.path.join(PATCHED, MANIFEST))
    for rel in (old.decode().split() if old else []):
        want.setdefault(rel, read(os.path.join(BASE, rel)))
    changed = []
    for rel, content in sorted(want.items()):
        dst = os.path.join(PATCHED, rel)
        if read(dst) == content:
            continue
        changed.append(rel)
        if content is None:
            os.remove(dst)
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst + ".tmp", "wb") as f:
            f.write(content)
        src = os.path.join(BASE, rel)
        shutil.copymode(src if os.path.exists(src) else
                        os.path.join(ROOT, rel), dst + ".tmp")
        os.replace(dst + ".tmp", dst)
    with open(os.path.join(PATCHED, MANIFEST), "w") as f:
        f.write("".join(f"{rel}\n" for rel in sorted(want)
                        if want[rel] != read(os.path.join(BASE, rel))))
    for rel in changed:
        print(f"assemble: updated {rel}")


def diff():
    """One patch of base -> patched over the files we change."""
    listed = read(os.path.join(PATCHED, MANIFEST))
    for rel in (listed.decode().split() if listed else []):
        old, new = os.path.join(BASE, rel), os.path.join(PATCHED, rel)
        res = subprocess.run(
            ["diff", "-u",
             "--label", f"a/{rel}" if os.path.exists(old) else "/dev/null",
             "--label", f"b/{rel}" if os.path.exists(new) else "/dev/null",
             old if os.path.exists(old) else "/dev/null",
             new if os.path.exists(new) else "/dev/null"],
            capture_output=True)
        if res.returncode > 1:
            die(res.stderr.decode())
        sys.stdout.buffer.write(res.stdout)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "tree":
        sync_tree()
    elif cmd == "diff":
        diff()
    else:
        sys.exit(__doc__)
