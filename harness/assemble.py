#!/usr/bin/python3
"""Assemble source trees from a pinned base, our files and a patch series.

  assemble.py tree    the kernel: extract the base once into build/src/base,
                      and bring build/src/patched up to date: our files laid
                      over the base, then patches/series applied in order
  assemble.py diff    print one patch, kernel base -> patched, for git apply
  assemble.py sync BASE PATCHED PATCHDIR
                      any other tree: bring PATCHED up to date with BASE and
                      PATCHDIR/series (used for userspace/systemd)

PATCHDIR/series names the patches in order, one per line; under a patch,
one per indented line, the new files it adds, which live in the repository at
their kernel paths (harness/series.py makes a patch of each with them).
Every file of ours at a kernel path must be named there exactly once.

Only files whose content changes are rewritten, so builds redo only what
depends on them. A patch that does not apply stops with its name and the
failing hunk.
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
KERNEL_BASE = os.path.join(BUILD, "src", "base")
KERNEL_PATCHED = os.path.join(BUILD, "src", "patched")
PATCHES = os.path.join(ROOT, "patches")
TARBALL = "/usr/src/linux-source-6.12.tar.xz"
STAMP = ".negdentry-base-version"
MANIFEST = ".negdentry-manifest"


def die(msg):
    sys.exit(f"assemble: {msg}")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def tree_version(tree):
    text = read(os.path.join(tree, STAMP))
    return text.decode().strip() if text else None


def series_entries(patchdir):
    """[(patch, [new files it adds])] of @patchdir/series, in order."""
    text = read(os.path.join(patchdir, "series"))
    entries = []
    for line in (text.decode().split("\n") if text else []):
        if not line.strip() or line.startswith("#"):
            continue
        if line[0].isspace():
            if not entries:
                die(f"{patchdir}/series: '{line.strip()}' before any patch")
            entries[-1][1].append(line.strip())
        else:
            entries.append((line.strip(), []))
    return entries


def series(patchdir):
    return [patch for patch, _ in series_entries(patchdir)]


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


def apply_patch(tree, patchdir, name):
    rej = os.path.join(tree, ".rejects")
    res = subprocess.run(
        ["patch", "-p1", "--forward", "--force", "--fuzz=0",
         "--no-backup-if-mismatch",
         "-r", rej, "-d", tree, "-i", os.path.join(patchdir, name)],
        capture_output=True, text=True)
    if res.returncode == 0:
        return
    msg = [f"{os.path.relpath(patchdir, ROOT)}/{name} does not apply:",
           res.stdout + res.stderr]
    if os.path.exists(rej):
        with open(rej) as f:
            msg += ["failing hunks:", f.read()]
    die("\n".join(msg))


def sync(base, patched, patchdir, overlay=None):
    """Make @patched = @base + the files @overlay maps (path -> our file)
    + the patches of @patchdir/series, rewriting changed files only."""
    overlay = overlay or {}
    if tree_version(patched) != tree_version(base):
        print(f"assemble: copying {os.path.relpath(base, ROOT)} to "
              f"{os.path.relpath(patched, ROOT)}", flush=True)
        shutil.rmtree(patched + ".tmp", ignore_errors=True)
        subprocess.run(["cp", "-a", base, patched + ".tmp"], check=True)
        shutil.rmtree(patched, ignore_errors=True)
        os.rename(patched + ".tmp", patched)
    patches = series(patchdir)
    touched = set(overlay)
    for p in patches:
        touched |= patch_targets(os.path.join(patchdir, p))
    os.makedirs(BUILD, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=BUILD) as tmp:
        for rel in touched:
            src = overlay.get(rel, os.path.join(base, rel))
            if os.path.exists(src):
                os.makedirs(os.path.dirname(os.path.join(tmp, rel)),
                            exist_ok=True)
                shutil.copy2(src, os.path.join(tmp, rel))
        for p in patches:
            apply_patch(tmp, patchdir, p)
        want = {rel: read(os.path.join(tmp, rel)) for rel in touched}
    old = read(os.path.join(patched, MANIFEST))
    for rel in (old.decode().split() if old else []):
        want.setdefault(rel, read(os.path.join(base, rel)))
    for rel, content in sorted(want.items()):
        dst = os.path.join(patched, rel)
        if read(dst) == content:
            continue
        print(f"assemble: updated {rel}")
        if content is None:
            os.remove(dst)
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst + ".tmp", "wb") as f:
            f.write(content)
        mode_of = os.path.join(base, rel)
        shutil.copymode(mode_of if os.path.exists(mode_of) else
                        overlay[rel], dst + ".tmp")
        os.replace(dst + ".tmp", dst)
    with open(os.path.join(patched, MANIFEST), "w") as f:
        f.write("".join(f"{rel}\n" for rel in sorted(want)
                        if want[rel] != read(os.path.join(base, rel))))


def kernel_version():
    with open(os.path.join(ROOT, "base-version")) as f:
        return f.read().strip()


def installed_version():
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "linux-source-6.12"],
        capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else None


def ensure_kernel_base(version):
    """Extract the pinned base once; a new pin replaces both trees."""
    if tree_version(KERNEL_BASE) == version:
        return
    if installed_version() != version:
        die(f"linux-source-6.12 {version} is not installed "
            f"(have {installed_version()}); run harness/deps.sh")
    print(f"assemble: extracting linux-source-6.12 {version}", flush=True)
    tmp = KERNEL_BASE + ".tmp"
    for tree in (KERNEL_BASE, tmp):
        shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tmp)
    # Now as the files' times: with the archive's, older than the objects
    # of the last base, kbuild would keep those objects.
    subprocess.run(["tar", "-xf", TARBALL, "-C", tmp,
                    "--strip-components=1", "--touch"], check=True)
    with open(os.path.join(tmp, STAMP), "w") as f:
        f.write(version + "\n")
    os.rename(tmp, KERNEL_BASE)


def overlay_problems(files, entries):
    """What is wrong between our files at kernel paths and the new files
    patches/series names: one unnamed, named twice, or named and absent."""
    named = [f for _, added in entries for f in added]
    problems = [f"{f} is named twice in patches/series"
                for f in sorted({f for f in named if named.count(f) > 1})]
    problems += [f"{f} is in no patch of patches/series"
                 for f in sorted(set(files) - set(named))]
    problems += [f"patches/series names {f}, which is not in the repository"
                 for f in sorted(set(named) - set(files))]
    return problems


def kernel_overlay():
    """Our files at kernel paths: everything under a top-level directory of
    ours that is also a top-level directory of the kernel, each the new
    file of one patch."""
    files = {}
    for top in sorted(os.listdir(ROOT)):
        if top.startswith(".") or \
                not os.path.isdir(os.path.join(KERNEL_BASE, top)):
            continue
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                path = os.path.join(dirpath, name)
                files[os.path.relpath(path, ROOT)] = path
    problems = overlay_problems(files, series_entries(PATCHES))
    if problems:
        die("\n".join(problems))
    return files


def subject(patch):
    """The subject of a git format-patch file (a header that may be folded
    over several lines)."""
    with open(os.path.join(ROOT, "patches", patch), errors="replace") as f:
        lines = f.read().split("\n\n", 1)[0].splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Subject: "):
            text = line[len("Subject: "):]
            for more in lines[i + 1:]:
                if not more.startswith(" "):
                    break
                text += more
            return text.replace("[PATCH] ", "")
    return patch


def diff():
    """One patch of kernel base -> patched over the files we change, headed
    by what it combines."""
    print("Subject: [PATCH] Limit negative dentries per directory and per "
          "cgroup\n")
    print(f"linux-source-6.12 {kernel_version()} with the patches of "
          "patches/series\nand the new files of the repository, as one "
          "patch:\n")
    for p in series(PATCHES):
        # Unindented: checkpatch allows 75 columns, our subjects 74.
        print(subject(p))
    print("\n---", flush=True)
    listed = read(os.path.join(KERNEL_PATCHED, MANIFEST))
    for rel in (listed.decode().split() if listed else []):
        old = os.path.join(KERNEL_BASE, rel)
        new = os.path.join(KERNEL_PATCHED, rel)
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
    cmd = sys.argv[1:2]
    if cmd == ["tree"]:
        ensure_kernel_base(kernel_version())
        sync(KERNEL_BASE, KERNEL_PATCHED, PATCHES, kernel_overlay())
    elif cmd == ["diff"]:
        diff()
    elif cmd == ["sync"] and len(sys.argv) == 5:
        if not os.path.isdir(sys.argv[2]):
            die(f"no base tree {sys.argv[2]}")
        sync(*[os.path.abspath(p) for p in sys.argv[2:5]])
    else:
        sys.exit(__doc__)
