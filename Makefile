# Negative dentry limits for Linux 6.12: build, boot, test. See README.md.
#
#   make run                 the demo
#   make check               every test, ending in "N passed, N failed"
#   make vm-run SCRIPT=f.sh  run a script in the guest (KERNEL=base|patched)
#   make patch               the series as mailed (build/series) and one
#                            combined patch of base -> our kernel
#   make series-check        each patch of the series builds and passes
#                            checkpatch (an hour from cold)
#   make fresh-check         make check in a new minimal Debian 12 root
#   make stress              the stress and fault suite (DURATION=seconds)
#   make mutants             each test that guards a defect fails on a kernel
#                            with the defect put back (MUTANTS=names)
#   make fstests             fstests on the base kernel and ours
#   make workloads           the negative dentries real programs make
#   make btf-check           a CO-RE eBPF program on the kernel with BTF
#   make deb                 kernel packages (CONFIG=small|cloud|debian)
#   make systemd-deb         Debian's systemd packages with our series
#   make repo                an apt repository of them and the kernels
#   make repo-check          install, upgrade and roll back with apt
#
# KERNEL=patched|base picks the kernel; DEBUG=1 the kernel with the debug
# checkers (lockdep, KASAN, ...), the default of vm-run, DEBUG=0 the one
# without, the default of run; GUEST=debian boots the Debian 12 guest
# instead of the busybox one; KVM=1 uses KVM instead of TCG where it works.

KERNEL ?= patched
DEBUG ?=
KVM ?= 0
TIMEOUT ?= 1800
SCRIPT ?=
SUITES ?=
GUEST ?= busybox
FULL ?=
# Suites make check runs at once, each in its own guest: 2 is no faster on
# 2 cores (measured), it is for larger machines.
CHECK_JOBS ?= 1
CHECK_KERNELS := patched-debug base-fast patched-fast $(if $(FULL),base-debug)

