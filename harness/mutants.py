#!/usr/bin/env python3
"""make mutants: each test that guards a defect must fail on a kernel that
has it.

A mutant is our fast kernel with one defect put back: a few lines of the
patched tree replaced, the kernel rebuilt in its own object folder (only
the files the lines are in are compiled again), and the tests that claim
to catch the defect run on it. Every one of them must fail; one that
passes is a test that cannot fail for the reason it gives. The tree is
restored after each build, and the fast kernel rebuilt from it at the end.
"""
import dataclasses
import os
import shutil
import subprocess
import sys

from check import Guest, parse_selftests
import layout
from results import Results

OUT = os.path.join(layout.BUILD, "mutants")
KERNEL_SH = os.path.join(layout.ROOT, "harness", "kernel.sh")
CG = "test_negative_dentry"
DIR = "dentry_dir_max"


@dataclasses.dataclass
class Mutant:
    name: str
    defect: str
    # (path in the patched tree, text, what replaces it); each text must
    # be there exactly once, so a mutant that no longer applies says so
    edits: tuple
    # (program, test) that must fail on it
    caught_by: tuple


MUTANTS = [
    Mutant("drain-gives-up", "a drain stops after one run's budget, in "
           "front of the removed cgroup's positive dentries",
           (("mm/memcg_negative_dentry_reclaim.c",
             "\t\t.budget = LONG_MAX,\n",
             "\t\t.budget = NEGATIVE_DENTRY_RUN_BUDGET,\n"),),
           ((CG, "test_negdentry_drain_behind_positives"),)),
    Mutant("limit-gives-up", "a limit's reclaim runs again only after a "
           "run that reclaimed something",
           (("mm/memcg_negative_dentry_reclaim.c",
             "if (more && sc.budget <= 0 && sc.reclaimed < sc.nr_to_reclaim)",
             "if (more && sc.budget <= 0 && sc.reclaimed &&\n"
             "\t    sc.reclaimed < sc.nr_to_reclaim)"),),
           ((CG, "test_negdentry_limit_behind_positives"),)),
    Mutant("no-kill", "the cgroup limit never kills on the final dput()",
           (("mm/memcg_negative_dentry.c",
             "negative_dentry_kill_threshold(max))\n\t\t\treturn true;",
             "negative_dentry_kill_threshold(max))\n\t\t\treturn false;"),),
           ((CG, "test_negdentry_reclaim_stops_when_frozen"),)),
    Mutant("frozen", "reclaim works on a frozen filesystem",
           (("fs/negative_dentry.c",
             "\tif (sb->s_writers.frozen == SB_UNFROZEN)\n",
             "\tif (true)\n"),),
           ((CG, "test_negdentry_reclaim_stops_when_frozen"),)),
    Mutant("drain-past-own", "a drain goes on past the removed cgroup's "
           "dentries into its parent's",
           (("fs/dcache.c",
             "if (sc->drain && !mem_cgroup_slab_obj_reparented(dentry)) {",
             "if (false) {"),),
           ((CG, "test_negdentry_drain_stops_at_parents_own"),)),
    Mutant("unlimited-drain", "every removed cgroup is drained, limit or "
           "not",
           (("mm/memcg_negative_dentry.c",
             "\tif (negative_dentry_is_limited(memcg))\n",
             "\tif (true)\n"),),
           ((CG, "test_negdentry_unlimited_removal_keeps_them"),)),
    Mutant("moved-dir-count", "a directory moved by rename(2) loses its "
           "count of negative children",
           (("fs/dcache.c",
             "\tfscrypt_handle_d_move(dentry);\n",
             "\tfscrypt_handle_d_move(dentry);\n\tif (d_is_dir(dentry))\n"
             "\t\tatomic_set(&dentry->d_inode->i_negative_children, 0);\n"),),
           ((DIR, "dir_max.moved_dirs_keep_their_counts"),)),
    Mutant("no-hot", "hot negative dentries are taken as cold ones",
           (("fs/dcache.c",
             "\tif (pass != D_NEGATIVE_TAKE_ALL &&\n",
             "\tif (false && pass != D_NEGATIVE_TAKE_ALL &&\n"),),
           ((CG, "test_negdentry_hot_survive"),
            (CG, "test_negdentry_hot_survive_dir"))),
    Mutant("eight-slots", "a stock of eight slots, which the takers of "
           "limit_is_exact cannot all take",
           (("include/linux/memcg_negative_dentry.h",
             "#define MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS\t4",
             "#define MEMCG_NEGATIVE_DENTRY_STOCK_SLOTS\t8"),),
           ((CG, "test_negdentry_limit_is_exact"),)),
    Mutant("no-killed-counter", "debugfs has no killed counter",
           (("fs/negative_dentry.c",
             "\tdebugfs_create_file_unsafe(\"killed\", 0444, dir,\n",
             "\tif (false)\n\t\tdebugfs_create_file_unsafe(\"killed\", "
             "0444, dir,\n"),),
           ((DIR, "dir_max.mostly_positive_dir_kept"),
            (DIR, "dir_max.rename_keeps_the_directory_limit"))),
    Mutant("to-zero", "reclaim takes a cgroup down to nothing",
           (("include/linux/negative_dentry.h",
             "\treturn limit - limit / 8;", "\treturn 0;"),),
           ((CG, "test_negdentry_limit"), (CG, "test_negdentry_flood_threads"))),
    Mutant("positives-too", "reclaim kills unused positive dentries too",
           (("fs/dcache.c",
             "\tif (!d_is_negative(dentry))\n\t\treturn D_NEGATIVE_POSITIVE;\n",
             "\tif (!d_is_negative(dentry))\n\t\treturn dentry->d_lockref.count ?"
             "\n\t\t       D_NEGATIVE_POSITIVE : D_NEGATIVE_COLD;\n"),
            ("fs/dcache.c",
             "\t\tif (dentry->d_lockref.count ||\n"
             "\t\t    (dentry->d_inode && retain_dentry(dentry, true))) {",
             "\t\tif (dentry->d_lockref.count) {"),
            ("fs/dcache.c",
             "\t\tif (d_is_negative(child) &&\n\t\t    d_negative_classify(",
             "\t\tif (d_negative_classify("),),
           ((CG, "test_negdentry_positives_survive"),
            (DIR, "dir_max.positives_survive"))),
]
MUTANT = {m.name: m for m in MUTANTS}


