#!/usr/bin/python3
"""Unit tests of the harness: what it reads off consoles, patches and
series files, and what it reports. make check runs them first, before
anything is built or booted (make harness-test runs them alone):

    python3 -m unittest discover -s harness -p '*_test.py'

The consoles under harness/test_data/ were captured from real guests;
their README says from which.
"""
import collections
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import assemble
import bench
import check
import distro_check
import fstests_compare
import guest
import insn_trace
import restated
import results
import series_check
import vmrun

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_data")


def data(name):
    with open(os.path.join(DATA, name), errors="replace") as f:
        return f.read().splitlines()


def problems(lines):
    return [line for line in lines if vmrun.PROBLEM.search(line)]


class ConsoleProblemTest(unittest.TestCase):
    """vmrun.py fails a run on the console lines PROBLEM matches."""

    def test_a_clean_boot_has_none(self):
        self.assertEqual(problems(data("console-clean.log")), [])

    def test_a_warn_is_one(self):
        found = problems(data("console-warn.log"))
        self.assertTrue(found)
        self.assertIn("WARNING: CPU:", found[0])
        self.assertIn("lkdtm", found[0])

    def test_kasan_is_one(self):
        found = problems(data("console-kasan.log"))
        self.assertTrue(any("BUG: KASAN: slab-use-after-free" in line
                            for line in found), found)

    def test_each_kind_of_report(self):
        for line in (
                "[   12.345678] WARNING: CPU: 1 PID: 2 at fs/dcache.c:1 x+0x1/0x2",
                "[    3.000001] BUG: KASAN: slab-out-of-bounds in f+0x1/0x2",
                "[    3.000001] BUG: kernel NULL pointer dereference, address: 8",
                "[   22.100000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s!",
                "[   30.000000] rcu: INFO: rcu_preempt self-detected stall on CPU",
                "[  123.000000] INFO: task kworker/0:1:12 blocked for more than 120 seconds.",
                "[    5.500000] Oops: general protection fault, probably for non-canonical address",
                "[    1.000000] kernel BUG at mm/slub.c:123!",
                "[    2.000000] Kernel panic - not syncing: Fatal exception",
                "[    4.000000] UBSAN: shift-out-of-bounds in fs/dcache.c:12:3",
                "[    6.000000] DEBUG_LOCKS_WARN_ON(1)",
                "[    7.000000] list_add corruption. prev->next should be next",
                "[    8.000000] WARNING: possible circular locking dependency detected",
                "[    9.000000] BUG: sleeping function called from invalid context",
                "[   10.000000] INFO: trying to register non-static key.",
                "[   11.000000] BUG kmalloc-64 (Not tainted): Poison overwritten",
                "[   12.000000] BUG dentry (Tainted: G    B): Object padding overwritten",
                "[   13.000000] ODEBUG: Out of memory. ODEBUG disabled",
                "[   14.000000] EXT4-fs error (device vdb): ext4_lookup:1855: inode #2: comm sh: iget: bad extra_isize",
                "[   15.000000] XFS (loop0): Corruption detected. Unmount and run xfs_repair",
                "[   16.000000] BTRFS error (device loop1): bad tree block start"):
            with self.subTest(line=line):
                self.assertTrue(vmrun.PROBLEM.search(line))

    def test_taints_no_test_sets(self):
        self.assertEqual(vmrun.unexpected_taints(0), "")
        # KUnit's own, TAINT_TEST
        self.assertEqual(vmrun.unexpected_taints(1 << 18), "")
        # a bad page, and a warning with KUnit's
        self.assertEqual(vmrun.unexpected_taints(1 << 5), "B")
        self.assertEqual(vmrun.unexpected_taints(1 << 9 | 1 << 18), "W")
        self.assertIn("0x80000", vmrun.unexpected_taints(1 << 19))

    def test_what_is_no_problem(self):
        for line in (
                "[    0.000000] Command line: console=ttyS0 panic=-1",
                "# WARNING: the test expected this",
                "ok 3 BUG: in a test name",
                "[    1.000000] Run /init as init process",
                "[    2.000000] kmemleak: Kernel memory leak detector initialized",
                "warning: a line without a timestamp"):
            with self.subTest(line=line):
                self.assertFalse(vmrun.PROBLEM.search(line))


