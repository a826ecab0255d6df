#!/usr/bin/python3
"""The patch series as commits of git, and back; the series as mailed.

  series.py import [BASE PATCHDIR DEV]
        DEV: a git repository of BASE with one commit per patch of
        PATCHDIR/series, each with the new files the series names under it
  series.py export [BASE PATCHDIR DEV]
        PATCHDIR/*.patch and PATCHDIR/series from the commits of DEV after
        the base: a file a commit adds goes back to its path in the
        repository and is named under the commit's patch, the rest of the
        commit is the patch
  series.py format
        build/series: git format-patch of the kernel's series, numbered,
        with the cover letter patches/cover-letter, each new file in the
        patch that adds it (make patch)

Without BASE PATCHDIR DEV: the kernel, build/src/base, patches/ and
build/src/series. To edit the series: import, edit and commit in DEV (one
commit a patch, kernel-style message, a new file in the one commit that
adds it and in no later one), export, then build as usual.
"""
import os
import shutil
import subprocess
import sys

import assemble
import layout

# Commits made here carry their authors' names and dates; this committer.
GIT_ENV = dict(os.environ, GIT_COMMITTER_NAME="negdentry series",
               GIT_COMMITTER_EMAIL="series@localhost")
FORMAT = ["format-patch", "-q", "--no-signature", "--zero-commit",
          "--abbrev=9"]


def git(dev, *args, out=False):
    res = subprocess.run(["git", "-C", dev, *args], env=GIT_ENV, check=True,
                         stdout=subprocess.PIPE if out else None, text=True)
    return res.stdout if out else None


def lines(text):
    return [line for line in text.splitlines() if line]


def base_repo(base, dev):
    """@dev at a commit of @base tagged base, on a branch series there. A
    repository made for the same base is reused: adding a whole kernel
    tree to git takes a minute."""
    stamp = assemble.read(os.path.join(base, assemble.STAMP))
    mark = os.path.join(dev, ".git", "negdentry-base")
    if stamp and assemble.read(mark) == stamp:
        git(dev, "checkout", "-q", "-f", "-B", "series", "base")
        git(dev, "clean", "-q", "-f", "-d", "-x")
        return
    shutil.rmtree(dev, ignore_errors=True)
    subprocess.run(["cp", "-a", base, dev], check=True)
    git(dev, "init", "-q", "-b", "series")
    # -f: Debian's tree ignores everything at its top level
    git(dev, "add", "-A", "-f")
    git(dev, "-c", "user.name=base", "-c", "user.email=base@localhost",
        "commit", "-q", "-m", "base")
    git(dev, "tag", "base")
    if stamp:
        with open(mark, "wb") as f:
            f.write(stamp)


def import_series(base, patchdir, dev, overlay):
    base_repo(base, dev)
    for patch, added in assemble.series_entries(patchdir):
        git(dev, "am", "-q", "--committer-date-is-author-date",
            os.path.join(patchdir, patch))
        if not added:
            continue
        for rel in added:
            os.makedirs(os.path.dirname(os.path.join(dev, rel)), exist_ok=True)
            shutil.copy2(overlay[rel], os.path.join(dev, rel))
        git(dev, "add", "-f", *added)
        git(dev, "commit", "-q", "--amend", "--no-edit")
    print(git(dev, "log", "--oneline", "base..", out=True), end="")


def commit_changes(dev, commit):
    """{path: A|M|D|...} of @commit."""
    return dict(line.split("\t", 1)[::-1] for line in lines(git(
        dev, "diff-tree", "-r", "--no-commit-id", "--name-status", commit,
        out=True)))


