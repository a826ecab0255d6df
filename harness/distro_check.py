#!/usr/bin/python3
"""make distro-check: the kernels of Debian's cloud configuration (make deb
CONFIG=cloud), ours and the base, each installed by apt in a copy of the
Debian guest (harness/distro-rootfs.sh) and booted from its own vmlinuz and
initramfs, with its filesystems loaded as modules, on a guest shaped like
a host: 4 vCPUs on 2 NUMA nodes, 8 GiB, jump labels live (so one TCG
thread: harness/vmrun.py's tcg_threads() says why). On both kernels:

  upstream   the cgroup selftests test_core, test_kmem, test_memcontrol:
             the known results, and ours the base's;
  userspace  systemd, containers and the metrics;
  bpftrace   userspace/bpftrace's programs (the base: creators.bt alone);
and on ours:
  selftests  our kselftests, with 64 CPUs possible and with nokmem;
  filesystems both limits on every filesystem containers use;
  stress     the stress suite, short, without fault injection or kmemleak
             (Debian builds neither).

No KUnit: Debian's configuration builds no KUnit, and our suites are built
into the kernel with it (make check runs them). Results and consoles go to
build/check/distro/. Not in make check: the two kernels take hours to build
here (docs/testing.md, "Distribution kernels").
"""
import argparse
import os
import sys

import check
import layout
from results import Results

KERNELS = ("base-cloud", "patched-cloud")
TIMEOUT_USERSPACE = 3600


def rootfs(kernel):
    return os.path.join(layout.BUILD, "distro", kernel.split("-")[0],
                        "rootfs")


class DistroGuest(check.Guest):
    """Every script in the Debian guest of its kernel's package."""

    def boot_args(self, kernel, script, image):
        root = rootfs(kernel)
        with open(os.path.join(root, "..", "release")) as f:
            release = f.read().strip()
        boot = os.path.join(root, "boot")
        return ["--image", os.path.join(boot, f"vmlinuz-{release}"),
                "--initrd", os.path.join(boot, f"initrd.img-{release}"),
                "--guest", "debian", "--rootfs", root, "--memory", "8G"]

    def run(self, kernel, script, timeout, log, append="", image=None,
            smp="4"):
        return super().run(kernel, script, timeout, log, append, image, smp)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--stress-duration", type=int, default=120,
                    help="seconds of load in the stress suite")
    args = ap.parse_args()
    args.kernels = " ".join(KERNELS)
    args.kvm = False
    for kernel in KERNELS:
        if not os.path.isfile(os.path.join(rootfs(kernel), "..", "release")):
            print(f"distro-check: no {rootfs(kernel)}: harness/"
                  f"distro-rootfs.sh {kernel.split('-')[0]}", file=sys.stderr)
            return 2
    check.LOGS = os.path.join(layout.CHECK_LOGS, "distro")
    os.makedirs(check.LOGS, exist_ok=True)
    guest, r = DistroGuest(args), Results()
    print("[upstream]", flush=True)
    check.upstream_pair(guest, r, "cloud")
    print("[userspace]", flush=True)
    for kernel in KERNELS:
        check.tap_run(guest, r, kernel, "tests/userspace/run.sh",
                      TIMEOUT_USERSPACE, "userspace")
    print("[bpftrace]", flush=True)
    for kernel in KERNELS:
        check.tap_run(guest, r, kernel, "tests/userspace/bpftrace.sh",
                      TIMEOUT_USERSPACE, "bpftrace")
    print("[selftests]", flush=True)
    check.selftests_suite(guest, r, kernels=("patched-cloud",))
    print("[filesystems]", flush=True)
    check.filesystems_suite(guest, r, kernels=("patched-cloud",))
    print("[stress]", flush=True)
    check.stress_suite(guest, r, kernel="patched-cloud",
                       append="stress.faults=off")
    print(r.summary())
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
