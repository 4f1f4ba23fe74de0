/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CYCLICTEST_H
#define RTLAB_CYCLICTEST_H

/*
 * Readers for what cyclictest (rt-tests 2.x) writes: its --json=FILE result
 * (whose "cmdline:" and "rt_test_version:" keys carry a stray colon) and its
 * -h/--histogram text on stdout ("# Histogram Overflows:" and friends).
 * Both yield one struct hist per measuring thread.
 */

#include <stddef.h>
#include "hist.h"

struct ct_result {
	char *cmdline; /* as cyclictest recorded it, may be NULL */
	char *version; /* rt-tests version, may be NULL */
	int realtime;  /* sysinfo.realtime: 1, 0, -1 unknown */
	int return_code;
	unsigned int nthreads;
	struct hist *threads; /* nthreads histograms, thread order */
};

/**
 * ct_json_parse() - parse cyclictest's --json output.
 * @hist_range_us: the -h value the run used (the JSON does not say it);
 *	overflows are cycles minus the histogram's sum.  A bucket at or
 *	beyond it is an error; 0 (no -h) makes every sample an overflow.
 * Threads must be numbered "0".."n-1" and agree with "num_threads"; each
 * is checked with hist_check(), and "max" may lie beyond the range.
 * The limits of run-limits.h (range, threads, threads × range, samples
 * per thread and per run) are checked before the histograms are allocated.
 * Return: 0, or a negative errno with @err naming the key that was wrong.
 * Caller releases @res with ct_result_cleanup().
 */
int ct_json_parse(const char *text, size_t len, uint32_t hist_range_us,
		  struct ct_result *res, struct rtlab_err *err) __must_check;

/**
 * ct_hist_parse() - parse the -h text (bucket lines, "# Total:",
 * "# Min/Avg/Max Latencies:", "# Histogram Overflows:").  The range is the
 * last bucket line + 1; samples are Total + Overflows; avg_us is the
 * text's whole-µs mean; cpu is -1 (the text does not say).  The extra
 * all-threads column of -H is dropped.  A bucket line beyond
 * RTLAB_MAX_HIST_RANGE_US, too many cells, or sums beyond 64 bits or
 * RTLAB_MAX_RUN_SAMPLES are refused before the histograms are allocated.
 * Caller releases @res with ct_result_cleanup().
 * Return: 0, or a negative errno with @err naming the line.
 */
int ct_hist_parse(const char *text, size_t len, struct ct_result *res,
		  struct rtlab_err *err) __must_check;

/** ct_result_cleanup() - free what a parse filled; safe twice. */
void ct_result_cleanup(struct ct_result *res);

#endif
