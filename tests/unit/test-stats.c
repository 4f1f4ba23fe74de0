// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of lib/stats.c: the binomial machinery against direct sums,
 * quantile intervals (including a coverage simulation with a fixed seed),
 * distances, the exact rate-ratio test and the rank test against brute
 * force enumeration.
 */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "stats.h"

/* splitmix64: fixed seeds, same numbers on every machine */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_uniform(void) /* (0, 1) */
{
	return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
	return sqrt(-2.0 * log(rng_uniform())) *
	       cos(2.0 * M_PI * rng_uniform());
}

static double norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* log C(n, k) p^k q^(n-k) summed directly, the slow way */
static double direct_cdf(int k, int n, double p)
{
	double s = 0.0;
	int j;

	for (j = 0; j <= k; j++)
		s += exp(lgamma(n + 1.0) - lgamma(j + 1.0) -
			 lgamma(n - j + 1.0) + j * log(p) +
			 (n - j) * log1p(-p));
	return s;
}

static double direct_sf(int k, int n, double p)
{
	double s = 0.0;
	int j;

	for (j = n; j >= k; j--)
		s += exp(lgamma(n + 1.0) - lgamma(j + 1.0) -
			 lgamma(n - j + 1.0) + j * log(p) +
			 (n - j) * log1p(-p));
	return s;
}

static void test_binomial(void)
{
	double worst = 0.0, d, sf, ds;
	uint64_t k;
	int i;

	CHECK(fabs(stats_betainc(2, 3, 0.4) - 0.5248) < 1e-12,
	      "I_0.4(2,3) = 0.5248 (got %.15g)", stats_betainc(2, 3, 0.4));
	CHECK(isnan(stats_betainc(-1, 3, 0.4)), "betainc refuses a <= 0");
	for (i = 0; i <= 50; i++) {
		d = fabs(stats_binom_cdf(i, 50, 0.3) - direct_cdf(i, 50, 0.3));
		if (d > worst)
			worst = d;
	}
	CHECK(worst < 1e-12, "Bin(50,0.3) cdf matches direct sums (worst %.3g)",
	      worst);
	sf = stats_binom_sf(10, 1000, 0.001);
	ds = direct_sf(10, 1000, 0.001);
	CHECK(fabs(sf - ds) / ds < 1e-8,
	      "P(Bin(1000,0.001) >= 10) = %.6g (direct %.6g)", sf, ds);
	sf = stats_binom_sf(40, 1000, 0.001);
	CHECK(sf > 0 && sf < 1e-40,
	      "far tail keeps its digits: P(Bin(1000,0.001) >= 40) = %.3g", sf);
	CHECK(stats_binom_cdf(-1, 10, 0.5) == 0.0 &&
		      stats_binom_cdf(10, 10, 0.5) == 1.0,
	      "cdf edges");
	CHECK(fabs(stats_norm_quantile(0.975) - 1.959963984540054) < 1e-9,
	      "z(0.975) = %.12f", stats_norm_quantile(0.975));
	CHECK(fabs(stats_norm_quantile(1e-6) + 4.753424308822899) < 1e-8,
	      "z(1e-6) = %.12f", stats_norm_quantile(1e-6));
	/* smallest k with P(B <= k) >= t, checked against the cdf itself */
	k = stats_binom_quantile(0.025, 1000, 0.99);
	CHECK(stats_binom_cdf((int64_t)k, 1000, 0.99) >= 0.025 &&
		      stats_binom_cdf((int64_t)k - 1, 1000, 0.99) < 0.025,
	      "binomial quantile is the smallest k (k=%llu)",
	      (unsigned long long)k);
	/* a billion samples: exact, and close to the normal approximation */
	k = stats_binom_quantile(0.025, 1000000000ULL, 0.999);
	d = 999000000.0 - 1.959964 * sqrt(1e9 * 0.999 * 0.001);
	CHECK(fabs((double)k - d) < 3.0,
	      "Bin(1e9, 0.999) 2.5%% quantile %llu near normal %.1f",
	      (unsigned long long)k, d);
}

