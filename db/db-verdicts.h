/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_VERDICTS_H
#define RTLAB_DB_VERDICTS_H

/*
 * Series, baselines and stored verdicts in the database.  A series is
 * (board, testcase, kernel tree); its kernels are compared run against run,
 * only over complete runs of one clock.  The baseline of a series is pinned
 * in the baselines table or, by default, the kernel of the tree that ran
 * before the candidate (by first-run time) and has complete runs.
 *
 * Errors: -ENOENT (no such board, testcase, kernel, verdict or baseline),
 * -EINVAL (an ambiguous or malformed reference), -EIO (database), -ENOMEM;
 * @err says which.  PGresult stays in db-verdicts.c.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"
#include "hist.h"

/* Most runs loaded per side of a comparison (the newest). */
#define SERIES_MAX_RUNS 500

/**
 * db_testcase_lookup() - the id of testcase @name.
 * Return: 0, -ENOENT with @err naming the testcase, -EIO.
 */
int db_testcase_lookup(PGconn *conn, const char *name, int *testcase_id,
		       struct rtlab_err *err) __must_check;

/**
 * db_kernel_resolve() - a kernel reference to its id: a number is a kernel
 * id, anything else a release (uname -r).
 * Return: 0; -ENOENT with @err naming @ref; -EINVAL when several kernels
 * share the release (@err lists their ids); -EIO.
 */
int db_kernel_resolve(PGconn *conn, const char *ref, int *kernel_id,
		      struct rtlab_err *err) __must_check;

/* Where a run belongs: its series, kernel and clock. */
struct run_series {
	int board_id, testcase_id, kernel_id;
	char status[16];
	char clock[64];
	char tree[128];
	int pinned_kernel_id;  /* the series' pinned baseline, 0: none */
	int default_kernel_id; /* the default baseline for the run's
				* kernel (db_baseline_default()), 0: none */
};

/**
 * db_run_series() - the series, kernel and clock of run @run_id, and the
 * baselines its kernel would be compared with, in one query.
 * Return: 0, -ENOENT, -EIO.
 */
int db_run_series(PGconn *conn, int64_t run_id, struct run_series *rs,
		  struct rtlab_err *err) __must_check;

/** db_kernel_tree() - the tree of kernel @kernel_id into @tree (may be "").
 *  Return: 0, -ENOENT, -EIO. */
int db_kernel_tree(PGconn *conn, int kernel_id, char *tree, size_t size,
		   struct rtlab_err *err) __must_check;

/**
 * db_baseline_set() - pin kernel @kernel_id as the baseline of series
 * (@board_id, @testcase_id, @tree), replacing an earlier pin.
 * Return: 0, -EIO.
 */
int db_baseline_set(PGconn *conn, int board_id, int testcase_id,
		    const char *tree, int kernel_id,
		    struct rtlab_err *err) __must_check;

/** db_baseline_unset() - remove the pin of a series.
 *  Return: 0, -ENOENT when the series had none, -EIO. */
int db_baseline_unset(PGconn *conn, int board_id, int testcase_id,
		      const char *tree, struct rtlab_err *err) __must_check;

/** db_baseline_pinned() - the pinned baseline kernel of a series.
 *  Return: 0, -ENOENT when none is pinned, -EIO. */
int db_baseline_pinned(PGconn *conn, int board_id, int testcase_id,
		       const char *tree, int *kernel_id,
		       struct rtlab_err *err) __must_check;

/**
 * db_baseline_default() - the default baseline for @cand_kernel_id in a
 * series: the kernel of @tree whose first run on (board, testcase) came
 * last before the candidate's first run and that has complete runs there.
 * Return: 0, -ENOENT when there is none (the candidate is the first),
 * -EIO.
 */
int db_baseline_default(PGconn *conn, int board_id, int testcase_id,
			const char *tree, int cand_kernel_id, int *kernel_id,
			struct rtlab_err *err) __must_check;

/**
 * db_baselines_list() - every series that has runs or a pin, as a JSON
 * array of {board, testcase, tree, pinned: {kernel_id, release} | null,
 * latest: {kernel_id, release}, default: {kernel_id, release} | null,
 * set_at}; "default" is the default baseline of the series' latest kernel.
 * Filters may be NULL.  Return: 0 with *@out (caller json_decref()s), -EIO.
 */
int db_baselines_list(PGconn *conn, const char *board, const char *testcase,
		      const char *tree, json_t **out,
		      struct rtlab_err *err) __must_check;

/**
 * db_series_clocks() - the clocks of the complete runs of @kernel_id on
 * (@board_id, @testcase_id) as a JSON object {"CLOCK": runs, ...}.
 * Return: 0 with *@out (caller json_decref()s), -EIO.
 */
int db_series_clocks(PGconn *conn, int board_id, int testcase_id, int kernel_id,
		     json_t **out, struct rtlab_err *err) __must_check;

/* One run loaded for a comparison. */
struct series_run {
	int64_t id;
	char uuid[37];
	unsigned int ncpus;
	struct hist *cpus; /* thread order */
};

