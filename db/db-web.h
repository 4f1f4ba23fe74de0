/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_WEB_H
#define RTLAB_DB_WEB_H

/*
 * The queries behind the maintainers' web pages and the trend plot: the
 * overview grid (series x latest kernels, with the latest verdict of each
 * cell), a series' kernels in order of first run with their per-run
 * figures, and the latest report of a verdict.  Answers are JSON built by
 * PostgreSQL; PGresult stays in db-web.c.
 *
 * Errors: -ENOENT (nothing matches), -EIO (database), -ENOMEM; @err says
 * which.
 */

#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/* Kernels shown by the overview when the caller passes 0. */
#define WEB_OVERVIEW_KERNELS 8

/**
 * db_web_overview() - the @nkernels (0: WEB_OVERVIEW_KERNELS) kernels
 * whose first run came last, and every series (board, testcase) that ran
 * one of them: {kernels: [{id, release, tree}] newest first, rows:
 * [{board, testcase, cells: [{kernel_id, runs, complete, max_us, p999_us,
 * latest_run, verdict, verdict_id}]}] by board and testcase}.  max_us and
 * p999_us are the worst over the kernel's runs in the series (null when
 * no run has histograms); verdict and verdict_id are the latest verdict
 * of that kernel as candidate there, or null.
 * Return: 0 with *@out set (caller json_decref()s), -EIO.
 */
int db_web_overview(PGconn *conn, unsigned int nkernels, json_t **out,
		    struct rtlab_err *err) __must_check;

/**
 * db_web_trend() - the kernels of one series in order of their first run
 * there, with their complete runs' figures: {board, testcase, tree, clock,
 * kernels: [{id, release, runs: [{id, max_us, p999_us}]}]}.  A run's
 * figure is the worst over its CPUs (p999_us null when it overflowed).
 * @tree: kernel tree; NULL: the tree of the series' latest complete run.
 * @clock: run clock; NULL: the clock of that latest run (figures of
 *	different clocks are never mixed).
 * Return: 0 with *@out set (caller json_decref()s); -ENOENT with @err
 * naming the board, testcase, tree and clock when there is no such
 * complete run; -EIO.
 */
int db_web_trend(PGconn *conn, const char *board, const char *testcase,
		 const char *tree, const char *clock, json_t **out,
		 struct rtlab_err *err) __must_check;

/**
 * db_web_report() - the latest report recorded for verdict @verdict_id:
 * {id, bug_id, bug_url, files, created_at, filed_at}.
 * Return: 0 with *@out set (caller json_decref()s), -ENOENT when the
 * verdict has no report, -EIO.
 */
int db_web_report(PGconn *conn, int64_t verdict_id, json_t **out,
		  struct rtlab_err *err) __must_check;

/**
 * db_web_run_verdict() - the latest verdict in which run @run_id took
 * part (as baseline or candidate): its id into *@verdict_id.
 * Return: 0, -ENOENT when there is none, -EIO.
 */
int db_web_run_verdict(PGconn *conn, int64_t run_id, int64_t *verdict_id,
		       struct rtlab_err *err) __must_check;

#endif
