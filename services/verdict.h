/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_VERDICT_H
#define RTLAB_VERDICT_H

/*
 * Verdicts of a series: a candidate kernel's complete runs against its
 * baseline's, on one board, testcase and clock, through regress_compare().
 * Computed after every stored run whose series has a baseline (and stored),
 * on demand from the database (rtlab compare, GET /api/v1/compare) and
 * offline from result bundles.  All three produce one JSON shape:
 *
 *   { "board", "testcase", "tree", "clock", "verdict", "reason",
 *     "baseline":  { "kernel_id", "release", "version", "tree", "source",
 *                    "runs": [run ids, or uuids offline] },
 *     "candidate": { ... the same but "source" },
 *     "details":   regress_result_json() plus "clock", "tree",
 *                  "baseline_source" and, when the inputs were unusable,
 *                  "error" }
 *
 * and a stored verdict (db_verdict_get()) adds "id" and "created_at".
 * docs/verdicts.md describes the rules.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"
#include "regress.h"

struct run_series;

/**
 * verdict_params_parse() - the regression parameters of a testcase: the
 * defaults of regress_params_init(), overridden by the definition's
 * "verdict" object {floor_us (alias floor_abs_us), floor_rel, tail_q,
 * alpha, min_runs}.
 * @def: the testcase definition (a JSON object; NULL or no "verdict" key
 *	gives the defaults).
 * @testcase: its name, for messages.
 * Return: 0 with @p set; -EINVAL with @err naming the testcase and key when
 * "verdict" is not an object, a key is unknown, a value is not a number
 * in its range (floor_us >= 0, 0 <= floor_rel < 10, 0.5 <= tail_q < 1,
 * 0 < alpha <= 0.5, 2 <= min_runs <= 1000 and whole) or floor_us and
 * floor_abs_us disagree; @p then holds the defaults.
 */
int verdict_params_parse(json_t *def, const char *testcase,
			 struct regress_params *p,
			 struct rtlab_err *err) __must_check;

/* Which comparison verdict_compute() makes. */
struct verdict_pair {
	int board_id, testcase_id;
	int base_kernel_id, cand_kernel_id;
	const char *clock;	     /* NULL: the candidate's only clock */
	const char *base_runs;	     /* run ids "{1,2}" to compare, or NULL */
	const char *cand_runs;	     /* for every complete run of the kernel */
	const char *baseline_source; /* "pinned", "default", "requested" */
};

/**
 * verdict_compute() - compare the candidate kernel's complete runs of
 * @vp->clock on (board, testcase) with the baseline kernel's, with the
 * testcase's parameters.
 * Return: 0 with *@out (the shape above, caller json_decref()s); the
 *	verdict may be INCONCLUSIVE: too few runs, a baseline without runs,
 *	or invalid parameters in the testcase definition ("error" in details
 *	says which);
 *	-EINVAL when the sides cannot be compared: their runs use different
 *	clocks, or the candidate has runs of several clocks and @vp->clock
 *	is NULL; -ENOENT when the candidate has no complete run there; -EIO,
 *	-ENOMEM.  @err says which.
 */
int verdict_compute(PGconn *conn, const struct verdict_pair *vp, json_t **out,
		    struct rtlab_err *err) __must_check;

/**
 * verdict_store() - store @v (from verdict_compute() or
 * verdict_error_json()) with db_verdict_store().
 * Return: 0 with *@id set (and *@replaced when an earlier verdict of the
 * same pair was replaced; may be NULL), or a negative errno.
 */
int verdict_store(PGconn *conn, const struct verdict_pair *vp, json_t *v,
		  int64_t *id, bool *replaced,
		  struct rtlab_err *err) __must_check;

/**
 * verdict_after_ingest() - called once run @run_id is committed, with its
 * series @rs when the store read it (db_run_series(); NULL or a board_id
 * of 0: read here).  When the
 * run is complete and its series (board, testcase, the kernel's tree) has
 * a baseline (pinned, else the default) other than its own kernel,
 * compute the verdict of its kernel on its clock and store it; sides that
 * cannot be compared give a stored INCONCLUSIVE verdict saying why.
 * Everything it does or declines is logged; it never fails its caller.
 * Return: the verdict id (> 0), 0 when no verdict was due, or a negative
 * errno (logged).
 */
int64_t verdict_after_ingest(PGconn *conn, int64_t run_id,
			     const struct run_series *rs);

/**
 * verdict_compare_bundles() - the verdict of result bundle files @cand
 * against @base, offline (no database): complete runs only, histograms
 * from cyclictest.json (or cyclictest.hist), parameters from the first
 * candidate's testcase.definition.  Runs are named by their uuids.
 * Return: 0 with *@out (the shape above, caller json_decref()s); -EINVAL
 * with @err naming the file and what is wrong (unreadable, not complete,
 * boards, testcases or clocks differ); -ENOMEM.
 */
int verdict_compare_bundles(const char *const *base, size_t nbase,
			    const char *const *cand, size_t ncand, json_t **out,
			    struct rtlab_err *err) __must_check;

/**
 * verdict_print() - @v (any of the shapes above) for people: the verdict
 * with its reason, the two sides, then one line per metric: baseline ->
 * candidate, effect and its interval, the deciding test and p-value, and
 * the metric's reason; an INCONCLUSIVE one says how many more runs per
 * side would likely settle it.
 */
void verdict_print(FILE *f, json_t *v);

#endif
