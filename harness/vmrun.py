#!/usr/bin/python3
"""Boot a kernel under QEMU, run one script in the guest, stream the console.

The script's whole folder is copied into the guest (at /vmrun on an ext4
root) and the script runs as root from there with sh. Two guests:
  busybox  the default: an initramfs of busybox and the test programs that
           switches root to an empty ext4 disk; a second ext4 disk at
           $TESTFS, a swap disk
  debian   a Debian 12 root filesystem (--rootfs) on an ext4 disk, booted
           with systemd, the script run by vmrun.service
vm-run exits with the script's exit status, except:
  2    the script is missing or unreadable (nothing is booted)
  99   the script exited 0 but the console shows a kernel problem
  124  the guest did not finish within the timeout and was killed
  125  the guest ended without reporting the script's exit status
Kernel problems (WARN, BUG, Oops, lockdep, KASAN, RCU stall, soft lockup,
hung task, panic) are printed again at the end whatever the status.

--icount runs one vCPU whose clock counts instructions (one per nanosecond)
and boots without KASLR on disks of fixed UUIDs and ext4 hash seeds: the
guest then measures the path length of an operation, the same to within
0.05% across runs and boots (measured here: docs/bench/results.md), not
its wall time.

--gdb PORT starts the guest stopped, waiting for gdb on localhost:PORT
(harness/insn_trace.py).

The guest is a host in small: --numa NODES (2 by default) splits its
memory and vCPUs between NUMA nodes. A kernel with jump labels runs under
single-threaded TCG (--tcg-threads; see tcg_threads()).
"""
import argparse
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Kernel messages that fail a run. They start right after the printk
# timestamp, possibly behind a "subsystem: " prefix (rcu:, watchdog:).
PROBLEM = re.compile(
    r"\[\s*\d+\.\d+\] (?:[\w-]+: )?"
    r"(WARNING:|BUG:|Oops|kernel BUG at|general protection fault"
    r"|Kernel panic|INFO: task \S+ blocked|INFO: .*stall|UBSAN:"
    r"|DEBUG_LOCKS_WARN_ON|list_\w+ corruption|Unable to handle"
    r"|INFO: trying to register non-static key|BUG [\w.-]+ \("
    r"|ODEBUG: .*disabled|EXT4-fs error|XFS \(\S+\): Corruption"
    r"|BTRFS critical|BTRFS error)")


# The taint flags of /proc/sys/kernel/tainted by bit
# (Documentation/admin-guide/tainted-kernels.rst), and the one a run sets
# on purpose: KUnit's, TAINT_TEST.
TAINT_FLAGS = "PFSRMBUDAWCIOELKXTN"
TAINT_TEST = 1 << 18


def unexpected_taints(tainted):
    """The letters of the flags of @tainted that no test sets on purpose."""
    tainted &= ~TAINT_TEST
    return "".join(flag for bit, flag in enumerate(TAINT_FLAGS)
                   if tainted >> bit & 1) + \
        (f" (0x{tainted:x})" if tainted >> len(TAINT_FLAGS) else "")


def fail(status, msg):
    print(f"vm-run: {msg}", file=sys.stderr, flush=True)
    sys.exit(status)


def make_disk(path, size, *mkfs):
    """A sparse image of `size` bytes made by mkfs (its chatter dropped)."""
    with open(path, "wb") as f:
        f.truncate(size)
    os.chmod(path, 0o600)
    subprocess.run([*mkfs, path], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


# The script's folder travels into the guest whole; anything bigger is a
# mistake (a script in /tmp, say), not a test.
FOLDER_LIMIT = 256 << 20


def check_folder(folder):
    """Refuse a folder that is too big to copy or holds device nodes, pipes
    or sockets (copying /dev/zero as a file never ends)."""
    total = 0
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            st = os.lstat(os.path.join(top, name))
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode) or
                    stat.S_ISLNK(st.st_mode)):
                fail(2, f"{os.path.join(top, name)} is not a plain file: "
                     "put the script in a folder of its own")
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
        if total > FOLDER_LIMIT:
            fail(2, f"{folder} holds more than {FOLDER_LIMIT >> 20} MiB: "
                 "put the script in a folder of its own")