class NumaTest(unittest.TestCase):
    """vmrun.py's NUMA nodes: QEMU's memory and CPUs split between them."""

    def nodes(self, memory, cpus, nodes):
        args = vmrun.numa_args(vmrun.memory_bytes(memory), cpus, nodes)
        return [a for a in args if a.startswith("node")], \
            [int(a.split("size=")[1]) for a in args if "size=" in a]

    def test_a_socket_a_node(self):
        args = vmrun.numa_args(4 << 30, 4, 2)
        self.assertEqual(args[:2], ["-smp", "4,sockets=2,cores=2,threads=1"])
        self.assertEqual(vmrun.numa_args(4 << 30, 1, 2)[:2],
                         ["-smp", "1,sockets=1,cores=1,threads=1"])

    def test_cpus_that_do_not_split_are_refused(self):
        with self.assertRaises(ValueError):
            vmrun.numa_args(4 << 30, 3, 2)

    def test_sizes(self):
        self.assertEqual(vmrun.memory_bytes("4G"), 4 << 30)
        self.assertEqual(vmrun.memory_bytes("3000"), 3000 << 20)
        self.assertEqual(vmrun.memory_bytes("512m"), 512 << 20)
        for bad in ("", "4X", "-1G", "1.5G"):
            with self.assertRaises(ValueError):
                vmrun.memory_bytes(bad)

    def test_two_nodes_share_cpus_and_memory(self):
        nodes, sizes = self.nodes("4G", 4, 2)
        self.assertEqual(nodes, ["node,nodeid=0,memdev=mem0,cpus=0-1",
                                 "node,nodeid=1,memdev=mem1,cpus=2-3"])
        self.assertEqual(sizes, [2 << 30, 2 << 30])

    def test_one_cpu_goes_to_the_first_node(self):
        nodes, _ = self.nodes("4G", 1, 2)
        self.assertEqual(nodes, ["node,nodeid=0,memdev=mem0,cpus=0-0",
                                 "node,nodeid=1,memdev=mem1"])

    def test_the_first_node_takes_what_does_not_divide(self):
        _, sizes = self.nodes("1025", 2, 2)
        self.assertEqual(sum(sizes), 1025 << 20)
        self.assertEqual(sizes[1], 512 << 20)

    def test_one_node_is_no_numa(self):
        self.assertEqual(vmrun.numa_args(4 << 30, 2, 1), ["-smp", "2"])

    def test_too_little_memory_is_refused(self):
        with self.assertRaises(ValueError):
            vmrun.numa_args(200 << 20, 2, 2)


class VmrunArgumentsTest(unittest.TestCase):
    """vmrun.py refuses what it cannot boot, with status 2, before it
    makes a disk or starts QEMU."""

    def status(self, *args):
        with tempfile.TemporaryDirectory() as tmp:
            script, image = (os.path.join(tmp, n) for n in ("t.sh", "bz"))
            for path in (script, image):
                open(path, "w").close()
            res = subprocess.run([sys.executable, vmrun.__file__, "--image",
                                  image, *args, script], capture_output=True,
                                 text=True)
            return res.returncode, res.stderr

    def test_an_initrd_is_for_the_debian_guest(self):
        got, err = self.status("--initramfs", "/dev/null", "--initrd",
                               "/dev/null")
        self.assertEqual(got, 2, err)
        self.assertIn("--initrd", err)

    def test_an_initrd_must_exist(self):
        with tempfile.TemporaryDirectory() as rootfs:
            got, err = self.status("--guest", "debian", "--rootfs", rootfs,
                                   "--initrd", os.path.join(rootfs, "none"))
        self.assertEqual(got, 2, err)

    def test_cpus_that_do_not_split_into_nodes(self):
        got, err = self.status("--initramfs", "/dev/null", "--smp", "3")
        self.assertEqual(got, 2, err)


    def test_the_guests_need_their_roots(self):
        got, err = self.status()
        self.assertEqual(got, 2, err)
        self.assertIn("--initramfs", err)
        got, err = self.status("--guest", "debian")
        self.assertEqual(got, 2, err)
        self.assertIn("--rootfs", err)

    def test_a_bad_memory_size(self):
        got, err = self.status("--initramfs", "/dev/null", "--memory", "4X")
        self.assertEqual(got, 2, err)
        self.assertIn("4X", err)

    def test_a_missing_script(self):
        res = subprocess.run([sys.executable, vmrun.__file__, "--image",
                              "/dev/null", "--initramfs", "/dev/null",
                              "/nonexistent/t.sh"], capture_output=True,
                             text=True)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("cannot read script", res.stderr)

    def test_icount_is_not_for_kvm(self):
        got, err = self.status("--initramfs", "/dev/null", "--icount",
                               "--kvm")
        self.assertEqual(got, 2, err)


