# Negative dentry limits for Linux 6.12: build, boot, test. See README.md.
#
#   make run                 the demo
#   make check               every test, ending in "N passed, N failed"
#   make vm-run SCRIPT=f.sh  run a script in the guest (KERNEL=base|patched)
#   make patch               one combined patch of base -> our kernel
#
# KERNEL=patched|base picks the kernel; DEBUG=1 the kernel with the debug
# checkers (lockdep, KASAN, ...), the default of vm-run, DEBUG=0 the one
# without, the default of run; KVM=1 uses KVM instead of TCG where it works.

KERNEL ?= patched
DEBUG ?=
KVM ?= 0
TIMEOUT ?= 1800
SCRIPT ?=
SUITES ?=
CHECK_KERNELS := base-debug patched-debug base-fast patched-fast

FLAVOUR = $(if $(filter 0,$(or $(DEBUG),$(DEBUG_DEFAULT))),fast,debug)
BUILD := $(CURDIR)/build
image = $(BUILD)/obj/$(1)-$(FLAVOUR)/arch/x86/boot/bzImage
INITRAMFS := $(BUILD)/guest/initramfs.cpio
CGROUP_TESTS_BASE := $(BUILD)/src/base/tools/testing/selftests/cgroup
UPSTREAM_TESTS := test_core test_kmem test_memcontrol
GUEST_PROGS := $(patsubst guest/progs/%.c,%,$(wildcard guest/progs/*.c))
GUEST_BINS := $(addprefix $(BUILD)/guest/bin/,$(UPSTREAM_TESTS) $(GUEST_PROGS))
STATIC_CC := gcc -static -Wall -pthread
VMRUN = harness/vmrun.py --initramfs $(INITRAMFS) --timeout $(TIMEOUT) \
	$(if $(filter 1,$(KVM)),--kvm)
PATCH := $(BUILD)/negative-dentry.patch

.PHONY: run check vm-run patch deps tree kernel initramfs clean

run: DEBUG_DEFAULT := 0
run: kernel initramfs
	$(VMRUN) --image $(call image,$(KERNEL)) --kernel $(KERNEL) demo/run.sh

# make check tests both kernels in both flavours: the debug checkers catch
# bugs, the fast kernels run the workloads at a realistic speed.
check: deps
	$(MAKE) --no-print-directory initramfs patch
	for k in $(CHECK_KERNELS); do harness/kernel.sh $${k%-*} $${k#*-} || exit 1; done
	harness/check.py --initramfs $(INITRAMFS) --patch $(PATCH) \
		$(if $(filter 1,$(KVM)),--kvm) $(SUITES)

vm-run: DEBUG_DEFAULT := 1
vm-run: kernel initramfs
	@test -n "$(SCRIPT)" || { echo "vm-run: give SCRIPT=path/to/script.sh" >&2; exit 2; }
	$(VMRUN) --image $(call image,$(KERNEL)) --kernel $(KERNEL) \
		--log $(BUILD)/vm-run.log $(SCRIPT)

patch: tree
	harness/assemble.py diff >$(PATCH).tmp
	cd $(BUILD)/src/base && git apply --check $(PATCH).tmp
	mv $(PATCH).tmp $(PATCH)
	@git apply --stat $(PATCH)
	@echo "patch: $(PATCH)"

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

$(INITRAMFS): guest/init harness/initramfs.sh $(GUEST_BINS)
	harness/initramfs.sh $@ $(GUEST_BINS)

$(BUILD)/guest/bin/test_%: $(CGROUP_TESTS_BASE)/test_%.c $(CGROUP_TESTS_BASE)/cgroup_util.c
	@mkdir -p $(@D)
	$(STATIC_CC) -o $@ $^

$(BUILD)/guest/bin/%: guest/progs/%.c
	@mkdir -p $(@D)
	$(STATIC_CC) -O2 -Wextra -Werror -o $@ $<

clean:
	rm -rf $(BUILD)
