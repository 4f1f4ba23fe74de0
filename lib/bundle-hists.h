/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BUNDLE_HISTS_H
#define RTLAB_BUNDLE_HISTS_H

/*
 * A result bundle's latency histograms, by the one rule every reader of a
 * bundle uses (ingest, offline verdicts, rtlab boot).
 */

#include <stdint.h>

#include "bundle.h"
#include "cyclictest.h"
#include "error.h"
#include "rttests.h"

#define BUNDLE_CT_JSON "cyclictest.json"
#define BUNDLE_CT_HIST "cyclictest.hist"

/**
 * bundle_hists_read() - the per-thread histograms of bundle @b (a complete
 * run): cyclictest.json read with @hist_range_us (the manifest's
 * testcase.hist_range_us; 0: the range of cyclictest.hist), cross-checked
 * against cyclictest.hist when both are present, else cyclictest.hist
 * alone.  Every thread passes hist_check(); a thread without a CPU (the
 * -h text does not say) gets its thread number.
 * Return: 0 with @res filled; -EINVAL with @err naming the file and what
 * disagrees or is missing.  Caller releases @res with ct_result_cleanup()
 * either way.
 */
int bundle_hists_read(const struct bundle *b, uint32_t hist_range_us,
		      struct ct_result *res,
		      struct rtlab_err *err) __must_check;

/**
 * bundle_tool_hists_read() - the histograms of a complete run of @tool
 * (the manifest's testcase.tool): bundle_hists_read() for cyclictest,
 * rtla_hist_parse() of timerlat.hist / osnoise.hist for timerlat and
 * osnoise, none (0 histograms, return 0) for a tool that keeps none.
 * Return and ownership as bundle_hists_read().
 */
int bundle_tool_hists_read(const struct bundle *b, enum rt_tool tool,
			   uint32_t hist_range_us, struct ct_result *res,
			   struct rtlab_err *err) __must_check;

/**
 * bundle_summary_read() - the pass/fail result of a complete run of a
 * @tool without histograms (signaltest, pmqtest, cyclicdeadline,
 * pi_stress), read from its --json file: *@out as rt_summary_to_json();
 * NULL for a tool with histograms.
 * Return: 0, -EINVAL with @err naming the file and what was wrong,
 * -ENOMEM.  Caller json_decref()s *@out.
 */
int bundle_summary_read(const struct bundle *b, enum rt_tool tool, json_t **out,
			struct rtlab_err *err) __must_check;

#endif
