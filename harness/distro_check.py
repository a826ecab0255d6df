#!/usr/bin/python3
"""make distro-check: the kernels of Debian's cloud configuration (make deb
CONFIG=cloud), or with --config debian of its generic amd64 one, ours and
the base, each installed by apt in a copy of the Debian guest
(harness/distro-rootfs.sh) and booted from its own vmlinuz and
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

No KUnit: Debian's configurations build no KUnit, and our suites are built
into the kernel with it (make check runs them). Results and consoles go to
build/check/distro/. Not in make check: the two kernels take hours to build
here (docs/testing.md, "Distribution kernels").
"""
import argparse
import dataclasses
import os
import sys

import check
import layout
from results import Results


def suites(config):
    """make check's suites, on the kernels of @config, as each declares
    (check.Suite's distro), and bpftrace's programs."""
    ours = (f"patched-{config}",)
    both = (f"base-{config}",) + ours
    out = [check.Suite("bpftrace", "userspace/bpftrace's programs",
                       check.tap_suite, 0, script="tests/userspace/bpftrace.sh",
                       guest="debian", kernels=both, timeout=3600)]
    for suite in check.SUITES:
        if isinstance(suite.distro, str):
            continue
        how = dict(suite.distro)
        kernels = both if how.pop("kernels") == "both" else ours
        if "run" in how:
            how["run"] = getattr(check, how["run"])
        out.append(dataclasses.replace(suite, kernels=kernels,
                                       full_kernels=(), **how))
    return out


def rootfs(kernel):
    return os.path.join(layout.BUILD, "distro", kernel, "rootfs")


class DistroGuest(check.Guest):
    """Every script in the Debian guest of its kernel's package."""

    def boot(self, kernel, guest, image):
        root = rootfs(kernel)
        with open(os.path.join(root, "..", "release")) as f:
            release = f.read().strip()
        boot = os.path.join(root, "boot")
        return {"image": os.path.join(boot, f"vmlinuz-{release}"),
                "initrd": os.path.join(boot, f"initrd.img-{release}"),
                "guest": "debian", "rootfs": root, "memory": "8G"}

    def run(self, kernel, script, timeout, log, append="", image=None,
            smp="4", guest="debian"):
        return super().run(kernel, script, timeout, log, append, image, smp,
                           guest)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--stress-duration", type=int, default=120,
                    help="seconds of load in the stress suite")
    ap.add_argument("--config", choices=check.DISTRO_FLAVOURS,
                    default="cloud", help="Debian's configuration (cloud)")
    ap.add_argument("--kernels", help="only these of the configuration's two "
                    "kernels (a suite of neither is left out)")
    ap.add_argument("suites", nargs="*", help="some of the suites (all)")
    args = ap.parse_args()
    args.kvm = args.full = False
    both = [f"{k}-{args.config}" for k in ("base", "patched")]
    args.kernels = args.kernels or " ".join(both)
    wanted = args.kernels.split()
    names = [s.name for s in suites(args.config)]
    unknown = [n for n in args.suites if n not in names] + \
        [k for k in wanted if k not in both]
    if unknown:
        ap.error(f"no suite or kernel {' '.join(unknown)}; the suites: "
                 f"{' '.join(names)}; the kernels: {' '.join(both)}")
    chosen = [dataclasses.replace(
        s, kernels=tuple(k for k in s.kernels if k in wanted))
        for s in suites(args.config)
        if s.name in args.suites or not args.suites]
    chosen = [s for s in chosen if s.kernels]
    for kernel in sorted({k for s in chosen for k in s.kernels}):
        if not os.path.isfile(os.path.join(rootfs(kernel), "..", "release")):
            print(f"distro-check: no {rootfs(kernel)}: harness/"
                  f"distro-rootfs.sh {kernel.replace('-', ' ')}",
                  file=sys.stderr)
            return 2
    check.LOGS = os.path.join(layout.CHECK_LOGS, "distro")
    os.makedirs(check.LOGS, exist_ok=True)
    r = Results()
    check.run_suites(DistroGuest(args), r, chosen)
    print(r.summary())
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
