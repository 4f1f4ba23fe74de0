/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CALIBRATE_H
#define RTLAB_CALIBRATE_H

/*
 * The lab proves itself: from A/A comparisons (the same kernel and
 * testcase on both sides) and comparisons of injected runs against clean
 * ones, a board's measured false-alarm rate and its detection rate per
 * injected spin size, with exact (Clopper-Pearson) intervals; the result as
 * JSON, printed for people and stored in boards.calibration.
 * docs/calibration.md describes the procedure and the JSON.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/* One comparison: a verdict_compare_bundles() result and what it was. */
struct calib_cmp {
	bool injected;	      /* false: an A/A comparison */
	unsigned int spin_us; /* injected only */
	json_t *verdict;      /* the verdict JSON (borrowed) */
};

/* What was injected, for the injected testcase and the result. */
struct calib_inject {
	const char *mode; /* "user", "preempt", "irq" */
	unsigned int spin_us;
	unsigned int period_ms;
	unsigned int jitter_pct;
	const char *cpus; /* cpuset or NULL: every CPU */
};

/**
 * calibrate_proportion_ci() - exact two-sided Clopper-Pearson interval of
 * a proportion: @k successes in @n trials at confidence @level (0.95).
 * Return: 0 with [*@lo, *@hi] set; -EINVAL when @n is 0, @k > @n or
 * @level is not in (0, 1).
 */
int calibrate_proportion_ci(unsigned int k, unsigned int n, double level,
			    double *lo, double *hi) __must_check;

/**
 * calibrate_injected_testcase() - write to @out_path the testcase of
 * @base_path with an injector load added (libyaml; the name, measurement
 * and other loads unchanged, so clean and injected runs are one series).
 * Return: 0 or a negative errno with @err naming the file.
 */
int calibrate_injected_testcase(const char *base_path,
				const struct calib_inject *inj,
				const char *out_path,
				struct rtlab_err *err) __must_check;

/**
 * calibrate_result_json() - the calibration of a board from @n comparisons:
 * {"false_alarm": {...}, "detection": [...], "smallest_reliable_spin_us",
 * "comparisons": [...]} merged into @about (board, kernel, testcase, ...),
 * which is copied, not stolen.  A spin size is caught "reliably" when it
 * and every larger one were detected in at least 90 % of comparisons.
 * Return: a new reference (caller json_decref()s) or NULL on -ENOMEM.
 */
json_t *calibrate_result_json(json_t *about, const struct calib_cmp *v,
			      size_t n);

/** calibrate_print() - @result for people: the false-alarm rate with its
 *  interval, one line per spin size, the smallest reliable one. */
void calibrate_print(FILE *f, json_t *result);

/**
 * calibrate_store() - store @result in boards.calibration of board @board
 * (registered now, of @kind, without a token, when unknown).
 * Return: 0 or a negative errno with @err holding PostgreSQL's message.
 */
int calibrate_store(PGconn *conn, const char *board, const char *kind,
		    json_t *result, struct rtlab_err *err) __must_check;

#endif