class RunTest(unittest.TestCase):
    """guest.Run spells vmrun.py's command line, which vmrun.py parses."""

    def test_busybox(self):
        argv = guest.Run(image="bz", script="t.sh", initramfs="i.cpio",
                         timeout=30, smp="64", append="maxcpus=2").argv()
        self.assertEqual(argv[1:], [
            "--image", "bz", "--kernel", "patched", "--guest", "busybox",
            "--initramfs", "i.cpio", "--timeout", "30", "--smp", "64",
            "--append", "maxcpus=2", "t.sh"])

    def test_debian_with_its_own_boot(self):
        argv = guest.Run(image="vmlinuz", script="t.sh", kernel="base",
                         guest="debian", rootfs="/r", initrd="initrd.img",
                         memory="8G", kvm=True).argv()
        self.assertEqual(argv[1:], [
            "--image", "vmlinuz", "--kernel", "base", "--guest", "debian",
            "--rootfs", "/r", "--initrd", "initrd.img", "--memory", "8G",
            "--kvm", "t.sh"])

    def test_icount_and_gdb(self):
        argv = guest.Run(image="bz", script="t.sh", initramfs="i",
                         icount=True, gdb=1234).argv()
        self.assertIn("--icount", argv)
        self.assertEqual(argv[argv.index("--gdb") + 1], "1234")

    def test_make_checks_guests(self):
        """Guest.run boots the guest a suite declares, never by a path."""
        args = type("Args", (), {"rootfs": "/r", "initramfs": "i",
                                 "kvm": False})()
        g = check.Guest(args)
        self.assertEqual(g.boot("patched-fast", "debian", None)["rootfs"], "/r")
        self.assertEqual(g.boot("patched-fast", "busybox", None),
                         {"image": check.Guest.image("patched-fast"),
                          "initramfs": "i"})


