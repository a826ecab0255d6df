#!/usr/bin/env python3
"""Which functions the patched kernel's extra instructions are in.

make insn-trace: boots the fast base and patched kernels side by side,
under the instruction clock of make bench ICOUNT=1 (vmrun.py --icount), each
stopped for gdb (vmrun.py --gdb). gdb single-steps every system call that
bench/insn_trace.sh marks (nd_bench traced), counting instructions by the
function they are in, and this script prints, for each call, the totals of
both kernels and the functions whose counts differ. Where make bench
ICOUNT=1 says how much longer a path is, this says where. Run inside gdb
(gdb -x), the same file is the stepper.
"""
import bisect
import collections
import os
import subprocess
import sys
import time

# gdb runs this file too, without its folder on the path
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guest import Run  # noqa: E402
import layout  # noqa: E402

ROOT = layout.ROOT
# Single-stepping a guest's marked calls takes a few minutes under TCG.
GUEST_TIMEOUT = 1200
# The system calls bench/insn_trace.sh makes after a mark.
SYSCALLS = ("__x64_sys_newfstatat", "__x64_sys_unlink", "__x64_sys_rename")
PORTS = {"base": 12340, "patched": 12341}


# The pseudo-function under which a call's atomic instructions are counted.
ATOMIC = "[atomic-rmw]"
# x86's legacy prefixes other than lock, which may come before it.
PREFIXES = {0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf2, 0xf3}


def is_atomic_rmw(code):
    """Whether the x86-64 instruction in @code is atomic read-modify-write."""
    i = 0
    while code[i] in PREFIXES or code[i] == 0xf0:
        if code[i] == 0xf0:
            return True
        i += 1
    if 0x40 <= code[i] <= 0x4f:		# REX
        i += 1
    return code[i] in (0x86, 0x87) and code[i + 1] >> 6 != 3


def step(out):
    """In gdb: between the start and the end mark, count each marked
    system call's instructions by function."""
    import gdb  # pylint: disable=import-outside-toplevel
    nm = subprocess.run(["nm", "-n", os.environ["VMLINUX"]],
                        capture_output=True, text=True, check=True).stdout
    syms = [(int(a, 16), n) for a, t, n in
            (line.split() for line in nm.splitlines() if len(line.split()) == 3)
            if t in "tTwW"]
    addrs = [a for a, _ in syms]

    def where(pc):
        i = bisect.bisect_right(addrs, pc) - 1
        return syms[i][1] if i >= 0 else "?"

    inferior = gdb.selected_inferior()
    decoded = {}

    def atomic(pc):
        """Whether the instruction at @pc is an atomic read-modify-write:
        one with a lock prefix, or an xchg with memory (locked always)."""
        if pc not in decoded:
            decoded[pc] = is_atomic_rmw(bytes(inferior.read_memory(pc, 15)))
        return decoded[pc]

    def run_to(*functions):
        """Continue to the first of @functions; return which it is."""
        stops = [gdb.Breakpoint(f, internal=True) for f in functions]
        gdb.execute("continue")
        hit = [b.location for b in stops if b.hit_count]
        for b in stops:
            b.delete()
        return hit[0] if hit else None

    def reg(name):
        return int(gdb.parse_and_eval(name))

    gdb.execute("set pagination off")
    gdb.execute(f"file {os.environ['VMLINUX']}")
    for _ in range(60):	# vmrun.py makes the disks before QEMU listens
        try:
            gdb.execute(f"target remote localhost:{os.environ['GDBPORT']}")
            break
        except gdb.error:
            time.sleep(1)
    run_to("__x64_sys_getsid")
    with open(out, "w") as f:
        while True:
            if run_to("__x64_sys_getppid",
                      "__x64_sys_getsid") == "__x64_sys_getsid":
                gdb.execute("detach")	# the guest runs to its end
                return
            run_to(*SYSCALLS)
            sp, ret = reg("$sp"), reg("*(unsigned long *)$sp")
            pcs = collections.Counter()
            while reg("$pc") != ret or reg("$sp") <= sp:
                pcs[reg("$pc")] += 1
                gdb.execute("stepi", to_string=True)
            counts = collections.Counter()
            for pc, n in pcs.items():
                counts[where(pc)] += n
            atomics = sum(n for pc, n in pcs.items() if atomic(pc))
            f.write(f"call {sum(counts.values())}\n")
            f.writelines(f"{n} {fn}\n" for fn, n in counts.items())
            f.write(f"{atomics} {ATOMIC}\n")
            f.flush()


