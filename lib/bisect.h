/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BISECT_H
#define RTLAB_BISECT_H

/*
 * Bisection of a latency regression over an ordered range of kernels:
 * position 0 is the good end, position n-1 the bad end, and "the kernel at
 * position i" is whatever the range holds there (a Debian package version
 * of a series, later a git commit).  This module is the pure logic: which
 * position to test next, how a step is decided from two verdicts of the
 * regression engine (the step against the good end and against the bad
 * end), when the ends show the regression at all, and what the result is.
 * No database, no board; services/bisect.c drives it with jobs, the unit
 * tests and bench/bisect with a simulated oracle (bisect_simulate()).
 * docs/bisect.md describes the rules.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "regress.h"

/* What a position of the range is known to be. */
enum bisect_mark {
	BISECT_UNTESTED,
	BISECT_GOOD, /* like the good end: not yet regressed */
	BISECT_BAD,  /* like the bad end: regressed */
	BISECT_SKIP, /* could not be decided: did not build or boot, or the
		      * verdicts did not settle within the step's budget */
};

/* The state of a bisection over @n positions; 0 good, n-1 bad. */
struct bisect {
	size_t n;
	enum bisect_mark *marks; /* n entries */
};

/**
 * bisect_init() - a bisection over @n >= 2 positions, the ends marked.
 * Return: 0; -EINVAL when @n < 2 (@err says so); -ENOMEM.  Release with
 * bisect_cleanup().
 */
int bisect_init(struct bisect *b, size_t n, struct rtlab_err *err) __must_check;

/** bisect_cleanup() - free what bisect_init() allocated; safe twice. */
void bisect_cleanup(struct bisect *b);

/**
 * bisect_mark() - record what position @i was found to be.  Only a
 * position strictly inside the current range (bisect_range()) may be
 * marked, and only once.
 * Return: 0; -EINVAL with @err naming the position otherwise.
 */
int bisect_mark(struct bisect *b, size_t i, enum bisect_mark m,
		struct rtlab_err *err) __must_check;

/**
 * bisect_range() - the range still holding the culprit: *@lo the last
 * position known good, *@hi the first known bad after it.  The culprit
 * is one of lo+1 .. hi.
 */
void bisect_range(const struct bisect *b, size_t *lo, size_t *hi);

/**
 * bisect_next() - the position to test next: among the untested ones
 * strictly inside the range, the one nearest its middle (the lower of two
 * equally near), so skipped positions are stepped around as git bisect
 * does.
 * Return: the position (> 0), or 0 when nothing is left to test: the
 * range is down to one kernel (the culprit, bisect_culprit()), or every
 * position inside it is skipped (the smallest range that can be isolated).
 */
size_t bisect_next(const struct bisect *b);

/**
 * bisect_culprit() - when the range is down to one kernel (hi == lo + 1):
 * true with *@pos = hi.  False while steps are left or when skipped
 * positions keep the range wider.
 */
bool bisect_culprit(const struct bisect *b, size_t *pos);

/**
 * bisect_mark_name() - "untested", "good", "bad", "skip".
 * bisect_mark_parse() - its inverse: the mark, or -EINVAL.
 */
const char *bisect_mark_name(enum bisect_mark m);
int bisect_mark_parse(const char *s);

/* What the ends' comparison (the bad end against the good end) shows. */
enum bisect_ends {
	BISECT_ENDS_REPRODUCED,	   /* REGRESSION: bisect */
	BISECT_ENDS_MORE,	   /* INCONCLUSIVE with looks left: more runs */
	BISECT_ENDS_NO_REGRESSION, /* NO_CHANGE, or INCONCLUSIVE at the
				    * last look: the "bad" one does not
				    * reproduce: stop */
	BISECT_ENDS_REVERSED,	   /* IMPROVEMENT: good and bad are swapped */
};

/**
 * bisect_ends_decide() - what to do after the ends' verdict @v (candidate
 * the bad end, baseline the good end) at look @look of @looks planned.
 */
enum bisect_ends bisect_ends_decide(enum regress_verdict v, unsigned int look,
				    unsigned int looks);

/* A step's outcome after one look. */
enum bisect_step {
	BISECT_STEP_GOOD,
	BISECT_STEP_BAD,
	BISECT_STEP_MORE,    /* not decided: more runs */
	BISECT_STEP_SKIP,    /* not decided and the budget is spent */
	BISECT_STEP_BETWEEN, /* worse than good AND better than bad: a part
			      * of the regression only; skipped, said so */
};

/**
 * bisect_step_decide() - a step from its two verdicts at one look:
 * @vs_good: the step (candidate) against the good end (baseline);
 * @vs_bad: the step (candidate) against the bad end (baseline);
 * @budget_left: whether another look is allowed.
 *
 * GOOD when the step is shown better than the bad end (IMPROVEMENT) and
 * not shown worse than the good end; BAD when it is shown worse than the
 * good end (REGRESSION) and not shown better than the bad end; BETWEEN
 * when both are shown; else MORE, or SKIP without budget.  Every decision
 * rests on a significant verdict of the engine at its alpha, and none is
 * taken against a significant verdict pointing the other way.
 */
enum bisect_step bisect_step_decide(enum regress_verdict vs_good,
				    enum regress_verdict vs_bad,
				    bool budget_left);

/** bisect_step_name() - "good", "bad", "more", "skip", "between". */
const char *bisect_step_name(enum bisect_step s);

/* -- a whole bisection against an oracle (simulation, benchmarks) -------- */

/*
 * The oracle answers the verdict of @cand against @base at look @look
 * (1-based) of the plan.  Return 0 with *@v set, or -ENOEXEC when @cand
 * (or @base) cannot be measured at all (does not build or boot).  It also
 * counts the runs it needed, if it likes: bisect_simulate() does not.
 */
typedef int (*bisect_oracle)(void *ctx, size_t base, size_t cand,
			     unsigned int look, enum regress_verdict *v);

struct bisect_outcome {
	enum bisect_ends ends; /* REPRODUCED, NO_REGRESSION or REVERSED */
	size_t lo, hi;	       /* the range at the end (REPRODUCED) */
	bool found;	       /* hi == lo + 1: hi is the culprit */
	unsigned int steps;    /* positions tested */
	unsigned int skipped;  /* of them, skipped */
	unsigned int looks;    /* looks taken, ends included */
};

/**
 * bisect_simulate() - run a bisection over @n positions to its end with
 * @oracle, at most @looks looks per comparison (the ends, and each step:
 * its budget).  The same rules as the lab's (bisect_ends_decide(),
 * bisect_step_decide(), bisect_next()).
 * Return: 0 with @out filled, or -EINVAL (n < 2, looks 0) / -ENOMEM with
 * @err set.
 */
int bisect_simulate(size_t n, unsigned int looks, bisect_oracle oracle,
		    void *ctx, struct bisect_outcome *out,
		    struct rtlab_err *err) __must_check;

#endif
