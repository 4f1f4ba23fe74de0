/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_MEASURE_H
#define RTLAB_AGENT_MEASURE_H

/*
 * The measurement: cyclictest's command line from a testcase, and running
 * it with its histogram text captured, an eye on the clock and on the
 * agent's stop flag.
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "argv.h"
#include "testcase.h"

/**
 * measure_build_argv() - the cyclictest command line:
 * `cyclictest [-m] -p PRIO -i INTERVAL -t|--threads=N [--affinity=CPUS]
 * -h RANGE -q -D DURATION --json=FILE [extra...]`.  Never -b: a run
 * measures its whole duration (the trace of its worst wakeup is kept by a
 * snapshot, see ftrace.h).  Another measurement.tool gets its own
 * command line (rtla timerlat|osnoise hist, signaltest, pmqtest,
 * cyclicdeadline, pi_stress; docs/agent.md), writing its --json to
 * rt_tool_output()'s name; @json_path is cyclictest's only.
 * @interval_us: 0 for the testcase's interval_us.
 * @a is initialised here; caller cleans up with argv_cleanup().
 * Return: 0 or -ENOMEM.
 */
int measure_build_argv(const struct testcase *tc, unsigned int duration_s,
		       unsigned int interval_us, const char *json_path,
		       struct argv *a) __must_check;

/** measure_samples_planned() - samples per thread a full run takes:
 *  @duration_s / @interval_us (0 when @interval_us is 0). */
unsigned long long measure_samples_planned(unsigned int duration_s,
					   unsigned int interval_us);

/* Called about every 200 ms while cyclictest runs. */
typedef void (*measure_tick_fn)(void *ctx, double elapsed_s);

/**
 * measure_run() - run @a in directory @cwd with stdout to @hist_path and
 * stderr to @stderr_path, and wait.  When *@stop becomes non-zero,
 * cyclictest is asked to finish (SIGINT, as a user would) and then killed;
 * past @duration_s plus a margin it is killed too.
 * @status: its wait status.
 * Return: 0 when it ran and exited on its own (check @status), -EINTR
 * when stopped, -ETIMEDOUT, or another negative errno; @err says which.
 */
int measure_run(const struct argv *a, const char *cwd, const char *hist_path,
		const char *stderr_path, unsigned int duration_s,
		volatile sig_atomic_t *stop, measure_tick_fn tick, void *ctx,
		int *status, struct rtlab_err *err) __must_check;

/**
 * measure_json_repair() - cyclictest writes "avg": -nan for a thread that
 * took no sample: not JSON.  Rewrite
 * such a document with those averages dropped.
 * @text, @len: replaced (the old buffer freed) when repaired.
 * Return: 1 when repaired, 0 when @text parsed as it was or is broken in
 * another way (left alone for the parser to report), -ENOMEM.
 */
int measure_json_repair(char **text, size_t *len) __must_check;

#endif
