// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bisection logic, pure: the range, the next step, how a step and the ends
 * are decided from the regression engine's verdicts.  The lab
 * (services/bisect.c) and the simulations share every rule here.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"

int bisect_init(struct bisect *b, size_t n, struct rtlab_err *err)
{
	memset(b, 0, sizeof(*b));
	if (n < 2)
		return rtlab_err_set(err,
				     "a bisection needs a good and a bad "
				     "kernel: %zu kernel(s) in the range",
				     n);
	b->marks = calloc(n, sizeof(*b->marks));
	if (!b->marks)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	b->n = n;
	b->marks[0] = BISECT_GOOD;
	b->marks[n - 1] = BISECT_BAD;
	return 0;
}

void bisect_cleanup(struct bisect *b)
{
	if (!b)
		return;
	free(b->marks);
	b->marks = NULL;
	b->n = 0;
}

void bisect_range(const struct bisect *b, size_t *lo, size_t *hi)
{
	size_t i, l = 0, h;

	for (i = 0; i < b->n; i++)
		if (b->marks[i] == BISECT_GOOD)
			l = i;
	h = b->n - 1;
	for (i = l + 1; i < b->n; i++)
		if (b->marks[i] == BISECT_BAD) {
			h = i;
			break;
		}
	*lo = l;
	*hi = h;
}

int bisect_mark(struct bisect *b, size_t i, enum bisect_mark m,
		struct rtlab_err *err)
{
	size_t lo, hi;

	bisect_range(b, &lo, &hi);
	if (i <= lo || i >= hi)
		return rtlab_err_set(err,
				     "position %zu is outside the range "
				     "%zu..%zu still to bisect",
				     i, lo, hi);
	if (b->marks[i] != BISECT_UNTESTED)
		return rtlab_err_set(err, "position %zu is already %s", i,
				     bisect_mark_name(b->marks[i]));
	if (m == BISECT_UNTESTED || m > BISECT_SKIP)
		return rtlab_err_set(err, "position %zu: not a mark", i);
	b->marks[i] = m;
	return 0;
}

size_t bisect_next(const struct bisect *b)
{
	size_t lo, hi, mid, d, best = 0;

	bisect_range(b, &lo, &hi);
	if (hi <= lo + 1)
		return 0;
	mid = lo + (hi - lo) / 2;
	/* Outward from the middle, lower side first. */
	for (d = 0; d < hi - lo; d++) {
		if (mid >= d && mid - d > lo &&
		    b->marks[mid - d] == BISECT_UNTESTED) {
			best = mid - d;
			break;
		}
		if (d && mid + d < hi && b->marks[mid + d] == BISECT_UNTESTED) {
			best = mid + d;
			break;
		}
	}
	return best;
}

bool bisect_culprit(const struct bisect *b, size_t *pos)
{
	size_t lo, hi;

	bisect_range(b, &lo, &hi);
	if (hi != lo + 1)
		return false;
	*pos = hi;
	return true;
}

static const char *const mark_names[] = {
	[BISECT_UNTESTED] = "untested",
	[BISECT_GOOD] = "good",
	[BISECT_BAD] = "bad",
	[BISECT_SKIP] = "skip",
};

const char *bisect_mark_name(enum bisect_mark m)
{
	return m <= BISECT_SKIP ? mark_names[m] : "?";
}

int bisect_mark_parse(const char *s)
{
	int i;

	for (i = 0; s && i <= BISECT_SKIP; i++)
		if (!strcmp(s, mark_names[i]))
			return i;
	return -EINVAL;
}

enum bisect_ends bisect_ends_decide(enum regress_verdict v, unsigned int look,
				    unsigned int looks)
{
	switch (v) {
	case REGRESS_REGRESSION:
		return BISECT_ENDS_REPRODUCED;
	case REGRESS_IMPROVEMENT:
		return BISECT_ENDS_REVERSED;
	case REGRESS_NO_CHANGE:
		return BISECT_ENDS_NO_REGRESSION;
	default:
		return look < looks ? BISECT_ENDS_MORE :
				      BISECT_ENDS_NO_REGRESSION;
	}
}

enum bisect_step bisect_step_decide(enum regress_verdict vs_good,
				    enum regress_verdict vs_bad,
				    bool budget_left)
{
	bool worse = vs_good == REGRESS_REGRESSION;
	bool better = vs_bad == REGRESS_IMPROVEMENT;

	if (worse && better)
		return BISECT_STEP_BETWEEN;
	/* The step better than good, or worse than bad, says nothing
	 * against its side: it still looks like that side's end. */
	if (better && vs_good != REGRESS_REGRESSION)
		return BISECT_STEP_GOOD;
	if (worse && vs_bad != REGRESS_IMPROVEMENT)
		return BISECT_STEP_BAD;
	return budget_left ? BISECT_STEP_MORE : BISECT_STEP_SKIP;
}

const char *bisect_step_name(enum bisect_step s)
{
	static const char *const names[] = {
		[BISECT_STEP_GOOD] = "good",	   [BISECT_STEP_BAD] = "bad",
		[BISECT_STEP_MORE] = "more",	   [BISECT_STEP_SKIP] = "skip",
		[BISECT_STEP_BETWEEN] = "between",
	};

	return s <= BISECT_STEP_BETWEEN ? names[s] : "?";
}

/* One step (or the ends when @i is n-1 against 0) to its decision. */
static enum bisect_step simulate_step(size_t n, size_t i, unsigned int looks,
				      bisect_oracle oracle, void *ctx,
				      unsigned int *nlooks)
{
	enum regress_verdict vg, vb;
	enum bisect_step s;
	unsigned int k;

	for (k = 1; k <= looks; k++) {
		(*nlooks)++;
		if (oracle(ctx, 0, i, k, &vg) || oracle(ctx, n - 1, i, k, &vb))
			return BISECT_STEP_SKIP;
		s = bisect_step_decide(vg, vb, k < looks);
		if (s != BISECT_STEP_MORE)
			return s;
	}
	return BISECT_STEP_SKIP;
}

int bisect_simulate(size_t n, unsigned int looks, bisect_oracle oracle,
		    void *ctx, struct bisect_outcome *out,
		    struct rtlab_err *err)
{
	enum regress_verdict v = REGRESS_INCONCLUSIVE;
	struct bisect b;
	enum bisect_ends e = BISECT_ENDS_MORE;
	enum bisect_step s;
	unsigned int k;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!looks)
		return rtlab_err_set(err, "a bisection needs at least one "
					  "look per step");
	ret = bisect_init(&b, n, err);
	if (ret)
		return ret;
	for (k = 1; k <= looks && e == BISECT_ENDS_MORE; k++) {
		out->looks++;
		if (oracle(ctx, 0, n - 1, k, &v))
			v = REGRESS_INCONCLUSIVE;
		e = bisect_ends_decide(v, k, looks);
	}
	out->ends = e;
	while (e == BISECT_ENDS_REPRODUCED && (i = bisect_next(&b))) {
		s = simulate_step(n, i, looks, oracle, ctx, &out->looks);
		out->steps++;
		out->skipped += s == BISECT_STEP_SKIP ||
				s == BISECT_STEP_BETWEEN;
		ret = bisect_mark(&b, i,
				  s == BISECT_STEP_GOOD ? BISECT_GOOD :
				  s == BISECT_STEP_BAD	? BISECT_BAD :
							  BISECT_SKIP,
				  err);
		if (ret)
			break;
	}
	bisect_range(&b, &out->lo, &out->hi);
	out->found = e == BISECT_ENDS_REPRODUCED && out->hi == out->lo + 1;
	bisect_cleanup(&b);
	return ret;
}
