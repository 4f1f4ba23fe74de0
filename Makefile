# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlab — realtime-Linux latency test and regression lab.
# One Makefile for the whole tree; objects go to build/.  `make help` lists
# the targets.

prefix  ?= /usr/local
bindir  ?= $(prefix)/bin
datadir ?= $(prefix)/share/rtlab
docdir  ?= $(prefix)/share/doc/rtlab
unitdir ?= $(prefix)/lib/systemd/system
sysusersdir ?= $(prefix)/lib/sysusers.d
sysconfdir ?= /etc
create_user ?= yes
DESTDIR ?=
BUILD   ?= build

CC      ?= cc
AR      ?= ar
CFLAGS  ?= -O2 -g
WERROR  ?= -Werror
PKG_CONFIG ?= pkg-config

# Libraries by pkg-config name.  The agent must fit on a board, so it takes
# only what it needs; the rtlab front end takes the server side.
PKGS_LIB   := jansson libarchive libcrypto zlib libkmod
PKGS_AGENT := $(PKGS_LIB) yaml-0.1 libcurl uuid libtracefs libtraceevent
PKGS_RTLAB := $(PKGS_LIB) yaml-0.1 libcurl uuid libpq libmicrohttpd \
	      libtracecmd libtraceevent

pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pkg_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)
# Libraries pkg-config does not know yet: on a new machine, before `make
# deps`.  demo and check run deps first and then build in a sub-make, which
# reads this Makefile again once the libraries are there.
PKGS_ALL   := $(sort $(PKGS_AGENT) $(PKGS_RTLAB))
PKGS_MISSING := $(if $(filter deps help clean uninstall,$(MAKECMDGOALS)),,$(foreach p,$(PKGS_ALL),$(if $(shell $(PKG_CONFIG) --exists $(p) 2>/dev/null && echo y),,$(p))))

BASE_CFLAGS := -std=gnu11 -Wall -Wextra $(WERROR) -Wshadow \
	-Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes \
	-D_GNU_SOURCE -Ilib -MMD -MP \
	-DRTLAB_DATADIR='"$(datadir)"' -DRTLAB_SYSCONFDIR='"$(sysconfdir)"'
ALL_CFLAGS := $(BASE_CFLAGS) $(call pkg_cflags,$(PKGS_ALL)) \
	$(CFLAGS) $(CPPFLAGS)

ifeq ($(V),1)
Q :=
echo_cmd = @:
else
Q := @
echo_cmd = @printf '  %-6s %s\n'
endif

