// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The regression engine: baseline runs against candidate runs, metric by
 * metric, with the run as the unit of replication.  A metric moves only when
 * its effect clears both practical floors AND run-level evidence (and, where
 * there is one, the sample-level test) agrees; a metric is unchanged only
 * when its interval sits inside the floors.  Everything else is
 * INCONCLUSIVE with an estimate of the runs that would settle it.  The
 * rules are written out in docs/statistics.md; keep the two in step.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "regress.h"

static const char *const verdict_names[] = {
	[REGRESS_NO_CHANGE] = "NO_CHANGE",
	[REGRESS_REGRESSION] = "REGRESSION",
	[REGRESS_IMPROVEMENT] = "IMPROVEMENT",
	[REGRESS_INCONCLUSIVE] = "INCONCLUSIVE",
};

static const char *const metric_names[REGRESS_NMETRICS] = {
	[REGRESS_M_P99] = "p99", [REGRESS_M_P999] = "p99.9",
	[REGRESS_M_MAX] = "max", [REGRESS_M_TAIL] = "tail_rate",
	[REGRESS_M_W1] = "w1",
};

const char *regress_verdict_name(enum regress_verdict v)
{
	if ((unsigned int)v >= sizeof(verdict_names) / sizeof(verdict_names[0]))
		return "?";
	return verdict_names[v];
}

int regress_verdict_parse(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(verdict_names) / sizeof(verdict_names[0]); i++)
		if (s && !strcmp(s, verdict_names[i]))
			return (int)i;
	return -EINVAL;
}

void regress_params_init(struct regress_params *p)
{
	p->floor_abs_us = 5.0;
	p->floor_rel = 0.10;
	p->tail_q = 0.999;
	p->alpha = 0.05;
	p->min_runs = 5;
	p->looks = 3;
}

/* Lan-DeMets Pocock-type spending: the alpha spent by information
 * fraction @t, concave, so early looks get a usable share. */
static double alpha_spent(double alpha, double t)
{
	return alpha * log(1.0 + (M_E - 1.0) * t);
}

int regress_plan(const struct regress_params *p, unsigned int look,
		 struct regress_seq *seq, struct rtlab_err *err)
{
	unsigned int k, need;
	double a, am;

	memset(seq, 0, sizeof(*seq));
	if (!p->looks || p->looks > REGRESS_MAX_LOOKS)
		return rtlab_err_set(
			err,
			"regress: looks is %u; expected 1 to %u planned looks",
			p->looks, REGRESS_MAX_LOOKS);
	if (p->min_runs < 2 || p->min_runs > 1000 / p->looks)
		return rtlab_err_set(
			err,
			"regress: min_runs is %u with %u looks; expected at least 2 runs per side at the first look and at most 1000 at the last",
			p->min_runs, p->looks);
	if (!(p->alpha > 0.0 && p->alpha <= 0.5))
		return rtlab_err_set(
			err,
			"regress: alpha is %g; expected a level in (0, 0.5], e.g. 0.05",
			p->alpha);
	if (look > p->looks)
		return rtlab_err_set(err, "regress: look %u of %u planned",
				     look, p->looks);
	seq->looks = p->looks;
	for (k = 1; k <= p->looks; k++) {
		seq->runs_at[k - 1] = p->min_runs * k;
		a = alpha_spent(p->alpha, (double)k / p->looks) -
		    alpha_spent(p->alpha, (double)(k - 1) / p->looks);
		am = a / REGRESS_NMETRICS;
		need = stats_rank_min_runs(am);
		if (!need || need > seq->runs_at[k - 1])
			return rtlab_err_set(
				err,
				"regress: the plan cannot decide at look %u of %u: %u runs per side cannot reach the %.3g per metric that look spends (alpha %g); it needs %u, so raise min_runs to %u or plan fewer looks",
				k, p->looks, seq->runs_at[k - 1], am, p->alpha,
				need, (need + k - 1) / k);
		if (k == look) {
			seq->alpha_look = a;
			seq->alpha_spent =
				alpha_spent(p->alpha, (double)k / p->looks);
		}
	}
	seq->look = look;
	return 0;
}

/* One side of the comparison: its runs pooled over CPUs, and all pooled. */
struct side {
	const char *name;
	unsigned int nruns;
	unsigned int empty;
	struct hist *runs;
	struct hist pool;
};

static void side_cleanup(struct side *s)
{
	unsigned int i;

	if (s->runs)
		for (i = 0; i < s->nruns; i++)
			hist_cleanup(&s->runs[i]);
	free(s->runs);
	s->runs = NULL;
	s->nruns = 0;
	hist_cleanup(&s->pool);
}

/* The first @limit runs with samples of @runs (in the order given). */
static int side_init(struct side *s, const char *name,
		     const struct regress_run *runs, unsigned int n,
		     unsigned int limit)
{
	struct hist h;
	unsigned int i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->name = name;
	ret = hist_init(&s->pool, 0);
	if (ret)
		return ret;
	s->runs = calloc(n ? n : 1, sizeof(*s->runs));
	if (!s->runs)
		return -ENOMEM;
	for (i = 0; i < n && s->nruns < limit; i++) {
		ret = stats_pool(runs[i].cpus, runs[i].ncpus, &h);
		if (ret)
			return ret;
		if (!h.samples) {
			hist_cleanup(&h);
			s->empty++;
			continue;
		}
		s->runs[s->nruns++] = h;
		ret = hist_merge(&s->pool, &h);
		if (ret)
			return ret;
	}
	return 0;
}

static int has_samples(const struct regress_run *r)
{
	unsigned int i;

	for (i = 0; i < r->ncpus; i++)
		if (r->cpus[i].samples)
			return 1;
	return 0;
}

static unsigned int count_with_samples(const struct regress_run *runs,
				       unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		k += has_samples(&runs[i]);
	return k;
}

static int same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static const char *str_or(const char *s)
{
	return s ? s : "(unset)";
}

