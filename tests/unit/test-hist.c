// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/hist.c: quantiles against values worked out by hand on
 * small histograms, empty and all-overflow histograms, merging and the
 * consistency check.
 */

#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "hist.h"

/* 1, 2, 2, 3, 3, 3, 4, 5, 9 and one overflow (20) in a 10 µs range. */
static int ten_samples(struct hist *h)
{
	static const uint32_t v[] = { 1, 2, 2, 3, 3, 3, 4, 5, 9, 20 };
	unsigned int i;

	if (hist_init(h, 10))
		return -1;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		hist_add(h, v[i], 1);
	h->avg_us = 5.2;
	return 0;
}

static void test_quantiles(void)
{
	struct hist_summary s;
	struct hist h;
	struct rtlab_err err = { "" };

	CHECK_INT(ten_samples(&h), 0, "ten samples: init");
	CHECK_INT(h.samples, 10, "ten samples: samples");
	CHECK_INT(h.overflows, 1, "ten samples: overflows");
	CHECK_INT(h.min_us, 1, "ten samples: min");
	CHECK_INT(h.max_us, 20, "ten samples: max");
	CHECK_INT(hist_quantile(&h, 0.0), 1, "q=0 is the minimum bucket");
	CHECK_INT(hist_quantile(&h, 0.1), 1, "q=0.1: rank 1");
	CHECK_INT(hist_quantile(&h, 0.25), 2, "q=0.25: rank 3");
	CHECK_INT(hist_quantile(&h, 0.5), 3, "q=0.5: rank 5");
	CHECK_INT(hist_quantile(&h, 0.6), 3, "q=0.6: rank 6");
	CHECK_INT(hist_quantile(&h, 0.61), 4, "q=0.61: rank 7");
	CHECK_INT(hist_quantile(&h, 0.8), 5, "q=0.8: rank 8");
	CHECK_INT(hist_quantile(&h, 0.9), 9, "q=0.9: rank 9");
	CHECK_INT(hist_quantile(&h, 0.91), HIST_Q_OVERFLOW,
		  "q=0.91: rank 10 is the overflow");
	CHECK_INT(hist_quantile(&h, 1.0), HIST_Q_OVERFLOW, "q=1: overflow");
	CHECK_INT(hist_quantile(&h, 1.5), -EINVAL, "q=1.5 rejected");
	CHECK_INT(hist_quantile(&h, NAN), -EINVAL, "q=NaN rejected");
	CHECK_INT(hist_nonempty(&h), 6, "ten samples: 6 non-empty buckets");
	CHECK_INT(hist_check(&h, &err), 0, "ten samples: consistent");

	hist_summarize(&h, &s);
	CHECK_INT(s.samples, 10, "summary: samples");
	CHECK_INT(s.overflows, 1, "summary: overflows");
	CHECK_INT(s.p50_us, 3, "summary: p50");
	CHECK_INT(s.p99_us, HIST_Q_OVERFLOW, "summary: p99 among overflows");
	CHECK_INT(s.min_us, 1, "summary: min");
	CHECK_INT(s.max_us, 20, "summary: max beyond the range");
	CHECK(fabs(s.avg_us - 5.2) < 1e-9, "summary: avg kept");
	hist_cleanup(&h);
	hist_cleanup(&h);
	CHECK(h.counts == NULL, "cleanup twice is harmless");
}

/* One sample at each of 0..999 µs: the rank must not suffer from 0.999 *
 * 1000 being 999.0000000000001 in binary. */
static void test_quantile_rounding(void)
{
	struct hist h;
	uint32_t i;

	CHECK_INT(hist_init(&h, 1000), 0, "uniform: init");
	for (i = 0; i < 1000; i++)
		hist_add(&h, i, 1);
	CHECK_INT(hist_quantile(&h, 0.5), 499, "uniform: p50 is rank 500");
	CHECK_INT(hist_quantile(&h, 0.99), 989, "uniform: p99 is rank 990");
	CHECK_INT(hist_quantile(&h, 0.999), 998, "uniform: p99.9 is rank 999");
	CHECK_INT(hist_quantile(&h, 0.9999), 999,
		  "uniform: p99.99 is rank 1000 (ceil 999.9)");
	hist_cleanup(&h);

	/* 10^6 samples at 7 µs and one at 50 µs */
	CHECK_INT(hist_init(&h, 100), 0, "tail: init");
	hist_add(&h, 7, 1000000);
	hist_add(&h, 50, 1);
	CHECK_INT(hist_quantile(&h, 0.9999), 7, "tail: p99.99 in the body");
	CHECK_INT(hist_quantile(&h, 1.0), 50, "tail: q=1 is the max");
	hist_cleanup(&h);
}

static void test_empty_and_overflow(void)
{
	struct hist_summary s;
	struct hist h;
	struct rtlab_err err = { "" };

	CHECK_INT(hist_init(&h, 50), 0, "empty: init");
	CHECK_INT(hist_quantile(&h, 0.5), -ENODATA, "empty: quantile ENODATA");
	CHECK_INT(hist_check(&h, &err), 0, "empty: consistent");
	hist_summarize(&h, &s);
	CHECK_INT(s.samples, 0, "empty: summary samples");
	CHECK_INT(s.min_us, UINT32_MAX, "empty: summary min");
	CHECK(isnan(s.avg_us), "empty: summary avg NaN");
	CHECK_INT(s.p99_us, -ENODATA, "empty: summary p99");
	CHECK_INT(hist_nonempty(&h), 0, "empty: no non-empty bucket");
	hist_cleanup(&h);

	CHECK_INT(hist_init(&h, 5), 0, "all-overflow: init");
	hist_add(&h, 100, 7);
	hist_add(&h, 300, 3);
	h.avg_us = 160.0;
	CHECK_INT(h.overflows, 10, "all-overflow: overflows");
	CHECK_INT(h.max_us, 300, "all-overflow: max");
	CHECK_INT(hist_quantile(&h, 0.0), HIST_Q_OVERFLOW,
		  "all-overflow: even q=0 overflows");
	CHECK_INT(hist_quantile(&h, 0.5), HIST_Q_OVERFLOW,
		  "all-overflow: p50 overflows");
	CHECK_INT(hist_check(&h, &err), 0, "all-overflow: consistent");
	hist_cleanup(&h);
}