def boot(kernel, args):
    """Start @kernel's guest and its gdb; return both processes."""
    obj = layout.obj(kernel, "fast")
    out = args.out
    log = open(os.path.join(out, f"{kernel}.console"), "w")
    run = Run(image=layout.image(kernel, "fast"), kernel=kernel,
              initramfs=args.initramfs, icount=True, gdb=PORTS[kernel],
              timeout=GUEST_TIMEOUT, append=f"bench.quick={int(args.quick)}",
              script=os.path.join(ROOT, "bench", "insn_trace.sh"))
    guest = subprocess.Popen(run.argv(), stdout=log, stderr=subprocess.STDOUT)
    env = dict(os.environ, VMLINUX=os.path.join(obj, "vmlinux"),
               GDBPORT=str(PORTS[kernel]))
    stepper = subprocess.Popen(
        ["gdb", "-q", "-batch", "-x", os.path.abspath(__file__),
         "-ex", f"python step('{os.path.join(out, kernel + '.calls')}')"],
        env=env, stdout=open(os.path.join(out, f"{kernel}.gdb"), "w"),
        stderr=subprocess.STDOUT)
    return guest, stepper


def calls(path):
    """The per-function counts of each traced call, in order."""
    out = []
    if not os.path.exists(path):
        return out		# gdb never got to the first call
    with open(path) as f:
        for line in f:
            n, name = line.split()
            if n == "call":
                out.append(collections.Counter())
            else:
                out[-1][name] += int(n)
    return out


def names(console):
    """The name of each traced call, from the trace-op lines."""
    out = []
    with open(console) as f:
        for line in f:
            words = line.split()
            if words[:1] == ["trace-op"] and len(words) == 3:
                out += [words[1]] * int(words[2])
    return out


def report(labels, base, ours):
    lines = []
    for label, b, o in zip(labels, base, ours):
        tb, to = sum(b.values()) - b[ATOMIC], sum(o.values()) - o[ATOMIC]
        lines.append(f"{label}: base {tb}, ours {to}: {to - tb:+d} "
                     f"({to / tb:.4f})")
        lines.append(f"  atomic read-modify-writes: base {b[ATOMIC]}, "
                     f"ours {o[ATOMIC]}")
        b, o = b.copy(), o.copy()
        del b[ATOMIC], o[ATOMIC]
        diff = {fn: o[fn] - b[fn] for fn in set(b) | set(o) if o[fn] != b[fn]}
        for fn in sorted(diff, key=lambda fn: (-abs(diff[fn]), fn)):
            lines.append(f"  {diff[fn]:+6d} {fn} ({b[fn]} -> {o[fn]})")
    return "\n".join(lines)


def main():
    import argparse  # pylint: disable=import-outside-toplevel
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--initramfs", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "insn"))
    ap.add_argument("--quick", action="store_true",
                    help="the first calls only, for make check")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    procs = [p for k in PORTS for p in boot(k, args)]
    status = [p.wait() for p in procs]
    got = {k: calls(os.path.join(args.out, f"{k}.calls")) for k in PORTS}
    labels = names(os.path.join(args.out, "patched.console"))
    text = report(labels, got["base"], got["patched"])
    with open(os.path.join(args.out, "report.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    if any(status) or not labels or \
            not len(labels) == len(got["base"]) == len(got["patched"]):
        print(f"insn-trace: guests and gdb exited {status}; calls traced: "
              f"{len(got['base'])} base, {len(got['patched'])} ours, "
              f"{len(labels)} marked", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__" and "gdb" not in sys.modules:
    sys.exit(main())
