/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_STATS_H
#define RTLAB_STATS_H

/*
 * Statistics over latency histograms (struct hist, 1 µs buckets): per-run
 * figures, quantiles with distribution-free confidence intervals, distances
 * between distributions, the exact conditional test for tail rates and the
 * Mann-Whitney rank test used on per-run figures.  Pure computation: no I/O,
 * no allocation the caller has to free except where a function says so.
 * docs/statistics.md explains the methods and their limits.
 */

#include <stdint.h>
#include "error.h"
#include "hist.h"

/* Above this many samples binomial tails use a normal approximation with a
 * continuity correction; at or below it they are exact (regularized
 * incomplete beta function). */
#define STATS_EXACT_MAX_N 10000000000ULL

/* Above this many values in both samples together the rank test uses the
 * normal approximation (with tie correction); at or below it is exact. */
#define STATS_RANK_EXACT_MAX 100

/* An interval bound that does not exist (too few samples for the level). */
#define STATS_UNBOUNDED_US INT64_MAX

/* Per-run figures over one or more per-CPU histograms, pooled. */
struct stats_figures {
	uint64_t samples;
	uint64_t overflows;
	uint32_t range_us; /* tracked range of the pooled histogram */
	/* HIST_Q_OVERFLOW when among the overflows, -ENODATA when empty */
	int64_t p50_us, p99_us, p999_us, p9999_us;
	uint32_t max_us; /* true maximum over all CPUs */
	int max_cpu;	 /* CPU that had it, -1 unknown */
	double mean_us;	 /* from the buckets, overflows at range_us;
				 * NAN when empty */
};

/* A quantile with its binomial order-statistic confidence interval. */
struct stats_qci {
	double q;	/* the quantile, e.g. 0.999 */
	double level;	/* e.g. 0.95 */
	uint64_t n;	/* samples */
	int64_t est_us; /* hist_quantile() */
	/* [lo_us, hi_us] = [X(rank_lo), X(rank_hi)]; lo_us 0 when rank_lo is
	 * 0 (no lower order statistic needed), hi_us STATS_UNBOUNDED_US when
	 * rank_hi > n; HIST_Q_OVERFLOW when the order statistic is among the
	 * overflows */
	int64_t lo_us, hi_us;
	uint64_t rank_lo, rank_hi; /* 1-based order statistics */
	double coverage; /* exact P(rank_lo <= B < rank_hi), B~Bin(n,q) */
	int exact;	 /* 1 exact binomial, 0 normal approximation */
};

/* Distances between two distributions, over the tracked range. */
struct stats_dist {
	double w1_us;	   /* Wasserstein-1: sum |Fa - Fb| * 1 µs */
	double w1_up_us;   /* part where b lies to the right of a */
	double w1_down_us; /* part where b lies to the left of a */
	double ks;	   /* Kolmogorov-Smirnov: max |Fa - Fb| */
	int partial;	   /* 1: overflows exist, figures are lower bounds */
};

/* Exact conditional (Poisson rate-ratio) test of k2/n2 against k1/n1. */
struct stats_rate {
	uint64_t k1, n1, k2, n2;
	double ratio;	  /* (k2/n2) / (k1/n1); INFINITY if k1 = 0 < k2,
				 * NAN if k1 = k2 = 0 */
	double ratio_lo;  /* one-sided 1-alpha lower bound (0 if none) */
	double ratio_hi;  /* one-sided 1-alpha upper bound (INFINITY) */
	double p_greater; /* H1: rate 2 > rate 1: P(K2 >= k2 | k1+k2) */
	double p_less;	  /* H1: rate 2 < rate 1: P(K2 <= k2 | k1+k2) */
	int exact;
};

/* Mann-Whitney rank test of y (second sample) against x (first sample). */
struct stats_rank {
	unsigned int m, n; /* sizes of x and y */
	double u;	   /* #(y > x) + #(y == x) / 2 over all pairs */
	double p_greater;  /* H1: y tends to be larger than x */
	double p_less;	   /* H1: y tends to be smaller */
	int exact;	   /* 1 exact permutation distribution (ties kept) */
	double shift;	   /* Hodges-Lehmann: median of y_j - x_i */
	/* one-sided 1-alpha bounds for the shift from the pairwise
	 * differences; -INFINITY / INFINITY when the sizes cannot reach
	 * alpha */
	double shift_lo, shift_hi;
};

/**
 * stats_betainc() - regularized incomplete beta function I_x(a, b)
 * (continued fraction, Lentz's method, in log space).
 * Return: the value in [0, 1]; NAN for a or b <= 0 or x outside [0, 1].
 */
