// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency histograms at 1 µs resolution: counting, merging, exact quantiles
 * from cumulative counts and the consistency check every parser runs before
 * a histogram is believed.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

int hist_init(struct hist *h, uint32_t nbuckets)
{
	memset(h, 0, sizeof(*h));
	h->cpu = -1;
	h->min_us = UINT32_MAX;
	h->avg_us = NAN;
	h->nbuckets = nbuckets;
	if (nbuckets) {
		h->counts = calloc(nbuckets, sizeof(*h->counts));
		if (!h->counts) {
			h->nbuckets = 0;
			return -ENOMEM;
		}
	}
	return 0;
}

void hist_cleanup(struct hist *h)
{
	if (!h)
		return;
	free(h->counts);
	h->counts = NULL;
	h->nbuckets = 0;
	h->overflows = 0;
	h->samples = 0;
}

void hist_add(struct hist *h, uint32_t lat_us, uint64_t n)
{
	if (!n)
		return;
	if (lat_us < h->nbuckets)
		h->counts[lat_us] += n;
	else
		h->overflows += n;
	if (!h->samples || lat_us < h->min_us)
		h->min_us = lat_us;
	if (!h->samples || lat_us > h->max_us)
		h->max_us = lat_us;
	h->samples += n;
}

/*
 * The merged range is the larger of the two, except when the histogram with
 * the smaller range has overflows: where those samples fell inside the
 * larger range is unknown, so the result keeps the smaller range and folds
 * the larger one's buckets beyond it into overflows.  That keeps every
 * quantile exact rather than guessing.
 */
int hist_merge(struct hist *dst, const struct hist *src)
{
	const struct hist *narrow, *wide;
	uint64_t *counts;
	uint32_t n, i;
	uint64_t ovf;

	if (!src->samples)
		return 0;

	if (dst->nbuckets <= src->nbuckets) {
		narrow = dst;
		wide = src;
	} else {
		narrow = src;
		wide = dst;
	}
	n = narrow->overflows ? narrow->nbuckets : wide->nbuckets;

	counts = n ? calloc(n, sizeof(*counts)) : NULL;
	if (n && !counts)
		return -ENOMEM;
	ovf = dst->overflows + src->overflows;
	for (i = 0; i < dst->nbuckets; i++) {
		if (i < n)
			counts[i] += dst->counts[i];
		else
			ovf += dst->counts[i];
	}
	for (i = 0; i < src->nbuckets; i++) {
		if (i < n)
			counts[i] += src->counts[i];
		else
			ovf += src->counts[i];
	}

	if (!dst->samples) {
		dst->min_us = src->min_us;
		dst->max_us = src->max_us;
		dst->avg_us = src->avg_us;
	} else {
		if (src->min_us < dst->min_us)
			dst->min_us = src->min_us;
		if (src->max_us > dst->max_us)
			dst->max_us = src->max_us;
		dst->avg_us = (dst->avg_us * (double)dst->samples +
			       src->avg_us * (double)src->samples) /
			      (double)(dst->samples + src->samples);
	}
	free(dst->counts);
	dst->counts = counts;
	dst->nbuckets = n;
	dst->overflows = ovf;
	dst->samples += src->samples;
	return 0;
}

/* ceil(q * samples), but 0.999 * 1000 must be 999, not 1000. */
static uint64_t quantile_rank(double q, uint64_t samples)
{
	double r = q * (double)samples;
	double rr = nearbyint(r);
	uint64_t rank;

	if (fabs(r - rr) <= 1e-9 * (r > 1 ? r : 1))
		rank = (uint64_t)rr;
	else
		rank = (uint64_t)ceil(r);
	if (rank < 1)
		rank = 1;
	if (rank > samples)
		rank = samples;
	return rank;
}