class SuiteTest(unittest.TestCase):
    """make check's suites are declared whole."""

    def test_each_declaration(self):
        kernels = {"patched-debug", "patched-fast", "base-fast"}
        names = [s.name for s in check.SUITES]
        self.assertEqual(len(names), len(set(names)))
        for suite in check.SUITES:
            self.assertTrue(callable(suite.run), suite.name)
            self.assertTrue(suite.what and suite.seconds > 0, suite.name)
            self.assertIn(suite.guest, ("busybox", "debian"), suite.name)
            self.assertLessEqual(set(suite.booted(True)), kernels,
                                 suite.name)
            self.assertLessEqual(set(suite.booted(False)),
                                 set(suite.booted(True)), suite.name)
            if suite.script and not suite.script.startswith("build/"):
                self.assertTrue(os.path.isfile(os.path.join(
                    check.ROOT, suite.script)), suite.script)

    def test_list(self):
        res = subprocess.run([sys.executable, check.__file__, "--list"],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual([line.split(":")[0] for line in
                          res.stdout.splitlines()],
                         [s.name for s in check.SUITES])


class KernelConfigTest(unittest.TestCase):
    """What vmrun.py reads off a packaged kernel's config-<release>."""

    def image(self, tmp, config):
        with open(os.path.join(tmp, "config-6.12-x"), "w") as f:
            f.write("#\n" + config)
        return os.path.join(tmp, "vmlinuz-6.12-x")

    def test_without_mp_tables_acpi_routes_the_interrupts(self):
        with tempfile.TemporaryDirectory() as tmp:
            image = self.image(tmp, "# CONFIG_X86_MPPARSE is not set\n")
            self.assertEqual(vmrun.pci_args(image), "")
            image = self.image(tmp, "CONFIG_X86_MPPARSE=y\n")
            self.assertEqual(vmrun.pci_args(image), "pci=noacpi ")

    def test_jump_labels_take_one_thread(self):
        with tempfile.TemporaryDirectory() as tmp:
            image = self.image(tmp, "CONFIG_JUMP_LABEL=y\n")
            self.assertEqual(vmrun.tcg_threads(image, "auto"), "single")
            image = self.image(tmp, "# CONFIG_JUMP_LABEL is not set\n")
            self.assertEqual(vmrun.tcg_threads(image, "auto"), "multi")


class UnversionedObjectsTest(unittest.TestCase):
    """unversioned-objects.sh removes the objects a killed build left
    without the versions of their exports, and only those."""

    SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "unversioned-objects.sh")

    def object(self, tmp, name, exports, versions=(), compiled=True):
        """name.o defining __export_symbol_<e> for each of @exports (or
        only naming one in a string), with .name.o.cmd as kbuild writes it
        for a compile (a source_ line) or a link, and the #SYMVER lines of
        @versions."""
        src = os.path.join(tmp, name + ".c")
        with open(src, "w") as f:
            f.write("".join(f"int __export_symbol_{e};\n" for e in exports)
                    or 'const char *s = "__export_symbol_in_a_string";\n')
        subprocess.run(["gcc", "-c", "-o", os.path.join(tmp, name + ".o"),
                        src], check=True)
        with open(os.path.join(tmp, f".{name}.o.cmd"), "w") as f:
            if compiled:
                f.write(f"savedcmd_{name}.o := gcc -c -o {name}.o {src}\n\n"
                        f"source_{name}.o := {src}\n")
            else:
                f.write(f"savedcmd_{name}.o := ld -r -o {name}.o a.o b.o\n")
            f.writelines(f"#SYMVER {v} 0x12345678\n" for v in versions)

    def run_script(self, tmp, config):
        with open(os.path.join(tmp, ".config"), "w") as f:
            f.write(config)
        res = subprocess.run([self.SCRIPT, tmp], capture_output=True,
                             text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        return sorted(n[:-2] for n in os.listdir(tmp) if n.endswith(".o"))

    def test_only_compiled_exports_without_versions_go(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.object(tmp, "killed", ["a"])
            self.object(tmp, "cut", ["b", "c"], versions=["b"])
            self.object(tmp, "done", ["d", "e"], versions=["e", "d"])
            self.object(tmp, "composite", ["f"], compiled=False)
            self.object(tmp, "string", [])
            self.assertEqual(self.run_script(tmp, "CONFIG_MODVERSIONS=y\n"),
                             ["composite", "done", "string"])
            for name in ("killed", "cut"):
                self.assertFalse(os.path.exists(
                    os.path.join(tmp, f".{name}.o.cmd")))

    def test_nothing_goes_without_modversions(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.object(tmp, "plain", ["a"])
            self.assertEqual(self.run_script(
                tmp, "# CONFIG_MODVERSIONS is not set\n"), ["plain"])


class RestatedTest(unittest.TestCase):
    """The selftests' copies of the kernel's constants."""
    UTIL = ("/* A batch (MEMCG_X_BATCH).\n */\n#define ND_BATCH\t\t32\n\n"
            "/* A budget (Y_BUDGET) */\n#define ND_BUDGET\t65536\n"
            "#define ND_NOT_A_COPY\t7\n")

    def test_copies_name_their_macros(self):
        self.assertEqual(restated.copies(self.UTIL),
                         [("ND_BATCH", 32, "MEMCG_X_BATCH"),
                          ("ND_BUDGET", 65536, "Y_BUDGET")])

    def test_matching_copies_are_right(self):
        kernel = ["#define MEMCG_X_BATCH\t32\n", "#define Y_BUDGET\t65536L\n"]
        self.assertEqual(restated.mismatches(self.UTIL, kernel), [])

    def test_a_drifted_or_missing_macro_is_wrong(self):
        kernel = ["#define MEMCG_X_BATCH\t64\n"]
        self.assertEqual(restated.mismatches(self.UTIL, kernel),
                         ["ND_BATCH is 32, MEMCG_X_BATCH 64",
                          "ND_BUDGET copies Y_BUDGET, which no kernel file "
                          "of ours defines"])

    def test_the_tree_agrees(self):
        copied, wrong = restated.check()
        self.assertGreaterEqual(len(copied), 6)
        self.assertEqual(wrong, [])


class TapTest(unittest.TestCase):
    """check.py reads the kselftests' TAP with the kernel's KTAP parser."""

    def test_a_program_without_a_version_line_gets_one(self):
        self.assertEqual(check.as_ktap(["ok 1 a", "not ok 2 b"]),
                         ["TAP version 13", "ok 1 a", "not ok 2 b"])

    def test_kselftest_skips_read_as_ktap(self):
        self.assertEqual(check.as_ktap(["TAP version 13", "1..2", "ok 1 a",
                                        "ok 2 # SKIP b"]),
                         ["TAP version 13", "1..2", "ok 1 a", "ok 2 b # SKIP"])

    def test_programs_are_framed(self):
        lines = ["boot", "selftest: one", "TAP version 13", "ok 1 a",
                 "selftest: one exited 0", "noise", "selftest: two",
                 "TAP version 13", "selftest: two exited 1"]
        self.assertEqual(list(guest.programs(lines)),
                         [("one", ["TAP version 13", "ok 1 a"]),
                          ("two", ["TAP version 13"])])

    def test_results_of_each_kind(self):
        lines = ["selftest: prog", "TAP version 13", "1..4", "ok 1 passes",
                 "not ok 2 fails", "ok 3 # SKIP skips", "# a comment",
                 "ok 4 dir_max.harness_name",
                 "selftest: prog exited 1"]
        self.assertEqual(check.parse_selftests(lines), {
            ("prog", "passes"): "pass", ("prog", "fails"): "fail",
            ("prog", "skips"): "skip",
            ("prog", "dir_max.harness_name"): "pass"})

    def test_a_program_that_dies_midway_fails(self):
        lines = ["selftest: prog", "TAP version 13", "1..3", "ok 1 a",
                 "selftest: prog exited 139"]
        results = check.parse_selftests(lines)
        self.assertEqual(results[("prog", "a")], "pass")
        self.assertEqual(results[("prog", "crashed")], "fail")

    def test_a_captured_selftests_console(self):
        results = check.parse_selftests(data("console-selftests.log"))
        progs = {prog for prog, _ in results}
        self.assertEqual(progs, {"dentry_dir_max", "test_negative_dentry"})
        self.assertTrue(all(v == "pass" for v in results.values()), results)
        # every test the sources declare, and no other
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        declared = set()
        for prog, source in (
                ("dentry_dir_max", "tools/testing/selftests/filesystems/"
                 "negative_dentries/dentry_dir_max.c"),
                ("test_negative_dentry", "tools/testing/selftests/cgroup/"
                 "test_negative_dentry.c")):
            declared |= {(prog, t) for t in
                         check.declared_tests(os.path.join(root, source))}
        self.assertEqual(set(results), declared)

    def test_a_captured_upstream_console(self):
        results = check.parse_selftests(data("console-upstream.log"))
        self.assertEqual({prog for prog, _ in results},
                         {"test_core", "test_kmem", "test_memcontrol"})
        self.assertEqual(len(results), 32)
        self.assertEqual(results[("test_core", "test_cgcore_destroy")],
                         "pass")
        # known to fail, on the base kernel as on ours (known-results)
        self.assertEqual(results[("test_kmem", "test_percpu_basic")], "fail")

    def test_a_captured_userspace_console(self):
        results = check.parse_selftests(data("console-userspace.log"))
        self.assertEqual({prog for prog, _ in results},
                         {"containers.sh", "metrics.sh", "kubepods.sh",
                          "systemd.sh"})
        self.assertTrue(all(v == "pass" for v in results.values()),
                        {k: v for k, v in results.items() if v != "pass"})
        # what tests/userspace/tap.sh numbers is what the parser names
        self.assertIn(("containers.sh", "podman imports the test image"),
                      results)

    def test_declared_tests(self):
        with tempfile.NamedTemporaryFile("w", suffix=".c") as f:
            f.write("static struct t tests[] = {\n\tT(test_a),\n\tT(test_b),\n};\n"
                    "TEST_F(dir_max, bounds_a_flood)\n{\n}\n"
                    "TEST_F_TIMEOUT(dir_max, frozen_fs, 600)\n{\n}\n")
            f.flush()
            self.assertEqual(check.declared_tests(f.name),
                             ["test_a", "test_b", "dir_max.bounds_a_flood",
                              "dir_max.frozen_fs"])

    def test_known_results(self):
        known = check.known_results("tests/upstream/known-results", "debug")
        self.assertTrue(known)
        for result, reason in known.values():
            self.assertIn(result, ("fail", "skip", "retry", "flaky"))
            self.assertTrue(reason)

    def test_known_results_of_the_debian_guest(self):
        """Both Debian configurations get the distro lines, and only they."""
        key = ("test_memcontrol", "test_memcg_swap_max_peak")
        for flavour in check.DISTRO_FLAVOURS:
            known = check.known_results("tests/upstream/known-results",
                                        flavour)
            self.assertEqual(known[key][0], "skip")
        for flavour in ("debug", "fast"):
            self.assertNotIn(key, check.known_results(
                "tests/upstream/known-results", flavour))


class RunAtOnceTest(unittest.TestCase):
    """make check's suites, two at a time: every tally is added up."""

    def run_all(self, scripts, jobs=2):
        commands = {n: ["sh", "-c", body] for n, body in scripts.items()}
        with tempfile.TemporaryDirectory() as logs, \
                contextlib.redirect_stdout(io.StringIO()) as out:
            total = check.run_at_once(commands, jobs, logs)
        return (total.passed, total.failed, total.skipped), out.getvalue()

    def test_tallies_add_up(self):
        counts, out = self.run_all({
            "slow": "sleep 0.5; echo '  PASS a'; "
                    "echo '1 passed, 0 failed, 0 skipped'",
            "fast": "echo '  FAIL b'; echo '  PASS c'; echo '  SKIP d: why'; "
                    "echo '1 passed, 1 failed, 1 skipped'",
            "third": "echo '0 passed, 0 failed, 0 skipped'"})
        self.assertEqual(counts, (2, 1, 1))
        # printed as each ends, the tally lines left out
        self.assertLess(out.index("FAIL b"), out.index("PASS a"))
        self.assertNotIn("passed,", out)

    def test_a_child_without_a_tally_is_a_failure(self):
        counts, out = self.run_all({"dies": "echo '  PASS a'; exit 3",
                                    "ok": "echo '1 passed, 0 failed, 0 skipped'"},
                                   1)
        self.assertEqual(counts, (1, 1, 0))
        self.assertIn("FAIL dies ended with its tally: status 3", out)

    def test_a_skip_is_neither_a_pass_nor_a_failure(self):
        r = results.Results()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            r.check(True, "a")
            r.skip("b", "left out here")
        self.assertEqual(r.summary(), "1 passed, 0 failed, 1 skipped")
        self.assertIn("  SKIP b: left out here", out.getvalue())


class AssembleTest(unittest.TestCase):
    """assemble.py: what a patch touches, what series names."""

    def test_patch_targets(self):
        self.assertEqual(assemble.patch_targets(os.path.join(DATA,
                                                             "sample.patch")),
                         {"fs/dcache.c", "include/linux/dcache.h",
                          "fs/new_file.c", "fs/gone.c"})

    def test_series_entries(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, "series"), "w") as f:
            f.write("# comment\n0001-a.patch\n0002-b.patch\n\tfs/x.c\n"
                    "\tinclude/linux/x.h\n\n0003-c.patch\n")
        self.assertEqual(assemble.series_entries(tmp),
                         [("0001-a.patch", []),
                          ("0002-b.patch", ["fs/x.c", "include/linux/x.h"]),
                          ("0003-c.patch", [])])
        self.assertEqual(assemble.series(tmp),
                         ["0001-a.patch", "0002-b.patch", "0003-c.patch"])

    def test_a_file_before_any_patch_is_an_error(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, "series"), "w") as f:
            f.write("\tfs/x.c\n0001-a.patch\n")
        with self.assertRaises(SystemExit):
            assemble.series_entries(tmp)

    def test_overlay_problems(self):
        entries = [("1", ["fs/a.c", "fs/b.c"]), ("2", ["fs/b.c", "fs/gone.c"])]
        files = {"fs/a.c": "", "fs/b.c": "", "fs/stray.c": ""}
        self.assertEqual(assemble.overlay_problems(files, entries), [
            "fs/b.c is named twice in patches/series",
            "fs/stray.c is in no patch of patches/series",
            "patches/series names fs/gone.c, which is not in the repository"])
        self.assertEqual(assemble.overlay_problems(
            {"fs/a.c": ""}, [("1", ["fs/a.c"])]), [])

    def test_the_repository_series_is_whole(self):
        """Every file of ours at a kernel path is a new file of a patch."""
        files = {}
        for top in ("fs", "mm", "include", "tools", "Documentation"):
            for dirpath, _, names in os.walk(os.path.join(assemble.ROOT, top)):
                for name in names:
                    files[os.path.relpath(os.path.join(dirpath, name),
                                          assemble.ROOT)] = ""
        self.assertEqual(assemble.overlay_problems(
            files, assemble.series_entries(assemble.PATCHES)), [])

    def test_backports_are_told_apart(self):
        patches = [os.path.join(assemble.PATCHES, p)
                   for p in assemble.series(assemble.PATCHES)]
        self.assertTrue(series_check.is_backport(patches[0]))
        self.assertFalse(any(series_check.is_backport(p) for p in patches[1:]))


class BenchScenariosTest(unittest.TestCase):
    """bench/scenarios and bench/guest.sh name the same scenarios."""

    def test_each_scenario_has_its_function(self):
        with open(os.path.join(check.ROOT, "bench", "guest.sh")) as f:
            functions = re.findall(r"^scenario_(\w+)\(\) \{", f.read(), re.M)
        self.assertEqual(sorted(functions), sorted(bench.SCENARIOS))

    def test_quick_and_full_sizes_set_the_same_variables(self):
        path = os.path.join(check.ROOT, "bench", "scenarios")
        with open(path) as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                name, _, quick, full, _ = line.split(None, 4)
                names = [{size.split("=")[0] for size in sizes.split(",")}
                         for sizes in (quick, full)]
                self.assertEqual(names[0], names[1], name)


class BenchReportTest(unittest.TestCase):
    """bench.py: the lines it reads off a guest and the report it writes."""

    def test_console_lines(self):
        self.assertEqual(guest.bench_line("bench lookup base positive-1 171234\n"),
                         ("bench", ["lookup", "base", "positive-1", "171234"]))
        self.assertEqual(guest.bench_line("series runaway max-1000 250 812"),
                         ("series", ["runaway", "max-1000", "250", "812"]))
        self.assertEqual(guest.bench_line("progress: lookup rates\n"),
                         ("progress", "lookup rates"))
        self.assertEqual(guest.bench_line("[ 1.2] bench lookup x"), (None, None))
        self.assertEqual(guest.bench_line("bench too few words"), (None, None))

    def test_a_captured_bench_console(self):
        results = [what for kind, what in map(guest.bench_line,
                                              data("console-bench.log"))
                   if kind == "bench"]
        scenarios = {r[0] for r in results}
        self.assertTrue(set(bench.SCENARIOS) <= scenarios,
                        set(bench.SCENARIOS) - scenarios)

    def test_report_ratios(self):
        values = {("lookup", "base", "create-1", "base"): [100.0, 110.0, 90.0],
                  ("lookup", "off", "create-1", "patched"): [99.0, 100.0, 98.0],
                  ("runaway", "max-300", "peak", "patched"): [338.0]}
        text = bench.report(values, {"lookup": "Lookups",
                                     "runaway": "Runaway"}).splitlines()
        self.assertIn("### Lookups", text)
        self.assertIn("| base | base | create-1 | 90 | 100 | 110 |  |", text)
        self.assertIn("| off | ours | create-1 | 98 | 99 | 100 | 0.990 |", text)
        # no base row to divide by: no ratio
        self.assertIn("| max-300 | ours | peak | 338 | 338 | 338 |  |", text)

    def test_icount_ratios_have_four_decimals(self):
        values = {("icount", "off", "create", "base"): [98472.0],
                  ("icount", "off", "create", "patched"): [98349.0]}
        text = bench.report(values, bench.ICOUNT_SCENARIOS)
        self.assertIn("| 0.9988 |", text)

    def test_icount_rows_compare_with_the_base_row_of_their_history(self):
        # the base runs the rows in ours' order: armed, the second row,
        # compares with the base's second, not with its first
        values = {("icount", "off", "file", "base"): [50000.0],
                  ("icount", "armed", "file", "base"): [40000.0],
                  ("icount", "armed", "file", "patched"): [39600.0]}
        text = bench.report(values, bench.ICOUNT_SCENARIOS)
        self.assertIn("| armed | ours | file | 39,600 | 39,600 | 39,600 "
                      "| 0.9900 |", text.splitlines())


class KunitSuitesTest(unittest.TestCase):
    """check.py: the KUnit suites are read from the series' files."""

    def test_every_suite_of_the_series(self):
        self.assertEqual(sorted(check.kunit_suites()), [
            "memcg_negative_dentry", "memcg_negative_dentry_reclaim",
            "negative_dentry", "negative_dentry_count",
            "negative_dentry_evict", "negative_dentry_lru"])


class DistroSuitesTest(unittest.TestCase):
    """make distro-check takes its suites from make check's declarations."""

    def test_every_suite_says_how_or_why_not(self):
        for suite in check.SUITES:
            with self.subTest(suite=suite.name):
                if isinstance(suite.distro, str):
                    self.assertTrue(suite.distro)
                else:
                    self.assertIn(suite.distro["kernels"], ("both", "ours"))

    def test_the_cloud_suites(self):
        got = {s.name: s.kernels for s in distro_check.suites("cloud")}
        both, ours = ("base-cloud", "patched-cloud"), ("patched-cloud",)
        self.assertEqual(got, {"bpftrace": both, "upstream": both,
                               "userspace": both, "selftests": ours,
                               "filesystems": ours, "stress": ours})
        stress = [s for s in distro_check.suites("cloud")
                  if s.name == "stress"][0]
        self.assertEqual(stress.append, "stress.faults=off")


class FstestsCompareTest(unittest.TestCase):
    """fstests_compare.py: what counts against ours."""

    def test_a_test_missing_on_either_kernel_counts(self):
        base = {("ext4", "generic/001"): "pass"}
        ours = {("ext4", "generic/001"): "pass",
                ("ext4", "generic/002"): "pass"}
        _, regressions, _ = fstests_compare.compare(base, ours)
        self.assertEqual(regressions, [("ext4", "generic/002")])
        _, regressions, _ = fstests_compare.compare(ours, base)
        self.assertEqual(regressions, [("ext4", "generic/002")])

    def test_failing_on_both_is_the_environments(self):
        key = ("xfs", "generic/003")
        _, regressions, both = fstests_compare.compare({key: "fail"},
                                                       {key: "hang"})
        self.assertEqual((regressions, both), ([], [key]))


class InsnTraceTest(unittest.TestCase):
    """insn_trace.py: which instructions count as atomic, and the report."""

    def test_atomic_rmw(self):
        pad = bytes(12)
        atomic = {"lock xadd": b"\xf0\x48\x0f\xc1\x07",
                  "lock cmpxchg, segment first": b"\x65\xf0\x0f\xb1\x0a",
                  "xchg with memory": b"\x48\x87\x07"}
        plain = {"xchg of registers": b"\x48\x87\xc0",
                 "mov": b"\x48\x89\x07",
                 "per-cpu add": b"\x65\x48\x01\x05\x00\x00"}
        for name, code in atomic.items():
            self.assertTrue(insn_trace.is_atomic_rmw(code + pad), name)
        for name, code in plain.items():
            self.assertFalse(insn_trace.is_atomic_rmw(code + pad), name)

    def test_report_counts_atomics_apart(self):
        base = collections.Counter({"f": 10, insn_trace.ATOMIC: 1})
        ours = collections.Counter({"f": 10, "g": 2, insn_trace.ATOMIC: 2})
        text = insn_trace.report(["stat"], [base], [ours]).splitlines()
        self.assertEqual(text[0], "stat: base 10, ours 12: +2 (1.2000)")
        self.assertIn("  atomic read-modify-writes: base 1, ours 2", text)
        self.assertIn("      +2 g (0 -> 2)", text)


if __name__ == "__main__":
    unittest.main()