double stats_betainc(double a, double b, double x);

/**
 * stats_binom_cdf() - P(B <= @k) for B ~ Binomial(@n, @p).
 * Exact for @n <= STATS_EXACT_MAX_N, normal approximation above.
 */
double stats_binom_cdf(int64_t k, uint64_t n, double p);

/** stats_binom_sf() - P(B >= @k) for B ~ Binomial(@n, @p), computed
 *  directly (no 1 - cdf cancellation) so small tails keep their digits. */
double stats_binom_sf(int64_t k, uint64_t n, double p);

/** stats_binom_quantile() - smallest k in 0..@n with P(B <= k) >= @t. */
uint64_t stats_binom_quantile(double t, uint64_t n, double p);

/** stats_norm_quantile() - z with Phi(z) = @p, for 0 < @p < 1. */
double stats_norm_quantile(double p);

/**
 * stats_pool() - merge @nh histograms (e.g. the CPUs of a run, or several
 * runs) into @out.  Return: 0 or -ENOMEM; on success the caller releases
 * @out with hist_cleanup().  @nh may be 0 (an empty histogram).
 */
int stats_pool(const struct hist *h, unsigned int nh,
	       struct hist *out) __must_check;

/**
 * stats_figures() - per-run figures of @nh per-CPU histograms pooled.
 * Return: 0, -ENOMEM.
 */
int stats_figures(const struct hist *h, unsigned int nh,
		  struct stats_figures *f) __must_check;

/**
 * stats_exceed() - how many samples of @h are above @thr_us (strictly).
 * Return: 0 with *@count set; -ERANGE when @h has overflows and @thr_us is
 * at or beyond its range, so the count is unknown.
 */
int stats_exceed(const struct hist *h, int64_t thr_us,
		 uint64_t *count) __must_check;

/** stats_mean_us() - mean from the buckets, overflows counted at the range
 *  (a lower bound then); NAN when @h is empty. */
double stats_mean_us(const struct hist *h);

/**
 * stats_rank_us() - the @rank-th smallest sample (1-based).
 * Return: its latency in µs; HIST_Q_OVERFLOW when among the overflows;
 * -ERANGE when @rank is 0 or beyond the samples.
 */
int64_t stats_rank_us(const struct hist *h, uint64_t rank);

/**
 * stats_quantile_ci() - quantile @q of @h with the distribution-free
 * binomial order-statistic interval at @level (equal tails): the ranks are
 * binomial(n, q) quantiles at (1-level)/2 and 1-(1-level)/2.
 * Return: 0; -EINVAL for q or level outside (0, 1); -ENODATA when empty.
 */
int stats_quantile_ci(const struct hist *h, double q, double level,
		      struct stats_qci *ci) __must_check;

/**
 * stats_distance() - Wasserstein-1 and Kolmogorov-Smirnov distances between
 * @a and @b (each normalized to its own sample count).
 * Return: 0; -ENODATA when either is empty.
 */
int stats_distance(const struct hist *a, const struct hist *b,
		   struct stats_dist *d) __must_check;

/**
 * stats_rate_test() - exact conditional test for @k2 events in @n2 trials
 * against @k1 in @n1: given k = k1 + k2, K2 ~ Binomial(k, n2/(n1+n2))
 * under equal rates.  The ratio bounds invert the Clopper-Pearson bounds
 * for that binomial at one-sided level @alpha each.
 * Return: 0; -EINVAL when n1 or n2 is 0, k > n, or alpha outside (0, 0.5].
 */
int stats_rate_test(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
		    double alpha, struct stats_rate *r) __must_check;

/**
 * stats_rank_test() - Mann-Whitney U of @y against @x, exact (with ties,
 * by the permutation distribution of mid-rank sums) when m + n <=
 * STATS_RANK_EXACT_MAX, else normal with tie correction; Hodges-Lehmann
 * shift with one-sided @alpha bounds.  Values must be finite.
 * Return: 0; -EINVAL for empty samples, non-finite values or a bad alpha;
 * -ENOMEM.
 */
int stats_rank_test(const double *x, unsigned int m, const double *y,
		    unsigned int n, double alpha,
		    struct stats_rank *t) __must_check;

/**
 * stats_rank_min_runs() - the smallest n such that an exact one-sided
 * Mann-Whitney test with n values on each side can reach @alpha at all
 * (1 / C(2n, n) <= alpha).  Return: n >= 1; 0 for a bad alpha.
 */
unsigned int stats_rank_min_runs(double alpha);

#endif