static int check_run(const struct regress_run *ref, const struct regress_run *r,
		     const char *side, unsigned int idx, struct rtlab_err *err)
{
	struct rtlab_err herr;
	unsigned int i;
	char label[96];

	if (r->id)
		snprintf(label, sizeof(label), "%s run %s", side, r->id);
	else
		snprintf(label, sizeof(label), "%s run #%u", side, idx + 1);
	if (!same_str(ref->board, r->board))
		return rtlab_err_set(
			err,
			"%s: board '%s' differs from '%s'; runs of different boards are never compared",
			label, str_or(r->board), str_or(ref->board));
	if (!same_str(ref->testcase, r->testcase))
		return rtlab_err_set(
			err,
			"%s: testcase '%s' differs from '%s'; runs of different testcases are never compared",
			label, str_or(r->testcase), str_or(ref->testcase));
	if (!same_str(ref->clock, r->clock))
		return rtlab_err_set(
			err,
			"%s: clock '%s' differs from '%s'; figures from different clocks are never compared",
			label, str_or(r->clock), str_or(ref->clock));
	if (r->ncpus && !r->cpus)
		return rtlab_err_set(err, "%s: %u CPUs but no histograms",
				     label, r->ncpus);
	for (i = 0; i < r->ncpus; i++) {
		if (hist_check(&r->cpus[i], &herr))
			return rtlab_err_set(err, "%s, CPU histogram %u: %s",
					     label, i, herr.msg);
	}
	return 0;
}

/* The same run twice would count one boot as several replicates. */
static int same_run(const struct regress_run *a, const struct regress_run *b)
{
	if (a->id && b->id)
		return !strcmp(a->id, b->id);
	return a->ncpus && a->cpus == b->cpus;
}

static int check_duplicates(const struct regress_run *base, unsigned int nbase,
			    const struct regress_run *cand, unsigned int ncand,
			    struct rtlab_err *err)
{
	unsigned int n = nbase + ncand, i, j;

	for (j = 1; j < n; j++) {
		const struct regress_run *rj = j < nbase ? &base[j] :
							   &cand[j - nbase];

		for (i = 0; i < j; i++) {
			const struct regress_run *ri =
				i < nbase ? &base[i] : &cand[i - nbase];
			const char *si = i < nbase ? "baseline" : "candidate";
			const char *sj = j < nbase ? "baseline" : "candidate";
			unsigned int ni = i < nbase ? i : i - nbase;
			unsigned int nj = j < nbase ? j : j - nbase;

			if (!same_run(ri, rj))
				continue;
			if (!strcmp(si, sj))
				return rtlab_err_set(
					err,
					"%s run %s is given twice (#%u and #%u); a run is one boot and counts once",
					si, str_or(ri->id), ni + 1, nj + 1);
			return rtlab_err_set(
				err,
				"run %s is both baseline run #%u and candidate run #%u; a run belongs to one side",
				str_or(ri->id), ni + 1, nj + 1);
		}
	}
	return 0;
}

static uint64_t run_samples(const struct regress_run *r)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < r->ncpus; i++)
		n += r->cpus[i].samples;
	return n;
}

/*
 * Runs that measured very different numbers of samples are not alike: a
 * run cut short (at its first spike, say) has quantiles biased toward the
 * spike.  Runs without samples are left out here as in the comparison.
 * Return: true with @why saying which runs when they differ too much.
 */
static bool samples_differ(const struct regress_run *base, unsigned int nbase,
			   const struct regress_run *cand, unsigned int ncand,
			   char *why, size_t size)
{
	const struct regress_run *lo = NULL, *hi = NULL, *r;
	uint64_t nlo = 0, nhi = 0, n;
	unsigned int i;
	char l1[48], l2[48];

	for (i = 0; i < nbase + ncand; i++) {
		r = i < nbase ? &base[i] : &cand[i - nbase];
		n = run_samples(r);
		if (!n)
			continue;
		if (!lo || n < nlo) {
			lo = r;
			nlo = n;
		}
		if (!hi || n > nhi) {
			hi = r;
			nhi = n;
		}
	}
	if (!lo || nlo * REGRESS_MAX_SAMPLE_RATIO >= nhi)
		return false;
	snprintf(l1, sizeof(l1), "%s run %s",
		 lo >= base && lo < base + nbase ? "baseline" : "candidate",
		 str_or(lo->id));
	snprintf(l2, sizeof(l2), "%s run %s",
		 hi >= base && hi < base + nbase ? "baseline" : "candidate",
		 str_or(hi->id));
	snprintf(why, size,
		 "%s: %llu samples against %llu in %s; counts differing over %ux are not compared (a short run is biased toward its spike)",
		 l1, (unsigned long long)nlo, (unsigned long long)nhi, l2,
		 REGRESS_MAX_SAMPLE_RATIO);
	return true;
}

static int check_params(const struct regress_params *p, struct rtlab_err *err)
{
	if (!isfinite(p->floor_abs_us) || p->floor_abs_us < 0)
		return rtlab_err_set(
			err,
			"regress: floor_abs_us is %g; expected a finite number >= 0",
			p->floor_abs_us);
	if (!isfinite(p->floor_rel) || p->floor_rel < 0)
		return rtlab_err_set(
			err,
			"regress: floor_rel is %g; expected a finite fraction >= 0 (0.10 = 10%%)",
			p->floor_rel);
	if (!(p->tail_q > 0.5 && p->tail_q < 1.0))
		return rtlab_err_set(
			err,
			"regress: tail_q is %g; expected a quantile in (0.5, 1), e.g. 0.999",
			p->tail_q);
	if (!(p->alpha > 0.0 && p->alpha <= 0.5))
		return rtlab_err_set(
			err,
			"regress: alpha is %g; expected a level in (0, 0.5], e.g. 0.05",
			p->alpha);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Helpers on per-run values                                           */

static void minmax(const double *v, unsigned int n, double *lo, double *hi)
{
	unsigned int i;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < n; i++) {
		if (v[i] < *lo)
			*lo = v[i];
		if (v[i] > *hi)
			*hi = v[i];
	}
	if (!n)
		*lo = *hi = NAN;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned int n)
{
	double *t, m;

	if (!n)
		return NAN;
	t = malloc(n * sizeof(*t));
	if (!t)
		return NAN;
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), dcmp);
	m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2.0;
	free(t);
	return m;
}

/*
 * More runs per side an INCONCLUSIVE metric needs: those missing for the
 * plan's next look; -1 when the plan is spent (its alpha is used up, and
 * this comparison says no more).
 */
static int plan_more(const struct regress_seq *q)
{
	unsigned int more;

	if (!q->next_runs)
		return -1;
	more = q->more_base > q->more_cand ? q->more_base : q->more_cand;
	return more ? (int)more : 1;
}

