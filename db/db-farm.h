/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_FARM_H
#define RTLAB_DB_FARM_H

/*
 * The farm's queries: what a kernel of a tree already has on a board and
 * testcase (jobs queued, running, done or failed by a run), how many runs
 * per side its verdicts still ask for, the night's counts per tree and
 * board, the regressions to tell, and what was told (notifications).
 */

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/**
 * db_farm_lock() - inside a transaction, wait for any other tick to end
 * (a transaction-scoped advisory lock), so two ticks never queue the same
 * missing run twice.  Return: 0 or a negative errno.
 */
int db_farm_lock(PGconn *conn, struct rtlab_err *err) __must_check;

/**
 * db_farm_cells() - what @kernel (as jobs name it) has on every cell of
 * @boards x @testcases (JSON arrays of names), in one statement: its
 * jobs that count toward its runs (every one but those failed on
 * infrastructure errors: the tick queues them again), and the runs per
 * side the latest INCONCLUSIVE verdicts involving it (either side) ask
 * for at their next planned look (details.sequential.next_look_runs;
 * 0 when none asks): {board: {testcase: [have, look]}}.  Read a cell
 * with db_farm_cell().
 * Return: 0 with *@cells (the caller's reference), or a negative errno.
 */
int db_farm_cells(PGconn *conn, const char *kernel, json_t *boards,
		  json_t *testcases, json_t **cells,
		  struct rtlab_err *err) __must_check;

/**
 * db_farm_cell() - @board x @testcase of db_farm_cells()' answer: *@have
 * jobs, *@look runs asked for (both 0 for a board or testcase the
 * database does not know yet).
 */
void db_farm_cell(json_t *cells, const char *board, const char *testcase,
		  int64_t *have, int64_t *look);

/**
 * db_farm_kernel_id() - the kernels row of the runs @kernel's jobs made
 * (the newest), for verdicts.  Return: 0 with *@id; -ENOENT when none of
 * its jobs has run yet; another negative errno.
 */
int db_farm_kernel_id(PGconn *conn, const char *kernel, int64_t *id,
		      struct rtlab_err *err) __must_check;

/**
 * db_farm_status() - jobs per origin (a tree, a submission, by hand) and
 * board: {"cells": [{tree, board, queued, running, done, failed}...],
 * "verdicts": [latest verdict of each farm kernel per board/testcase]},
 * counting the jobs created in the last @hours hours and every job still
 * queued or running.  Return: 0 with *@out (caller json_decref()s).
 */
int db_farm_status(PGconn *conn, unsigned int hours, json_t **out,
		   struct rtlab_err *err) __must_check;

/**
 * db_farm_regressions() - the latest REGRESSION verdict of every pair
 * whose candidate kernel belongs to @tree (kernels.tree, or the farm's
 * jobs of the tree made it): [{id, board, testcase, baseline, candidate,
 * verdict, reason, created_at}].  Return: 0 with *@out.
 */
int db_farm_regressions(PGconn *conn, const char *tree, json_t **out,
			struct rtlab_err *err) __must_check;

/**
 * db_farm_bisectable() - the pairs of @tree to bisect: the latest verdict
 * of each (board, testcase, baseline, candidate) whose candidate the
 * farm's jobs of @tree measured, when it is REGRESSION, both kernels are
 * kernels of the tree (PACKAGE=VERSION, as its jobs named them) with at
 * least one kernel between them in the tree's order, and no bisection of
 * that board and testcase from the one to the other exists:
 * [{id, board, testcase, good, bad}].  Return: 0 with *@out.
 */
int db_farm_bisectable(PGconn *conn, const char *tree, json_t **out,
		       struct rtlab_err *err) __must_check;

/**
 * db_notification_get() - what was told about @subject: *@message_id
 * (the first message, thread root) and *@last_id, *@last_state (all
 * malloc'd, caller frees).  Return: 0; -ENOENT never told; -EIO.
 */
int db_notification_get(PGconn *conn, const char *subject, char **message_id,
			char **last_id, char **last_state,
			struct rtlab_err *err) __must_check;

/**
 * db_notification_put() - record that @message_id told @state about
 * @subject (the first message becomes the thread root).
 * Return: 0 or a negative errno.
 */
int db_notification_put(PGconn *conn, const char *subject,
			const char *message_id, const char *state,
			struct rtlab_err *err) __must_check;

#endif