int64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, cum = 0;
	uint32_t i;

	if (!(q >= 0.0 && q <= 1.0))
		return -EINVAL;
	if (!h->samples)
		return -ENODATA;
	rank = quantile_rank(q, h->samples);
	for (i = 0; i < h->nbuckets; i++) {
		cum += h->counts[i];
		if (cum >= rank)
			return i;
	}
	return HIST_Q_OVERFLOW;
}

void hist_summarize(const struct hist *h, struct hist_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->samples = h->samples;
	s->overflows = h->overflows;
	s->min_us = h->samples ? h->min_us : UINT32_MAX;
	s->max_us = h->samples ? h->max_us : 0;
	s->avg_us = h->samples ? h->avg_us : NAN;
	s->p50_us = hist_quantile(h, 0.5);
	s->p99_us = hist_quantile(h, 0.99);
	s->p999_us = hist_quantile(h, 0.999);
	s->p9999_us = hist_quantile(h, 0.9999);
}

int hist_check(const struct hist *h, struct rtlab_err *err)
{
	uint64_t sum = h->overflows;
	int64_t lo = -1, hi = -1;
	uint32_t i;

	if (h->nbuckets && !h->counts)
		return rtlab_err_set(err, "histogram of thread %d: no counters",
				     h->thread);
	for (i = 0; i < h->nbuckets; i++) {
		if (!h->counts[i])
			continue;
		if (sum + h->counts[i] < sum)
			return rtlab_err_set(
				err,
				"histogram of thread %d: counts overflow 64 bits",
				h->thread);
		sum += h->counts[i];
		if (lo < 0)
			lo = i;
		hi = i;
	}
	if (sum != h->samples)
		return rtlab_err_set(
			err,
			"histogram of thread %d: buckets + overflows = %llu but samples = %llu",
			h->thread, (unsigned long long)sum,
			(unsigned long long)h->samples);
	if (!h->samples)
		return 0;
	if (h->min_us > h->max_us)
		return rtlab_err_set(err,
				     "histogram of thread %d: min %u us > max %u us",
				     h->thread, h->min_us, h->max_us);
	if (hi >= 0 && (uint32_t)hi > h->max_us)
		return rtlab_err_set(
			err,
			"histogram of thread %d: bucket %lld us counted but max is %u us",
			h->thread, (long long)hi, h->max_us);
	if (lo >= 0 && (uint32_t)lo < h->min_us)
		return rtlab_err_set(
			err,
			"histogram of thread %d: bucket %lld us counted but min is %u us",
			h->thread, (long long)lo, h->min_us);
	if (h->overflows && h->max_us < h->nbuckets)
		return rtlab_err_set(
			err,
			"histogram of thread %d: %llu overflows but max %u us is within the %u us range",
			h->thread, (unsigned long long)h->overflows, h->max_us,
			h->nbuckets);
	if (!h->overflows && h->max_us >= h->nbuckets)
		return rtlab_err_set(
			err,
			"histogram of thread %d: max %u us is beyond the %u us range but there are no overflows",
			h->thread, h->max_us, h->nbuckets);
	if (!isnan(h->avg_us) && (h->avg_us < (double)h->min_us - 1.0 ||
				  h->avg_us > (double)h->max_us + 1.0))
		return rtlab_err_set(
			err,
			"histogram of thread %d: avg %.2f us outside min %u .. max %u us",
			h->thread, h->avg_us, h->min_us, h->max_us);
	return 0;
}

uint32_t hist_nonempty(const struct hist *h)
{
	uint32_t i, n = 0;

	for (i = 0; i < h->nbuckets; i++)
		if (h->counts[i])
			n++;
	return n;
}

void run_hists_cleanup(struct run_hists *rh)
{
	size_t i;

	if (!rh)
		return;
	for (i = 0; i < rh->nhists; i++)
		hist_cleanup(&rh->hists[i]);
	free(rh->hists);
	free(rh->board);
	free(rh->kernel);
	free(rh->kernel_version);
	free(rh->testcase);
	free(rh->status);
	free(rh->clock);
	memset(rh, 0, sizeof(*rh));
}