static void set_inconclusive_all(struct regress_result *res, const char *why,
				 int more)
{
	unsigned int i;

	for (i = 0; i < REGRESS_NMETRICS; i++) {
		res->metrics[i].verdict = REGRESS_INCONCLUSIVE;
		res->metrics[i].more_runs = more;
		snprintf(res->metrics[i].reason, sizeof(res->metrics[i].reason),
			 "%s", why);
	}
	res->verdict = REGRESS_INCONCLUSIVE;
	res->more_runs = more;
	snprintf(res->reason, sizeof(res->reason), "%s", why);
}

/* ------------------------------------------------------------------ */
/* Location metrics: p99, p99.9, per-run maxima                        */

struct loc {
	const double *xb, *xc; /* per-run figures */
	unsigned int m, n;
	int b_cens, c_cens;	     /* figures are lower bounds (overflows) */
	double sample_lo, sample_hi; /* pooled-sample interval of d, or NAN */
	const char *what;	     /* "per-run p99.9" */
};

static int decide_location(struct regress_metric *mt, const struct loc *in,
			   const struct regress_result *res)
{
	double alpha = res->alpha_metric;
	struct stats_rank rk;
	double d = mt->candidate - mt->baseline, fl = mt->floor;
	int ret;

	mt->effect = d;
	mt->censored = in->b_cens || in->c_cens;
	minmax(in->xb, in->m, &mt->run_base_lo, &mt->run_base_hi);
	minmax(in->xc, in->n, &mt->run_cand_lo, &mt->run_cand_hi);
	mt->interval =
		"Hodges-Lehmann shift of per-run figures, one-sided bounds at alpha_metric";
	mt->test = "Mann-Whitney U on per-run figures, one-sided";

	ret = stats_rank_test(in->xb, in->m, in->xc, in->n, alpha, &rk);
	if (ret)
		return ret;
	mt->effect_lo = rk.shift_lo;
	mt->effect_hi = rk.shift_hi;
	mt->p_value = d >= 0 ? rk.p_greater : rk.p_less;

	/* The interval, not the point estimate, must clear the floor. */
	if (d > fl && rk.shift_lo > fl && rk.p_greater <= alpha &&
	    !(in->sample_lo <= 0) && !in->b_cens) {
		mt->verdict = REGRESS_REGRESSION;
		snprintf(mt->reason, sizeof(mt->reason),
			 "+%.1f us; the per-run shift is at least +%.1f us, beyond the %.1f us floor; %s rise (p=%.3g <= %.3g)",
			 d, rk.shift_lo, fl, in->what, rk.p_greater, alpha);
	} else if (d < -fl && rk.shift_hi < -fl && rk.p_less <= alpha &&
		   !(in->sample_hi >= 0) && !in->c_cens) {
		mt->verdict = REGRESS_IMPROVEMENT;
		snprintf(mt->reason, sizeof(mt->reason),
			 "%.1f us; the per-run shift is at most %.1f us, beyond the %.1f us floor; %s fall (p=%.3g <= %.3g)",
			 d, rk.shift_hi, fl, in->what, rk.p_less, alpha);
	} else if (!mt->censored && fabs(d) <= fl && rk.shift_lo >= -fl &&
		   rk.shift_hi <= fl) {
		mt->verdict = REGRESS_NO_CHANGE;
		mt->test =
			"equivalence: Hodges-Lehmann bounds of the per-run shift within the floor";
		snprintf(mt->reason, sizeof(mt->reason),
			 "%+.1f us; per-run shift in [%.1f, %.1f] us, inside +-%.1f us",
			 d, rk.shift_lo, rk.shift_hi, fl);
	} else {
		mt->verdict = REGRESS_INCONCLUSIVE;
		if (mt->censored)
			snprintf(mt->reason, sizeof(mt->reason),
				 "figures beyond the histogram range (overflows); %+.1f us is a bound, not a value",
				 d);
		else
			snprintf(mt->reason, sizeof(mt->reason),
				 "%+.1f us (runs %+.1f us, bounds [%.1f, %.1f]) against a %.1f us floor, p=%.3g: neither shown beyond nor inside the floor",
				 d, rk.shift, rk.shift_lo, rk.shift_hi, fl,
				 mt->p_value);
		mt->more_runs = plan_more(&res->seq);
	}
	return 0;
}

static double floor_us(const struct regress_params *p, double base)
{
	double rel = p->floor_rel * fabs(base);

	return rel > p->floor_abs_us ? rel : p->floor_abs_us;
}

/* A quantile as a number: among the overflows it is at least the range. */
static double q_value(const struct hist *h, double q, int *cens)
{
	int64_t v = hist_quantile(h, q);

	if (v == HIST_Q_OVERFLOW) {
		*cens = 1;
		return (double)h->nbuckets;
	}
	return (double)v;
}

static double bound_lo(int64_t v, const struct hist *h)
{
	if (v == HIST_Q_OVERFLOW)
		return (double)h->nbuckets;
	return (double)v;
}

static double bound_hi(int64_t v)
{
	if (v == HIST_Q_OVERFLOW || v == STATS_UNBOUNDED_US)
		return INFINITY;
	return (double)v;
}

static int metric_quantile(struct regress_result *res, struct side *b,
			   struct side *c, int idx, double q, double *xb,
			   double *xc)
{
	struct regress_metric *mt = &res->metrics[idx];
	const struct stats_qci *qb, *qc;
	struct loc in = { 0 };
	unsigned int i;
	int k = idx == REGRESS_M_P99 ? 0 : 1;

	for (i = 0; i < b->nruns; i++)
		xb[i] = q_value(&b->runs[i], q, &in.b_cens);
	for (i = 0; i < c->nruns; i++)
		xc[i] = q_value(&c->runs[i], q, &in.c_cens);
	mt->baseline = q_value(&b->pool, q, &in.b_cens);
	mt->candidate = q_value(&c->pool, q, &in.c_cens);
	mt->floor = mt->floor_us = floor_us(&res->params, mt->baseline);
	qb = &res->baseline_q[k];
	qc = &res->candidate_q[k];
	in.sample_lo = bound_lo(qc->lo_us, &c->pool) - bound_hi(qb->hi_us);
	in.sample_hi = bound_hi(qc->hi_us) - bound_lo(qb->lo_us, &b->pool);
	in.xb = xb;
	in.xc = xc;
	in.m = b->nruns;
	in.n = c->nruns;
	in.what = idx == REGRESS_M_P99 ? "per-run p99" : "per-run p99.9";
	return decide_location(mt, &in, res);
}

