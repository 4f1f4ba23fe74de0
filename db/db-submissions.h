/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_SUBMISSIONS_H
#define RTLAB_DB_SUBMISSIONS_H

/*
 * Developer submissions (table submissions) and the jobs they queued
 * (jobs.submission_id).
 */

#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

struct db_submission_new {
	const char *owner; /* token name */
	int token_id;
	const char *kind; /* image, deb */
	const char *tree; /* may be NULL */
	json_t *boards;	  /* arrays of names */
	json_t *testcases;
	const char *baseline; /* kernel the candidate is compared with */
	unsigned int runs;    /* per side */
	unsigned int duration_s;
};

/** db_submission_create() - insert one (state queued); *@id set. */
int db_submission_create(PGconn *conn, const struct db_submission_new *s,
			 int64_t *id, struct rtlab_err *err) __must_check;

/** db_submission_set_kernel() - the definition its jobs boot. */
int db_submission_set_kernel(PGconn *conn, int64_t id, const char *kernel,
			     struct rtlab_err *err) __must_check;

/**
 * db_submission_get() - {id, owner, kind, state, tree, boards, testcases,
 * baseline, kernel, runs, duration_s, result, created_at, finished_at,
 * jobs: [{id, kernel, board, testcase, state, run_uuid, error,
 * failure}], verdicts: [{id, board, testcase, verdict, reason}]}.
 * Return: 0 with *@out; -ENOENT; another negative errno.
 */
int db_submission_get(PGconn *conn, int64_t id, json_t **out,
		      struct rtlab_err *err) __must_check;

/**
 * db_submission_list() - submissions of @owner (NULL: everyone's), newest
 * first, without jobs and verdicts.  Return: 0 with *@out.
 */
int db_submission_list(PGconn *conn, const char *owner, json_t **out,
		       struct rtlab_err *err) __must_check;

/**
 * db_submission_ended() - ids of the queued submissions none of whose
 * jobs is queued or running (a JSON array).  Return: 0 with *@out.
 */
int db_submission_ended(PGconn *conn, json_t **out,
			struct rtlab_err *err) __must_check;

/**
 * db_submission_finish() - mark @id @state (done, failed) with @result and
 * the verdicts @verdict_ids ("{1,2}", may be NULL).  Return: 0 or errno.
 */
int db_submission_finish(PGconn *conn, int64_t id, const char *state,
			 const char *result, const char *verdict_ids,
			 struct rtlab_err *err) __must_check;

/**
 * db_submission_series() - the ids of board @board and testcase
 * @testcase.  Return: 0; -ENOENT when either is unknown.
 */
int db_submission_series(PGconn *conn, const char *board, const char *testcase,
			 int *board_id, int *testcase_id,
			 struct rtlab_err *err) __must_check;

/**
 * db_submission_tree_baseline() - the newest kernel of @tree (in its
 * order) with a done job on every @boards x @testcases pair... at least
 * one; as jobs name it (PACKAGE=VERSION), malloc'd into *@kernel.
 * Return: 0; -ENOENT when the tree has no tested kernel.
 */
int db_submission_tree_baseline(PGconn *conn, const char *tree, char **kernel,
				struct rtlab_err *err) __must_check;

#endif
