#!/usr/bin/python3
"""Compare make fstests' results on the base kernel and on ours.

    fstests_compare.py BASE PATCHED OUT

BASE and PATCHED hold lines "<fs> <test> pass|fail|notrun|hang", as
tests/fstests/run.sh prints them. OUT gets a table of both, test by test.
Exit status 1 if ours does not pass a test the base passes, or if either
kernel has no result for a test the other has (a guest that died: a base
that died early would otherwise leave nothing to compare with), else 0. A
test that fails or hangs on both is the environment's, and listed as
such.
"""
import sys


def read(path):
    results = {}
    with open(path) as f:
        for line in f:
            fs, test, result = line.split()
            results[(fs, test)] = result
    return results


def compare(base, ours):
    """(rows, regressions, both_bad): rows of (fs, test, base, ours). A
    test missing from either is a regression."""
    rows, regressions, both_bad = [], [], []
    for key in sorted(set(base) | set(ours)):
        b, o = base.get(key, "missing"), ours.get(key, "missing")
        rows.append((*key, b, o))
        if (b == "pass" and o != "pass") or "missing" in (b, o):
            regressions.append(key)
        if b in ("fail", "hang") and o in ("fail", "hang"):
            both_bad.append(key)
    return rows, regressions, both_bad


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    base, ours = read(sys.argv[1]), read(sys.argv[2])
    rows, regressions, both_bad = compare(base, ours)
    lines = [f"{'fs':8} {'test':12} {'base':8} ours"]
    lines += [f"{fs:8} {test:12} {b:8} {o}" for fs, test, b, o in rows]
    passed = sum(1 for r in rows if r[2] == r[3] == "pass")
    lines.append(f"{len(rows)} tests: {passed} pass on both, "
                 f"{len(regressions)} pass on the base only or have no "
                 f"result on one, "
                 f"{len(both_bad)} fail or hang on both")
    for fs, test in both_bad:
        lines.append(f"  the environment's (fails on both): {fs} {test}")
    for fs, test in regressions:
        lines.append(f"  REGRESSION: {fs} {test}")
    with open(sys.argv[3], "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if regressions or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