static int metric_max(struct regress_result *res, struct side *b,
		      struct side *c, double *xb, double *xc)
{
	struct regress_metric *mt = &res->metrics[REGRESS_M_MAX];
	struct loc in = { 0 };
	unsigned int i;

	for (i = 0; i < b->nruns; i++)
		xb[i] = b->runs[i].max_us;
	for (i = 0; i < c->nruns; i++)
		xc[i] = c->runs[i].max_us;
	mt->baseline = median(xb, b->nruns);
	mt->candidate = median(xc, c->nruns);
	mt->floor = mt->floor_us = floor_us(&res->params, mt->baseline);
	in.xb = xb;
	in.xc = xc;
	in.m = b->nruns;
	in.n = c->nruns;
	in.sample_lo = in.sample_hi = NAN;
	in.what = "per-run maxima";
	return decide_location(mt, &in, res);
}

/* ------------------------------------------------------------------ */
/* Tail exceedance rate                                                */

static int rates(const struct side *s, int64_t thr, double *v)
{
	uint64_t k;
	unsigned int i;
	int ret;

	for (i = 0; i < s->nruns; i++) {
		ret = stats_exceed(&s->runs[i], thr, &k);
		if (ret)
			return ret;
		v[i] = (double)k / (double)s->runs[i].samples;
	}
	return 0;
}

/*
 * Pearson X^2 of a side's per-run counts beyond @thr about the side's
 * pooled rate, and its degrees of freedom (runs - 1; 0 when nothing is
 * beyond).  Samples within a run cluster (one bad boot holds most of a
 * tail), so the counts vary between runs more than Poisson allows.
 */
static int run_chi2(const struct side *s, int64_t thr, double *x2,
		    unsigned int *df)
{
	uint64_t k, sum = 0;
	double r, e;
	unsigned int i;
	int ret;

	for (i = 0; i < s->nruns; i++) {
		ret = stats_exceed(&s->runs[i], thr, &k);
		if (ret)
			return ret;
		sum += k;
	}
	if (!sum || s->nruns < 2)
		return 0;
	r = (double)sum / (double)s->pool.samples;
	for (i = 0; i < s->nruns; i++) {
		ret = stats_exceed(&s->runs[i], thr, &k);
		if (ret)
			return ret;
		e = r * (double)s->runs[i].samples;
		*x2 += ((double)k - e) * ((double)k - e) / e;
	}
	*df += s->nruns - 1;
	return 0;
}

/*
 * The rate test with the run as the unit: the counts and exposures are
 * divided by the dispersion @phi (quasi-Poisson, the Rao-Scott design
 * effect) before the exact test, so a tail held by one run gives the wide
 * interval a few independent events would.  The raw counts and ratio stay
 * in @r; the bounds and p-values are those of the adjusted counts.
 */
static int rate_test_runs(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
			  double phi, double alpha, struct stats_rate *r)
{
	struct stats_rate a;
	uint64_t n1a, n2a;
	int ret;

	ret = stats_rate_test(k1, n1, k2, n2, alpha, r);
	if (ret || phi <= 1.0)
		return ret;
	n1a = (uint64_t)llround((double)n1 / phi);
	n2a = (uint64_t)llround((double)n2 / phi);
	ret = stats_rate_test((uint64_t)llround((double)k1 / phi),
			      n1a ? n1a : 1,
			      (uint64_t)llround((double)k2 / phi),
			      n2a ? n2a : 1, alpha, &a);
	if (ret)
		return ret;
	r->ratio_lo = a.ratio_lo;
	r->ratio_hi = a.ratio_hi;
	r->p_greater = a.p_greater;
	r->p_less = a.p_less;
	return 0;
}

static int metric_tail(struct regress_result *res, struct side *b,
		       struct side *c, double *xb, double *xc, double *xc2)
{
	struct regress_metric *mt = &res->metrics[REGRESS_M_TAIL];
	const struct regress_params *p = &res->params;
	double alpha = res->alpha_metric, up = 1.0 + p->floor_rel;
	struct stats_rate tu, td;
	struct stats_rank ru, rd;
	uint64_t k1, k2, k2u, k2d = 0;
	int64_t t, shift, thr_up, thr_dn;
	double x2 = 0.0, phi;
	unsigned int df = 0;
	int ret, can_down;

	mt->unit = "ratio";
	mt->interval =
		"exact conditional (Clopper-Pearson) bounds of the rate ratio at the threshold, counts divided by the run-to-run dispersion, one-sided at alpha_metric";
	mt->test =
		"exact Poisson rate-ratio test beyond threshold+floor, and Mann-Whitney U on per-run rates";
	mt->floor = up;
	t = hist_quantile(&b->pool, p->tail_q);
	res->threshold_us = t;
	if (t == HIST_Q_OVERFLOW) {
		mt->verdict = REGRESS_INCONCLUSIVE;
		mt->more_runs = -1;
		snprintf(mt->reason, sizeof(mt->reason),
			 "the baseline's q%g lies beyond its %u us histogram range",
			 p->tail_q, b->pool.nbuckets);
		return 0;
	}
	shift = (int64_t)ceil(floor_us(p, (double)t));
	mt->floor_us = (double)shift;
	thr_up = t + shift;
	thr_dn = t - shift;
	can_down = thr_dn >= 0;
	ret = stats_exceed(&b->pool, t, &k1);
	if (!ret)
		ret = stats_exceed(&c->pool, t, &k2);
	if (!ret)
		ret = stats_exceed(&c->pool, thr_up, &k2u);
	if (!ret && can_down)
		ret = stats_exceed(&c->pool, thr_dn, &k2d);
	if (!ret)
		ret = rates(b, t, xb);
	if (!ret)
		ret = rates(c, thr_up, xc);
	if (!ret && can_down)
		ret = rates(c, thr_dn, xc2);
	if (ret == -ERANGE) {
		mt->verdict = REGRESS_INCONCLUSIVE;
		mt->censored = 1;
		mt->more_runs = -1;
		snprintf(mt->reason, sizeof(mt->reason),
			 "threshold %lld us + floor lies beyond the candidate's histogram range, where only overflows are known",
			 (long long)t);
		return 0;
	}
	if (ret)
		return ret;