static void test_merge(void)
{
	struct hist a, b, c, z = { 0 };
	struct rtlab_err err = { "" };

	/* a: 10 µs range, 2 samples at 3 µs, mean 3; b: 20 µs range,
	 * 2 samples at 15 µs, mean 15.  Merged: 20 µs range, mean 9. */
	CHECK_INT(hist_init(&a, 10), 0, "merge: init a");
	CHECK_INT(hist_init(&b, 20), 0, "merge: init b");
	hist_add(&a, 3, 2);
	a.avg_us = 3;
	hist_add(&b, 15, 2);
	b.avg_us = 15;
	CHECK_INT(hist_merge(&a, &b), 0, "merge: grows");
	CHECK_INT(a.nbuckets, 20, "merge: range grew to 20");
	CHECK_INT(a.samples, 4, "merge: samples");
	CHECK_INT(a.overflows, 0, "merge: no overflows");
	CHECK_INT(a.counts[3], 2, "merge: bucket 3");
	CHECK_INT(a.counts[15], 2, "merge: bucket 15");
	CHECK_INT(a.min_us, 3, "merge: min");
	CHECK_INT(a.max_us, 15, "merge: max");
	CHECK(fabs(a.avg_us - 9.0) < 1e-9, "merge: mean by weight (%.3f)",
	      a.avg_us);
	CHECK_INT(hist_quantile(&a, 0.5), 3, "merge: p50");
	CHECK_INT(hist_quantile(&a, 0.75), 15, "merge: p75");
	CHECK_INT(hist_check(&a, &err), 0, "merge: consistent");

	/* c: 5 µs range with an overflow at 40 µs: where it lies in a's
	 * 20 µs range is unknown, so the result keeps 5 µs. */
	CHECK_INT(hist_init(&c, 5), 0, "merge narrow: init");
	hist_add(&c, 1, 1);
	hist_add(&c, 40, 1);
	c.avg_us = 20.5;
	CHECK_INT(hist_merge(&a, &c), 0, "merge narrow with overflows");
	CHECK_INT(a.nbuckets, 5, "merge narrow: range stays exact (5)");
	CHECK_INT(a.samples, 6, "merge narrow: samples");
	CHECK_INT(a.overflows, 3, "merge narrow: 15, 15 and 40 overflow");
	CHECK_INT(a.counts[3], 2, "merge narrow: bucket 3");
	CHECK_INT(a.counts[1], 1, "merge narrow: bucket 1");
	CHECK_INT(a.max_us, 40, "merge narrow: max");
	CHECK_INT(a.min_us, 1, "merge narrow: min");
	CHECK_INT(hist_check(&a, &err), 0, "merge narrow: consistent");

	/* into a zeroed struct */
	CHECK_INT(hist_merge(&z, &b), 0, "merge into zeroed struct");
	CHECK_INT(z.samples, 2, "merge into zeroed: samples");
	CHECK_INT(z.min_us, 15, "merge into zeroed: min");
	CHECK_INT(hist_check(&z, &err), 0, "merge into zeroed: consistent");

	hist_cleanup(&a);
	hist_cleanup(&b);
	hist_cleanup(&c);
	hist_cleanup(&z);
}

static void test_check(void)
{
	struct rtlab_err err = { "" };
	struct hist h;

	CHECK_INT(ten_samples(&h), 0, "check: init");
	h.samples = 11;
	CHECK_INT(hist_check(&h, &err), -EINVAL, "check: sum != samples");
	CHECK(strstr(err.msg, "samples = 11") != NULL, "check: message '%s'",
	      err.msg);
	h.samples = 10;

	h.max_us = 8;
	CHECK_INT(hist_check(&h, &err), -EINVAL, "check: bucket beyond max");
	CHECK(strstr(err.msg, "bucket 9") != NULL, "check: message '%s'",
	      err.msg);
	h.max_us = 20;

	h.min_us = 2;
	CHECK_INT(hist_check(&h, &err), -EINVAL, "check: bucket below min");
	h.min_us = 30;
	CHECK_INT(hist_check(&h, &err), -EINVAL, "check: min > max");
	h.min_us = 1;

	h.max_us = 9;
	CHECK_INT(hist_check(&h, &err), -EINVAL,
		  "check: overflows but max within range");
	h.max_us = 20;

	h.avg_us = 50;
	CHECK_INT(hist_check(&h, &err), -EINVAL, "check: avg beyond max");
	h.avg_us = 5.2;
	CHECK_INT(hist_check(&h, &err), 0, "check: repaired is consistent");
	hist_cleanup(&h);

	CHECK_INT(hist_init(&h, 10), 0, "check no-overflow: init");
	hist_add(&h, 4, 1);
	h.max_us = 12;
	CHECK_INT(hist_check(&h, &err), -EINVAL,
		  "check: max beyond range without overflows");
	hist_cleanup(&h);
}

int main(void)
{
	test_quantiles();
	test_quantile_rounding();
	test_empty_and_overflow();
	test_merge();
	test_check();
	return check_exit();
}