static void fill(struct hist *h, uint32_t nb, const uint32_t *v, unsigned n)
{
	unsigned int i;

	if (hist_init(h, nb))
		abort();
	for (i = 0; i < n; i++)
		hist_add(h, v[i], 1);
}

static void test_quantile_ci(void)
{
	struct hist h;
	struct stats_qci ci;
	uint32_t i;
	uint64_t l, u;
	double cum = 0.0;

	if (hist_init(&h, 1000))
		abort();
	for (i = 0; i < 1000; i++)
		hist_add(&h, i, 1);
	CHECK_INT(stats_quantile_ci(&h, 0.99, 0.95, &ci), 0, "p99 interval");
	CHECK_INT(ci.est_us, 989, "p99 of 0..999 is 989");
	/* the ranks by brute force: l = smallest k with F(k) >= 0.025 */
	for (l = 0; l <= 1000; l++) {
		cum = direct_cdf((int)l, 1000, 0.99);
		if (cum >= 0.025)
			break;
	}
	for (u = l; u <= 1000; u++)
		if (direct_cdf((int)u, 1000, 0.99) >= 0.975)
			break;
	CHECK_INT(ci.rank_lo, l, "lower rank from binomial(1000, 0.99)");
	CHECK_INT(ci.rank_hi, u + 1, "upper rank from binomial(1000, 0.99)");
	CHECK_INT(ci.lo_us, (int64_t)l - 1, "lower bound is X(rank_lo)");
	CHECK(ci.coverage >= 0.95 && ci.coverage < 0.98,
	      "achieved coverage %.4f >= 0.95", ci.coverage);
	CHECK(ci.exact, "exact method at n=1000");
	CHECK_INT(stats_quantile_ci(&h, 1.5, 0.95, &ci), -EINVAL,
		  "q outside (0,1) refused");
	/* few samples: no order statistic is high enough */
	hist_cleanup(&h);
	if (hist_init(&h, 100))
		abort();
	for (i = 0; i < 20; i++)
		hist_add(&h, i, 1);
	CHECK_INT(stats_quantile_ci(&h, 0.99, 0.95, &ci), 0, "p99 of 20");
	CHECK(ci.hi_us == STATS_UNBOUNDED_US,
	      "20 samples cannot bound p99 from above");
	hist_cleanup(&h);
	if (hist_init(&h, 10))
		abort();
	CHECK_INT(stats_quantile_ci(&h, 0.99, 0.95, &ci), -ENODATA,
		  "empty histogram has no quantile");
	for (i = 0; i < 990; i++)
		hist_add(&h, 3, 1);
	hist_add(&h, 50, 10); /* overflows */
	CHECK_INT(stats_quantile_ci(&h, 0.999, 0.95, &ci), 0,
		  "p99.9 among overflows");
	CHECK_INT(ci.est_us, HIST_Q_OVERFLOW, "estimate is HIST_Q_OVERFLOW");
	hist_cleanup(&h);
}

/* true quantile of a discretized distribution given its cdf at L + 1 */
static int64_t true_q(double (*cdf)(double), double q)
{
	int64_t l;

	for (l = 0; l < 100000; l++)
		if (cdf((double)l + 1.0) >= q)
			return l;
	return -1;
}

static double lognorm_cdf(double x) /* X = floor(5 + 20 exp(0.5 Z)) */
{
	return x <= 5.0 ? 0.0 : norm_cdf(log((x - 5.0) / 20.0) / 0.5);
}

static double lognorm_draw(void)
{
	return 5.0 + 20.0 * exp(0.5 * rng_normal());
}

static double expo_cdf(double x) /* X = floor(3 + Exp(mean 4)) */
{
	return x <= 3.0 ? 0.0 : 1.0 - exp(-(x - 3.0) / 4.0);
}

static double expo_draw(void)
{
	return 3.0 - 4.0 * log(rng_uniform());
}

