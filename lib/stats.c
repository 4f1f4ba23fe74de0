// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics under the regression verdicts: binomial tails through the
 * regularized incomplete beta function (log space, lgamma), quantile
 * intervals from order statistics, Wasserstein-1 and Kolmogorov-Smirnov
 * distances between histograms, the exact conditional test for tail rates
 * and the Mann-Whitney test on per-run figures.  Everything here is pure
 * arithmetic on struct hist; docs/statistics.md says why each method.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* ------------------------------------------------------------------ */
/* Special functions                                                   */

/* Continued fraction for I_x(a, b) (modified Lentz).  It converges fast for
 * x < (a+1)/(a+b+2); the number of terms grows like sqrt(max(a, b)). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d, h, aa, del;
	double maxit = 200.0 + 20.0 * sqrt(fmax(a, b));
	double m, m2;

	d = 1.0 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (m = 1.0; m <= maxit; m += 1.0) {
		m2 = 2.0 * m;
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

/*
 * I_x(a, b) into *ix and its complement I_y(b, a) into *iy, with y = 1 - x
 * passed separately so that a tiny y (or x) keeps all its digits.  Whichever
 * of the two is the smaller side is computed directly, the other as 1 - it.
 */
static void ibeta(double a, double b, double x, double y, double *ix,
		  double *iy)
{
	double lbt, s;

	if (x <= 0.0) {
		*ix = 0.0;
		*iy = 1.0;
		return;
	}
	if (y <= 0.0) {
		*ix = 1.0;
		*iy = 0.0;
		return;
	}
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y);
	if (x < (a + 1.0) / (a + b + 2.0)) {
		s = exp(lbt) * betacf(a, b, x) / a;
		if (s > 1.0)
			s = 1.0;
		*ix = s;
		*iy = 1.0 - s;
	} else {
		s = exp(lbt) * betacf(b, a, y) / b;
		if (s > 1.0)
			s = 1.0;
		*iy = s;
		*ix = 1.0 - s;
	}
}

double stats_betainc(double a, double b, double x)
{
	double ix, iy;

	if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0 && x <= 1.0))
		return NAN;
	ibeta(a, b, x, 1.0 - x, &ix, &iy);
	return ix;
}

static double norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Acklam's rational approximation, polished by one Halley step. */
double stats_norm_quantile(double p)
{
	static const double a[] = {
		-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00
	};
	static const double b[] = { -5.447609879822406e+01,
				    1.615858368580409e+02,
				    -1.556989798598866e+02,
				    6.680131188771972e+01,
				    -1.328068155288572e+01 };
	static const double c[] = {
		-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00,	2.938163982698783e+00
	};
	static const double d[] = { 7.784695709041462e-03,
				    3.224671290700398e-01,
				    2.445134137142996e+00,
				    3.754408661907416e+00 };
	double q, r, x, e, u;

	if (!(p > 0.0 && p < 1.0))
		return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
	if (p < 0.02425) {
		q = sqrt(-2.0 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			     q +
		     c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
	} else if (p > 1.0 - 0.02425) {
		q = sqrt(-2.0 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			      q +
		      c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
			     r +
		     a[5]) *
		    q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) *
			     r +
		     1.0);
	}
	e = norm_cdf(x) - p;
	u = e * sqrt(2.0 * M_PI) * exp(x * x / 2.0);
	return x - u / (1.0 + x * u / 2.0);
}

/* P(B <= k) and P(B > k) for B ~ Bin(n, p), q = 1 - p given separately. */
static void binom_tails(int64_t k, uint64_t n, double p, double q, double *le,
			double *gt)
{
	double mu, sd;

	if (k < 0) {
		*le = 0.0;
		*gt = 1.0;
		return;
	}
	if ((uint64_t)k >= n || p <= 0.0) {
		*le = 1.0;
		*gt = 0.0;
		return;
	}
	if (q <= 0.0) {
		*le = 0.0;
		*gt = 1.0;
		return;
	}
	if (n > STATS_EXACT_MAX_N) {
		mu = (double)n * p;
		sd = sqrt((double)n * p * q);
		*le = norm_cdf(((double)k + 0.5 - mu) / sd);
		*gt = norm_cdf(-((double)k + 0.5 - mu) / sd);
		return;
	}
	/* P(B <= k) = I_{1-p}(n - k, k + 1) */
	ibeta((double)(n - (uint64_t)k), (double)k + 1.0, q, p, le, gt);
}

double stats_binom_cdf(int64_t k, uint64_t n, double p)
{
	double le, gt;

	binom_tails(k, n, p, 1.0 - p, &le, &gt);
	return le;
}

