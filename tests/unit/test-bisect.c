// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bisection logic (lib/bisect.c) against a simulated noisy oracle: the
 * next step and the range by hand, the step and ends rules table-driven,
 * then thousands of seeded bisections whose verdicts are noisy
 * (INCONCLUSIVE at random, significance growing with the looks), with
 * kernels that do not boot and, in one family, false significant verdicts
 * at the configured alpha.  A wrong culprit is never named when every
 * significant verdict is right, stays within the alpha bound when they are
 * wrong at alpha, and steps that cannot be decided end in a range that
 * holds the culprit.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "check.h"

static void test_next_and_range(void)
{
	struct rtlab_err err = { "" };
	struct bisect b;
	size_t lo, hi, pos;

	CHECK_INT(bisect_init(&b, 1, &err), -EINVAL, "one kernel refused");
	CHECK(strstr(err.msg, "good and a bad"), "... said why (%s)", err.msg);
	CHECK_INT(bisect_init(&b, 2, &err), 0, "two kernels");
	CHECK_INT(bisect_next(&b), 0, "... nothing to test");
	CHECK(bisect_culprit(&b, &pos) && pos == 1, "... the bad one is it");
	bisect_cleanup(&b);

	CHECK_INT(bisect_init(&b, 9, &err), 0, "nine kernels");
	CHECK_INT(bisect_next(&b), 4, "... the middle first");
	CHECK_INT(bisect_mark(&b, 4, BISECT_SKIP, &err), 0, "4 skipped");
	CHECK_INT(bisect_next(&b), 3, "... its lower neighbour next");
	CHECK_INT(bisect_mark(&b, 3, BISECT_SKIP, &err), 0, "3 skipped");
	CHECK_INT(bisect_next(&b), 5, "... then the upper one");
	CHECK_INT(bisect_mark(&b, 5, BISECT_BAD, &err), 0, "5 bad");
	bisect_range(&b, &lo, &hi);
	CHECK(lo == 0 && hi == 5, "range 0..5 (%zu..%zu)", lo, hi);
	CHECK_INT(bisect_mark(&b, 6, BISECT_GOOD, &err), -EINVAL,
		  "a mark outside the range refused");
	CHECK(strstr(err.msg, "position 6"), "... named (%s)", err.msg);
	CHECK_INT(bisect_mark(&b, 3, BISECT_GOOD, &err), -EINVAL,
		  "a second mark refused");
	CHECK_INT(bisect_next(&b), 2, "2 next");
	CHECK_INT(bisect_mark(&b, 2, BISECT_GOOD, &err), 0, "2 good");
	CHECK_INT(bisect_next(&b), 0, "nothing left: 3 and 4 skipped");
	CHECK(!bisect_culprit(&b, &pos), "... no single culprit");
	bisect_range(&b, &lo, &hi);
	CHECK(lo == 2 && hi == 5, "... the range 2..5 (%zu..%zu)", lo, hi);
	bisect_cleanup(&b);
	bisect_cleanup(&b);

	CHECK_INT(bisect_mark_parse("skip"), BISECT_SKIP, "mark names parse");
	CHECK_INT(bisect_mark_parse("maybe"), -EINVAL, "... others do not");
}

