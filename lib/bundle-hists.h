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

#endif