def mutated(mutant):
    """({path: the mutant's text of the file}, [what does not apply]):
    each edit's text must be in the patched tree exactly once, so that a
    mutant the code moved away from says so instead of testing nothing."""
    src = layout.src("patched")
    files, stale = {}, []
    for path, text, replacement in mutant.edits:
        full = os.path.join(src, path)
        if full not in files:
            with open(full) as f:
                files[full] = f.read()
        found = files[full].count(text)
        if found != 1:
            stale.append(f"{path} has {found} of {text!r}")
        files[full] = files[full].replace(text, replacement, 1)
    return files, stale


def build(mutant):
    """The mutant's fast kernel, as an image in OUT. The files it changes
    are put back as they were whatever happens."""
    files, stale = mutated(mutant)
    if stale:
        raise SystemExit(f"mutants: {mutant.name}: {'; '.join(stale)}")
    saved = {}
    try:
        for path, text in files.items():
            with open(path) as f:
                saved[path] = f.read()
            with open(path, "w") as f:
                f.write(text)
        subprocess.run([KERNEL_SH, "patched", "fast"], check=True)
        image = os.path.join(OUT, mutant.name + ".bzImage")
        shutil.copy(layout.image("patched", "fast"), image)
        return image
    finally:
        for path, text in saved.items():
            with open(path, "w") as f:
                f.write(text)


def script(mutant):
    """A guest script that runs the tests that must catch @mutant, framed
    as tests/negative-dentry/run.sh frames its programs."""
    path = os.path.join(OUT, mutant.name + ".sh")
    lines = ["[ -b /dev/ram0 ] || modprobe brd",
             "mke2fs /dev/ram0 >/dev/null 2>&1 || exit 1",
             "export NEGATIVE_DENTRY_SCRATCH=/dev/ram0",
             'cd "$TESTFS" || exit 1']
    for prog in sorted({p for p, _ in mutant.caught_by}):
        tests = [t for p, t in mutant.caught_by if p == prog]
        args = tests if prog == CG else \
            [w for t in tests for w in ("-t", t.split(".", 1)[1])]
        lines += [f"echo 'selftest: {prog}'", f"{prog} {' '.join(args)}",
                  f"echo \"selftest: {prog} exited $?\""]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def main():
    names = sys.argv[1:] or list(MUTANT)
    unknown = [n for n in names if n not in MUTANT]
    if unknown:
        raise SystemExit(f"mutants: no mutant {' '.join(unknown)}; the "
                         f"mutants: {' '.join(MUTANT)}")
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(layout.CHECK_LOGS, exist_ok=True)
    args = dataclasses.make_dataclass("Args", ["initramfs", "kvm"])(
        os.path.join(layout.BUILD, "guest", "initramfs.cpio"), False)
    guest, r = Guest(args), Results()
    try:
        for mutant in map(MUTANT.get, names):
            print(f"[{mutant.name}] {mutant.defect}", flush=True)
            image = build(mutant)
            _, lines = guest.run("patched-fast", os.path.relpath(
                script(mutant), layout.ROOT), 1800, "mutant-" + mutant.name,
                image=image)
            results = parse_selftests(lines)
            for test in mutant.caught_by:
                got = results.get(test, "not run")
                r.check(got == "fail", f"{mutant.name}: {test[1]} fails",
                        f"it reports {got} on a kernel where {mutant.defect}")
    finally:
        # The fast kernel of the tree as it is, for what runs next.
        subprocess.run([KERNEL_SH, "patched", "fast"], check=True)
    print(r.summary())
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
