/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_REGRESS_H
#define RTLAB_REGRESS_H

/*
 * The regression verdict: baseline runs against candidate runs of one
 * (board, testcase, clock), metric by metric (p99, p99.9, per-run maxima,
 * tail exceedance rate, body shift) and overall.  The run is the unit of
 * replication; the decision rules are in docs/statistics.md.
 */

#include <stdint.h>
#include "error.h"
#include "hist.h"
#include "stats.h"

enum regress_verdict {
	REGRESS_NO_CHANGE,
	REGRESS_REGRESSION,
	REGRESS_IMPROVEMENT,
	REGRESS_INCONCLUSIVE,
};

enum regress_metric_id {
	REGRESS_M_P99,
	REGRESS_M_P999,
	REGRESS_M_MAX,
	REGRESS_M_TAIL,
	REGRESS_M_W1,
	REGRESS_NMETRICS
};

/* One run: one boot, one measurement; a histogram per CPU. */
struct regress_run {
	const char *id;	      /* label for messages (run id), may be NULL */
	const char *board;    /* all three must agree over every run; */
	const char *testcase; /* NULL only matches NULL */
	const char *clock;
	const struct hist *cpus;
	unsigned int ncpus;
};

/* The most samples a run may have over another of the same comparison. */
#define REGRESS_MAX_SAMPLE_RATIO 2u

struct regress_params {
	double floor_abs_us;   /* practical floor, µs (default 5) */
	double floor_rel;      /* practical floor, fraction (default 0.10) */
	double tail_q;	       /* baseline quantile = exceedance threshold
				 * (default 0.999) */
	double alpha;	       /* family-wise over the metrics and over all
				 * looks of the plan (default 0.05) */
	unsigned int min_runs; /* runs per side at the first look (default 5;
				 * a plan that cannot decide there is refused) */
	unsigned int looks;    /* planned looks, at min_runs x 1..looks runs
				 * per side (default 3: 5, 10, 15) */
};

#define REGRESS_MAX_LOOKS 20

/*
 * The group-sequential plan of a comparison and where this one stands in
 * it.  Look k (1..looks) decides on the first runs_at[k-1] runs with
 * samples of each side and spends alpha_look of the family-wise alpha;
 * look 0 means "not enough runs for the first look yet".
 */
struct regress_seq {
	unsigned int look;
	unsigned int looks;
	unsigned int runs_at[REGRESS_MAX_LOOKS];
	double alpha_look;  /* alpha spent at this look (0 at look 0) */
	double alpha_spent; /* alpha spent up to and including this look */
	unsigned int have_base, have_cand; /* runs with samples given */
	unsigned int used_base, used_cand; /* runs the look decided on */
	unsigned int next_runs;		   /* per side at the next look, 0:
					    * the plan is spent */
	unsigned int more_base, more_cand; /* runs missing for the next look */
};

struct regress_metric {
	enum regress_verdict verdict;
	const char *name; /* "p99", "p99.9", "max", "tail_rate", "w1" */
	const char *unit; /* "us" or "ratio" (effect of tail_rate) */
	double baseline;  /* figure of each side (µs; tail: rate) */
	double candidate;
	double effect;	  /* candidate - baseline (µs), tail: ratio */
	double effect_lo; /* interval of the effect (see interval) */
	double effect_hi;
	const char *interval; /* what the interval is */
	double floor;	      /* practical floor applied (µs; tail: ratio) */
	double floor_us;      /* the µs floor (tail: threshold shift) */
	double p_value;	      /* of the deciding test; NAN if none ran */
	const char *test;     /* the test that decided or would decide */
	double run_base_lo, run_base_hi; /* range of per-run figures */
	double run_cand_lo, run_cand_hi;
	int censored;  /* a figure was beyond the histogram range */
	int more_runs; /* INCONCLUSIVE: more runs per side (est.) */
	char reason[400];
};

