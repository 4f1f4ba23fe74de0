/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_SERVICES_REPORTING_H
#define RTLAB_SERVICES_REPORTING_H

/*
 * Reporting: the step after a verdict.  Gathers what a regression report
 * needs from the database (the verdict's context, both sides' histograms,
 * the candidate's artifacts and spike analysis) and hands it, as plain
 * data, to reports/report.c to render; filing goes on to
 * reports/bugzilla.c.
 */

#include <stdbool.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "error.h"
#include "../reports/plot.h"
#include "../reports/report.h"

/**
 * reporting_build() - the whole report of verdict @verdict_id: reads the
 * verdict and its runs, renders the plots (gnuplot), collects the
 * artifacts and writes the text, HTML and bug JSON.
 * @force: build it even when the verdict is not a REGRESSION.
 * Return: 0; -ENOENT (no such verdict); -EPERM with @err saying the
 * verdict is not a regression (and @force was not given); -EIO; -ENOMEM.
 * Caller releases @r with report_cleanup() on success and failure.
 */
int reporting_build(PGconn *conn, int64_t verdict_id, bool force,
		    const struct report_fields *fields, struct report *r,
		    struct rtlab_err *err) __must_check;

/* Which kernels a baseline-over-candidate plot compares. */
struct reporting_compare_query {
	const char *board;
	const char *testcase;
	const char *baseline;  /* kernel id or release */
	const char *candidate; /* kernel id or release */
	const char *clock;     /* NULL: the candidate's only clock */
};

/**
 * reporting_plot_compare() - the baseline kernel's complete runs on
 * (board, testcase, clock) pooled into one histogram, drawn over the candidate's.
 * Return: 0 with *@img (malloc'd, caller frees) and *@size; -ENOENT with
 * @err naming the unknown board, testcase or kernel, or saying the
 * candidate has no complete run there; -EINVAL when the candidate ran
 * with several clocks and @q->clock is NULL (@err lists them); -EIO,
 * -ENOMEM, or what gnuplot said.
 */
int reporting_plot_compare(PGconn *conn,
			   const struct reporting_compare_query *q,
			   enum plot_format fmt, void **img, size_t *size,
			   struct rtlab_err *err) __must_check;

/* Which series a trend plot follows. */
struct reporting_trend_query {
	const char *board;
	const char *testcase;
	const char *tree;  /* NULL: the tree of the latest run */
	const char *clock; /* NULL: the clock of the latest run */
};

/**
 * reporting_plot_trend() - max and p99.9 across the kernels of a tree, in
 * order of first run, on one board and testcase: each complete run's figures
 * (worst CPU) as points and their medians per kernel as lines.
 * Return: 0 with *@img (malloc'd, caller frees) and *@size; -ENOENT with
 * @err naming the series that has no complete run; -EIO, -ENOMEM, or
 * what gnuplot said.
 */
int reporting_plot_trend(PGconn *conn, const struct reporting_trend_query *q,
			 enum plot_format fmt, void **img, size_t *size,
			 struct rtlab_err *err) __must_check;

/* The most kernels a long-term plot draws, and its default. */
#define REPORTING_LONGTERM_MAX 500
#define REPORTING_LONGTERM_DEFAULT 100

/**
 * reporting_plot_longterm() - the long-term view of the series @q follows
 * (the kernels of reporting_plot_trend(), the newest @nkernels of them,
 * 1 to REPORTING_LONGTERM_MAX): each kernel's complete runs pooled into
 * one histogram, drawn as a row, oldest at the bottom.
 * Return: as reporting_plot_trend(); -EINVAL for @nkernels out of range.
 */
int reporting_plot_longterm(PGconn *conn, const struct reporting_trend_query *q,
			    unsigned int nkernels, enum plot_format fmt,
			    void **img, size_t *size,
			    struct rtlab_err *err) __must_check;

#endif
