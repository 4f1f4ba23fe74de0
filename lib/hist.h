/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_HIST_H
#define RTLAB_HIST_H

/*
 * Latency histograms at full resolution: bucket i counts samples of i µs
 * (cyclictest truncates to whole µs), samples of nbuckets µs or more are
 * overflows.  The true min/max/avg come from the measurement itself, so a
 * histogram whose tail overflowed still knows its maximum.
 */

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#define HIST_METRIC_LEN 32

struct hist {
	int cpu;    /* CPU the measuring thread ran on, -1 unknown */
	int thread; /* cyclictest thread number */
	/* What it measures: "" is cyclictest's wakeup latency, else
	 * e.g. "timerlat-irq", "timerlat-thread", "osnoise" (rttests.h). */
	char metric[HIST_METRIC_LEN];
	uint32_t nbuckets;  /* tracked range: 0 .. nbuckets-1 µs */
	uint64_t *counts;   /* nbuckets counters */
	uint64_t overflows; /* samples >= nbuckets µs */
	uint64_t samples;   /* every sample, overflows included */
	uint32_t min_us;    /* true minimum (UINT32_MAX when empty) */
	uint32_t max_us;    /* true maximum, may be beyond the range */
	double avg_us;	    /* true mean, NAN when unknown */
};

/* Summary figures derived from a histogram; never the only record. */
struct hist_summary {
	uint64_t samples;
	uint64_t overflows;
	uint32_t min_us;
	double avg_us;
	/* Quantiles: exact from cumulative counts.  HIST_Q_OVERFLOW when the
	 * quantile lies among the overflows (known only as >= nbuckets). */
	int64_t p50_us, p99_us, p999_us, p9999_us;
	uint32_t max_us;
};

#define HIST_Q_OVERFLOW (-1)

/** hist_init() - zeroed histogram of @nbuckets 1 µs buckets.
 *  Return: 0, -ENOMEM.  Caller cleans up with hist_cleanup(). */
int hist_init(struct hist *h, uint32_t nbuckets) __must_check;

/** hist_cleanup() - free the counters; safe on a zeroed or cleaned struct. */
void hist_cleanup(struct hist *h);

/** hist_add() - count @n samples of @lat_us (an overflow when out of range);
 *  updates samples, min and max but not avg. */
void hist_add(struct hist *h, uint32_t lat_us, uint64_t n);

/** hist_merge() - add @src into @dst (grows @dst's range if needed); the
 *  mean is combined by sample weight.  Return: 0, -ENOMEM. */
int hist_merge(struct hist *dst, const struct hist *src) __must_check;

/**
 * hist_quantile() - the smallest latency L with P(X <= L) >= @q, from the
 * cumulative counts (overflows count as beyond the range).
 * Return: L in µs; HIST_Q_OVERFLOW if it lies among the overflows;
 * -ENODATA (as a negative value) when the histogram is empty.
 */
int64_t hist_quantile(const struct hist *h, double q);

/** hist_summarize() - fill @s from @h. */
void hist_summarize(const struct hist *h, struct hist_summary *s);

/** hist_check() - consistency: counts + overflows == samples, min <= max,
 *  and no counted bucket beyond max.  Return: 0 or -EINVAL with @err set. */
int hist_check(const struct hist *h, struct rtlab_err *err) __must_check;

/** hist_nonempty() - number of non-zero buckets (for compact storage). */
uint32_t hist_nonempty(const struct hist *h);

/*
 * A stored run's histograms rebuilt as struct hist, with the plot title's
 * parts: filled by the database layer (db_run_hists_load()), drawn by
 * reports/ (plot_stored_run()).
 */
struct run_hists {
	int64_t run_id;
	char uuid[37];
	char *board, *kernel, *kernel_version, *testcase, *status, *clock;
	size_t nhists;
	struct hist *hists; /* thread order */
};

/** run_hists_cleanup() - free what db_run_hists_load() filled; safe twice. */
void run_hists_cleanup(struct run_hists *rh);

#endif