FLAVOUR = $(if $(filter 0,$(or $(DEBUG),$(DEBUG_DEFAULT))),fast,debug)
BUILD := $(CURDIR)/build
image = $(shell harness/layout.py image $(1) $(FLAVOUR))
INITRAMFS := $(BUILD)/guest/initramfs.cpio
CGROUP_TESTS_BASE := $(shell harness/layout.py src base)/tools/testing/selftests/cgroup
SELFTESTS_OURS := $(shell harness/layout.py src patched)/tools/testing/selftests
UPSTREAM_TESTS := $(shell sed '/^\#/d' tests/upstream/programs)
# NAME:FILE,FILE... for each line of tests/negative-dentry/programs
OUR_PROGRAMS := $(shell sed '/^\#/d; s/ /:/; s/ /,/g' tests/negative-dentry/programs)
OUR_TESTS := $(foreach p,$(OUR_PROGRAMS),$(firstword $(subst :, ,$(p))))
GUEST_PROGS := $(patsubst guest/progs/%.c,%,$(wildcard guest/progs/*.c))
GUEST_BINS := $(addprefix $(BUILD)/guest/bin/,$(UPSTREAM_TESTS) $(OUR_TESTS) \
	$(GUEST_PROGS))
STATIC_CC := gcc -static -Wall -pthread
DEBIAN_ROOTFS := $(BUILD)/debian/rootfs
# The Debian guest's root: make workloads boots another.
ROOTFS = $(DEBIAN_ROOTFS)
GUEST_ARGS = $(if $(filter debian,$(GUEST)),--guest debian \
	--rootfs $(ROOTFS),--initramfs $(INITRAMFS))
VMRUN = harness/vmrun.py $(GUEST_ARGS) --timeout $(TIMEOUT) \
	$(if $(filter 1,$(KVM)),--kvm)
PATCH := $(BUILD)/negative-dentry.patch
# The unit tests of the harness itself, before anything is built.
HARNESS_TESTS := python3 -m unittest discover -s harness -p '*_test.py'

.PHONY: run check rebase fresh-check btf-check distro-check fstests workloads stress mutants upstream-rates stress-stage bench insn-trace deb systemd-deb repo repo-check vm-run patch series-check harness-test deps tree kernel initramfs debian-rootfs clean

run: DEBUG_DEFAULT := 0
run: kernel initramfs
	@mkdir -p $(BUILD)/demo
	$(VMRUN) --image $(call image,$(KERNEL)) --kernel $(KERNEL) \
		--log $(BUILD)/demo/console.log demo/run.sh
	demo/plot.sh $(BUILD)/demo/console.log $(BUILD)/demo/negatives.png

# make check tests our kernel in both flavours (the debug checkers catch bugs,
# the fast kernel runs workloads at a realistic speed) and the fast base
# kernel to compare with; FULL=1 adds the debug base kernel, the upstream
# selftests on both debug kernels, the filesystems suite on ours (the debug
# kernels are then built with filesystems.config) and the instruction-clock
# quick runs.
# The time it began, for check.py's "N min since make check began".
check: export CHECK_STARTED := $(shell date +%s)
check: tree
	$(HARNESS_TESTS)
	harness/timed.sh "deps.sh userspace" harness/deps.sh userspace
	harness/timed.sh "initramfs, patch, stress-stage" \
		$(MAKE) --no-print-directory initramfs patch stress-stage
	for k in $(CHECK_KERNELS); do FILESYSTEMS=$(if $(FULL),1) harness/kernel.sh $${k%-*} $${k#*-} || exit 1; done
	$(MAKE) --no-print-directory debian-rootfs
	harness/check.py --initramfs $(INITRAMFS) --rootfs $(DEBIAN_ROOTFS) --patch $(PATCH) \
		--kernels "$(CHECK_KERNELS)" --jobs $(CHECK_JOBS) $(if $(FULL),--full) \
		$(if $(filter 1,$(KVM)),--kvm) $(SUITES)

# make rebase: move the kernel base to the newest linux-source-6.12 of the
# archive (harness/rebase.sh names a patch that no longer applies, and
# whether Debian's systemd is newer than ours), then make check on it.
rebase: deps
	harness/rebase.sh; s=$$?; [ $$s -eq 3 ] && exit 0; [ $$s -eq 0 ] || exit $$s; \
		$(MAKE) --no-print-directory check

# make fresh-check: make check (or TARGET=) as a new user meets it, in a
# root made by debootstrap with none of this machine's packages (an hour
# or more: everything is installed and built from nothing). Not in CI.
fresh-check: deps
	harness/fresh-check.sh $(or $(TARGET),check)

# make bench: base and ours, fast kernels, side by side; QUICK=1 for a short
# run. Results in results/. ICOUNT=1: path lengths under the instruction
# clock instead, in results/icount/.
bench: deps
	$(MAKE) --no-print-directory initramfs
	for k in base patched; do harness/kernel.sh $$k fast || exit 1; done
	harness/bench.py --initramfs $(INITRAMFS) $(if $(QUICK),--quick --rounds 1) \
		$(if $(filter 1,$(ICOUNT)),--icount)

# make insn-trace: where ours spends the instructions make bench ICOUNT=1
# counts, by function, for the system calls of bench/insn_trace.sh.
# Results in results/insn/.
insn-trace: deps
	$(MAKE) --no-print-directory initramfs
	for k in base patched; do harness/kernel.sh $$k fast || exit 1; done
	harness/insn_trace.py --initramfs $(INITRAMFS)

# make fstests: fstests' tests of names, renames, links and file handles
# (tests/fstests/tests.txt) on ext4, overlayfs and xfs, on the fast base
# kernel and on ours with the limits armed, in the Debian guest; fails if
# ours fails a test the base passes. FSTESTS= a tarball or tree of fstests,
# by default the one in ../shared/fstests/. Not in make check (docs/testing.md).
FSTESTS ?=
fstests: debian-rootfs
	for k in base patched; do harness/kernel.sh $$k fast || exit 1; done
	harness/fstests.sh $(FSTESTS)

# make workloads: the negative dentries programs from Debian's packages
# make (bench/workloads.sh: Python, a JVM, NSS, curl, gcc, apt-get update,
# podman), in the Debian guest with a JVM and gcc added, on the fast
# kernel of ours: the figures behind the recommended default. Not in make
# check.
WORKLOADS_ROOTFS := $(BUILD)/workloads/rootfs
workloads: DEBUG_DEFAULT := 0
workloads: GUEST := debian
workloads: ROOTFS = $(WORKLOADS_ROOTFS)
workloads: debian-rootfs
	harness/kernel.sh patched fast
	harness/workloads-rootfs.sh $(DEBIAN_ROOTFS) $(WORKLOADS_ROOTFS)
	$(VMRUN) --image $(call image,patched) --kernel patched \
		--log $(BUILD)/workloads/console.log bench/workloads.sh
	@grep '^workload:' $(BUILD)/workloads/console.log

# make stress: the stress and fault suite alone, DURATION seconds of load
# (600 by default) on the debug kernel; make check runs it for 90 s.
DURATION ?= 600
MUTANTS ?=
stress: initramfs
	$(MAKE) --no-print-directory stress-stage
	harness/kernel.sh patched debug
	harness/check.py --initramfs $(INITRAMFS) --stress-duration $(DURATION) \
		$(if $(filter 1,$(KVM)),--kvm) stress

# make mutants: harness/mutants.py's kernels, each with one defect put
# back, and the tests that must fail on each (about 40 min for all).
mutants: initramfs
	harness/mutants.py $(MUTANTS)

# make upstream-rates: the upstream cgroup selftests RUNS times (20) on the
# fast base kernel and on ours, in turn: each test's failures on each, in
# results/upstream-rates.md, to judge tests/upstream/known-results' flaky
# entries (about 3 min a pair of boots).
upstream-rates: initramfs
	for k in base patched; do harness/kernel.sh $$k fast || exit 1; done
	harness/upstream_rates.py $(RUNS)

# The stress suite's folder for vm-run: its script, the TAP helpers, and
# Debian's stress-ng with the libraries it loads (the busybox guest has
# none), run through the dynamic loader staged beside them.
STRESS := $(BUILD)/stress
STRESS_NG := /usr/bin/stress-ng
stress-stage: $(STRESS)/stress.sh
$(STRESS)/stress.sh: tests/stress/stress.sh tests/userspace/tap.sh $(STRESS_NG)
	rm -rf $(STRESS) && mkdir -p $(STRESS)/lib
	cp $(STRESS_NG) tests/userspace/tap.sh $(STRESS)/
	cp -L $$(ldd $(STRESS_NG) | awk '$$2 == "=>" { print $$3 } /ld-linux/ { print $$1 }') \
		$(STRESS)/lib/
	cp tests/stress/stress.sh $@

# make distro-check: the cloud kernels (make deb CONFIG=cloud, ours and the
# base; CONFIG=debian: Debian's amd64 ones) installed by apt in the Debian
# guest, on 4 vCPUs and 2 NUMA nodes: the upstream, userspace, selftests,
# filesystems and a short stress suite (harness/distro_check.py). Hours the
# first time, for the two kernels; not in make check.
distro-check: DISTRO = $(or $(filter cloud debian,$(CONFIG)),$(if \
	$(filter small,$(CONFIG)),cloud,$(error CONFIG=$(CONFIG): cloud or debian)))
distro-check: debian-rootfs stress-stage
	for k in patched base; do harness/deb.sh $$k $(DISTRO) || exit 1; done
	for k in patched base; do harness/distro-rootfs.sh $$k $(DISTRO) || exit 1; done
	harness/distro_check.py --config $(DISTRO)

# make deb: linux-image and linux-headers packages of KERNEL in
# build/deb/KERNEL-CONFIG; CONFIG=small (make check's fast kernel, the
# default), cloud or debian (Debian's cloud-amd64 or amd64 configuration:
# hours, see docs/testing.md).
CONFIG ?= small
deb: tree
	harness/deb.sh $(KERNEL) $(CONFIG)

# make systemd-deb: Debian's packages of systemd, built as Debian builds
# them with userspace/systemd's series in debian/patches, in
# build/deb/systemd (an hour from cold; skipped when they are up to date).
# make repo: those and the cloud and amd64 kernels make deb built, with a
# metapackage for each kernel and the earlier builds kept, as a signed apt
# repository in build/repo (harness/repo.sh).
systemd-deb:
	harness/deps.sh userspace
	harness/systemd.sh deb
repo: systemd-deb
	harness/repo.sh

# make repo-check: the Debian guest, with Debian's systemd, installs ours
# from such a repository (with the small kernel it boots) with apt-get,
# keeps it over Debian's next upload and rolls back
# (tests/userspace/apt.sh). Not in make check: it needs the packages.
REPO_ROOTFS := $(BUILD)/repo-check/rootfs
repo-check: DEBUG_DEFAULT := 0
repo-check: GUEST := debian
repo-check: ROOTFS = $(REPO_ROOTFS)
repo-check: debian-rootfs systemd-deb
	rm -rf $(BUILD)/repo-check/pool
	REPO_POOL=$(BUILD)/repo-check/pool harness/repo.sh $(BUILD)/repo-check/repo small
	harness/repo-rootfs.sh $(DEBIAN_ROOTFS) $(REPO_ROOTFS) $(BUILD)/repo-check/repo
	$(VMRUN) --image $(call image,patched) --kernel patched \
		--log $(BUILD)/repo-check/console.log tests/userspace/apt.sh

# make btf-check: make check's fast kernel with BTF as Debian builds its
# own (config/btf.config), in the Debian guest: a CO-RE program of the
# kind fleets' eBPF agents load attaches to a BTF tracepoint of ours and
# reads struct dentry (tests/btf). Not in make check: a fourth kernel,
# and DWARF makes its build a fifth longer.
BTF := $(BUILD)/btf
btf-check: GUEST := debian
btf-check: debian-rootfs
	harness/deps.sh btf
	harness/kernel.sh patched btf
	mkdir -p $(BTF)
	bpftool btf dump file $(shell harness/layout.py obj patched btf)/vmlinux \
		format c >$(BTF)/vmlinux.h
	clang -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 -I$(BTF) \
		-c tests/btf/nd_core.bpf.c -o $(BTF)/nd_core.bpf.o
	$(STATIC_CC) -O2 -Wextra -Werror -o $(BTF)/core_check \
		tests/btf/core_check.c -lbpf -lelf -lz -lzstd
	cp tests/btf/guest.sh tests/userspace/tap.sh $(BTF)/
	$(VMRUN) --image $(shell harness/layout.py image patched btf) \
		--kernel patched --log $(BTF)/console.log $(BTF)/guest.sh

vm-run: DEBUG_DEFAULT := 1
vm-run: kernel $(if $(filter debian,$(GUEST)),debian-rootfs,initramfs)
	@test -n "$(SCRIPT)" || { echo "vm-run: give SCRIPT=path/to/script.sh" >&2; exit 2; }
	$(VMRUN) --image $(call image,$(KERNEL)) --kernel $(KERNEL) \
		--log $(BUILD)/vm-run.log $(SCRIPT)

patch: tree
	harness/assemble.py diff >$(PATCH).tmp
	cd $(shell harness/layout.py src base) && git apply --check $(PATCH).tmp
	mv $(PATCH).tmp $(PATCH)
	@git apply --stat $(PATCH)
	harness/series.py format
	@echo "patch: $(PATCH), and the series in $(BUILD)/series"

# make series-check: each patch of the series, in order, builds fs/ and mm/
# with its symbols defined, and passes checkpatch --strict; then the series
# with CONFIG_NEGATIVE_DENTRY_LIMITS off.
series-check: patch
	harness/kernel.sh base fast
	harness/series_check.py

harness-test: deps
	$(HARNESS_TESTS)

deps:
	harness/deps.sh

tree: deps
	harness/assemble.py tree

kernel: tree
	harness/kernel.sh $(KERNEL) $(or $(FLAVOUR),debug)

# The guest's programs come from the assembled trees, so they are made by a
# second make once `tree` has run.
initramfs: tree
	$(MAKE) --no-print-directory $(INITRAMFS)

# The Debian guest: debootstrap once (again when guest/debian/packages
# changes), plus our static programs and busybox for container images, our
# systemd (built and unit-tested from userspace/systemd), and our kernel
# installed from its package (make deb).
debian-rootfs: initramfs
	harness/deb.sh patched small
	harness/timed.sh debian-rootfs.sh harness/debian-rootfs.sh $(DEBIAN_ROOTFS) /bin/busybox \
		$(addprefix $(BUILD)/guest/bin/,$(GUEST_PROGS))
	harness/timed.sh "systemd.sh build" harness/systemd.sh build
	harness/systemd.sh install $(DEBIAN_ROOTFS)
# dpkg inside the root: dpkg --root would look the root's users and
# groups (dbus's messagebus) up on this machine.
	cp $(BUILD)/deb/patched-small/linux-image-*.deb $(DEBIAN_ROOTFS)/tmp/
	chroot $(DEBIAN_ROOTFS) sh -c 'dpkg -i /tmp/linux-image-*.deb >/dev/null && rm /tmp/*.deb'

$(INITRAMFS): guest/init harness/initramfs.sh $(GUEST_BINS)
	harness/initramfs.sh $@ $(GUEST_BINS)

# The upstream cgroup selftests are built from a copy of the base's, with
# the upstream fixes of tests/upstream/patches applied: the base tree
# stays as Debian ships it.
UPSTREAM_SRC := $(BUILD)/upstream-selftests
UPSTREAM_FIXES := $(wildcard tests/upstream/patches/*.patch)
$(UPSTREAM_SRC)/applied: $(UPSTREAM_FIXES) $(wildcard $(CGROUP_TESTS_BASE)/*.[ch])
	rm -rf $(UPSTREAM_SRC) && mkdir -p $(UPSTREAM_SRC)
	cp $(CGROUP_TESTS_BASE)/*.[ch] $(UPSTREAM_SRC)/
	for p in $(abspath $(UPSTREAM_FIXES)); do \
		(cd $(UPSTREAM_SRC) && GIT_CEILING_DIRECTORIES=$(BUILD) \
		 git apply -p1 $$p) || exit 1; done
	touch $@

$(BUILD)/guest/bin/test_%: $(UPSTREAM_SRC)/applied
	@mkdir -p $(@D)
	$(STATIC_CC) -I$(CGROUP_TESTS_BASE) -o $@ $(UPSTREAM_SRC)/test_$*.c \
		$(UPSTREAM_SRC)/cgroup_util.c

NEGATIVE_DENTRY_UTIL := $(SELFTESTS_OURS)/filesystems/negative_dentries/negative_dentry_util.h

# selftest_rule NAME FILES: our selftest program NAME, from FILES
define selftest_rule
$(BUILD)/guest/bin/$(1): $(addprefix $(SELFTESTS_OURS)/,$(2)) $(NEGATIVE_DENTRY_UTIL)
	@mkdir -p $$(@D)
	$$(STATIC_CC) -o $$@ $$(filter %.c,$$^)
endef
comma := ,
$(foreach p,$(OUR_PROGRAMS),$(eval $(call selftest_rule,$(firstword $(subst :, ,$(p))),\
	$(subst $(comma), ,$(lastword $(subst :, ,$(p)))))))

# negflood and nd_bench's runaway flood as the selftests do (nd_flood_start())
$(BUILD)/guest/bin/negflood $(BUILD)/guest/bin/nd_bench: $(NEGATIVE_DENTRY_UTIL)
$(BUILD)/guest/bin/%: guest/progs/%.c
	@mkdir -p $(@D)
	$(STATIC_CC) -O2 -Wextra -Werror -I$(dir $(NEGATIVE_DENTRY_UTIL)) -o $@ $<

clean:
	rm -rf $(BUILD)
