# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlab — realtime-Linux latency test and regression lab.
# One Makefile for the whole tree; objects go to build/.  `make help` lists
# the targets.

prefix  ?= /usr/local
bindir  ?= $(prefix)/bin
datadir ?= $(prefix)/share/rtlab
DESTDIR ?=
BUILD   ?= build

CC      ?= cc
AR      ?= ar
CFLAGS  ?= -O2 -g
WERROR  ?= -Werror
PKG_CONFIG ?= pkg-config

# Libraries by pkg-config name.  The agent must fit on a board, so it takes
# only what it needs; the rtlab front end takes the server side.
PKGS_LIB   := jansson libarchive libcrypto
PKGS_AGENT := $(PKGS_LIB) yaml-0.1 libcurl uuid libtracefs libtraceevent
PKGS_RTLAB := $(PKGS_LIB) yaml-0.1 libcurl uuid libpq libmicrohttpd \
	      libtracecmd libtraceevent

pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pkg_libs   = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

BASE_CFLAGS := -std=gnu11 -Wall -Wextra $(WERROR) -Wshadow \
	-Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes \
	-D_GNU_SOURCE -Ilib -MMD -MP \
	-DRTLAB_DATADIR='"$(datadir)"'
ALL_CFLAGS  = $(BASE_CFLAGS) $(call pkg_cflags,$(PKGS_RTLAB) $(PKGS_AGENT)) \
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
	install clean help format

all: $(AGENT_BIN) $(RTLAB_BIN) $(UNIT_BINS) $(BENCH_BINS)

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
	@echo '  install            install binaries and data under DESTDIR/prefix'
	@echo '  format             clang-format the C sources'
	@echo '  clean              remove $(BUILD)/'
	@echo 'Variables: V=1 (show commands), CFLAGS, WERROR=, prefix, DESTDIR, BUILD'

deps:
	$(Q)sh scripts/deps.sh

demo: deps all
	$(Q)sh scripts/demo.sh

check: deps all
	$(Q)sh tests/run.sh

check-unit: all
	$(Q)sh tests/run.sh --unit

check-integration: deps all
	$(Q)sh tests/run.sh --integration

memcheck: all
	$(Q)sh tests/run.sh --unit --valgrind

bench: $(BENCH_BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(echo_cmd) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIBRTLAB): $(call obj,$(LIB_SRCS))
	$(echo_cmd) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBCORE): $(call obj,$(CORE_SRCS))
	$(echo_cmd) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBAGENT): $(call obj,$(AGENT_LIB_SRCS))
	$(echo_cmd) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

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

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(LIBCORE) $(LIBRTLAB)
	@mkdir -p $(dir $@)
	$(echo_cmd) LD $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_RTLAB)

install: $(AGENT_BIN) $(RTLAB_BIN)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(datadir)
	install -m 755 $(AGENT_BIN) $(RTLAB_BIN) $(DESTDIR)$(bindir)/
	cp -r schema testcases boards kernels $(DESTDIR)$(datadir)/

format:
	clang-format -i $(LIB_SRCS) $(AGENT_SRCS) $(CORE_SRCS) cli/main.c \
		$(wildcard lib/*.h agent/*.h db/*.h reports/*.h kernels/*.h boards/*.h services/*.h server/*.h cli/*.h)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
