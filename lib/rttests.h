/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_RTTESTS_H
#define RTLAB_RTTESTS_H

/*
 * The measuring tools a testcase can name (measurement.tool) and the
 * reader of the rt-tests 2.x tools that keep no histogram (signaltest,
 * pmqtest, cyclicdeadline, pi_stress): their --json result becomes a
 * pass/fail with counts and, where the tool measures a latency, each
 * thread's cycles, min, avg and max.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "error.h"

enum rt_tool {
	RT_TOOL_CYCLICTEST,
	RT_TOOL_TIMERLAT, /* rtla timerlat hist */
	RT_TOOL_OSNOISE,  /* rtla osnoise hist */
	RT_TOOL_SIGNALTEST,
	RT_TOOL_PMQTEST,
	RT_TOOL_CYCLICDEADLINE,
	RT_TOOL_PI_STRESS,
	RT_TOOL_COUNT
};

/** rt_tool_lookup() - the tool called @name ("timerlat", ...).
 *  Return: 0 with *@t set, -ENOENT. */
int rt_tool_lookup(const char *name, enum rt_tool *t) __must_check;

/** rt_tool_name() - "cyclictest", "timerlat", ... as in a testcase. */
const char *rt_tool_name(enum rt_tool t);

/** rt_tool_program() - the program run on the board ("rtla" for the
 *  timerlat and osnoise tools). */
const char *rt_tool_program(enum rt_tool t);

/** rt_tool_names() - every tool name, ", "-separated, for messages. */
const char *rt_tool_names(void);

/** rt_tool_has_hist() - true when the tool's result is a histogram per
 *  CPU/thread (cyclictest, timerlat, osnoise); false for a summary. */
bool rt_tool_has_hist(enum rt_tool t);

/** rt_tool_output() - the bundle file holding the tool's result
 *  ("timerlat.hist", "signaltest.json", ...; cyclictest: its JSON). */
const char *rt_tool_output(enum rt_tool t);

struct rt_summary_thread {
	int thread;
	int cpu; /* -1 unknown */
	uint64_t cycles;
	uint64_t timeouts; /* pmqtest's receiver timeouts */
	uint32_t min_us, max_us;
	double avg_us;
};

/* A result without a histogram: passed is return_code == 0 and, for a
 * latency tool, every thread measured at least one cycle. */
struct rt_summary {
	enum rt_tool tool;
	char *version; /* rt-tests version, may be NULL */
	int return_code;
	bool passed;
	uint64_t inversions; /* pi_stress */
	unsigned int nthreads;
	struct rt_summary_thread *threads;
};

/**
 * rt_summary_parse() - read the --json result of @tool (signaltest,
 * pmqtest, cyclicdeadline or pi_stress; rt-tests 2.x: "thread" maps "0"..
 * "n-1" to cycles/min/max/avg, pmqtest's under "sender"/"receiver";
 * pi_stress has "inversion").
 * Return: 0, or -EINVAL with @err naming the file and key that was wrong
 * (-ENOMEM).  Caller releases @res with rt_summary_cleanup() either way.
 */
int rt_summary_parse(enum rt_tool tool, const char *text, size_t len,
		     struct rt_summary *res,
		     struct rtlab_err *err) __must_check;

/** rt_summary_cleanup() - free what a parse filled; safe twice. */
void rt_summary_cleanup(struct rt_summary *res);

/**
 * rt_summary_to_json() - @s as stored (runs.results): {"tool", "passed",
 * "return_code", "inversions"?, "threads": [{thread, cpu, cycles, min_us,
 * avg_us, max_us, timeouts}]}.  Return: new reference, NULL (ENOMEM).
 */
json_t *rt_summary_to_json(const struct rt_summary *s);

#endif