struct regress_result {
	enum regress_verdict verdict;
	struct regress_params params; /* as applied */
	struct regress_seq seq;	      /* the plan and this look */
	double alpha_metric;	      /* seq.alpha_look / REGRESS_NMETRICS */
	unsigned int baseline_runs, candidate_runs;   /* with samples */
	unsigned int baseline_empty, candidate_empty; /* without */
	uint64_t baseline_samples, candidate_samples;
	struct stats_qci baseline_q[2], candidate_q[2]; /* p99, p99.9 */
	int64_t threshold_us;	/* tail exceedance threshold;
					 * HIST_Q_OVERFLOW, -ENODATA unset */
	struct stats_rate tail; /* at the threshold, both sides; bounds and
				 * p-values of the counts divided by
				 * tail_dispersion */
	double tail_dispersion; /* run-to-run X^2/df of the counts, >= 1 */
	struct stats_dist body; /* baseline -> candidate */
	struct regress_metric metrics[REGRESS_NMETRICS];
	int more_runs; /* INCONCLUSIVE: max over metrics */
	char reason[256];
};

/** regress_params_init() - the defaults: 5 µs, 10 %, p99.9, alpha 0.05,
 *  looks at 5, 10 and 15 runs per side. */
void regress_params_init(struct regress_params *p);

/**
 * regress_plan() - the sequential plan of @p: the run counts per side of
 * its looks and the alpha each spends (Lan-DeMets Pocock-type spending,
 * alpha * ln(1 + (e - 1) t) at information fraction t).  Fills
 * @seq->looks, runs_at[] and, for @look (1..looks), alpha_look and
 * alpha_spent; @look 0 leaves them 0.
 * Return: 0; -EINVAL with @err naming the parameter when a parameter is
 * out of range or the plan cannot decide: at some look the rank test on
 * that many runs cannot reach the alpha the look spends per metric.
 */
int regress_plan(const struct regress_params *p, unsigned int look,
		 struct regress_seq *seq, struct rtlab_err *err) __must_check;

/**
 * regress_compare() - verdicts for @ncand candidate runs against @nbase
 * baseline runs.  Runs without samples are left out (and counted).
 * The look is the last one of the plan both sides have reached (counting
 * runs with samples, in the order given); it decides on the first
 * runs_at[look-1] of them, so recomputing after every upload makes at
 * most @p->looks distinct decisions.
 * Return: 0 with @res filled (its verdict may be INCONCLUSIVE, with a
 * reason, for empty sides, only overflows, runs of which one has more than
 * REGRESS_MAX_SAMPLE_RATIO times the samples of another (empty runs
 * aside), or too few runs for the first look); -EINVAL with @err naming
 * the run and field when runs mix boards, testcases or clocks, a run is
 * given twice, a parameter is out of range or the plan cannot decide
 * (regress_plan()); -ENOMEM.
 * @res holds no pointers to free.
 */
int regress_compare(const struct regress_run *base, unsigned int nbase,
		    const struct regress_run *cand, unsigned int ncand,
		    const struct regress_params *params,
		    struct regress_result *res,
		    struct rtlab_err *err) __must_check;

/** regress_verdict_name() - "REGRESSION", "IMPROVEMENT", "NO_CHANGE",
 *  "INCONCLUSIVE" (the strings the verdicts table of the schema allows). */
const char *regress_verdict_name(enum regress_verdict v);

/** regress_verdict_parse() - inverse of regress_verdict_name().
 *  Return: the verdict (>= 0) or -EINVAL. */
int regress_verdict_parse(const char *s);

/**
 * regress_seq_text() - where @r stands in its plan, for people: "look 1 of
 * 3 planned (5, 10, 15 runs per side), alpha spent 0.0226 of 0.05", with
 * what the next look needs.  Writes at most @size bytes to @buf.
 */
void regress_seq_text(const struct regress_result *r, char *buf, size_t size);

/**
 * regress_result_json() - @r as a JSON object (for the jsonb details
 * column): verdict, params, per-metric figures, intervals, tests.
 * Infinite or NaN figures become null.
 * Return: malloc'd string, caller frees with free(); NULL on -ENOMEM.
 */
char *regress_result_json(const struct regress_result *r);

#endif