	ret = run_chi2(b, t, &x2, &df);
	if (!ret)
		ret = run_chi2(c, t, &x2, &df);
	if (ret)
		return ret;
	phi = df && x2 / df > 1.0 ? x2 / df : 1.0;
	res->tail_dispersion = phi;
	ret = rate_test_runs(k1, b->pool.samples, k2, c->pool.samples, phi,
			     alpha, &res->tail);
	if (!ret)
		ret = rate_test_runs(k1, b->pool.samples, k2u, c->pool.samples,
				     phi, alpha, &tu);
	if (!ret)
		ret = rate_test_runs(k1, b->pool.samples,
				     can_down ? k2d : c->pool.samples,
				     c->pool.samples, phi, alpha, &td);
	if (ret)
		return ret;
	mt->baseline = (double)k1 / (double)b->pool.samples;
	mt->candidate = (double)k2 / (double)c->pool.samples;
	mt->effect = res->tail.ratio;
	mt->effect_lo = res->tail.ratio_lo;
	mt->effect_hi = res->tail.ratio_hi;
	minmax(xb, b->nruns, &mt->run_base_lo, &mt->run_base_hi);
	ret = rates(c, t, xc2); /* plain per-run rates for the report */
	if (ret)
		return ret;
	minmax(xc2, c->nruns, &mt->run_cand_lo, &mt->run_cand_hi);
	if (can_down) {
		ret = rates(c, thr_dn, xc2);
		if (ret)
			return ret;
	}
	ret = stats_rank_test(xb, b->nruns, xc, c->nruns, alpha, &ru);
	if (!ret && can_down)
		ret = stats_rank_test(xb, b->nruns, xc2, c->nruns, alpha, &rd);
	if (ret)
		return ret;