static void test_rules(void)
{
	static const struct {
		enum regress_verdict g, b;
		bool budget;
		enum bisect_step want;
	} t[] = {
		{ REGRESS_NO_CHANGE, REGRESS_IMPROVEMENT, 1, BISECT_STEP_GOOD },
		{ REGRESS_INCONCLUSIVE, REGRESS_IMPROVEMENT, 1,
		  BISECT_STEP_GOOD },
		{ REGRESS_IMPROVEMENT, REGRESS_IMPROVEMENT, 0,
		  BISECT_STEP_GOOD },
		{ REGRESS_REGRESSION, REGRESS_NO_CHANGE, 1, BISECT_STEP_BAD },
		{ REGRESS_REGRESSION, REGRESS_INCONCLUSIVE, 0,
		  BISECT_STEP_BAD },
		{ REGRESS_REGRESSION, REGRESS_REGRESSION, 1, BISECT_STEP_BAD },
		{ REGRESS_REGRESSION, REGRESS_IMPROVEMENT, 1,
		  BISECT_STEP_BETWEEN },
		{ REGRESS_NO_CHANGE, REGRESS_NO_CHANGE, 1, BISECT_STEP_MORE },
		{ REGRESS_INCONCLUSIVE, REGRESS_INCONCLUSIVE, 1,
		  BISECT_STEP_MORE },
		{ REGRESS_INCONCLUSIVE, REGRESS_INCONCLUSIVE, 0,
		  BISECT_STEP_SKIP },
		{ REGRESS_IMPROVEMENT, REGRESS_NO_CHANGE, 0, BISECT_STEP_SKIP },
		{ REGRESS_NO_CHANGE, REGRESS_REGRESSION, 0, BISECT_STEP_SKIP },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK(bisect_step_decide(t[i].g, t[i].b, t[i].budget) ==
			      t[i].want,
		      "step vs good %s, vs bad %s, %s budget: %s",
		      regress_verdict_name(t[i].g),
		      regress_verdict_name(t[i].b), t[i].budget ? "with" : "no",
		      bisect_step_name(t[i].want));
	CHECK(bisect_ends_decide(REGRESS_REGRESSION, 1, 3) ==
		      BISECT_ENDS_REPRODUCED,
	      "ends: REGRESSION reproduces");
	CHECK(bisect_ends_decide(REGRESS_INCONCLUSIVE, 2, 3) ==
		      BISECT_ENDS_MORE,
	      "ends: INCONCLUSIVE with looks left: more runs");
	CHECK(bisect_ends_decide(REGRESS_INCONCLUSIVE, 3, 3) ==
		      BISECT_ENDS_NO_REGRESSION,
	      "ends: INCONCLUSIVE at the last look: does not reproduce");
	CHECK(bisect_ends_decide(REGRESS_NO_CHANGE, 1, 3) ==
		      BISECT_ENDS_NO_REGRESSION,
	      "ends: NO_CHANGE: does not reproduce");
	CHECK(bisect_ends_decide(REGRESS_IMPROVEMENT, 1, 3) ==
		      BISECT_ENDS_REVERSED,
	      "ends: IMPROVEMENT: reversed");
}

/* -- the simulated oracle ------------------------------------------------- */

struct oracle {
	uint64_t s;	     /* xorshift state */
	size_t culprit;	     /* first regressed position */
	size_t regressed_to; /* positions >= this are fully regressed... */
	const bool *noboot;  /* positions that never measure */
	double power[4];     /* P(a true difference is shown) at look k */
	double alpha;	     /* P(a false significant verdict) per look */
	double no_change;    /* P(NO_CHANGE shown when there is none) */
	bool flip_ends;	     /* the ends report IMPROVEMENT */
	bool same_ends;	     /* no regression between the ends at all */
	size_t undecidable;  /* nonzero: the bad end's position; verdicts of
			      * every other candidate stay INCONCLUSIVE */
	unsigned int calls;
};

static double rnd(struct oracle *o)
{
	o->s ^= o->s << 13;
	o->s ^= o->s >> 7;
	o->s ^= o->s << 17;
	return (double)(o->s >> 11) / 9007199254740992.0;
}

static int oracle(void *ctx, size_t base, size_t cand, unsigned int look,
		  enum regress_verdict *v)
{
	struct oracle *o = ctx;
	int tb, tc;
	double u = rnd(o), p;

	o->calls++;
	if ((o->noboot && (o->noboot[cand] || o->noboot[base])))
		return -ENOEXEC;
	tb = o->same_ends ? 0 : base >= o->culprit;
	tc = o->same_ends ? 0 : cand >= o->culprit;
	if (o->flip_ends) {
		tb = !tb;
		tc = !tc;
	}
	p = o->power[look > 3 ? 3 : look - 1];
	if (o->undecidable && cand != o->undecidable) {
		*v = REGRESS_INCONCLUSIVE;
		return 0;
	}
	if (tc != tb) {
		if (u < p)
			*v = tc > tb ? REGRESS_REGRESSION : REGRESS_IMPROVEMENT;
		else if (u < p + o->alpha)
			*v = tc > tb ? REGRESS_IMPROVEMENT : REGRESS_REGRESSION;
		else
			*v = REGRESS_INCONCLUSIVE;
		return 0;
	}
	if (u < o->alpha / 2)
		*v = REGRESS_REGRESSION;
	else if (u < o->alpha)
		*v = REGRESS_IMPROVEMENT;
	else if (u < o->alpha + o->no_change * p)
		*v = REGRESS_NO_CHANGE;
	else
		*v = REGRESS_INCONCLUSIVE;
	return 0;
}

#define REPS 20000
#define LOOKS 3

static void test_noisy_right(void)
{
	struct rtlab_err err = { "" };
	struct bisect_outcome out;
	unsigned int r, wrong = 0, found = 0, ranged = 0, outside = 0;
	unsigned int skips = 0, noboots = 0;
	bool noboot[16];

	for (r = 0; r < REPS; r++) {
		struct oracle o = { .s = 0x9e3779b97f4a7c15ull ^ (r + 1) };
		size_t n = 3 + (size_t)(rnd(&o) * 13), i;

		o.culprit = 1 + (size_t)(rnd(&o) * (double)(n - 1));
		o.power[0] = 0.2 + rnd(&o) * 0.5;
		o.power[1] = o.power[0] + 0.2;
		o.power[2] = o.power[1] + 0.1;
		o.power[3] = o.power[2];
		o.no_change = rnd(&o);
		memset(noboot, 0, sizeof(noboot));
		for (i = 1; i + 1 < n; i++)
			noboots += noboot[i] = rnd(&o) < 0.15;
		o.noboot = noboot;
		if (bisect_simulate(n, LOOKS, oracle, &o, &out, &err)) {
			CHECK(0, "seed %u: %s", r, err.msg);
			return;
		}
		if (out.ends != BISECT_ENDS_REPRODUCED)
			continue; /* never reproduced: nothing named */
		skips += out.skipped;
		if (out.found) {
			found++;
			wrong += out.hi != o.culprit;
		} else {
			ranged++;
		}
		outside += o.culprit <= out.lo || o.culprit > out.hi;
	}
	CHECK(wrong == 0,
	      "%u noisy bisections (every significant verdict right, %u "
	      "kernels that do not boot, %u steps skipped): %u culprits "
	      "named, %u wrong",
	      REPS, noboots, skips, found, wrong);
	CHECK(outside == 0 && ranged > 0,
	      "... %u ended with a range, the culprit inside every one",
	      ranged);
}

static void test_noisy_alpha(void)
{
	struct rtlab_err err = { "" };
	struct bisect_outcome out;
	unsigned int r, wrong = 0, found = 0, steps = 0;
	const double alpha = 0.05 / LOOKS; /* per look, as spent */
	double bound;

	for (r = 0; r < REPS; r++) {
		struct oracle o = { .s = 0xd1b54a32d192ed03ull ^ (r + 1) };
		size_t n = 3 + (size_t)(rnd(&o) * 13);

		o.culprit = 1 + (size_t)(rnd(&o) * (double)(n - 1));
		o.power[0] = 0.5;
		o.power[1] = 0.8;
		o.power[2] = o.power[3] = 0.95;
		o.alpha = alpha;
		o.no_change = 0.5;
		if (bisect_simulate(n, LOOKS, oracle, &o, &out, &err)) {
			CHECK(0, "seed %u: %s", r, err.msg);
			return;
		}
		steps += out.steps;
		if (out.found) {
			found++;
			wrong += out.hi != o.culprit;
		}
	}
	/* A step goes wrong only through a false significant verdict:
	 * at most 2 comparisons x LOOKS looks x alpha per step. */
	bound = 2.0 * LOOKS * alpha * steps;
	CHECK(found > REPS / 2 && wrong <= bound,
	      "%u bisections with false verdicts at alpha %.4f per look: %u "
	      "culprits named, %u wrong (bound %.0f over %u steps)",
	      REPS, alpha, found, wrong, bound, steps);
}

static void test_undecidable(void)
{
	struct rtlab_err err = { "" };
	struct bisect_outcome out;
	struct oracle o = { .s = 42, .culprit = 5 };
	bool noboot[10] = { 0 };
	size_t i;

	/* Steps never settle: every one takes the whole budget, skipped. */
	o.power[0] = o.power[1] = o.power[2] = o.power[3] = 1;
	o.undecidable = 9;
	CHECK_INT(bisect_simulate(10, LOOKS, oracle, &o, &out, &err), 0,
		  "steps that never settle");
	CHECK(out.ends == BISECT_ENDS_REPRODUCED && !out.found && out.lo == 0 &&
		      out.hi == 9 && out.steps == 8 && out.skipped == 8 &&
		      out.looks == 1 + 8 * LOOKS,
	      "... each skipped after its budget of %d looks; the range "
	      "stays 0..9 (%zu..%zu, %u looks)",
	      LOOKS, out.lo, out.hi, out.looks);
	o.undecidable = 0;
	o.power[0] = o.power[1] = o.power[2] = o.power[3] = 0;
	o.s = 7;
	CHECK_INT(bisect_simulate(10, LOOKS, oracle, &o, &out, &err), 0,
		  "nothing ever significant");
	CHECK(out.ends == BISECT_ENDS_NO_REGRESSION && out.steps == 0 &&
		      out.looks == LOOKS,
	      "... the ends do not reproduce within the plan: no step taken "
	      "(%u looks)",
	      out.looks);

	/* Every step fails to boot. */
	for (i = 1; i < 9; i++)
		noboot[i] = true;
	o.noboot = noboot;
	o.power[0] = o.power[1] = o.power[2] = o.power[3] = 1;
	CHECK_INT(bisect_simulate(10, LOOKS, oracle, &o, &out, &err), 0,
		  "every step fails to boot");
	CHECK(!out.found && out.lo == 0 && out.hi == 9 && out.steps == 8 &&
		      out.skipped == 8,
	      "... all 8 skipped, the range is the whole 0..9 (%zu..%zu)",
	      out.lo, out.hi);

	/* The culprit's neighbours do not boot: a range of three. */
	memset(noboot, 0, sizeof(noboot));
	noboot[4] = noboot[5] = true;
	CHECK_INT(bisect_simulate(10, LOOKS, oracle, &o, &out, &err), 0,
		  "the culprit and its predecessor do not boot");
	CHECK(!out.found && out.lo == 3 && out.hi == 6,
	      "... the smallest range that can be isolated: 3..6 (%zu..%zu)",
	      out.lo, out.hi);

	o.noboot = NULL;
	o.flip_ends = true;
	CHECK_INT(bisect_simulate(10, LOOKS, oracle, &o, &out, &err), 0,
		  "good and bad reversed");
	CHECK(out.ends == BISECT_ENDS_REVERSED && out.steps == 0,
	      "... said so, no step taken");
	o.flip_ends = false;
	o.same_ends = true;
	o.no_change = 1;
	CHECK_INT(bisect_simulate(10, LOOKS, oracle, &o, &out, &err), 0,
		  "a bad kernel that is not");
	CHECK(out.ends == BISECT_ENDS_NO_REGRESSION && out.steps == 0 &&
		      out.looks == 1,
	      "... does not reproduce: stopped after the ends' first look");
	CHECK_INT(bisect_simulate(10, 0, oracle, &o, &out, &err), -EINVAL,
		  "no looks refused");
}

int main(void)
{
	test_next_and_range();
	test_rules();
	test_noisy_right();
	test_noisy_alpha();
	test_undecidable();
	return check_exit();
}
