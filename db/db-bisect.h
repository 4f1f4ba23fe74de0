/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_BISECT_H
#define RTLAB_DB_BISECT_H

/*
 * Bisections in PostgreSQL (tables bisections, bisect_steps; jobs carry
 * bisect_id and bisect_pos): what services/bisect.c keeps between the
 * jobs it queues.  Errors: db_fail()'s errno with @err set.
 */

#include <jansson.h>
#include <libpq-fe.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct db_bisect_new {
	int board_id;
	const char *testcase, *testcase_file;
	unsigned int duration_s; /* 0: the testcase's */
	const char *series;	 /* how the range was given, for people */
	const char *const *kernels;
	size_t nkernels;
	int plant_from; /* < 0: none */
	const char *plant_file;
	const char *range_kind; /* "series" (NULL) or "git" */
	const char *tree;	/* the tree of the range, or NULL */
	json_t *commits; /* git: [{id, subject, author}] per kernel, or NULL */
};

/** db_bisect_create() - a bisection in state 'ends'.  Return: 0 with *@id. */
int db_bisect_create(PGconn *conn, const struct db_bisect_new *b, int64_t *id,
		     struct rtlab_err *err) __must_check;

/**
 * db_bisect_get() - bisection @id as {id, board, board_id, testcase,
 * testcase_file, duration_s, series, kernels[], plant_from, plant_file,
 * state, step, lo, hi, culprit, result, ends_verdict, regression_id,
 * range_kind, tree, commits, created_at, finished_at, steps: [{position,
 * kernel, mark, decision, reason, look, vs_good, vs_bad, decided_at}], positions: [{position, queued (jobs
 * queued or running), failed (jobs), runs (complete run ids, oldest
 * first), kernel_ids}] (positions with jobs only)}.
 * Return: 0 with *@out (caller json_decref()s); -ENOENT.
 */
int db_bisect_get(PGconn *conn, int64_t id, json_t **out,
		  struct rtlab_err *err) __must_check;

/** db_bisect_list() - every bisection, newest first, without steps. */
int db_bisect_list(PGconn *conn, json_t **out,
		   struct rtlab_err *err) __must_check;

/**
 * db_bisect_update() - set the columns named by the keys of @set (state,
 * step, lo, hi, culprit, result, ends_verdict, regression_id; null clears)
 * of bisection @id; a final state ('done', 'failed', 'reset') sets
 * finished_at.
 */
int db_bisect_update(PGconn *conn, int64_t id, json_t *set,
		     struct rtlab_err *err) __must_check;

/**
 * db_bisect_step_store() - the decision of the step at @position; @reason
 * (may be NULL) says why where the verdicts do not.
 */
int db_bisect_step_store(PGconn *conn, int64_t id, int position,
			 const char *kernel, const char *mark,
			 const char *decision, const char *reason, int look,
			 json_t *vs_good, json_t *vs_bad,
			 struct rtlab_err *err) __must_check;

/**
 * db_bisect_cancel_jobs() - remove the queued jobs of bisection @id (a
 * running one finishes; its run is kept), of position @position only when
 * it is >= 0.  *@n: how many (may be NULL).
 */
int db_bisect_cancel_jobs(PGconn *conn, int64_t id, int position,
			  unsigned int *n, struct rtlab_err *err) __must_check;

/**
 * db_bisect_of_job() - the bisection job @job_id measures for.
 * Return: 0 with *@id; -ENOENT when it is no bisection's.
 */
int db_bisect_of_job(PGconn *conn, int64_t job_id, int64_t *id,
		     struct rtlab_err *err) __must_check;

#endif