LIB_SRCS   := $(wildcard lib/*.c)
AGENT_SRCS := $(wildcard agent/*.c)
# The agent's modules (all but its main.c) also form a library, so its
# unit tests link the same code.
AGENT_LIB_SRCS := $(filter-out agent/main.c,$(AGENT_SRCS))
# Everything of the rtlab front end except its main.c lives in a static
# library, so unit tests and benchmarks link the same code.
CORE_SRCS  := $(wildcard db/*.c reports/*.c kernels/*.c boards/*.c \
			 services/*.c server/*.c) \
	      $(filter-out cli/main.c,$(wildcard cli/*.c))
UNIT_SRCS  := $(wildcard tests/unit/test-*.c)
BENCH_SRCS := $(wildcard bench/*.c)
# What several benchmarks share (bundle generators) is linked into each.
BENCH_COMMON_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard bench/common/*.c))

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

LIBRTLAB  := $(BUILD)/librtlab.a
LIBCORE   := $(BUILD)/librtlab-core.a
LIBAGENT  := $(BUILD)/librtlab-agent.a
AGENT_BIN := $(BUILD)/rtlab-agent
RTLAB_BIN := $(BUILD)/rtlab
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
BENCH_BINS:= $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

LIBS_AGENT := $(call pkg_libs,$(PKGS_AGENT)) -lm
LIBS_RTLAB := $(call pkg_libs,$(PKGS_RTLAB)) -lm -lpthread

.SECONDARY:

.PHONY: all deps demo check check-unit check-integration memcheck bench \
	install uninstall clean help format format-check libs-present

all: $(AGENT_BIN) $(RTLAB_BIN) $(UNIT_BINS) $(BENCH_BINS)

# Say what is missing instead of failing on the first #include.
libs-present:
ifneq ($(strip $(PKGS_MISSING)),)
	@echo "rtlab: pkg-config does not find: $(strip $(PKGS_MISSING))" >&2
	@echo "rtlab: run 'make deps' as root first (it installs the Debian packages)" >&2
	@exit 1
endif

help:
	@echo 'rtlab make targets:'
	@echo '  all                build rtlab, rtlab-agent, tests and benchmarks into $(BUILD)/'
	@echo '  deps               install the Debian packages rtlab needs (root; idempotent)'
	@echo '  demo               the main job: a demo of the lab on its embedded defaults'
	@echo '  check              every test (unit + integration); ends with "N passed, N failed"'
	@echo '  check-unit         unit tests only (no root, no database)'
	@echo '  check-integration  integration tests only'
	@echo '  memcheck           unit tests under valgrind'
	@echo '  bench              build the benchmarks (run them from bench/, see README)'
	@echo '  install            install binaries, data, docs, systemd units under DESTDIR/prefix'
	@echo '  uninstall          remove exactly what install wrote (its install-manifest)'
	@echo '  format             clang-format the C sources in place (.clang-format)'
	@echo '  format-check       list the C sources clang-format would change'
	@echo '  fuzz               run each fuzzer FUZZ_SECONDS (60) s (clang, libFuzzer)'
	@echo '  fuzz-build         build the fuzzers into $(BUILD)/fuzz/'
	@echo '  fuzz-known         which inputs in fuzz/crashes-found/ still crash'
	@echo '  clean              remove $(BUILD)/'
	@echo 'Variables: V=1 (show commands), CFLAGS, WERROR=, prefix, DESTDIR, BUILD,'
	@echo '           bindir, datadir, docdir, unitdir, sysusersdir, sysconfdir,'
	@echo '           create_user=no (install as root without creating the rtlab user)'

deps:
	$(Q)sh scripts/deps.sh

# deps may install the libraries this Makefile asked pkg-config about when
# it was read: build in a sub-make, which asks again.
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh scripts/demo.sh

check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/run.sh

check-unit: all
	$(Q)sh tests/run.sh --unit

check-integration: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/run.sh --integration

memcheck: all
	$(Q)sh tests/run.sh --unit --valgrind

bench: $(BENCH_BINS)

$(BUILD)/%.o: %.c | libs-present
	@mkdir -p $(dir $@)
	$(echo_cmd) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# An archive is rebuilt when its list of objects changes (a source added,
# moved or deleted), not only when one of them is newer: a stale object
# left in it would link code that is gone.
.PHONY: FORCE
FORCE:
define objlist_rule
$(BUILD)/$(1).objlist: FORCE
	@mkdir -p $(BUILD)
	@echo '$(2)' | cmp -s - $$@ || echo '$(2)' >$$@
endef
$(eval $(call objlist_rule,librtlab,$(call obj,$(LIB_SRCS))))
$(eval $(call objlist_rule,librtlab-core,$(call obj,$(CORE_SRCS))))
$(eval $(call objlist_rule,librtlab-agent,$(call obj,$(AGENT_LIB_SRCS))))

$(LIBRTLAB): $(call obj,$(LIB_SRCS)) $(BUILD)/librtlab.objlist
	$(echo_cmd) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

$(LIBCORE): $(call obj,$(CORE_SRCS)) $(BUILD)/librtlab-core.objlist
	$(echo_cmd) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

$(LIBAGENT): $(call obj,$(AGENT_LIB_SRCS)) $(BUILD)/librtlab-agent.objlist
	$(echo_cmd) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)

$(AGENT_BIN): $(BUILD)/agent/main.o $(LIBAGENT) $(LIBRTLAB)
	$(echo_cmd) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_AGENT)

$(RTLAB_BIN): $(BUILD)/cli/main.o $(LIBCORE) $(LIBRTLAB)
	$(echo_cmd) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_RTLAB)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBAGENT) $(LIBCORE) $(LIBRTLAB)
	@mkdir -p $(dir $@)
	$(echo_cmd) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_RTLAB) $(LIBS_AGENT)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(BENCH_COMMON_OBJS) $(LIBCORE) $(LIBRTLAB)
	@mkdir -p $(dir $@)
	$(echo_cmd) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_RTLAB)

INSTALL_VARS = DESTDIR='$(DESTDIR)' prefix='$(prefix)' bindir='$(bindir)' \
	datadir='$(datadir)' docdir='$(docdir)' unitdir='$(unitdir)' \
	sysusersdir='$(sysusersdir)' sysconfdir='$(sysconfdir)' \
	create_user='$(create_user)'

install: $(AGENT_BIN) $(RTLAB_BIN)
	$(Q)$(INSTALL_VARS) sh scripts/install.sh install $(BUILD)

uninstall:
	$(Q)$(INSTALL_VARS) sh scripts/install.sh uninstall $(BUILD)

CLANG_FORMAT ?= clang-format
FORMAT_DIRS := lib agent db services server reports boards kernels cli \
	       tests/unit bench fuzz
FORMAT_SRCS = $(wildcard $(addsuffix /*.c,$(FORMAT_DIRS)) \
			 $(addsuffix /*.h,$(FORMAT_DIRS)))

format:
	$(CLANG_FORMAT) -i $(FORMAT_SRCS)

format-check:
	$(Q)CLANG_FORMAT=$(CLANG_FORMAT) sh scripts/check-format.sh $(FORMAT_SRCS)

clean:
	rm -rf $(BUILD)

# ------------------------------------------------------------------ fuzzing
# libFuzzer harnesses (fuzz/, docs/fuzzing.md): clang with ASan and UBSan,
# objects in $(BUILD)/fuzz/, compiled from the same sources as the binaries
# but apart from the gcc build, so `make all` never needs clang.  Sources
# are looked up by name in the source folders, wherever they live.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := $(BUILD)/fuzz
FUZZ_NAMES   := cyclictest-json cyclictest-hist manifest bundle testcase \
		board config ingest rtla-hist rttests-json
FUZZERS      ?= $(FUZZ_NAMES)
FUZZ_DIRS    := $(wildcard lib agent server boards kernels db services)
FUZZ_CFLAGS   = -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -MMD -MP $(addprefix -I,$(FUZZ_DIRS)) \
	-DRTLAB_DATADIR='"$(datadir)"' \
	$(call pkg_cflags,jansson libarchive libcrypto yaml-0.1 libpq libmicrohttpd)
FUZZ_LIBS     = $(call pkg_libs,jansson libarchive libcrypto yaml-0.1 zlib) -lm
fuzz_srcs = $(foreach f,$(1),$(firstword \
	$(wildcard $(addsuffix /$(f),$(FUZZ_DIRS) fuzz))))
fuzz_objs = $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(call fuzz_srcs,$(1)))

FUZZ_SRCS_cyclictest-json := cyclictest.c hist.c error.c
FUZZ_SRCS_cyclictest-hist := cyclictest.c hist.c error.c
FUZZ_SRCS_manifest := manifest.c bundle.c rttests.c error.c
FUZZ_SRCS_rtla-hist := rtla.c rttests.c cyclictest.c hist.c error.c
FUZZ_SRCS_rttests-json := rttests.c error.c
FUZZ_SRCS_bundle   := bundle.c error.c
FUZZ_SRCS_testcase := testcase.c rttests.c yamlmap.c config.c fsutil.c error.c
FUZZ_SRCS_board    := board-def.c stub-board-kinds.c yamlmap.c config.c fsutil.c \
		      error.c
FUZZ_SRCS_config   := config.c fsutil.c error.c
FUZZ_SRCS_ingest   := ingest.c stub-db.c bundle.c bundle-hists.c manifest.c cyclictest.c \
		      rtla.c rttests.c \
		      hist.c testcase.c yamlmap.c config.c fsutil.c log.c error.c

.PHONY: fuzz fuzz-build fuzz-known

fuzz-build: $(addprefix $(FUZZ_BUILD)/fuzz-,$(FUZZERS))

fuzz: fuzz-build
	$(Q)FUZZ_FLAGS="$(FUZZ_FLAGS)" sh fuzz/run.sh --seconds $(FUZZ_SECONDS) \
		--build $(BUILD) $(FUZZERS)

# Which of the inputs in fuzz/crashes-found/ still crash.
fuzz-known: fuzz-build
	$(Q)sh fuzz/run.sh --known --build $(BUILD) $(FUZZERS)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(echo_cmd) FUZZCC $<
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

define fuzz_link
$(FUZZ_BUILD)/fuzz-$(1): $(call fuzz_objs,fuzz-$(1).c $(FUZZ_SRCS_$(1)))
	$$(echo_cmd) FUZZLD $$@
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$^ $$(FUZZ_LIBS)
endef
$(foreach n,$(FUZZ_NAMES),$(eval $(call fuzz_link,$(n))))

# (not below $(BUILD)/cache: kernel trees built there have .d files too)
-include $(shell find $(BUILD) -path $(BUILD)/cache -prune -o -name '*.d' -type f -print 2>/dev/null)
