/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_SERVICES_HEALTH_H
#define RTLAB_SERVICES_HEALTH_H

/*
 * Board health: health jobs and what the lab does with their outcome and
 * with every run's environment.
 *
 *   - A health job is an ordinary job of kind 'health' (db/db-jobs.h): the
 *     board's calibration kernel and testcase (boards.calibration, made by
 *     rtlab calibrate) for a short run, queued first (JOB_PRIORITY_HEALTH);
 *     while it is pending, the board's other jobs wait.  Its run is judged
 *     against the calibration's reference figures (lib/board-health.h); a board
 *     that fails is taken out of service as unhealthy.
 *   - Every run stored is checked against the environment the board was
 *     last known healthy in (a passed health job's, else the first complete
 *     run's): a change of CPU model, CPU count, microcode, clocksource,
 *     isolcpus or kernel command line takes the board out of
 *     service as unhealthy, the reason naming what changed.
 *   - A run stored while its board is out of service (including the run
 *     that found the drift) is flagged "board_out_of_service" in
 *     runs.flags: it gets no verdict and no comparison ever loads it
 *     (db/db-verdicts.c), also after a maintainer puts the board back with
 *     `rtlab board enable`.
 *
 * docs/farm.md, "Board health", for people.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <libpq-fe.h>

#include "error.h"
#include "../db/db-health.h"
#include "../db/db-jobs.h"

struct manifest;

/* A health run's measurement, unless asked otherwise. */
#define HEALTH_DURATION_S 10
/* A board in service is checked again when its last check is older. */
#define HEALTH_MAX_AGE_H 24
/* The flag (runs.flags) of a run stored while its board was out of
 * service; its value says why. */
#define HEALTH_RUN_FLAG DB_RUN_FLAG_OUT_OF_SERVICE

/**
 * health_queue() - queue a health job for board @board: the kernel and
 * testcase of its calibration, @duration_s seconds (0: HEALTH_DURATION_S).
 * Return: 0 with *@id set; -ENOENT (unknown board), -EINVAL (a board out
 * of service, without a calibration, or whose calibration's kernel or
 * testcase cannot be queued), -EIO; @err says which and what to do.
 */
int health_queue(PGconn *conn, const char *board, unsigned int duration_s,
		 int64_t *id, struct rtlab_err *err) __must_check;

/**
 * health_queue_due() - queue a health job for every board due one
 * (db_health_due(): in service, calibrated, last checked more than
 * @max_age_h hours ago or never) whose kind has a driver; a line per job
 * to @out (may be NULL).  A board that cannot be queued is logged and
 * skipped.  @queued: may be NULL; else how many were queued.
 * Return: 0, or a negative errno when the database failed.
 */
int health_queue_due(PGconn *conn, unsigned int max_age_h, FILE *out,
		     unsigned int *queued, struct rtlab_err *err) __must_check;

/**
 * health_after_job() - once health job @job has ended (done or failed for
 * good): judge its run against the board's calibration, record the
 * outcome on the board, and take a failing board out of service.  Logs
 * its own failures.
 */
void health_after_job(PGconn *conn, const struct db_job *job);

/* What health_ingest_check() found about a run about to be stored. */
struct health_ingest {
	int board_id;	     /* 0: the board is not registered */
	bool out_of_service; /* flag the run */
	bool drift;	     /* ... because its environment drifted */
	char reason[RTLAB_ERR_LEN];
};

/**
 * health_ingest_check() - before run @m (its manifest.json as parsed,
 * @m->doc) is stored: is its board out of service, or did its
 * environment drift from the one the board was last healthy in?
 * @flags_text: the run's flags (JSON text, malloc'd, may be replaced) get
 * HEALTH_RUN_FLAG when so.
 * Return: 0 with @hi filled; -ENOMEM; -EIO.
 */
int health_ingest_check(PGconn *conn, const struct manifest *m,
			char **flags_text, struct health_ingest *hi,
			struct rtlab_err *err) __must_check;

/**
 * health_ingest_environment_board() - the board that is to remember the
 * environment of the run @hi was found for, when it has none yet: @hi's
 * board for a complete run (@complete) of a board in service, else 0.
 * db_run_store() does it in the run's transaction
 * (run_record.environment_board_id).
 */
int health_ingest_environment_board(const struct health_ingest *hi,
				    bool complete);

/**
 * health_ingest_stored() - after the run @run_id that @hi was found for
 * was stored (not a duplicate): take a drifted board out of service.
 * Logs its own failures.
 */
void health_ingest_stored(PGconn *conn, const struct health_ingest *hi,
			  int64_t run_id);

#endif
