#!/usr/bin/env python3
"""make upstream-rates: how often each upstream cgroup selftest fails on the
fast base kernel and on ours, over RUNS boots of each (20 by default).

make check's upstream suite accepts any result of a test that
tests/upstream/known-results lists as flaky, and a pass in one of three
runs of one it lists as retry. That is fair only where the
base fails as often as ours: this counts both, kernel by kernel in turn,
and writes the table to results/upstream-rates.md. It judges one thing,
that no listed retry or flaky test fails on ours in runs where the base never
does; the counts are for a reader to weigh.
"""
import dataclasses
import os
import sys

from check import Guest, known_results, parse_selftests
import layout

KERNELS = ("base-fast", "patched-fast")
SCRIPT = "tests/upstream/run.sh"
OUT = os.path.join(layout.ROOT, "results", "upstream-rates.md")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    os.makedirs(layout.CHECK_LOGS, exist_ok=True)
    args = dataclasses.make_dataclass("Args", ["initramfs", "kvm"])(
        os.path.join(layout.BUILD, "guest", "initramfs.cpio"), False)
    guest = Guest(args)
    fails = {k: {} for k in KERNELS}
    booted = {k: 0 for k in KERNELS}
    for n in range(1, runs + 1):
        # Alternating, so that both kernels see the same hours of the host.
        for kernel in KERNELS:
            status, lines = guest.run(kernel, SCRIPT, 900,
                                      f"upstream-rates-{kernel}")
            if status:
                print(f"{kernel} run {n}: vm-run status {status}, not counted",
                      flush=True)
                continue
            booted[kernel] += 1
            for key, got in parse_selftests(lines).items():
                counts = fails[kernel].setdefault(key, [0, 0])
                counts[0] += got == "fail"
                counts[1] += 1
            failed = sorted(f"{p} {t}" for (p, t), c in fails[kernel].items()
                            if c[0])
            print(f"{kernel} run {n}: failures so far: {failed or 'none'}",
                  flush=True)
    known = known_results("tests/upstream/known-results", "fast")
    rows = ["| program | test | base failed | ours failed | listed |",
            "| --- | --- | --- | --- | --- |"]
    suspect = []
    for key in sorted(set().union(*(f.keys() for f in fails.values()))):
        base, ours = (fails[k].get(key, [0, 0]) for k in KERNELS)
        listed = known.get(key, ("pass", ""))[0]
        if base[0] or ours[0] or listed != "pass":
            rows.append(f"| {key[0]} | {key[1]} | {base[0]} of {base[1]} | "
                        f"{ours[0]} of {ours[1]} | {listed} |")
        if listed in ("retry", "flaky") and ours[0] and not base[0]:
            suspect.append(f"{key[0]} {key[1]}")
    text = (f"Upstream cgroup selftests, {runs} boots of each fast kernel "
            f"({booted['base-fast']} and {booted['patched-fast']} counted); "
            "tests that always passed are left out.\n\n" +
            "\n".join(rows) + "\n")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)
    print(text)
    if suspect:
        print("listed retry or flaky, yet failed only on ours: " + ", ".join(suspect))
    return 1 if suspect or not all(booted.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
