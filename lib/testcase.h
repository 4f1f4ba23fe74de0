/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_TESTCASE_H
#define RTLAB_AGENT_TESTCASE_H

/*
 * Testcase definitions (the YAML files in testcases/, format in
 * testcases/README.md): what to measure, under which loads, with which
 * trace settings, for how long.  Parsed with libyaml; an unknown key or a bad value is an error
 * naming the file, line and key.
 */

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "error.h"

enum tc_load_kind {
	TC_LOAD_HACKBENCH,	 /* steady hackbench, restarted when it ends */
	TC_LOAD_HACKBENCH_CHURN, /* repeated short hackbench start-ups */
	TC_LOAD_STRESS_NG,
	TC_LOAD_NETWORK,  /* loopback traffic: NET_RX/NET_TX softirqs */
	TC_LOAD_INJECTOR, /* a known latency: `rtlab-agent inject` */
};

enum tc_inject_mode {
	TC_INJECT_USER,	   /* SCHED_FIFO 99 spinner (any board) */
	TC_INJECT_PREEMPT, /* rtlab_inject.ko, preemption off */
	TC_INJECT_IRQ,	   /* rtlab_inject.ko, interrupts off */
	TC_INJECT_TICK,	   /* rtlab_inject.ko, interrupts off in the tick */
};

enum tc_net_mode {
	TC_NET_IPERF3, /* iperf3 server + client on 127.0.0.1 */
	TC_NET_PING,   /* ping -f -q 127.0.0.1 */
	/* iperf3 server on the board's NIC, the client on the host that
	 * drives the board (the virtual board: boards/README.md) */
	TC_NET_IPERF3_NIC,
};

/* The board's address for an iperf3-nic load: QEMU user networking's
 * guest address, which the virtual board gives its virtio-net NIC. */
#define TC_NIC_GUEST_ADDR "10.0.2.15"
#define TC_NIC_GUEST_PREFIX 24

struct tc_load {
	enum tc_load_kind kind;
	char **args; /* NULL-terminated; defaults filled in */
	size_t nargs;
	enum tc_net_mode net_mode; /* TC_LOAD_NETWORK only */
	unsigned int port;	   /* iperf3 port, TC_LOAD_NETWORK */
	unsigned int loops;	   /* hackbench -l, TC_LOAD_HACKBENCH_CHURN */
	/* TC_LOAD_INJECTOR (docs/calibration.md) */
	enum tc_inject_mode inject_mode;
	unsigned int spin_us;	 /* each spin (default 200) */
	unsigned int period_ms;	 /* mean sleep between spins (100) */
	unsigned int jitter_pct; /* sleep +/- this % (default 50) */
	unsigned long long seed; /* 0: a fresh seed each run */
	char *cpus;		 /* cpuset; NULL: every CPU */
	char *module;		 /* .ko path; NULL: the default */
};

/* cyclictest -i, µs */
#define TC_MIN_INTERVAL_US 50
#define TC_MAX_INTERVAL_US 10000000

struct tc_measurement {
	char *tool;		   /* "cyclictest" */
	unsigned int priority;	   /* -p, 1..99 */
	unsigned int interval_us;  /* -i */
	unsigned int histogram_us; /* -h range */
	unsigned int threads;	   /* 0: one per CPU (-t) */
	char *affinity;		   /* -a cpuset, NULL: none */
	bool mlockall;		   /* -m */
	char **extra_args;	   /* NULL-terminated */
	size_t nextra_args;
};

struct tc_trace {
	bool enabled;  /* a trace: section was given */
	char **events; /* "subsystem:event" or "subsystem:*" */
	size_t nevents;
	char **optional_events; /* may be missing: a warning */
	size_t noptional_events;
	unsigned int buffer_kb; /* per-CPU ring buffer size */
	enum tc_trace_capture {
		TC_CAPTURE_WORST_WAKEUP = 0, /* onmax snapshot (default) */
		TC_CAPTURE_END_OF_RUN,	     /* the buffer as the run ends */
	} capture;
};

/*
 * A developer's own code for the board (testcases/README.md, "Extras"):
 * modules loaded before the measurement and removed after, files put in
 * place, shell commands run before and after.  Paths as written in the
 * YAML; testcase_extra_path() resolves them.
 */
struct tc_module {
	char *path;   /* a .ko, relative to the testcase's directory */
	char *params; /* insmod parameters ("foo=1 bar=2"), may be NULL */
};

struct tc_file {
	char *src;  /* relative to the testcase's directory */
	char *dest; /* absolute path on the board */
};

/* At most this many of each kind: a board's initramfs is no file system. */
#define TC_MAX_EXTRAS 32

struct tc_extras {
	struct tc_module *modules;
	size_t nmodules;
	struct tc_file *files;
	size_t nfiles;
	char **setup; /* NULL-terminated, `sh -c` each, in order */
	size_t nsetup;
	char **teardown; /* run after the measurement, also on failure */
	size_t nteardown;
};

