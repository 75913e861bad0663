# SPDX-License-Identifier: GPL-2.0
#
# mvfs: the entry points.
#
#   make run [CMD='...']   boot the release guest: a shell, or one command
#   make check [T=...]     boot the debug guest and run the tests
#   make bench             benchmarks against ext2 (release guest)
#   make mutate [M=...]    plant known defects in copies of the module and
#                          say which make check catches (long; not for CI)
#   make lint              checkpatch --strict and sparse
#   make clean             remove build/ (the kernel cache stays)
#   make distclean         also remove the kernel cache and the store image

export MVFS_CACHE ?= $(HOME)/.cache/mvfs
BUILD		:= $(CURDIR)/build
MVFS_STORE	?= $(BUILD)/store.img
STORE_SIZE	?= 2G
TIMEOUT		?= 900
CHECK_TIMEOUT	?= 2700
T		?=

KDIR_release	= $(shell qemu/kernel.sh dir release)
KDIR_debug	= $(shell qemu/kernel.sh dir debug)
KSRC		= $(shell qemu/kernel.sh src)

MOD_SRC		:= $(wildcard mvfs/*.c mvfs/*.h mvfs/Kbuild mvfs/uapi/*.h)
KMOD_SRC	:= $(wildcard tests/kmod/*.c tests/kmod/Kbuild)
TOOLS		:= $(patsubst userspace/%.c,%,$(wildcard userspace/*.c))
TOOL_LIB	:= $(wildcard userspace/lib/*.c)
TOOL_HDR	:= $(wildcard userspace/lib/*.h mvfs/uapi/*.h)
TEST_C		:= $(wildcard tests/guest/c/*.c)
TEST_BINS	:= $(patsubst tests/guest/c/%.c,$(BUILD)/tbin/%,$(TEST_C))
GUEST_TESTS	:= $(shell find tests/guest tests/torture -type f ! -path '*/c/*')

CFLAGS_TOOLS	:= -O2 -static -Wall -Wextra -Werror -D_GNU_SOURCE -Imvfs/uapi

.PHONY: all deps kernel-release kernel-debug run check bench mutate lint \
	clean distclean FORCE
.SECONDARY:

all: $(BUILD)/release/initramfs.cpio $(BUILD)/debug/initramfs.cpio

deps:
	@qemu/deps.sh

kernel-release kernel-debug: kernel-%: deps
	@qemu/kernel.sh build $*

# The module and the test modules, one copy per flavour: Kbuild builds in
# the folder it is given, and the debug objects carry KASAN instrumentation.
# Kbuild runs every time (FORCE): it knows best whether the module is
# current, including against a rebuilt kernel, and leaves it alone if so.
$(BUILD)/%/mvfs/mvfs.ko: $(MOD_SRC) kernel-% FORCE
	@mkdir -p $(@D)
	@cp -pr mvfs/. $(@D)/
	$(MAKE) -s -C $(KDIR_$*) M=$(@D) modules

$(BUILD)/%/kmod/mvfs_test_warn.ko: $(KMOD_SRC) kernel-% FORCE
	@mkdir -p $(@D)
	@cp -pr tests/kmod/. $(@D)/
	$(MAKE) -s -C $(KDIR_$*) M=$(@D) modules

$(BUILD)/bin/%: userspace/%.c $(TOOL_LIB) $(TOOL_HDR) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TOOLS) -Iuserspace/lib -o $@ $< $(TOOL_LIB)

$(BUILD)/tbin/%: tests/guest/c/%.c $(wildcard tests/guest/c/*.h) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TOOLS) -I$(KSRC)/tools/testing/selftests -pthread \
		-o $@ $<

$(BUILD)/%/initramfs.cpio: $(BUILD)/%/mvfs/mvfs.ko \
		$(BUILD)/%/kmod/mvfs_test_warn.ko \
		$(addprefix $(BUILD)/bin/,$(TOOLS)) $(TEST_BINS) \
		$(GUEST_TESTS) qemu/init qemu/motd qemu/initramfs.sh
	@rm -rf $(@D)/mods && mkdir -p $(@D)/mods
	@cp $(BUILD)/$*/mvfs/mvfs.ko $(BUILD)/$*/kmod/*.ko $(@D)/mods/
	@mkdir -p $(BUILD)/tbin
	qemu/initramfs.sh $@ $(@D)/mods $(BUILD)/bin tests/guest $(BUILD)/tbin

$(MVFS_STORE):
	@mkdir -p $(dir $@)
	truncate -s $(STORE_SIZE) $@
	mke2fs -q -t ext2 -F $@

BOOT_release = qemu/boot.sh -k $(KDIR_release)/arch/x86/boot/bzImage \
	-i $(BUILD)/release/initramfs.cpio

run: $(BUILD)/release/initramfs.cpio $(MVFS_STORE)
ifeq ($(CMD),)
	@$(BOOT_release) -s $(MVFS_STORE) -m shell
else
	@$(BOOT_release) -s $(MVFS_STORE) -m cmd -T $(TIMEOUT) -c '$(subst ','\'',$(value CMD))'
endif

check: $(BUILD)/debug/initramfs.cpio
	@tests/check.sh -k $(KDIR_debug)/arch/x86/boot/bzImage \
		-i $(BUILD)/debug/initramfs.cpio -o $(BUILD)/check \
		-T $(CHECK_TIMEOUT) -t '$(T)' -B $(BUILD)/tbin

bench: $(BUILD)/release/initramfs.cpio
	@tests/bench.sh -k $(KDIR_release)/arch/x86/boot/bzImage \
		-i $(BUILD)/release/initramfs.cpio -o $(BUILD)/bench

# M: mutation scripts to try (default: all of tests/mutations/*.sed).
mutate: $(addprefix $(BUILD)/bin/,$(TOOLS)) $(TEST_BINS)
	@tests/mutate.sh $(M)

lint: $(BUILD)/release/mvfs/mvfs.ko
	@tests/lint.sh $(KSRC) $(KDIR_release) $(BUILD)/lint

clean:
	rm -rf $(BUILD)

FORCE:

distclean: clean
	rm -rf $(MVFS_CACHE)
