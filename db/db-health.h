/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_HEALTH_H
#define RTLAB_DB_HEALTH_H

/*
 * Board health in PostgreSQL (schema/019_board_health.sql): a board's
 * service state (ready, offline, unhealthy) and why, the environment it
 * was last known healthy in, and its last health job's outcome.  The
 * decisions are lib/board-health.c's and services/health.c's; this only reads
 * and writes.  Errors: -ENOENT (no such board or run), -EIO (database),
 * -ENOMEM; @err says which.
 */

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

#define BOARD_STATE_READY "ready"
#define BOARD_STATE_OFFLINE "offline"
#define BOARD_STATE_UNHEALTHY "unhealthy"

/* The runs.flags key of a run stored while its board was out of service:
 * such a run is never compared (db/db-verdicts.c leaves it out). */
#define DB_RUN_FLAG_OUT_OF_SERVICE "board_out_of_service"
/* SQL: run r is one a comparison may use. */
#define DB_RUN_COMPARABLE(r) "NOT " r "flags ? '" DB_RUN_FLAG_OUT_OF_SERVICE "'"

/**
 * db_board_health_get() - board @name's health record: {"id", "name",
 * "kind", "definition" (object), "state", "state_reason", "calibration",
 * "environment", "environment_run_id", "health_result", "health_reason",
 * "health_at"} (nulls where unset).
 * Return: 0 with *@out (caller json_decref()s); -ENOENT naming the board.
 */
int db_board_health_get(PGconn *conn, const char *name, json_t **out,
			struct rtlab_err *err) __must_check;

/**
 * db_board_state_set() - put board @name in @state (BOARD_STATE_*) for
 * @reason (NULL for ready).  Back to ready also forgets the environment the
 * board was last healthy in: the next complete run sets it again, so a
 * maintainer accepts the board as it is now.
 * Return: 0; -ENOENT for an unknown board; -EIO.
 */
int db_board_state_set(PGconn *conn, const char *name, const char *state,
		       const char *reason, struct rtlab_err *err) __must_check;

/**
 * db_board_unhealthy() - take board @board_id out of service as unhealthy
 * for @reason, unless it already is (its first reason stays).
 * Return: 0 or -EIO.
 */
int db_board_unhealthy(PGconn *conn, int board_id, const char *reason,
		       struct rtlab_err *err) __must_check;

/**
 * db_board_environment_set() - the environment of run @run_id becomes the
 * one board @board_id is known healthy in; @only_unset: only when the board
 * has none yet.  Return: 0 or -EIO.
 */
int db_board_environment_set(PGconn *conn, int board_id, int64_t run_id,
			     bool only_unset,
			     struct rtlab_err *err) __must_check;

/**
 * db_board_health_record() - the outcome of health job @job_id on board
 * @board_id: @pass and one line @reason.  Return: 0 or -EIO.
 */
int db_board_health_record(PGconn *conn, int board_id, int64_t job_id,
			   bool pass, const char *reason,
			   struct rtlab_err *err) __must_check;

/**
 * db_health_job_run() - what health job @job_id left: {"board_id",
 * "state" (the job's), "error", "run_id" (null when no run), "status",
 * "p99_us", "p999_us" (worst thread; null among the overflows)}.
 * Return: 0 with *@out (caller json_decref()s); -ENOENT; -EIO.
 */
int db_health_job_run(PGconn *conn, int64_t job_id, json_t **out,
		      struct rtlab_err *err) __must_check;

/**
 * db_health_due() - the boards in service with a calibration whose last
 * health check is older than @max_age_h hours (or never made) and that
 * have no health job queued or running: a JSON array of {"id", "name",
 * "kind"}.
 * Return: 0 with *@out (caller json_decref()s); -EIO.
 */
int db_health_due(PGconn *conn, unsigned int max_age_h, json_t **out,
		  struct rtlab_err *err) __must_check;

#endif