def memory_bytes(size):
    """QEMU's -m size (a number of MiB, or with a K, M, G or T suffix) in
    bytes."""
    m = re.fullmatch(r"(\d+)([KMGT]?)", size.upper())
    if not m:
        raise ValueError(f"memory size '{size}' is not a number with an "
                         "optional K, M, G or T")
    shift = {"": 20, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2)]
    return int(m.group(1)) << shift


def numa_args(memory, cpus, nodes):
    """QEMU options for @nodes NUMA nodes sharing @memory bytes and @cpus
    vCPUs: one socket per node, with a contiguous range of the CPUs (a CPU's
    cache siblings on another node is a topology the kernel warns of),
    node 0 with any remainder of the memory. With fewer CPUs than nodes,
    the last nodes have memory only, as a host's memory expander or a node
    whose CPUs are offline does."""
    if nodes < 2:
        return ["-smp", str(cpus)]
    if cpus > nodes and cpus % nodes:
        raise ValueError(f"{cpus} CPUs do not split evenly into {nodes} "
                         "NUMA nodes")
    per_node, mib = memory // nodes >> 20 << 20, 1 << 20
    if per_node < 128 * mib:
        raise ValueError(f"{memory >> 20} MiB is too little for {nodes} "
                         "NUMA nodes")
    sockets = min(cpus, nodes)
    args = ["-smp", f"{cpus},sockets={sockets},cores={cpus // sockets},"
            "threads=1"]
    for node in range(nodes):
        size = per_node + (memory - per_node * nodes if node == 0 else 0)
        first, last = -(-node * cpus // nodes), -(-(node + 1) * cpus // nodes) - 1
        cpu = f",cpus={first}-{last}" if last >= first else ""
        args += ["-object", f"memory-backend-ram,id=mem{node},size={size}",
                 "-numa", f"node,nodeid={node},memdev=mem{node}{cpu}"]
    return args


def kernel_config(image):
    """The .config @image was built with: its object folder's, for a
    bzImage built here, or the config-<release> beside a packaged
    /boot/vmlinuz-<release>; None if there is none."""
    folder, name = os.path.split(os.path.abspath(image))
    candidates = [os.path.join(folder, "..", "..", "..", ".config")]
    if name.startswith("vmlinuz-"):
        candidates.insert(0, os.path.join(folder, "config-" + name[8:]))
    for path in candidates:
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                return f.read()
    return None


def tcg_threads(image, choice):
    """single or multi: QEMU's multi-threaded TCG now and then runs a
    guest's int3 that text_poke_bp() has already taken out again, and the
    kernel dies of it (an "int3" oops, about 1 boot in 20 on QEMU 7.2, as
    Red Hat bug 2216496 reports for 8.0): a kernel that patches its text
    for jump labels runs on one thread, unless @choice says otherwise. A
    kernel of unknown configuration counts as one that does."""
    if choice != "auto":
        return choice
    config = kernel_config(image)
    if config is not None and "\nCONFIG_JUMP_LABEL=y\n" not in config:
        return "multi"
    return "single"


def pci_args(image):
    """pci=noacpi: the PCI interrupt routing of the virtio disks from
    QEMU's MP tables, not by running ACPI's _PRT method, which takes the
    debug kernel 34 s a boot under TCG, and with kmemleak on more than
    ACPI's 30 s loop timeout (the disks then get no interrupt). Not for a
    kernel without MP table support (CONFIG_X86_MPPARSE, off in Debian's
    cloud kernel): it then finds no SMP configuration and boots one CPU."""
    config = kernel_config(image)
    if config is not None and "\nCONFIG_X86_MPPARSE=y\n" not in config:
        return ""
    return "pci=noacpi "


def guest_initrd(tmp, initramfs, folder):
    """The prebuilt initramfs followed by a cpio of the script's folder at
    /vmrun: the kernel unpacks concatenated archives in order."""
    stage = os.path.join(tmp, "stage")
    shutil.copytree(folder, os.path.join(stage, "vmrun"), symlinks=True)
    cpio = subprocess.run(
        "find vmrun | cpio -o -H newc --quiet -R 0:0", shell=True, cwd=stage,
        check=True, capture_output=True).stdout
    path = os.path.join(tmp, "initrd.cpio")
    with open(initramfs, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
        dst.write(cpio)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--image", required=True, help="bzImage to boot")
    ap.add_argument("--kernel", default="patched", help="name for the guest")
    ap.add_argument("--guest", choices=("busybox", "debian"),
                    default="busybox")
    ap.add_argument("--initramfs", help="the busybox guest's")
    ap.add_argument("--rootfs", help="the Debian guest's root directory")
    ap.add_argument("--initrd", help="the Debian guest's initramfs, for a "
                    "packaged kernel whose disk drivers are modules")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds")
    ap.add_argument("--memory", default="4G")
    ap.add_argument("--smp", default="2")
    ap.add_argument("--numa", type=int, default=2, metavar="NODES",
                    help="NUMA nodes the memory and CPUs split into "
                    "(1: none)")
    ap.add_argument("--append", default="", help="more kernel parameters")
    ap.add_argument("--kvm", action="store_true", help="use KVM, not TCG")
    ap.add_argument("--tcg-threads", choices=("auto", "single", "multi"),
                    default="auto", help="TCG on one thread or one per vCPU; "
                    "auto: one for a kernel with jump labels")
    ap.add_argument("--gdb", type=int, metavar="PORT",
                    help="wait for gdb on localhost:PORT before booting")
    ap.add_argument("--icount", action="store_true",
                    help="a deterministic instruction clock: one vCPU")
    ap.add_argument("--log", help="also write the console to this file")
    ap.add_argument("script")
    args = ap.parse_args()

    script = os.path.abspath(args.script)
    if not os.path.isfile(script) or not os.access(script, os.R_OK):
        fail(2, f"cannot read script '{args.script}'")
    if re.search(r"\s", os.path.basename(script)):
        fail(2, f"script name '{args.script}' contains white space")
    if not os.path.isfile(args.image):
        fail(2, f"no kernel image at {args.image}")
    if args.icount and args.kvm:
        fail(2, "--icount is a TCG mode: not with --kvm")
    try:
        memory = memory_bytes(args.memory)
        numa_args(memory, 1 if args.icount else int(args.smp), args.numa)
    except ValueError as e:
        fail(2, str(e))
    if args.guest == "busybox" and not args.initramfs:
        fail(2, "the busybox guest needs --initramfs")
    if args.guest == "debian" and not (args.rootfs and
                                       os.path.isdir(args.rootfs)):
        fail(2, "the debian guest needs --rootfs, a directory")
    if args.initrd and not (args.guest == "debian" and
                            os.path.isfile(args.initrd)):
        fail(2, "--initrd is a file, for the debian guest")
    check_folder(os.path.dirname(script))
    # Killed by timeout(1) or make: still remove the disks and the stage.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, "build"),
                                     prefix="vm-") as tmp:
        if args.guest == "busybox":
            boot_args = ["-initrd", guest_initrd(tmp, args.initramfs,
                                                 os.path.dirname(script))]
            disks = [("root", 4 << 30, ["mkfs.ext4", "-q", "-F"]),
                     ("test", 4 << 30, ["mkfs.ext4", "-q", "-F"]),
                     ("swap", 2 << 30, ["mkswap"])]
            root = ""
        else:
            boot_args = ["-initrd", args.initrd] if args.initrd else []
            folder = os.path.join(args.rootfs, "vmrun")
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(os.path.dirname(script), folder, symlinks=True)
            disks = [("root", 8 << 30, ["mkfs.ext4", "-q", "-F", "-d",
                                         args.rootfs])]
            # systemd's status lines and job spinner would break into the
            # script's results on the console (guest/debian/vmrun-guest
            # stops the login prompt)
            root = "root=/dev/vda rw systemd.show_status=0 "
        drives = []
        for name, size, mkfs in disks:
            path = os.path.join(tmp, name + ".img")
            if args.icount and mkfs[0] == "mkfs.ext4":
                # the same directory hashes, so the same code paths
                fixed = str(uuid.uuid5(uuid.NAMESPACE_URL, "vmrun:" + name))
                mkfs = [*mkfs, "-U", fixed, "-E", f"hash_seed={fixed}"]
            make_disk(path, size, *mkfs)
            drives += ["-drive", f"file={path},format=raw,if=virtio,cache=unsafe"]
        nonce = secrets.token_hex(8)
        cmdline = (f"console=ttyS0 panic=-1 {pci_args(args.image)}{root}"
                   f"vmrun.nonce={nonce} "
                   f"vmrun.script={os.path.basename(script)} "
                   f"vmrun.kernel={args.kernel} {args.append}")
        # la57=off: with 5-level paging, an interrupt while identify_cpu()
        # rebuilds the boot CPU's features sees LA57 off for a moment, and
        # KASAN reports the interrupt's access to the direct map as wild.
        threads = tcg_threads(args.image, args.tcg_threads)
        accel = ["-accel", "kvm", "-cpu", "host"] if args.kvm else \
            ["-accel", f"tcg,thread={threads}", "-cpu", "max,la57=off"]
        smp = args.smp
        if args.icount:
            accel = ["-accel", "tcg,thread=single", "-icount",
                     "shift=0,sleep=off", "-cpu", "max,la57=off"]
            smp = "1"
            cmdline += " nokaslr"
        qemu = ["qemu-system-x86_64", *accel,
                "-m", args.memory, *numa_args(memory, int(smp), args.numa),
                "-display", "none", "-serial", "stdio",
                "-monitor", "none", "-no-reboot", "-kernel", args.image,
                *boot_args, "-append", cmdline, *drives]
        if args.gdb:
            qemu += ["-S", "-gdb", f"tcp:127.0.0.1:{args.gdb}"]
        return boot(qemu, nonce, args)


def boot(qemu, nonce, args):
    exit_line = re.compile(rf"vmrun-exit-{nonce}: (\d+)(?: tainted (\d+))?")
    status, problems = [None], []
    log = open(args.log, "w") if args.log else None
    proc = subprocess.Popen(qemu, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def read_console():
        for raw in proc.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            print(line, flush=True)
            if log:
                log.write(line + "\n")
            if PROBLEM.search(line):
                problems.append(line)
            m = exit_line.search(line)
            if m:
                status[0] = int(m.group(1))
                taints = unexpected_taints(int(m.group(2) or 0))
                if taints:
                    problems.append(f"kernel tainted: {taints}")

    reader = threading.Thread(target=read_console)
    reader.start()
    timed_out = True
    try:
        proc.wait(timeout=args.timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        pass
    finally:
        # Out of time, or vm-run itself killed (SIGTERM from timeout(1) or
        # make): QEMU goes too, not on with nobody reading its console.
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join()
    if log:
        log.close()
    if problems:
        print("vm-run: kernel problems on the console:", file=sys.stderr)
        for line in problems:
            print(f"vm-run:   {line}", file=sys.stderr)
    if timed_out:
        fail(124, f"guest did not finish within {args.timeout} s: killed")
    if status[0] is None:
        fail(125, "guest ended without reporting the script's exit status")
    if status[0] == 0 and problems:
        fail(99, "script exited 0 but the kernel reported problems")
    if status[0]:
        fail(status[0], f"script exited {status[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