struct testcase {
	char *path; /* the file it came from */
	char *name;
	char *description; /* may be NULL */
	unsigned int duration_s;
	struct tc_measurement measurement;
	size_t nloads;
	struct tc_load *loads;
	struct tc_trace trace;
	struct tc_extras extras;
};

/**
 * testcase_nic_load() - the testcase's iperf3-nic load (whose traffic
 * comes from outside the board, through its NIC), or NULL when it has
 * none.  Points into @tc.
 */
const struct tc_load *testcase_nic_load(const struct testcase *tc);

/** tc_net_mode_name() - "iperf3", "ping", "iperf3-nic" as in the YAML. */
const char *tc_net_mode_name(enum tc_net_mode m);

/** tc_load_kind_name() - "hackbench", "stress-ng", ... as in the YAML. */
const char *tc_load_kind_name(enum tc_load_kind k);

/** tc_inject_mode_name() - "user", "preempt", "irq", "tick" as in the YAML. */
const char *tc_inject_mode_name(enum tc_inject_mode m);

/**
 * testcase_parse() - parse a testcase from @text (@path names it in
 * messages).  Return: 0, or -EINVAL with @err saying e.g.
 * "t.yaml:7: measurement.priority: expected an integer 1..99, got 'x'".
 * Caller releases @tc with testcase_cleanup() either way.
 */
int testcase_parse(const char *path, const char *text, size_t len,
		   struct testcase *tc, struct rtlab_err *err) __must_check;

/**
 * testcase_needs_inject_module() - whether @tc has an injector load that
 * runs the rtlab_inject module (mode preempt, irq or tick) and names no
 * module file of its own: a board that boots a kernel then needs the
 * module built for that kernel in its initrd, or the run is not injected.
 */
bool testcase_needs_inject_module(const struct testcase *tc);

/** testcase_load() - testcase_parse() of the file at @path. */
int testcase_load(const char *path, struct testcase *tc,
		  struct rtlab_err *err) __must_check;

/** testcase_has_extras() - the testcase brings modules, files or commands. */
bool testcase_has_extras(const struct testcase *tc);

/**
 * testcase_extra_path() - @rel (a module's path or a file's src) as a
 * path: itself when absolute, else relative to the directory of the
 * testcase file (@tc->path).  Return: malloc'd (caller frees) or NULL.
 */
char *testcase_extra_path(const struct testcase *tc, const char *rel);

/**
 * testcase_module_file() - the file name a module has on the board:
 * the last component of @path ("drv/my_driver.ko" -> "my_driver.ko").
 * Return: a pointer into @path.
 */
const char *testcase_module_file(const char *path);

/** testcase_cleanup() - free what a parse filled; safe twice. */
void testcase_cleanup(struct testcase *tc);

/**
 * testcase_to_json() - the parsed testcase, defaults filled in, as the
 * manifest's testcase.definition.  Return: new reference or NULL (ENOMEM).
 */
json_t *testcase_to_json(const struct testcase *tc);

/**
 * testcase_tools() - the programs the testcase needs, in order, without
 * duplicates ("cyclictest", "hackbench", ...).  Return: a NULL-terminated
 * array of static strings (caller frees the array only) or NULL (ENOMEM).
 */
const char **testcase_tools(const struct testcase *tc);

/**
 * testcase_json_diff() - where the testcase a board ran (@ran, a
 * manifest's testcase.definition) differs from the lab's (@lab, from
 * testcase_to_json() plus the lab's verdict parameters): the top-level
 * keys, and the keys one level down in objects both have
 * ("measurement.interval_us"), whose values differ or that only one has
 * (a null value counts as missing).  "description" is not compared.  @ran not an object: nothing differs
 * (the board claimed no definition); @lab not an object: every key of
 * @ran differs.
 * Return: a new JSON array of strings (empty when they agree), or NULL
 * (ENOMEM).
 */
json_t *testcase_json_diff(const json_t *lab, const json_t *ran);

/**
 * testcase_lab_load() - the lab's definition of testcase @name: the file
 * testcases/NAME.yaml of the data directory (rtlab_data_path()), parsed
 * and as testcase_to_json() gives it.
 * Return: 0 with *@out set (caller json_decref()s); -ENOENT when the lab
 * has no such file (or @name is not a plain name); -EINVAL when the file
 * is invalid or names another testcase; -ENOMEM.  @err says which.
 */
int testcase_lab_load(const char *name, json_t **out,
		      struct rtlab_err *err) __must_check;

/**
 * testcase_flags_text() - what a run's flags (runs.flags) say about its
 * testcase, in one line for people: "not a lab testcase (WHY)" and/or
 * "testcase differs from the lab's definition: FIELD, FIELD", then
 * "; verdicts use the lab's parameters".
 * Return: malloc'd text (caller frees), or NULL when @flags says nothing
 * about the testcase (or on ENOMEM).
 */
char *testcase_flags_text(const json_t *flags);

#endif
