/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_WEB_H
#define RTLAB_WEB_H

/*
 * The maintainers' web pages served by `rtlab server` (plain HTML and CSS,
 * no JavaScript): the overview of series against the latest kernels, a
 * run, the list of regressions and a verdict's report page, plus the
 * comparison and trend plots they show, which the command line draws too.
 * docs/web.md describes the pages.
 */

#include <stdbool.h>
#include <stddef.h>
#include <libpq-fe.h>
#include <microhttpd.h>

#include "../reports/plot.h"
#include "error.h"

struct http_request;

/* Which kernels a baseline-over-candidate plot compares. */
struct web_compare_query {
	const char *board;
	const char *testcase;
	const char *baseline;	/* kernel id or release */
	const char *candidate;	/* kernel id or release */
	const char *clock;	/* NULL: the candidate's only clock */
};

/**
 * web_plot_compare() - the baseline kernel's complete runs on (board,
 * testcase, clock) pooled into one histogram, drawn over the candidate's.
 * Return: 0 with *@img (malloc'd, caller frees) and *@size; -ENOENT with
 * @err naming the unknown board, testcase or kernel, or saying the
 * candidate has no complete run there; -EINVAL when the candidate ran
 * with several clocks and @q->clock is NULL (@err lists them); -EIO,
 * -ENOMEM, or what gnuplot said.
 */
int web_plot_compare(PGconn *conn, const struct web_compare_query *q,
		     enum plot_format fmt, void **img, size_t *size,
		     struct rtlab_err *err) __must_check;

/* Which series a trend plot follows. */
struct web_trend_query {
	const char *board;
	const char *testcase;
	const char *tree;	/* NULL: the tree of the latest run */
	const char *clock;	/* NULL: the clock of the latest run */
};

/**
 * web_plot_trend() - max and p99.9 across the kernels of a tree, in order
 * of first run, on one board and testcase: each complete run's figures
 * (worst CPU) as points and their medians per kernel as lines.
 * Return: 0 with *@img (malloc'd, caller frees) and *@size; -ENOENT with
 * @err naming the series that has no complete run; -EIO, -ENOMEM, or
 * what gnuplot said.
 */
int web_plot_trend(PGconn *conn, const struct web_trend_query *q,
		   enum plot_format fmt, void **img, size_t *size,
		   struct rtlab_err *err) __must_check;

/**
 * web_match() - whether @path is served here: "/", "/style.css",
 * "/regressions", "/runs/{run}", "/verdicts/{id}",
 * "/verdicts/{id}/report/{file}", "/api/v1/plots/compare.{png,svg}",
 * "/api/v1/plots/trend.{png,svg}".
 */
bool web_match(const char *path);

/**
 * web_handle() - answer a GET or HEAD of a path web_match() accepted:
 * pages as text/html; charset=utf-8 (a 404 page for unknown runs and
 * verdicts), plots as image/png or image/svg+xml (errors as JSON, like
 * the rest of /api/v1).  Return: what libmicrohttpd expects.
 */
enum MHD_Result web_handle(struct http_request *req);

#endif
