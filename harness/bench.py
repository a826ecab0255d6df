#!/usr/bin/python3
"""make bench: the unpatched base kernel and ours, side by side.

Boots the fast (non-debug) base and patched kernels in turn, ROUNDS times,
each running bench/guest.sh, and collects its "bench <scenario> <row>
<metric> <value>" and "series ..." lines. Writes to results/:
  raw.csv       every number, by round and kernel
  report.md     a table per scenario: min and median over the rounds, and
                the ratio of ours to the base's row of the same metric
  *.png         negatives over time in the runaway scenario, teardown
                time against the number of negative dentries
and prints the report. TCG timings only mean something as ratios.
Exits non-zero if a boot failed or a scenario produced no numbers.

--icount runs bench/icount.sh instead, under QEMU's instruction clock
(vmrun.py --icount), into results/icount/: operations a second that are
the inverse of the instructions each takes, the same to within 0.05%
from run to run, with ratios to four decimals. No plots.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

from guest import Run, bench_line
import layout

ROOT = layout.ROOT
# A whole benchmark boot, the full sizes and all scenarios, takes 25 min.
BOOT_TIMEOUT = 3600


def read_scenarios(path=os.path.join(ROOT, "bench", "scenarios")):
    """bench/scenarios, the one list of the scenarios bench/guest.sh runs:
    {name: title} in run order, and {name: the base row ours compare
    with}."""
    titles, base_rows = {}, {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, base, _quick, _full, title = line.split(None, 4)
                titles[name] = title.strip()
                if base != "-":
                    base_rows[name] = base
    return titles, base_rows


SCENARIOS, SCENARIO_BASE_ROW = read_scenarios()
ICOUNT_SCENARIOS = {
    "icount": "Path lengths: operations a second under the instruction "
              "clock, and bytes-* the slab bytes a negative dentry takes "
              "(each row against the base kernel's row of the same name, "
              "run in the same order)",
}
# The operations bench/icount.sh measures in each row.
ICOUNT_OPS = ("positive", "negative", "create", "create-uuid", "create-git",
              "file", "file-git", "rename", "unlink", "walk", "fill-same",
              "fill-alt")
# Not measured over the limits: reclaim would free the negative dentries
# they create files over.
ICOUNT_NOT_OVER = ("fill-same", "fill-alt")
# The base-kernel row each row of ours compares with; icount's rows each
# with the base's of the same name.
BASE_ROW = SCENARIO_BASE_ROW
# The runaway row the plot draws for ours.
PLOT_ROW = "max-10000"


def boot(kernel, rnd, args):
    """Run bench/guest.sh on @kernel; return (status, bench lines, series).

    A guest that ends before the script has started (vm-run status 125, no
    progress line) fails the run like any other: a kernel that does not
    boot every time is a finding, not noise to boot again past. The end of
    a failed guest's console is printed, so that the cause is not lost
    with the log of a CI machine."""
    status, results, series, started, tail = boot_once(kernel, rnd, args)
    print(f"  {kernel} round {rnd}: status {status}"
          f"{'' if started else ', before the benchmark started'}",
          flush=True)
    if status:
        for line in tail:
            print(f"    | {line}", flush=True)
    return status, results, series


def boot_once(kernel, rnd, args):
    log = os.path.join(args.out, "logs", f"{kernel}-{rnd}.log")
    run = Run(image=layout.image(kernel, "fast"), kernel=kernel,
              initramfs=args.initramfs, timeout=BOOT_TIMEOUT, log=log,
              script=os.path.join(ROOT, "bench", "guest.sh"),
              append=f"bench.quick={int(args.quick)}")
    if args.icount:
        run.icount = True
        run.script = os.path.join(ROOT, "bench", "icount.sh")
    else:
        # 64 cpus possible, 2 online, as cloud guests have many more
        # possible than online (TCG guests see no hotplug slots)
        run.smp = "64"
        run.append = "maxcpus=2 " + run.append
    cmd = run.argv()
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    results, series, started, tail = [], [], False, []
    for line in proc.stdout:
        tail = (tail + [line.rstrip()])[-15:]
        kind, what = bench_line(line)
        if kind == "progress":
            started = True
            print(f"  {kernel} round {rnd}: {what}", flush=True)
        elif kind == "bench":
            results.append(what)
        elif kind == "series":
            series.append(what)
    status = proc.wait()
    print(f"  {kernel} round {rnd}: {time.monotonic() - start:.0f} s",
          flush=True)
    return status, results, series, started, tail


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def fmt(value):
    if value is None:
        return "-"
    return f"{value:.4g}" if abs(value) < 10 else f"{value:,.0f}"


def report(values, scenarios):
    """values[(scenario, row, metric, kernel)] = [value per round]"""
    out = []
    for scenario, title in scenarios.items():
        digits = 4 if scenario == "icount" else 3
        keys = sorted({k[1:3] for k in values if k[0] == scenario})
        out += [f"### {title}", "",
                "| row | kernel | metric | min | median | max | ours/base |",
                "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
        for row, metric in keys:
            for kernel in ("base", "patched"):
                vals = values.get((scenario, row, metric, kernel))
                if not vals:
                    continue
                med = statistics.median(vals)
                ratio = ""
                base = values.get((scenario, BASE_ROW.get(scenario, row),
                                   metric, "base"))
                if kernel == "patched" and base and statistics.median(base):
                    ratio = f"{med / statistics.median(base):.{digits}f}"
                out.append(f"| {row} | {'ours' if kernel == 'patched' else 'base'} "
                           f"| {metric} | {fmt(min(vals))} | {fmt(med)} "
                           f"| {fmt(max(vals))} | {ratio} |")
        out.append("")
    return "\n".join(out)


def plot(series, values, out):
    """PNGs with gnuplot: runaway negatives over time, teardown against N."""
    data = os.path.join(out, "runaway.dat")
    with open(data, "w") as f:
        for kernel in ("base", "patched"):
            for _, row, ms, count in series.get(kernel, []):
                if kernel == "patched" and row != PLOT_ROW:
                    continue
                f.write(f"{int(ms) / 1000} {count}\n")
            f.write("\n\n")
    teardown = os.path.join(out, "teardown.dat")
    with open(teardown, "w") as f:
        sizes = sorted({int(k[1][1:]) for k in values if k[0] == "teardown"})
        for n in sizes:
            row = [str(n)]
            for kernel in ("base", "patched"):
                for metric in ("rmdir_ms", "drained_ms", "umount_ms"):
                    vals = values.get(("teardown", f"n{n}", metric, kernel))
                    row.append(f"{statistics.median(vals)}" if vals else "NaN")
            f.write(" ".join(row) + "\n")
    script = f"""