static void coverage(const char *name, double (*cdf)(double),
		     double (*draw)(void))
{
	const int reps = 400, n = 2000;
	int64_t tq = true_q(cdf, 0.99);
	struct stats_qci ci;
	struct hist h;
	int r, i, hit = 0, ok = 1;

	for (r = 0; r < reps; r++) {
		if (hist_init(&h, 2000))
			abort();
		for (i = 0; i < n; i++)
			hist_add(&h, (uint32_t)draw(), 1);
		if (stats_quantile_ci(&h, 0.99, 0.95, &ci))
			ok = 0;
		else if (ci.lo_us <= tq && tq <= ci.hi_us)
			hit++;
		hist_cleanup(&h);
	}
	CHECK(ok && hit >= 0.93 * reps,
	      "%s: 95%% interval for p99 (true %lld us) covers in %d of %d samples",
	      name, (long long)tq, hit, reps);
}

static void test_coverage(void)
{
	rng_state = 20240601;
	coverage("lognormal, n=2000", lognorm_cdf, lognorm_draw);
	rng_state = 7;
	coverage("exponential with ties, n=2000", expo_cdf, expo_draw);
}

static void test_distance(void)
{
	struct hist a, b;
	struct stats_dist d;
	uint32_t va[] = { 10, 10, 10, 10 }, vb[] = { 13, 13, 13, 13 };
	uint32_t vc[] = { 10, 12, 14, 16 };
	uint64_t k;

	fill(&a, 100, va, 4);
	fill(&b, 100, vb, 4);
	CHECK_INT(stats_distance(&a, &b, &d), 0, "distance");
	CHECK(fabs(d.w1_us - 3.0) < 1e-12 && fabs(d.w1_up_us - 3.0) < 1e-12 &&
		      d.w1_down_us == 0.0,
	      "W1 of a 3 us shift is 3 us, upwards");
	CHECK(fabs(d.ks - 1.0) < 1e-12 && !d.partial, "KS of disjoint is 1");
	CHECK_INT(stats_distance(&b, &a, &d), 0, "distance reversed");
	CHECK(fabs(d.w1_down_us - 3.0) < 1e-12, "reversed shift is downwards");
	hist_cleanup(&b);
	fill(&b, 100, vc, 4);
	CHECK_INT(stats_distance(&a, &b, &d), 0, "distance spread");
	/* |F| differences: 10,11 -> .75; 12,13 -> .5; 14,15 -> .25 */
	CHECK(fabs(d.w1_us - 3.0) < 1e-12 && fabs(d.ks - 0.75) < 1e-12,
	      "W1 = mean shift 3 us, KS 0.75 (got %g, %g)", d.w1_us, d.ks);
	CHECK_INT(stats_exceed(&b, 12, &k), 0, "exceed");
	CHECK_INT(k, 2, "2 samples above 12 us");
	hist_add(&b, 500, 1);
	CHECK_INT(stats_exceed(&b, 99, &k), 0, "exceed at range edge");
	CHECK_INT(k, 1, "overflows count above the last bucket");
	CHECK_INT(stats_exceed(&b, 200, &k), -ERANGE,
		  "beyond the range with overflows is unknown");
	CHECK_INT(stats_exceed(&b, 500, &k), 0, "at the true max is known");
	CHECK_INT(k, 0, "nothing above the true max");
	CHECK_INT(stats_distance(&a, &b, &d), 0, "distance with overflows");
	CHECK(d.partial, "overflows make W1 a lower bound");
	hist_cleanup(&a);
	hist_cleanup(&b);
}

static void test_figures(void)
{
	struct hist h[2];
	struct stats_figures f;
	uint32_t v0[] = { 5, 6, 7 }, v1[] = { 8, 9, 40 };

	fill(&h[0], 100, v0, 3);
	fill(&h[1], 100, v1, 3);
	h[0].cpu = 0;
	h[1].cpu = 1;
	CHECK_INT(stats_figures(h, 2, &f), 0, "figures of two CPUs");
	CHECK_INT(f.samples, 6, "pooled samples");
	CHECK_INT(f.max_us, 40, "max over CPUs");
	CHECK_INT(f.max_cpu, 1, "the CPU with the max");
	CHECK_INT(f.p50_us, 7, "pooled median");
	CHECK(fabs(f.mean_us - 75.0 / 6.0) < 1e-12, "mean from buckets");
	hist_cleanup(&h[0]);
	hist_cleanup(&h[1]);
}