/* One side of a comparison: a kernel's complete runs in a series. */
struct series_runs {
	size_t nruns;
	struct series_run *runs; /* by run id */
};

/**
 * db_series_runs_load() - the complete runs (newest SERIES_MAX_RUNS) of
 * @kernel_id on (@board_id, @testcase_id) with @clock, each with its
 * per-CPU histograms, oldest first.  No runs is success (nruns 0).
 * Return: 0, -EIO, -ENOMEM.  Caller releases @out with
 * series_runs_cleanup() on success and failure.
 */
int db_series_runs_load(PGconn *conn, int board_id, int testcase_id,
			int kernel_id, const char *clock,
			struct series_runs *out,
			struct rtlab_err *err) __must_check;

/**
 * db_series_runs_load_ids() - db_series_runs_load() restricted to the runs
 * whose ids are in @run_ids, a PostgreSQL array literal such as "{4,5,6}"
 * (NULL: no restriction).  Runs of the list that are not complete runs of
 * that kernel, board, testcase and clock are not loaded.
 */
int db_series_runs_load_ids(PGconn *conn, int board_id, int testcase_id,
			    int kernel_id, const char *clock,
			    const char *run_ids, struct series_runs *out,
			    struct rtlab_err *err) __must_check;

/** series_runs_cleanup() - free what db_series_runs_load() filled; safe
 *  twice and on a zeroed struct. */
void series_runs_cleanup(struct series_runs *s);

/**
 * db_verdict_names() - the names of a comparison's parts as a JSON object
 * {board, testcase, baseline: {kernel_id, release, version, tree},
 * candidate: {...}}.
 * Return: 0 with *@out (caller json_decref()s), -ENOENT when an id does not
 * exist, -EIO.
 */
int db_verdict_names(PGconn *conn, int board_id, int testcase_id,
		     int base_kernel_id, int cand_kernel_id, json_t **out,
		     struct rtlab_err *err) __must_check;

/**
 * db_testcase_definition() - testcases.definition of @testcase_id.
 * Return: 0 with *@out (caller json_decref()s), -ENOENT, -EIO.
 */
int db_testcase_definition(PGconn *conn, int testcase_id, json_t **out,
			   struct rtlab_err *err) __must_check;

/* A verdict to store; nothing here is owned. */
struct verdict_row {
	int board_id, testcase_id;
	int base_kernel_id, cand_kernel_id;
	const char *verdict;	  /* regress_verdict_name() */
	const char *details_json; /* details column; carries "clock" */
	const char *clock;
	const int64_t *base_runs, *cand_runs;
	size_t nbase, ncand;
};

/**
 * db_verdict_store() - store a verdict.  The latest verdict of the same
 * (board, testcase, baseline kernel, candidate kernel, clock) is replaced
 * in place (same id, created_at now) unless a report refers to it; else a
 * new row is added.  Concurrent stores of one candidate are serialized.
 * @replaced: set when an existing row was updated (may be NULL).
 * Return: 0 with *@id set, -EINVAL (PostgreSQL refused a value), -EIO.
 */
int db_verdict_store(PGconn *conn, const struct verdict_row *v, int64_t *id,
		     bool *replaced, struct rtlab_err *err) __must_check;

struct verdict_filter {
	const char *board;    /* board name, NULL: any */
	const char *testcase; /* testcase name, NULL: any */
	const char *verdict;  /* REGRESSION, ..., NULL: any */
	const char *kernel;   /* baseline or candidate release, NULL: any */
	unsigned int limit;   /* 0: 50 */
};

/**
 * db_verdicts_list() - verdicts matching @f, newest first: a JSON array of
 * {id, board, testcase, tree, clock, baseline_kernel, candidate_kernel,
 * verdict, reason, more_runs, baseline_runs, candidate_runs (counts),
 * figures: {p99.9: {baseline, candidate}, max: {...}}, created_at}.
 * Return: 0 with *@out (caller json_decref()s), -EIO.
 */
int db_verdicts_list(PGconn *conn, const struct verdict_filter *f, json_t **out,
		     struct rtlab_err *err) __must_check;

/**
 * db_verdict_get() - verdict @id in full: {id, board, testcase, tree,
 * clock, verdict, reason, baseline: {kernel_id, release, version, tree,
 * source, runs: [ids]}, candidate: {...}, details, created_at}, the shape
 * verdict_compute() produces.
 * Return: 0 with *@out (caller json_decref()s), -ENOENT, -EIO.
 */
int db_verdict_get(PGconn *conn, int64_t id, json_t **out,
		   struct rtlab_err *err) __must_check;

/**
 * db_series_results_load() - the pass/fail results (runs.results) of the
 * complete runs of a kernel on (board, testcase), newest first, or only
 * of the runs @run_ids ("{1,2}", NULL: all): a JSON array of {"id",
 * "clock", "results"}; runs without results (tools with histograms) are
 * left out.  Return: 0 with *@out (caller json_decref()s), -EIO, -ENOMEM.
 */
int db_series_results_load(PGconn *conn, int board_id, int testcase_id,
			   int kernel_id, const char *run_ids, json_t **out,
			   struct rtlab_err *err) __must_check;

#endif
