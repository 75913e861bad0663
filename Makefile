# SPDX-License-Identifier: GPL-2.0
#
# mvfs: the entry points.
#
#   make run [CMD='...']   boot the release guest: a shell, or one command
#   make run NODES=2       two guests sharing one store over NFS: shells
#   make check [T=...]     boot the debug guest and run the tests
#   make torture [T=...]   the fault campaigns of tests/torture, full length
#                          (ROUNDS=N for every campaign, SEED=N replays)
#   make bench             benchmarks against ext2 (release guest)
#   make mutate [M=...]    plant known defects in copies of the module and
#                          say which make check catches (long; not for CI)
#   make lint              checkpatch --strict and sparse
#   make module            the release module alone, for a scratch boot
#                          (build/release/mvfs/mvfs.ko)
#   make clean             remove build/ (the kernel cache stays)
#   make distclean         also remove the kernel cache and the store image

export MVFS_CACHE ?= $(HOME)/.cache/mvfs
BUILD		:= $(CURDIR)/build
MVFS_STORE	?= $(BUILD)/store.img
STORE_SIZE	?= 2G
TIMEOUT		?= 900
CHECK_TIMEOUT	?= 3600
T		?=
TORTURE_TIMEOUT	?= 14400

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

.PHONY: all deps kernel-release kernel-debug run check torture bench mutate lint module \
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
# current against the same kernel, and leaves it alone if so.  Not
# against another kernel build (another config): its command lines name
# the build tree as ".", so nothing tells it that struct layouts moved,
# and a module built for the old config loads and reads the wrong
# fields.  Each folder remembers its kernel build (.kdir) and is emptied
# when that changes.
define kbuild_in
	@[ "$$(cat $(1)/.kdir 2>/dev/null)" = "$(2)" ] || \
		{ rm -rf $(1) && mkdir -p $(1) && echo "$(2)" > $(1)/.kdir; }
endef

$(BUILD)/%/mvfs/mvfs.ko: $(MOD_SRC) kernel-% FORCE
	$(call kbuild_in,$(@D),$(KDIR_$*))
	@cp -pr mvfs/. $(@D)/
	$(MAKE) -s -C $(KDIR_$*) M=$(@D) modules

$(BUILD)/%/kmod/mvfs_test_warn.ko: $(KMOD_SRC) kernel-% FORCE
	$(call kbuild_in,$(@D),$(KDIR_$*))
	@cp -pr tests/kmod/. $(@D)/
	$(MAKE) -s -C $(KDIR_$*) M=$(@D) modules

$(BUILD)/bin/%: userspace/%.c $(TOOL_LIB) $(TOOL_HDR) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TOOLS) -Iuserspace/lib -o $@ $< $(TOOL_LIB)

# The tools with one fsync left out of the commit sequence (rev.c): make
# torture's proof that the power-cut campaign catches a missing flush.
# Never installed in a guest other than that proof's.
$(BUILD)/bin-broken/%: userspace/%.c $(TOOL_LIB) $(TOOL_HDR) | deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_TOOLS) -DMVFS_TEST_SKIP_FSYNC=1 -Iuserspace/lib -o $@ $< \
		$(TOOL_LIB)

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
	qemu/initramfs.sh $@ $(@D)/mods $(BUILD)/bin tests/guest $(BUILD)/tbin \
		tests/torture

$(BUILD)/broken/initramfs.cpio: $(BUILD)/debug/mvfs/mvfs.ko \
		$(BUILD)/debug/kmod/mvfs_test_warn.ko \
		$(addprefix $(BUILD)/bin-broken/,$(TOOLS)) $(TEST_BINS) \
		$(GUEST_TESTS) qemu/init qemu/motd qemu/initramfs.sh
	@rm -rf $(@D)/mods && mkdir -p $(@D)/mods
	@cp $(BUILD)/debug/mvfs/mvfs.ko $(BUILD)/debug/kmod/*.ko $(@D)/mods/
	@mkdir -p $(BUILD)/tbin
	qemu/initramfs.sh $@ $(@D)/mods $(BUILD)/bin-broken tests/guest \
		$(BUILD)/tbin tests/torture

$(MVFS_STORE):
	@mkdir -p $(dir $@)
	truncate -s $(STORE_SIZE) $@
	mke2fs -q -t ext2 -F $@

BOOT_release = qemu/boot.sh -k $(KDIR_release)/arch/x86/boot/bzImage \
	-i $(BUILD)/release/initramfs.cpio

run: $(BUILD)/release/initramfs.cpio $(MVFS_STORE)
ifeq ($(NODES),2)
	@qemu/nodes.sh $(KDIR_release)/arch/x86/boot/bzImage \
		$(BUILD)/release/initramfs.cpio $(MVFS_STORE)
else ifeq ($(CMD),)
	@$(BOOT_release) -s $(MVFS_STORE) -m shell
else
	@$(BOOT_release) -s $(MVFS_STORE) -m cmd -T $(TIMEOUT) -c '$(subst ','\'',$(value CMD))'
endif

check: $(BUILD)/debug/initramfs.cpio
	@tests/check.sh -k $(KDIR_debug)/arch/x86/boot/bzImage \
		-i $(BUILD)/debug/initramfs.cpio -o $(BUILD)/check \
		-T $(CHECK_TIMEOUT) -t '$(T)' -B $(BUILD)/tbin $(TORTURE_ENV)

# SEED and ROUNDS reach the torture campaigns (make check runs them too).
TORTURE_ENV = $(if $(SEED),-e SEED=$(SEED)) $(if $(ROUNDS),-e ROUNDS=$(ROUNDS))

torture: $(BUILD)/debug/initramfs.cpio $(BUILD)/broken/initramfs.cpio
	@tests/torture.sh -k $(KDIR_debug)/arch/x86/boot/bzImage \
		-i $(BUILD)/debug/initramfs.cpio \
		-I $(BUILD)/broken/initramfs.cpio -o $(BUILD)/torture \
		-T $(TORTURE_TIMEOUT) -t '$(T)' $(TORTURE_ENV)

bench: $(BUILD)/release/initramfs.cpio
	@tests/bench.sh -k $(KDIR_release)/arch/x86/boot/bzImage \
		-i $(BUILD)/release/initramfs.cpio -o $(BUILD)/bench

# M: mutation scripts to try (default: all of tests/mutations/*.sed).
mutate: $(addprefix $(BUILD)/bin/,$(TOOLS)) $(TEST_BINS)
	@tests/mutate.sh $(M)

# The targets are absolute paths: "make build/release/mvfs/mvfs.ko"
# matches no rule and rebuilds nothing.
module: $(BUILD)/release/mvfs/mvfs.ko

lint: $(BUILD)/release/mvfs/mvfs.ko
	@tests/lint.sh $(KSRC) $(KDIR_release) $(BUILD)/lint

clean:
	rm -rf $(BUILD)

FORCE:

distclean: clean
	rm -rf $(MVFS_CACHE)