static void test_rate(void)
{
	struct stats_rate r;
	double pi;

	CHECK_INT(stats_rate_test(10, 1000, 10, 1000, 0.05, &r), 0, "rate");
	CHECK(fabs(r.p_greater - 0.5880985260009766) < 1e-12,
	      "equal rates: P(Bin(20,.5) >= 10) = %.12f", r.p_greater);
	CHECK(r.ratio == 1.0 && r.ratio_lo < 1.0 && r.ratio_hi > 1.0,
	      "ratio 1 inside [%.3g, %.3g]", r.ratio_lo, r.ratio_hi);
	CHECK_INT(stats_rate_test(5, 1000000, 50, 1000000, 0.05, &r), 0,
		  "rate x10");
	CHECK(r.p_greater < 1e-8 && r.ratio == 10.0 && r.ratio_lo > 3.0,
	      "tenfold rate: p=%.3g, ratio >= %.3g", r.p_greater, r.ratio_lo);
	/* the bound is where the exact tail equals alpha */
	pi = r.ratio_lo / (1.0 + r.ratio_lo);
	CHECK(fabs(stats_binom_sf(50, 55, pi) - 0.05) < 1e-6,
	      "Clopper-Pearson lower bound solves P(K >= k2) = alpha");
	pi = r.ratio_hi / (1.0 + r.ratio_hi);
	CHECK(fabs(stats_binom_cdf(50, 55, pi) - 0.05) < 1e-6,
	      "upper bound solves P(K <= k2) = alpha");
	CHECK_INT(stats_rate_test(0, 100, 0, 100, 0.05, &r), 0, "no events");
	CHECK(isnan(r.ratio) && r.p_greater == 1.0 && isinf(r.ratio_hi),
	      "no events: no ratio, no evidence");
	CHECK_INT(stats_rate_test(0, 1000000, 30, 1000000, 0.05, &r), 0,
		  "baseline without events");
	CHECK(isinf(r.ratio) && r.p_greater < 1e-8 && isinf(r.ratio_hi),
	      "k1 = 0: infinite ratio, still a p-value %.3g", r.p_greater);
	CHECK_INT(stats_rate_test(1, 0, 1, 10, 0.05, &r), -EINVAL,
		  "n1 = 0 refused");
	/* unequal exposures: 10 in 1e6 against 20 in 2e6 is the same rate */
	CHECK_INT(stats_rate_test(10, 1000000, 20, 2000000, 0.05, &r), 0,
		  "unequal n");
	CHECK(r.ratio == 1.0 && r.p_greater > 0.3 && r.p_less > 0.3,
	      "same rate over unequal exposure is unremarkable");
}

/* brute force: all C(N, n) choices of which values are "y" */
static void brute_rank(const double *v, unsigned int N, unsigned int n,
		       double w_obs2, double *pg, double *pl)
{
	double rank2[16];
	unsigned int mask, i, j, bits;
	double total = 0, ge = 0, le = 0, s;

	for (i = 0; i < N; i++) {
		unsigned int below = 0, eq = 0;

		for (j = 0; j < N; j++) {
			below += v[j] < v[i];
			eq += v[j] == v[i];
		}
		rank2[i] = 2.0 * below + eq + 1.0; /* doubled mid-rank */
	}
	for (mask = 0; mask < (1u << N); mask++) {
		bits = (unsigned int)__builtin_popcount(mask);
		if (bits != n)
			continue;
		s = 0;
		for (i = 0; i < N; i++)
			if (mask & (1u << i))
				s += rank2[i];
		total++;
		ge += s >= w_obs2 - 1e-9;
		le += s <= w_obs2 + 1e-9;
	}
	*pg = ge / total;
	*pl = le / total;
}