set terminal pngcairo size 900,500 noenhanced
set grid
set key top left
set output "{out}/runaway.png"
set title "Negative dentries of a flooding cgroup (4 threads)"
set xlabel "seconds"
set ylabel "negative dentries"
set format y "%.0f"
plot "{data}" index 0 using 1:2 with lines title "base kernel, no limit", \\
     "{data}" index 1 using 1:2 with lines title "ours, memory.negative_dentry.max = 10000"
set output "{out}/teardown.png"
set title "Teardown time against negative dentries held"
set xlabel "negative dentries"
set ylabel "milliseconds"
set logscale x
plot "{teardown}" using 1:2 with linespoints title "base: rmdir", \\
     "{teardown}" using 1:4 with linespoints title "base: umount", \\
     "{teardown}" using 1:5 with linespoints title "ours: rmdir", \\
     "{teardown}" using 1:6 with linespoints title "ours: drain after rmdir", \\
     "{teardown}" using 1:7 with linespoints title "ours: umount"
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--initramfs", required=True)
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, for make check")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--icount", action="store_true",
                    help="path lengths under the instruction clock")
    ap.add_argument("--out")
    args = ap.parse_args()
    scenarios = ICOUNT_SCENARIOS if args.icount else SCENARIOS
    args.out = args.out or os.path.join(ROOT, "results",
                                        *(["icount"] if args.icount else []))
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)

    values, series, failed = {}, {}, False
    raw = [("round", "kernel", "scenario", "row", "metric", "value")]
    for rnd in range(1, args.rounds + 1):
        for kernel in ("base", "patched"):
            status, results, runs = boot(kernel, rnd, args)
            failed |= status != 0
            for scenario, row, metric, text in results:
                raw.append((rnd, kernel, scenario, row, metric, text))
                if number(text) is not None:
                    values.setdefault((scenario, row, metric, kernel),
                                      []).append(number(text))
            if rnd == 1:
                series[kernel] = runs
    with open(os.path.join(args.out, "raw.csv"), "w") as f:
        f.write("\n".join(",".join(map(str, r)) for r in raw) + "\n")
    text = report(values, scenarios)
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write(text)
    if not args.icount:
        plot(series, values, args.out)
    print(text)
    missing = [f"{s} on {kernel}" for s in scenarios
               for kernel in ("base", "patched")
               if not any(k[0] == s and k[3] == kernel for k in values)]
    if args.icount:
        rows = {(k[1], k[3]) for k in values if k[0] == "icount"}
        missing += [f"icount {op} in row {row} on {kernel}"
                    for row, kernel in sorted(rows) for op in ICOUNT_OPS
                    if ("icount", row, op, kernel) not in values and
                    not (row == "over" and op in ICOUNT_NOT_OVER)]
    for s in missing:
        print(f"bench: no numbers for {s}", file=sys.stderr)
    # A scenario's table comes from bench/scenarios: without a line there,
    # its numbers would reach raw.csv and not the report.
    unknown = sorted({k[0] for k in values} - set(scenarios))
    for s in unknown:
        print(f"bench: {s} printed numbers but has no line in "
              "bench/scenarios", file=sys.stderr)
    print(f"bench: results in {os.path.relpath(args.out)}")
    return 1 if failed or missing or unknown else 0


if __name__ == "__main__":
    sys.exit(main())