static double binom_sf2(int64_t k, uint64_t n, double p, double q)
{
	double le, gt;

	binom_tails(k - 1, n, p, q, &le, &gt);
	return gt;
}

static double binom_cdf2(int64_t k, uint64_t n, double p, double q)
{
	double le, gt;

	binom_tails(k, n, p, q, &le, &gt);
	return le;
}

double stats_binom_sf(int64_t k, uint64_t n, double p)
{
	return binom_sf2(k, n, p, 1.0 - p);
}

uint64_t stats_binom_quantile(double t, uint64_t n, double p)
{
	uint64_t lo = 0, hi = n, mid;
	double mu = (double)n * p, sd = sqrt((double)n * p * (1.0 - p));
	double g;

	if (t <= 0.0)
		return 0;
	if (t > 1.0)
		return n;
	/* Narrow the search to the binomial's bulk before bisecting. */
	g = floor(mu - 40.0 * sd - 10.0);
	if (g > 0.0 && g < (double)n && stats_binom_cdf((int64_t)g, n, p) < t)
		lo = (uint64_t)g + 1;
	g = ceil(mu + 40.0 * sd + 10.0);
	if (g >= (double)lo && g < (double)n &&
	    stats_binom_cdf((int64_t)g, n, p) >= t)
		hi = (uint64_t)g;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (stats_binom_cdf((int64_t)mid, n, p) >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* ------------------------------------------------------------------ */
/* Histograms                                                          */

int stats_pool(const struct hist *h, unsigned int nh, struct hist *out)
{
	unsigned int i;
	int ret;

	ret = hist_init(out, 0);
	if (ret)
		return ret;
	for (i = 0; i < nh; i++) {
		ret = hist_merge(out, &h[i]);
		if (ret) {
			hist_cleanup(out);
			return ret;
		}
	}
	return 0;
}

double stats_mean_us(const struct hist *h)
{
	double sum = 0.0;
	uint32_t i;

	if (!h->samples)
		return NAN;
	for (i = 0; i < h->nbuckets; i++)
		sum += (double)h->counts[i] * (double)i;
	sum += (double)h->overflows * (double)h->nbuckets;
	return sum / (double)h->samples;
}

int stats_figures(const struct hist *h, unsigned int nh,
		  struct stats_figures *f)
{
	struct hist pool;
	unsigned int i;
	int ret;

	memset(f, 0, sizeof(*f));
	f->max_cpu = -1;
	ret = stats_pool(h, nh, &pool);
	if (ret)
		return ret;
	for (i = 0; i < nh; i++) {
		if (h[i].samples &&
		    (f->max_cpu < 0 || h[i].max_us > f->max_us)) {
			f->max_us = h[i].max_us;
			f->max_cpu = h[i].cpu;
		}
	}
	f->samples = pool.samples;
	f->overflows = pool.overflows;
	f->range_us = pool.nbuckets;
	f->p50_us = hist_quantile(&pool, 0.5);
	f->p99_us = hist_quantile(&pool, 0.99);
	f->p999_us = hist_quantile(&pool, 0.999);
	f->p9999_us = hist_quantile(&pool, 0.9999);
	f->mean_us = stats_mean_us(&pool);
	hist_cleanup(&pool);
	return 0;
}

int stats_exceed(const struct hist *h, int64_t thr_us, uint64_t *count)
{
	uint64_t n = 0;
	uint32_t i;

	if (thr_us < 0) {
		*count = h->samples;
		return 0;
	}
	if ((uint64_t)thr_us >= h->nbuckets) {
		/* Beyond the range only the true maximum speaks. */
		if (h->overflows && h->max_us > thr_us)
			return -ERANGE;
		*count = 0;
		return 0;
	}
	for (i = (uint32_t)thr_us + 1; i < h->nbuckets; i++)
		n += h->counts[i];
	*count = n + h->overflows;
	return 0;
}

int64_t stats_rank_us(const struct hist *h, uint64_t rank)
{
	uint64_t cum = 0;
	uint32_t i;

	if (!rank || rank > h->samples)
		return -ERANGE;
	for (i = 0; i < h->nbuckets; i++) {
		cum += h->counts[i];
		if (cum >= rank)
			return i;
	}
	return HIST_Q_OVERFLOW;
}

int stats_quantile_ci(const struct hist *h, double q, double level,
		      struct stats_qci *ci)
{
	double a = 1.0 - level;
	uint64_t n = h->samples, klo, khi;

	memset(ci, 0, sizeof(*ci));
	if (!(q > 0.0 && q < 1.0) || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	if (!n)
		return -ENODATA;
	ci->q = q;
	ci->level = level;
	ci->n = n;
	ci->exact = n <= STATS_EXACT_MAX_N;
	ci->est_us = hist_quantile(h, q);
	/*
	 * B = #samples <= x_q ~ Bin(n, q).  X(l) <= x_q unless B < l, and
	 * X(u) >= x_q unless B >= u: pick l, u with P(B <= l-1) <= a/2 and
	 * P(B >= u) <= a/2.
	 */
	klo = stats_binom_quantile(a / 2.0, n, q);
	khi = stats_binom_quantile(1.0 - a / 2.0, n, q);
	ci->rank_lo = klo;
	ci->rank_hi = khi + 1;
	ci->lo_us = klo ? stats_rank_us(h, klo) : 0;
	ci->hi_us = ci->rank_hi <= n ? stats_rank_us(h, ci->rank_hi) :
				       STATS_UNBOUNDED_US;
	ci->coverage =
		(ci->rank_hi <= n ? stats_binom_cdf((int64_t)khi, n, q) : 1.0) -
		(klo ? stats_binom_cdf((int64_t)klo - 1, n, q) : 0.0);
	return 0;
}

int stats_distance(const struct hist *a, const struct hist *b,
		   struct stats_dist *d)
{
	uint64_t ca = 0, cb = 0;
	uint32_t i, r;
	double fa, fb, diff;

	memset(d, 0, sizeof(*d));
	if (!a->samples || !b->samples)
		return -ENODATA;
	/* Both CDFs are known up to the smaller range among those with
	 * overflows; without overflows both reach 1 at their range. */
	r = a->nbuckets > b->nbuckets ? a->nbuckets : b->nbuckets;
	if (a->overflows && a->nbuckets < r)
		r = a->nbuckets;
	if (b->overflows && b->nbuckets < r)
		r = b->nbuckets;
	d->partial = a->overflows || b->overflows;
	for (i = 0; i < r; i++) {
		if (i < a->nbuckets)
			ca += a->counts[i];
		if (i < b->nbuckets)
			cb += b->counts[i];
		fa = (double)ca / (double)a->samples;
		fb = (double)cb / (double)b->samples;
		diff = fa - fb;
		if (diff > 0)
			d->w1_up_us += diff;
		else
			d->w1_down_us -= diff;
		if (fabs(diff) > d->ks)
			d->ks = fabs(diff);
	}
	d->w1_us = d->w1_up_us + d->w1_down_us;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tail rates                                                          */

/* Bisection on the log-odds t of the conditional binomial parameter, so
 * that both pi and 1 - pi keep their digits near 0 and 1.  @upper selects
 * the Clopper-Pearson bound: lower solves P(K >= k2; pi) = alpha, upper
 * solves P(K <= k2; pi) = alpha. */
static double cp_logodds(uint64_t k2, uint64_t k, double alpha, int upper)
{
	double lo = -80.0, hi = 80.0, t, p, q, v;
	int i;

	for (i = 0; i < 200 && hi - lo > 1e-12; i++) {
		t = (lo + hi) / 2.0;
		p = 1.0 / (1.0 + exp(-t));
		q = 1.0 / (1.0 + exp(t));
		if (upper) {
			v = binom_cdf2((int64_t)k2, k, p, q);
			if (v > alpha)
				lo = t;
			else
				hi = t;
		} else {
			v = binom_sf2((int64_t)k2, k, p, q);
			if (v < alpha)
				lo = t;
			else
				hi = t;
		}
	}
	return (lo + hi) / 2.0;
}

int stats_rate_test(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
		    double alpha, struct stats_rate *r)
{
	uint64_t k = k1 + k2;
	double p0, q0, scale;

	memset(r, 0, sizeof(*r));
	if (!n1 || !n2 || k1 > n1 || k2 > n2 || !(alpha > 0.0 && alpha <= 0.5))
		return -EINVAL;
	r->k1 = k1;
	r->n1 = n1;
	r->k2 = k2;
	r->n2 = n2;
	r->exact = k <= STATS_EXACT_MAX_N;
	p0 = (double)n2 / ((double)n1 + (double)n2);
	q0 = (double)n1 / ((double)n1 + (double)n2);
	if (!k) {
		r->ratio = NAN;
		r->p_greater = 1.0;
		r->p_less = 1.0;
		r->ratio_lo = 0.0;
		r->ratio_hi = INFINITY;
		return 0;
	}
	r->p_greater = binom_sf2((int64_t)k2, k, p0, q0);
	r->p_less = binom_cdf2((int64_t)k2, k, p0, q0);
	r->ratio = k1 ? ((double)k2 / (double)n2) / ((double)k1 / (double)n1) :
			INFINITY;
	/* pi = R n2 / (n1 + R n2)  <=>  R = exp(logit pi) * n1 / n2 */
	scale = (double)n1 / (double)n2;
	r->ratio_lo = k2 ? exp(cp_logodds(k2, k, alpha, 0)) * scale : 0.0;
	r->ratio_hi = k2 < k ? exp(cp_logodds(k2, k, alpha, 1)) * scale :
			       INFINITY;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rank test                                                           */

struct ranked {
	double v;
	unsigned int second; /* 1 for y */
};

static int ranked_cmp(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v;
	double y = ((const struct ranked *)b)->v;

	return x < y ? -1 : x > y;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Distribution of the sum of @n of the @N integer scores @r chosen at
 * random: out[s] = number of subsets (as a double) with sum s, s = 0..smax.
 * Return: malloc'd array (caller frees), NULL on -ENOMEM.
 */
static double *subset_sums(const unsigned int *r, unsigned int N,
			   unsigned int n, unsigned int *smax)
{
	unsigned int i, j, s, top = 0;
	double *dp;
	unsigned int *sorted;

	sorted = malloc(N * sizeof(*sorted));
	if (!sorted)
		return NULL;
	memcpy(sorted, r, N * sizeof(*sorted));
	for (i = 0; i < N; i++) /* the n largest bound the sum */
		for (j = i + 1; j < N; j++)
			if (sorted[j] > sorted[i]) {
				s = sorted[i];
				sorted[i] = sorted[j];
				sorted[j] = s;
			}
	for (i = 0; i < n; i++)
		top += sorted[i];
	free(sorted);
	*smax = top;
	dp = calloc((size_t)(n + 1) * (top + 1), sizeof(*dp));
	if (!dp)
		return NULL;
	dp[0] = 1.0;
	for (i = 0; i < N; i++) {
		/* rows below n - (N - i) cannot reach n elements any more */
		unsigned int jmin = n + i + 1 > N ? n + i + 1 - N : 1;

		for (j = (i + 1 < n ? i + 1 : n); j >= jmin; j--) {
			double *row = dp + (size_t)j * (top + 1);
			double *prev = dp + (size_t)(j - 1) * (top + 1);

			for (s = top; s >= r[i]; s--) {
				row[s] += prev[s - r[i]];
				if (s == 0)
					break;
			}
		}
	}
	memmove(dp, dp + (size_t)n * (top + 1), (top + 1) * sizeof(*dp));
	return dp;
}

/*
 * Without ties the doubled ranks are 2, 4, ..., 2N and the null
 * distribution depends only on (m, n).  Verdicts ask for the same few
 * sizes over and over (five metrics, many series), so each thread keeps
 * the last few distributions.  Return: a borrowed pointer valid until the
 * next call on this thread, or NULL on -ENOMEM.
 */
#define NULL_DIST_SLOTS 4
static const double *null_dist(unsigned int m, unsigned int n,
			       unsigned int *smax)
{
	static __thread struct {
		unsigned int m, n, smax;
		double *dist;
	} slot[NULL_DIST_SLOTS];
	static __thread unsigned int next;
	unsigned int i, N = m + n, *r;
	double *dist;

	for (i = 0; i < NULL_DIST_SLOTS; i++)
		if (slot[i].dist && slot[i].m == m && slot[i].n == n) {
			*smax = slot[i].smax;
			return slot[i].dist;
		}
	r = malloc(N * sizeof(*r));
	if (!r)
		return NULL;
	for (i = 0; i < N; i++)
		r[i] = 2 * (i + 1);
	dist = subset_sums(r, N, n, smax);
	free(r);
	if (!dist)
		return NULL;
	i = next++ % NULL_DIST_SLOTS;
	free(slot[i].dist);
	slot[i].m = m;
	slot[i].n = n;
	slot[i].smax = *smax;
	slot[i].dist = dist;
	return dist;
}

/* Largest k >= 0 with P(U <= k - 1) <= alpha for U without ties. */
static int hl_rank(unsigned int m, unsigned int n, double alpha,
		   unsigned int *kout)
{
	unsigned int N = m + n, smax, s, base = n * (n + 1);
	const double *dist;
	double total = 0.0, cum = 0.0;
	double z, k;

	if (N > STATS_RANK_EXACT_MAX) {
		z = stats_norm_quantile(1.0 - alpha);
		k = floor((double)m * n / 2.0 -
			  z * sqrt((double)m * n * (N + 1) / 12.0));
		*kout = k > 0 ? (unsigned int)k : 0;
		return 0;
	}
	dist = null_dist(m, n, &smax);
	if (!dist)
		return -ENOMEM;
	for (s = 0; s <= smax; s++)
		total += dist[s];
	/* doubled rank sum s  <=>  U = (s - n(n+1)) / 2 */
	*kout = 0;
	for (s = base; s <= smax; s += 2) {
		cum += dist[s];
		if (cum / total > alpha * (1.0 + 1e-12))
			break;
		(*kout)++;
	}
	return 0;
}

int stats_rank_test(const double *x, unsigned int m, const double *y,
		    unsigned int n, double alpha, struct stats_rank *t)
{
	unsigned int N = m + n, i, j, g, smax, s, w = 0, k;
	struct ranked *all = NULL;
	unsigned int *r2 = NULL;
	double *dist = NULL, *diffs = NULL;
	double total = 0.0, ge = 0.0, le = 0.0, tie = 0.0;
	size_t nd = (size_t)m * n;
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (!m || !n || !(alpha > 0.0 && alpha < 1.0))
		return -EINVAL;
	for (i = 0; i < m; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return -EINVAL;
	t->m = m;
	t->n = n;

	all = malloc(N * sizeof(*all));
	r2 = malloc(N * sizeof(*r2));
	diffs = malloc(nd * sizeof(*diffs));
	if (!all || !r2 || !diffs)
		goto out;
	for (i = 0; i < m; i++)
		all[i] = (struct ranked){ x[i], 0 };
	for (i = 0; i < n; i++)
		all[m + i] = (struct ranked){ y[i], 1 };
	qsort(all, N, sizeof(*all), ranked_cmp);
	/* Doubled mid-ranks are integers: positions i..g-1 share i+1+g. */
	for (i = 0; i < N; i = g) {
		for (g = i + 1; g < N && all[g].v == all[i].v; g++)
			;
		tie += (double)(g - i) * (g - i) * (g - i) - (g - i);
		for (j = i; j < g; j++) {
			r2[j] = i + 1 + g;
			if (all[j].second)
				w += r2[j];
		}
	}
	t->u = (double)w / 2.0 - (double)n * (n + 1) / 2.0;

	if (N <= STATS_RANK_EXACT_MAX) {
		const double *d;

		t->exact = 1;
		if (tie == 0.0) {
			d = null_dist(m, n, &smax);
		} else {
			dist = subset_sums(r2, N, n, &smax);
			d = dist;
		}
		if (!d)
			goto out;
		for (s = 0; s <= smax; s++) {
			total += d[s];
			if (s >= w)
				ge += d[s];
			if (s <= w)
				le += d[s];
		}
		t->p_greater = fmin(1.0, ge / total);
		t->p_less = fmin(1.0, le / total);
	} else {
		double mu = (double)n * (N + 1), var, z;

		/* in doubled ranks: mean n(N+1), variance 4 * the usual */
		var = 4.0 * (double)m * n / 12.0 *
		      ((N + 1) - tie / ((double)N * (N - 1)));
		if (var <= 0) {
			t->p_greater = t->p_less = 1.0;
		} else {
			z = ((double)w - 1.0 - mu) / sqrt(var);
			t->p_greater = norm_cdf(-z);
			z = ((double)w + 1.0 - mu) / sqrt(var);
			t->p_less = norm_cdf(z);
		}
	}

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			diffs[(size_t)i * n + j] = y[j] - x[i];
	qsort(diffs, nd, sizeof(*diffs), dbl_cmp);
	t->shift = nd % 2 ? diffs[nd / 2] :
			    (diffs[nd / 2 - 1] + diffs[nd / 2]) / 2.0;
	ret = hl_rank(m, n, alpha, &k);
	if (ret)
		goto out;
	if (k >= 1 && k <= nd) {
		t->shift_lo = diffs[k - 1];
		t->shift_hi = diffs[nd - k];
	} else {
		t->shift_lo = -INFINITY;
		t->shift_hi = INFINITY;
	}
	ret = 0;
out:
	free(dist);
	free(diffs);
	free(r2);
	free(all);
	return ret;
}

unsigned int stats_rank_min_runs(double alpha)
{
	double c = 1.0;
	unsigned int n;

	if (!(alpha > 0.0 && alpha < 1.0))
		return 0;
	for (n = 1; n < 1000; n++) {
		/* C(2n, n) = C(2n-2, n-1) * (2n)(2n-1) / n^2 */
		c = c * (2.0 * n) * (2.0 * n - 1.0) / ((double)n * n);
		if (1.0 / c <= alpha * (1.0 + 1e-12))
			return n;
	}
	return 0;
}