def export_series(patchdir, dev, overlay_root):
    commits = lines(git(dev, "rev-list", "--reverse", "base..HEAD", out=True))
    added_by, problems = {}, []
    for commit in commits:
        subject = git(dev, "log", "-1", "--format=%s", commit, out=True).strip()
        for path, status in commit_changes(dev, commit).items():
            if path in added_by:
                problems.append(f"{path}, added by \"{added_by[path][1]}\", "
                                f"is changed by \"{subject}\": fold the "
                                "change into the commit that adds it")
            elif status == "A" and overlay_root:
                added_by[path] = (commit, subject)
    if problems:
        sys.exit("series: " + "\n".join(problems))
    old = assemble.series_entries(patchdir)
    for name in os.listdir(patchdir):
        if name.endswith(".patch"):
            os.remove(os.path.join(patchdir, name))
    entries = []
    for number, commit in enumerate(commits, 1):
        added = sorted(p for p, (c, _) in added_by.items() if c == commit)
        # without -q, format-patch names the file it writes; a commit that
        # touches nothing but what it adds gets none
        written = lines(git(dev, *FORMAT[:1], *FORMAT[2:], "-N",
                            "--start-number", str(number), "-o", patchdir,
                            "-1", commit, "--", ".",
                            *(f":(exclude){p}" for p in added), out=True))
        if len(written) != 1:
            sys.exit(f"series: commit {commit} changes no file but those it "
                     "adds: a patch needs a change to the kernel's own files")
        entries.append((os.path.basename(written[0]), added))
        for rel in added:
            dst = os.path.join(overlay_root, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(dev, rel), dst)
    gone = {f for _, files in old for f in files} - set(added_by)
    for rel in sorted(gone):
        if overlay_root and os.path.exists(os.path.join(overlay_root, rel)):
            os.remove(os.path.join(overlay_root, rel))
            print(f"series: removed {rel}, which no commit adds now")
    write_series(patchdir, entries)


def write_series(patchdir, entries):
    """Keep the comment at the top of the old series file."""
    path = os.path.join(patchdir, "series")
    head = []
    for line in (assemble.read(path) or b"").decode().splitlines():
        if not line.startswith("#"):
            break
        head.append(line)
    with open(path, "w") as f:
        for line in head:
            f.write(line + "\n")
        for patch, added in entries:
            f.write(patch + "\n")
            for rel in added:
                f.write(f"\t{rel}\n")
    print(open(path).read(), end="")


def format_series(dev, out):
    """git format-patch of @dev's series into @out, with the cover letter."""
    with open(os.path.join(assemble.PATCHES, "cover-letter")) as f:
        git(dev, "config", "branch.series.description", f.read().strip())
    # the cover letter is from whoever wrote the series' last patch
    name, email = git(dev, "log", "-1", "--format=%an%n%ae", "series",
                      out=True).splitlines()
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(["git", "-C", dev, *FORMAT, "--cover-letter",
                    "--cover-from-description=subject", "-o", out,
                    "base..series"], check=True,
                   env=dict(GIT_ENV, GIT_AUTHOR_NAME=name,
                            GIT_AUTHOR_EMAIL=email))
    print(f"series: {len(os.listdir(out)) - 1} patches and a cover letter "
          f"in {os.path.relpath(out, assemble.ROOT)}")


def kernel_import():
    assemble.ensure_kernel_base(assemble.kernel_version())
    import_series(layout.src("base"), assemble.PATCHES, layout.src("series"),
                  assemble.kernel_overlay())


def main():
    cmd, args = sys.argv[1:2], sys.argv[2:]
    if cmd == ["import"] and len(args) == 3:
        import_series(*map(os.path.abspath, args), {})
    elif cmd == ["import"] and not args:
        kernel_import()
    elif cmd == ["export"] and len(args) == 3:
        export_series(os.path.abspath(args[1]), os.path.abspath(args[2]), None)
    elif cmd == ["export"] and not args:
        export_series(assemble.PATCHES, layout.src("series"), assemble.ROOT)
    elif cmd == ["format"] and not args:
        kernel_import()
        format_series(layout.src("series"), layout.SERIES_OUT)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
