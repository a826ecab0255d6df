"""A guest run as data, and what its console says.

A Run is everything harness/vmrun.py is asked to do; its argv() is the
one place that spells vmrun.py's command line, for check.py, bench.py,
insn_trace.py and distro_check.py alike (the Makefile's vm-run calls
vmrun.py as a user would). The functions below read the lines a guest
prints for the host, as docs/harness.md lists them: the framing of each
selftest program, the benchmark's measurements and its progress.
"""
import os
from dataclasses import dataclass

import layout

VMRUN = os.path.join(layout.ROOT, "harness", "vmrun.py")


@dataclass
class Run:
    """One boot: @script (a path) run in the @guest ("busybox", or
    "debian" with @rootfs) on the kernel @image. @kernel is the name the
    guest sees in $VMRUN_KERNEL. None leaves vmrun.py's default."""
    image: str
    script: str
    kernel: str = "patched"
    guest: str = "busybox"
    initramfs: str = None
    rootfs: str = None
    initrd: str = None
    timeout: int = None
    memory: str = None
    smp: str = None
    append: str = ""
    log: str = None
    kvm: bool = False
    icount: bool = False
    gdb: int = None

    def argv(self):
        """vmrun.py's command line for this run."""
        cmd = [VMRUN, "--image", self.image, "--kernel", self.kernel,
               "--guest", self.guest]
        for opt, value in (("--initramfs", self.initramfs),
                           ("--rootfs", self.rootfs),
                           ("--initrd", self.initrd),
                           ("--timeout", self.timeout),
                           ("--memory", self.memory), ("--smp", self.smp),
                           ("--log", self.log), ("--gdb", self.gdb)):
            if value is not None:
                cmd += [opt, str(value)]
        if self.append:
            cmd += ["--append", self.append]
        cmd += ["--kvm"] if self.kvm else []
        cmd += ["--icount"] if self.icount else []
        return cmd + [self.script]


def programs(lines):
    """(program, its lines) for each 'selftest: NAME' ... 'selftest: NAME
    exited N' on a console: how our guest scripts frame each program."""
    prog, chunk = None, []
    for line in lines:
        if line.startswith("selftest: "):
            if prog:
                yield prog, chunk
            prog, chunk = (None if " exited " in line else line.split()[1]), []
        elif prog:
            chunk.append(line)
    if prog:
        yield prog, chunk


def bench_line(line):
    """What a line of a benchmark's console says: ("bench", [scenario,
    row, metric, value]), ("series", [scenario, row, ms, value]) for a
    point of a plot, ("progress", text), or (None, None)."""
    words = line.split()
    if line.startswith("progress: "):
        return "progress", line[len("progress: "):].strip()
    if words[:1] in (["bench"], ["series"]) and len(words) == 5:
        return words[0], words[1:]
    return None, None