static void test_rank(void)
{
	double x[] = { 1, 2, 3, 4, 5 }, y[] = { 6, 7, 8, 9, 10 };
	double tx[] = { 3, 3, 4, 5, 5 }, ty[] = { 4, 5, 5, 6 };
	double all[9], w2 = 0, pg, pl;
	double big_x[60], big_y[60];
	struct stats_rank t;
	unsigned int i, j;

	CHECK_INT(stats_rank_test(x, 5, y, 5, 0.01, &t), 0, "rank 5 vs 5");
	CHECK(t.exact && fabs(t.p_greater - 1.0 / 252.0) < 1e-12,
	      "complete separation: p = 1/252 (got %.6g)", t.p_greater);
	CHECK(t.u == 25.0 && t.shift == 5.0, "U = 25, Hodges-Lehmann 5");
	CHECK(t.shift_lo > 0, "shift bound above 0 at alpha 0.01 (%.3g)",
	      t.shift_lo);
	CHECK_INT(stats_rank_test(y, 5, x, 5, 0.01, &t), 0, "rank reversed");
	CHECK(fabs(t.p_less - 1.0 / 252.0) < 1e-12, "reversed: p_less 1/252");

	/* ties: compare with the permutation distribution by brute force */
	CHECK_INT(stats_rank_test(tx, 5, ty, 4, 0.05, &t), 0, "rank with ties");
	for (i = 0; i < 5; i++)
		all[i] = tx[i];
	for (i = 0; i < 4; i++)
		all[5 + i] = ty[i];
	for (i = 5; i < 9; i++) {
		unsigned int below = 0, eq = 0;

		for (j = 0; j < 9; j++) {
			below += all[j] < all[i];
			eq += all[j] == all[i];
		}
		w2 += 2.0 * below + eq + 1.0;
	}
	brute_rank(all, 9, 4, w2, &pg, &pl);
	CHECK(fabs(t.p_greater - pg) < 1e-12 && fabs(t.p_less - pl) < 1e-12,
	      "ties: exact p %.6g/%.6g equal brute force %.6g/%.6g",
	      t.p_greater, t.p_less, pg, pl);

	for (i = 0; i < 5; i++)
		tx[i] = 7;
	CHECK_INT(stats_rank_test(tx, 5, tx, 5, 0.05, &t), 0, "all tied");
	CHECK(t.p_greater == 1.0 && t.p_less == 1.0, "all tied: p = 1");

	CHECK_INT(stats_rank_min_runs(0.05), 3, "alpha 0.05 needs 3 per side");
	CHECK_INT(stats_rank_min_runs(0.01), 5, "alpha 0.01 needs 5 per side");
	CHECK_INT(stats_rank_min_runs(0.001), 7, "alpha 0.001 needs 7");
	CHECK_INT(stats_rank_test(x, 0, y, 5, 0.05, &t), -EINVAL,
		  "empty sample refused");
	x[2] = NAN;
	CHECK_INT(stats_rank_test(x, 5, y, 5, 0.05, &t), -EINVAL,
		  "NaN refused");

	rng_state = 99;
	for (i = 0; i < 60; i++) {
		big_x[i] = rng_normal();
		big_y[i] = rng_normal() + 1.0;
	}
	CHECK_INT(stats_rank_test(big_x, 60, big_y, 60, 0.05, &t), 0,
		  "60 vs 60");
	CHECK(!t.exact && t.p_greater < 0.01 && t.shift_lo > 0 &&
		      t.shift_lo < t.shift && t.shift < t.shift_hi,
	      "normal approximation: p=%.3g shift %.2f [%.2f, %.2f]",
	      t.p_greater, t.shift, t.shift_lo, t.shift_hi);
}

int main(void)
{
	test_binomial();
	test_quantile_ci();
	test_coverage();
	test_distance();
	test_figures();
	test_rate();
	test_rank();
	return check_exit();
}
