/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_RTLA_H
#define RTLAB_RTLA_H

/*
 * Reader of what `rtla timerlat hist` and `rtla osnoise hist` (Linux 6.1's
 * rtla) print: a header, an "Index" line naming one column per CPU and
 * measure (timerlat: IRQ-NNN and Thr-NNN; osnoise: CPU-NNN), one line per
 * non-empty bucket, then "over:", "count:", "min:", "avg:" and "max:".
 */

#include <stddef.h>

#include "cyclictest.h"
#include "rttests.h"

/**
 * rtla_hist_parse() - the histograms of @tool's (RT_TOOL_TIMERLAT or
 * RT_TOOL_OSNOISE) output, 1 µs buckets (rtla's -b 1), the range the
 * bucket lines' "Index" column ends before (at least @range_us).
 * timerlat yields two histograms per CPU, metric "timerlat-thread"
 * (threads 0..n-1) then "timerlat-irq" (threads n..2n-1); osnoise one,
 * metric "osnoise".  cpu is the column's CPU; samples are count:,
 * overflows over:, min/avg/max from the summary lines.
 * Return: 0, or -EINVAL with @err naming the line and what was wrong
 * (a truncated output lacks its summary lines), -ENOMEM.
 * Caller releases @res with ct_result_cleanup() either way.
 */
int rtla_hist_parse(enum rt_tool tool, const char *text, size_t len,
		    uint32_t range_us, struct ct_result *res,
		    struct rtlab_err *err) __must_check;

#endif