	/* The ratio's bound, not its estimate, must clear the ratio floor. */
	if (tu.p_greater <= alpha && tu.ratio_lo > up &&
	    ru.p_greater <= alpha) {
		mt->verdict = REGRESS_REGRESSION;
		mt->p_value = fmax(tu.p_greater, ru.p_greater);
		snprintf(mt->reason, sizeof(mt->reason),
			 "%.3g%% of candidate samples beyond %lld us (threshold %lld + %lld us floor) vs %.3g%% of baseline beyond %lld us: ratio %.3g, at least %.3g > %.3g (p=%.3g, run dispersion %.3g), per-run rates rise (p=%.3g)",
			 100.0 * (double)k2u / (double)c->pool.samples,
			 (long long)thr_up, (long long)t, (long long)shift,
			 100.0 * mt->baseline, (long long)t, tu.ratio,
			 tu.ratio_lo, up, tu.p_greater, phi, ru.p_greater);
	} else if (can_down && td.p_less <= alpha && td.ratio_hi < 1.0 / up &&
		   rd.p_less <= alpha) {
		mt->verdict = REGRESS_IMPROVEMENT;
		mt->p_value = fmax(td.p_less, rd.p_less);
		snprintf(mt->reason, sizeof(mt->reason),
			 "%.3g%% of candidate samples beyond %lld us (threshold %lld - %lld us floor) vs %.3g%% of baseline beyond %lld us: ratio %.3g, at most %.3g < %.3g (p=%.3g, run dispersion %.3g), per-run rates fall (p=%.3g)",
			 100.0 * (double)k2d / (double)c->pool.samples,
			 (long long)thr_dn, (long long)t, (long long)shift,
			 100.0 * mt->baseline, (long long)t, td.ratio,
			 td.ratio_hi, 1.0 / up, td.p_less, phi, rd.p_less);
	} else if (tu.ratio_hi <= up && ru.p_greater > alpha &&
		   (!can_down ||
		    (td.ratio_lo >= 1.0 / up && rd.p_less > alpha))) {
		mt->verdict = REGRESS_NO_CHANGE;
		mt->test =
			"equivalence: exact rate-ratio bounds beyond threshold -/+ floor within the ratio floor, no per-run trend";
		mt->p_value = fmin(ru.p_greater, can_down ? rd.p_less : 1.0);
		snprintf(mt->reason, sizeof(mt->reason),
			 "beyond %lld+%lld us the rate ratio is <= %.3g, beyond %lld-%lld us >= %.3g: the tail moved less than the floor",
			 (long long)t, (long long)shift, tu.ratio_hi,
			 (long long)t, (long long)shift,
			 can_down ? td.ratio_lo : 0.0);
	} else {
		mt->verdict = REGRESS_INCONCLUSIVE;
		mt->p_value = fmin(tu.p_greater, ru.p_greater);
		snprintf(mt->reason, sizeof(mt->reason),
			 "rate ratio %.3g beyond threshold+floor (bounds %.3g..%.3g, p=%.3g), per-run p=%.3g: neither shown beyond nor inside the floor",
			 tu.ratio, tu.ratio_lo, tu.ratio_hi, tu.p_greater,
			 ru.p_greater);
		mt->more_runs = plan_more(&res->seq);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Body: Wasserstein-1 over the tracked range                          */

static int metric_w1(struct regress_result *res, struct side *b, struct side *c,
		     double *xb, double *xc)
{
	struct regress_metric *mt = &res->metrics[REGRESS_M_W1];
	double alpha = res->alpha_metric, fl, up, down;
	struct stats_rank rk;
	unsigned int i;
	int ret;

	ret = stats_distance(&b->pool, &c->pool, &res->body);
	if (ret)
		return ret;
	for (i = 0; i < b->nruns; i++)
		xb[i] = stats_mean_us(&b->runs[i]);
	for (i = 0; i < c->nruns; i++)
		xc[i] = stats_mean_us(&c->runs[i]);
	mt->baseline = stats_mean_us(&b->pool);
	mt->candidate = stats_mean_us(&c->pool);
	up = res->body.w1_up_us;
	down = res->body.w1_down_us;
	mt->effect = up >= down ? res->body.w1_us : -res->body.w1_us;
	fl = floor_us(&res->params, mt->baseline);
	mt->floor = mt->floor_us = fl;
	minmax(xb, b->nruns, &mt->run_base_lo, &mt->run_base_hi);
	minmax(xc, c->nruns, &mt->run_cand_lo, &mt->run_cand_hi);
	mt->interval =
		"Hodges-Lehmann shift of per-run means, one-sided bounds at alpha_metric";
	mt->test =
		"Wasserstein-1 against the floor, and Mann-Whitney U on per-run means";
	ret = stats_rank_test(xb, b->nruns, xc, c->nruns, alpha, &rk);
	if (ret)
		return ret;
	mt->effect_lo = rk.shift_lo;
	mt->effect_hi = rk.shift_hi;
	mt->p_value = up >= down ? rk.p_greater : rk.p_less;
	/* W1 >= |mean shift|: the interval of the per-run mean shift must
	 * clear the floor, not only the pooled distance. */
	if (up > fl && up > down && rk.shift_lo > fl && rk.p_greater <= alpha) {
		mt->verdict = REGRESS_REGRESSION;
		snprintf(mt->reason, sizeof(mt->reason),
			 "W1 %.2f us (%.2f us of it upwards); per-run means rise by at least %.2f us, beyond the %.1f us floor (p=%.3g)",
			 res->body.w1_us, up, rk.shift_lo, fl, rk.p_greater);
	} else if (down > fl && down > up && rk.shift_hi < -fl &&
		   rk.p_less <= alpha) {
		mt->verdict = REGRESS_IMPROVEMENT;
		snprintf(mt->reason, sizeof(mt->reason),
			 "W1 %.2f us (%.2f us of it downwards); per-run means fall by at least %.2f us, beyond the %.1f us floor (p=%.3g)",
			 res->body.w1_us, down, -rk.shift_hi, fl, rk.p_less);
	} else if (res->body.w1_us <= fl && rk.shift_lo >= -fl &&
		   rk.shift_hi <= fl) {
		mt->verdict = REGRESS_NO_CHANGE;
		mt->test =
			"equivalence: W1 and the Hodges-Lehmann bounds of the per-run mean shift within the floor";
		snprintf(mt->reason, sizeof(mt->reason),
			 "W1 %.2f us; per-run mean shift in [%.2f, %.2f] us, inside +-%.1f us",
			 res->body.w1_us, rk.shift_lo, rk.shift_hi, fl);
	} else {
		mt->verdict = REGRESS_INCONCLUSIVE;
		snprintf(mt->reason, sizeof(mt->reason),
			 "W1 %.2f us (up %.2f, down %.2f) against a %.1f us floor; per-run mean shift %.2f in [%.2f, %.2f], p=%.3g",
			 res->body.w1_us, up, down, fl, rk.shift, rk.shift_lo,
			 rk.shift_hi, mt->p_value);
		mt->more_runs = plan_more(&res->seq);
	}
	return 0;
}

/* ------------------------------------------------------------------ */

static int list_metrics(char *p, const char *end,
			const struct regress_result *res,
			enum regress_verdict v)
{
	unsigned int i;
	int any = 0;

	for (i = 0; i < REGRESS_NMETRICS; i++) {
		if (res->metrics[i].verdict != v)
			continue;
		if (p < end)
			p += snprintf(p, (size_t)(end - p), "%s%s",
				      any ? ", " : "", res->metrics[i].name);
		any = 1;
	}
	return any;
}

/*
 * REGRESSION if any metric is shown worse; IMPROVEMENT if one is shown
 * better and none worse (the metrics not settled are named, so the claim
 * is exactly what was shown); NO_CHANGE when every metric is shown inside
 * its floor; INCONCLUSIVE otherwise.
 */
static void overall(struct regress_result *res)
{
	char *p = res->reason, *end = res->reason + sizeof(res->reason);
	int reg = 0, inc = 0, imp = 0;
	enum regress_verdict want;
	unsigned int i;

	if (res->verdict == REGRESS_INCONCLUSIVE && res->reason[0])
		return; /* set by an input check */
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		reg |= res->metrics[i].verdict == REGRESS_REGRESSION;
		inc |= res->metrics[i].verdict == REGRESS_INCONCLUSIVE;
		imp |= res->metrics[i].verdict == REGRESS_IMPROVEMENT;
	}
	want = reg ? REGRESS_REGRESSION :
	       imp ? REGRESS_IMPROVEMENT :
	       inc ? REGRESS_INCONCLUSIVE :
		     REGRESS_NO_CHANGE;
	res->verdict = want;
	*p = '\0';
	list_metrics(p, end, res, want);
	p += strlen(p);
	if (p < end)
		p += snprintf(p, (size_t)(end - p), ": %s",
			      regress_verdict_name(want));
	if (want == REGRESS_IMPROVEMENT && inc && p + 2 < end) {
		p += snprintf(p, (size_t)(end - p), " (not settled: ");
		if (p < end)
			list_metrics(p, end, res, REGRESS_INCONCLUSIVE);
		p += strlen(p);
		if (p < end)
			snprintf(p, (size_t)(end - p), ")");
	}
	res->more_runs = want == REGRESS_INCONCLUSIVE ? plan_more(&res->seq) :
							0;
}

int regress_compare(const struct regress_run *base, unsigned int nbase,
		    const struct regress_run *cand, unsigned int ncand,
		    const struct regress_params *params,
		    struct regress_result *res, struct rtlab_err *err)
{
	struct side b = { 0 }, c = { 0 };
	const struct regress_run *ref;
	double *xb = NULL, *xc = NULL, *xc2 = NULL, level;
	unsigned int i, nmax, nb, nc, have, look, limit;
	struct regress_seq *q = &res->seq;
	uint64_t tracked;
	int ret;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		res->metrics[i].name = metric_names[i];
		res->metrics[i].unit = "us";
		res->metrics[i].verdict = REGRESS_INCONCLUSIVE;
		res->metrics[i].p_value = NAN;
		res->metrics[i].baseline = res->metrics[i].candidate = NAN;
		res->metrics[i].effect = NAN;
		res->metrics[i].effect_lo = res->metrics[i].effect_hi = NAN;
		res->metrics[i].run_base_lo = res->metrics[i].run_base_hi = NAN;
		res->metrics[i].run_cand_lo = res->metrics[i].run_cand_hi = NAN;
		res->metrics[i].interval = "";
		res->metrics[i].test = "";
	}
	if (!params)
		return rtlab_err_set(err, "regress: no parameters");
	ret = check_params(params, err);
	if (ret)
		return ret;
	if ((nbase && !base) || (ncand && !cand))
		return rtlab_err_set(err, "regress: run count without runs");
	ref = nbase ? &base[0] : ncand ? &cand[0] : NULL;
	for (i = 0; i < nbase; i++) {
		ret = check_run(ref, &base[i], "baseline", i, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < ncand; i++) {
		ret = check_run(ref, &cand[i], "candidate", i, err);
		if (ret)
			return ret;
	}

	ret = check_duplicates(base, nbase, cand, ncand, err);
	if (ret)
		return ret;

	/* Which look of the plan the runs reach; it decides on the first
	 * runs_at[look-1] of each side, whatever came after. */
	ret = regress_plan(params, 0, q, err);
	if (ret)
		return ret;
	nb = count_with_samples(base, nbase);
	nc = count_with_samples(cand, ncand);
	q->have_base = nb;
	q->have_cand = nc;
	have = nb < nc ? nb : nc;
	for (look = 0; look < q->looks && q->runs_at[look] <= have; look++)
		;
	ret = regress_plan(params, look, q, err);
	if (ret)
		return ret;
	q->have_base = nb;
	q->have_cand = nc;
	limit = look ? q->runs_at[look - 1] : UINT_MAX;
	q->used_base = look ? limit : 0;
	q->used_cand = look ? limit : 0;
	if (look < q->looks) {
		q->next_runs = q->runs_at[look];
		q->more_base = nb < q->next_runs ? q->next_runs - nb : 0;
		q->more_cand = nc < q->next_runs ? q->next_runs - nc : 0;
	}
	res->params = *params;
	res->alpha_metric = q->alpha_look / REGRESS_NMETRICS;
	res->threshold_us = -ENODATA;
	res->tail_dispersion = NAN;

	ret = side_init(&b, "baseline", base, nbase, limit);
	if (!ret)
		ret = side_init(&c, "candidate", cand, ncand, limit);
	if (ret)
		goto out;
	res->baseline_runs = b.nruns;
	res->candidate_runs = c.nruns;
	res->baseline_empty = b.empty;
	res->candidate_empty = c.empty;
	res->baseline_samples = b.pool.samples;
	res->candidate_samples = c.pool.samples;

	if (!b.nruns || !c.nruns) {
		char why[160];

		snprintf(why, sizeof(why),
			 "no %s run with samples (%u given, %u empty)",
			 !b.nruns ? "baseline" : "candidate",
			 !b.nruns ? nbase : ncand,
			 !b.nruns ? b.empty : c.empty);
		set_inconclusive_all(res, why, plan_more(q));
		goto out;
	}
	if (!look) {
		struct regress_seq q1;

		/* Figures and bounds are shown at the first look's level;
		 * nothing is decided before it. */
		ret = regress_plan(params, 1, &q1, err);
		if (ret)
			goto out;
		res->alpha_metric = q1.alpha_look / REGRESS_NMETRICS;
	}
	for (i = 0; i < 2; i++) {
		struct side *s = i ? &c : &b;

		tracked = s->pool.samples - s->pool.overflows;
		if (!tracked) {
			char why[160];

			snprintf(why, sizeof(why),
				 "%s: all %llu samples are overflows beyond the %u us histogram range; rerun with a larger -h",
				 s->name, (unsigned long long)s->pool.samples,
				 s->pool.nbuckets);
			set_inconclusive_all(res, why, -1);
			goto out;
		}
	}
	{
		char why[256];

		if (samples_differ(base, nbase, cand, ncand, why,
				   sizeof(why))) {
			set_inconclusive_all(res, why, -1);
			goto out;
		}
	}

	level = 1.0 - res->alpha_metric;
	ret = stats_quantile_ci(&b.pool, 0.99, level, &res->baseline_q[0]);
	if (!ret)
		ret = stats_quantile_ci(&b.pool, 0.999, level,
					&res->baseline_q[1]);
	if (!ret)
		ret = stats_quantile_ci(&c.pool, 0.99, level,
					&res->candidate_q[0]);
	if (!ret)
		ret = stats_quantile_ci(&c.pool, 0.999, level,
					&res->candidate_q[1]);
	if (ret)
		goto out;

	nmax = b.nruns > c.nruns ? b.nruns : c.nruns;
	xb = calloc(nmax, sizeof(*xb));
	xc = calloc(nmax, sizeof(*xc));
	xc2 = calloc(nmax, sizeof(*xc2));
	if (!xb || !xc || !xc2) {
		ret = -ENOMEM;
		goto out;
	}
	ret = metric_quantile(res, &b, &c, REGRESS_M_P99, 0.99, xb, xc);
	if (!ret)
		ret = metric_quantile(res, &b, &c, REGRESS_M_P999, 0.999, xb,
				      xc);
	if (!ret)
		ret = metric_max(res, &b, &c, xb, xc);
	if (!ret)
		ret = metric_tail(res, &b, &c, xb, xc, xc2);
	if (!ret)
		ret = metric_w1(res, &b, &c, xb, xc);
	if (ret)
		goto out;
	if (!look) {
		char why[200];

		snprintf(why, sizeof(why),
			 "look 0 of %u: nothing is decided before the first look at %u runs per side; %u more baseline and %u more candidate runs needed",
			 q->looks, q->runs_at[0], q->more_base, q->more_cand);
		set_inconclusive_all(res, why, plan_more(q));
		goto out;
	}
	overall(res);
out:
	if (ret == -ENOMEM)
		rtlab_err_seterr(err, ENOMEM, "regress: out of memory");
	else if (ret)
		rtlab_err_seterr(err, -ret, "regress: internal error %d", ret);
	free(xc2);
	free(xc);
	free(xb);
	side_cleanup(&c);
	side_cleanup(&b);
	return ret;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jqci(const struct stats_qci *q)
{
	/* -1 (HIST_Q_OVERFLOW): among the overflows; null: unbounded */
	return json_pack("{s:f, s:f, s:I, s:I, s:o, s:f, s:b}", "q", q->q,
			 "level", q->level, "est_us", (json_int_t)q->est_us,
			 "lo_us", (json_int_t)q->lo_us, "hi_us",
			 q->hi_us == STATS_UNBOUNDED_US ?
				 json_null() :
				 json_integer(q->hi_us),
			 "coverage", q->coverage, "exact", q->exact);
}

void regress_seq_text(const struct regress_result *r, char *buf, size_t size)
{
	const struct regress_seq *q = &r->seq;
	size_t len = 0;
	unsigned int k;

	if (!size)
		return;
	buf[0] = '\0';
#define ADD(...)                                                       \
	do {                                                           \
		if (len < size)                                        \
			len += (size_t)snprintf(buf + len, size - len, \
						__VA_ARGS__);          \
	} while (0)
	ADD("look %u of %u planned (", q->look, q->looks);
	for (k = 0; k < q->looks; k++)
		ADD("%s%u", k ? ", " : "", q->runs_at[k]);
	ADD(" runs per side), alpha spent %.3g of %g", q->alpha_spent,
	    r->params.alpha);
	if (q->look)
		ADD("; decided on the first %u of %u baseline and %u of %u candidate runs",
		    q->used_base, q->have_base, q->used_cand, q->have_cand);
	if (q->next_runs)
		ADD("; next look at %u runs per side: %u more baseline, %u more candidate",
		    q->next_runs, q->more_base, q->more_cand);
	else
		ADD("; the plan is spent");
#undef ADD
}

static json_t *jseq(const struct regress_result *r)
{
	const struct regress_seq *q = &r->seq;
	json_t *at = json_array();
	char text[400];
	unsigned int k;

	for (k = 0; at && k < q->looks; k++)
		if (json_array_append_new(at, json_integer(q->runs_at[k])))
			break;
	regress_seq_text(r, text, sizeof(text));
	return json_pack(
		"{s:i, s:i, s:o, s:s, s:f, s:f, s:f, s:{s:i, s:i}, s:{s:i, s:i}, s:o, s:o, s:s}",
		"look", (int)q->look, "looks", (int)q->looks, "runs_at",
		at ? at : json_null(), "spending",
		"Lan-DeMets Pocock-type: alpha * ln(1 + (e - 1) * look / looks); looks combined by the union bound",
		"alpha", r->params.alpha, "alpha_look", q->alpha_look,
		"alpha_spent", q->alpha_spent, "runs_available", "baseline",
		(int)q->have_base, "candidate", (int)q->have_cand, "runs_used",
		"baseline", (int)q->used_base, "candidate", (int)q->used_cand,
		"next_look_runs",
		q->next_runs ? json_integer(q->next_runs) : json_null(),
		"more_runs",
		q->next_runs ?
			json_pack("{s:i, s:i}", "baseline", (int)q->more_base,
				  "candidate", (int)q->more_cand) :
			json_null(),
		"text", text);
}

static json_t *jmetric(const struct regress_metric *m)
{
	return json_pack(
		"{s:s, s:s?, s:o, s:o, s:o, s:o, s:o, s:s?, s:o, s:o, s:o, s:s?, s:[o,o], s:[o,o], s:b, s:o, s:s}",
		"verdict", regress_verdict_name(m->verdict), "unit", m->unit,
		"baseline", jnum(m->baseline), "candidate", jnum(m->candidate),
		"effect", jnum(m->effect), "effect_lo", jnum(m->effect_lo),
		"effect_hi", jnum(m->effect_hi), "interval", m->interval,
		"floor", jnum(m->floor), "floor_us", jnum(m->floor_us),
		"p_value", jnum(m->p_value), "test", m->test, "runs_baseline",
		jnum(m->run_base_lo), jnum(m->run_base_hi), "runs_candidate",
		jnum(m->run_cand_lo), jnum(m->run_cand_hi), "censored",
		m->censored, "more_runs",
		m->verdict == REGRESS_INCONCLUSIVE && m->more_runs > 0 ?
			json_integer(m->more_runs) :
			json_null(),
		"reason", m->reason);
}

char *regress_result_json(const struct regress_result *r)
{
	json_t *root = NULL, *metrics;
	char *out = NULL;
	unsigned int i;

	metrics = json_object();
	if (!metrics)
		return NULL;
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		if (json_object_set_new(metrics,
					r->metrics[i].name ?
						r->metrics[i].name :
						metric_names[i],
					jmetric(&r->metrics[i])))
			goto out;
	}
	root = json_pack(
		"{s:s, s:s, s:o, s:{s:f, s:f, s:f, s:f, s:i, s:i}, s:o, s:f, s:{s:i, s:i, s:I, s:o, s:o}, s:{s:i, s:i, s:I, s:o, s:o}, s:{s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}, s:{s:o, s:o, s:o, s:o, s:b}, s:o}",
		"verdict", regress_verdict_name(r->verdict), "reason",
		r->reason, "more_runs",
		r->verdict == REGRESS_INCONCLUSIVE && r->more_runs > 0 ?
			json_integer(r->more_runs) :
			json_null(),
		"params", "floor_abs_us", r->params.floor_abs_us, "floor_rel",
		r->params.floor_rel, "tail_q", r->params.tail_q, "alpha",
		r->params.alpha, "min_runs", (int)r->params.min_runs, "looks",
		(int)r->params.looks, "sequential", jseq(r), "alpha_metric",
		r->alpha_metric, "baseline", "runs", (int)r->baseline_runs,
		"empty_runs", (int)r->baseline_empty, "samples",
		(json_int_t)r->baseline_samples, "p99",
		r->baseline_q[0].n ? jqci(&r->baseline_q[0]) : json_null(),
		"p99.9",
		r->baseline_q[1].n ? jqci(&r->baseline_q[1]) : json_null(),
		"candidate", "runs", (int)r->candidate_runs, "empty_runs",
		(int)r->candidate_empty, "samples",
		(json_int_t)r->candidate_samples, "p99",
		r->candidate_q[0].n ? jqci(&r->candidate_q[0]) : json_null(),
		"p99.9",
		r->candidate_q[1].n ? jqci(&r->candidate_q[1]) : json_null(),
		"tail", "threshold_us",
		r->threshold_us >= HIST_Q_OVERFLOW ?
			json_integer(r->threshold_us) :
			json_null(),
		"k1", (json_int_t)r->tail.k1, "n1", (json_int_t)r->tail.n1,
		"k2", (json_int_t)r->tail.k2, "n2", (json_int_t)r->tail.n2,
		"ratio", jnum(r->tail.ratio), "ratio_lo",
		jnum(r->tail.ratio_lo), "ratio_hi", jnum(r->tail.ratio_hi),
		"p_greater", jnum(r->tail.p_greater), "p_less",
		jnum(r->tail.p_less), "dispersion", jnum(r->tail_dispersion),
		"body", "w1_us", jnum(r->body.w1_us), "w1_up_us",
		jnum(r->body.w1_up_us), "w1_down_us", jnum(r->body.w1_down_us),
		"ks", jnum(r->body.ks), "partial", r->body.partial, "metrics",
		metrics);
	metrics = NULL; /* "o" stole it, even on failure */
	if (!root)
		goto out;
	out = json_dumps(root, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
out:
	json_decref(metrics);
	json_decref(root);
	return out;
}
