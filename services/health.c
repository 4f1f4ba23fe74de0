// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Board health: queueing health jobs (by hand and when due), judging their
 * runs against the board's calibration, and checking every stored run's
 * environment against the one its board was last healthy in.  A board
 * that fails either leaves service until a maintainer puts it back.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../boards/board.h"
#include "../db/db-health.h"
#include "health.h"
#include "jobs.h"
#include "log.h"
#include "manifest.h"
#include "../lib/board-health.h"

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

int health_queue(PGconn *conn, const char *board, unsigned int duration_s,
		 int64_t *id, struct rtlab_err *err)
{
	struct job_spec spec = { 0 };
	json_t *b = NULL, *cal;
	int64_t *ids = NULL;
	size_t nids = 0;
	int ret;

	ret = db_board_health_get(conn, board, &b, err);
	if (ret)
		return ret;
	if (strcmp(jstr(b, "state"), BOARD_STATE_READY)) {
		ret = rtlab_err_set(
			err,
			"board %s is %s (%s): put it back with 'rtlab board enable %s' first",
			board, jstr(b, "state"),
			jstr(b, "state_reason") ? jstr(b, "state_reason") : "",
			board);
		goto out;
	}
	cal = json_object_get(b, "calibration");
	if (!json_is_object(cal)) {
		ret = rtlab_err_set(
			err,
			"board %s has no calibration to check its health against: run 'rtlab calibrate --board %s' first",
			board, board);
		goto out;
	}
	/* The calibration's kernel; a board that boots none runs the host's. */
	spec.kernel = jstr(cal, "kernel") ? jstr(cal, "kernel") :
					    BOARD_KERNEL_HOST;
	spec.testcase = jstr(cal, "testcase") ? jstr(cal, "testcase") :
						"calibrate-idle";
	spec.board = board;
	spec.repeat = 1;
	spec.duration_s = duration_s ? duration_s : HEALTH_DURATION_S;
	spec.priority = JOB_PRIORITY_HEALTH;
	spec.origin = "health";
	spec.health = true;
	ret = jobs_add(conn, &spec, &ids, &nids, err);
	if (ret) {
		rtlab_err_prefix(err, "board %s: health job", board);
		goto out;
	}
	*id = ids[0];
out:
	free(ids);
	json_decref(b);
	return ret;
}

int health_queue_due(PGconn *conn, unsigned int max_age_h, FILE *out,
		     unsigned int *queued, struct rtlab_err *err)
{
	struct rtlab_err qerr = { "" };
	json_t *due = NULL, *b;
	unsigned int n = 0;
	size_t i;
	int64_t id;
	int ret;

	ret = db_health_due(conn, max_age_h, &due, err);
	json_array_foreach(due, i, b) {
		const char *name = jstr(b, "name");

		if (!board_kind_has_driver(board_kind_find(jstr(b, "kind"))))
			continue;
		if (health_queue(conn, name, 0, &id, &qerr)) {
			log_error("board %s: health check due, not queued: %s",
				  name, qerr.msg);
			continue;
		}
		n++;
		log_info("board %s: health check due: job %" PRId64, name, id);
		if (out)
			fprintf(out,
				"board %s: health job %" PRId64 " queued\n",
				name, id);
	}
	json_decref(due);
	if (queued)
		*queued = n;
	return ret;
}

void health_after_job(PGconn *conn, const struct db_job *job)
{
	struct rtlab_err err = { "" };
	struct health_run run = { 0 };
	char reason[RTLAB_ERR_LEN], why[RTLAB_ERR_LEN + 64];
	json_t *j = NULL, *b = NULL;
	bool pass;

	if (db_health_job_run(conn, job->id, &j, &err) ||
	    db_board_health_get(conn, job->board, &b, &err)) {
		log_error("board %s: health job %" PRId64 ": %s", job->board,
			  job->id, err.msg);
		goto out;
	}
	/* Queued again: its next attempt decides. */
	if (strcmp(jstr(j, "state"), "done") &&
	    strcmp(jstr(j, "state"), "failed"))
		goto out;
	run.status = jstr(j, "status");
	run.p99_us =
		json_is_integer(json_object_get(j, "p99_us")) ?
			(long)json_integer_value(json_object_get(j, "p99_us")) :
			-1;
	run.p999_us =
		json_is_integer(json_object_get(j, "p999_us")) ?
			(long)json_integer_value(json_object_get(j,
								 "p999_us")) :
			-1;
	if (!run.status) {
		pass = false;
		snprintf(reason, sizeof(reason), "no run: %s",
			 jstr(j, "error") ? jstr(j, "error") :
					    "the job failed");
	} else {
		pass = health_judge(&run, json_object_get(b, "calibration"),
				    reason, sizeof(reason));
	}
	/* Its own run may have shown a drifted environment at ingest. */
	if (pass && strcmp(jstr(b, "state"), BOARD_STATE_READY)) {
		pass = false;
		snprintf(reason, sizeof(reason), "%s",
			 jstr(b, "state_reason") ? jstr(b, "state_reason") :
						   jstr(b, "state"));
	}
	if (db_board_health_record(conn, job->board_id, job->id, pass, reason,
				   &err))
		goto fail;
	if (pass) {
		if (json_is_integer(json_object_get(j, "run_id")) &&
		    db_board_environment_set(
			    conn, job->board_id,
			    json_integer_value(json_object_get(j, "run_id")),
			    false, &err))
			goto fail;
		log_info("board %s: health job %" PRId64 " passed: %s",
			 job->board, job->id, reason);
		goto out;
	}
	snprintf(why, sizeof(why), "health job %" PRId64 " failed: %s", job->id,
		 reason);
	if (db_board_unhealthy(conn, job->board_id, why, &err))
		goto fail;
	log_warn("board %s: out of service: %s", job->board, why);
	goto out;
fail:
	log_error("board %s: health job %" PRId64 ": recording it: %s",
		  job->board, job->id, err.msg);
out:
	json_decref(b);
	json_decref(j);
}

/* @flags_text with HEALTH_RUN_FLAG set to @reason; 0 or -ENOMEM. */
static int flag_run(char **flags_text, const char *reason)
{
	json_t *f = *flags_text ? json_loads(*flags_text, 0, NULL) : NULL;
	char *text = NULL;

	if (!json_is_object(f)) {
		json_decref(f);
		f = json_object();
	}
	if (f && !json_object_set_new(f, HEALTH_RUN_FLAG, json_string(reason)))
		text = json_dumps(f, JSON_COMPACT);
	json_decref(f);
	if (!text)
		return -ENOMEM;
	free(*flags_text);
	*flags_text = text;
	return 0;
}

int health_ingest_check(PGconn *conn, const struct manifest *m,
			char **flags_text, struct health_ingest *hi,
			struct rtlab_err *err)
{
	char drift[RTLAB_ERR_LEN - 64];
	json_t *b = NULL;
	int ret;

	memset(hi, 0, sizeof(*hi));
	ret = db_board_health_get(conn, m->board, &b, err);
	if (ret == -ENOENT) /* stored under a board registered later */
		return 0;
	if (ret)
		return ret;
	hi->board_id = (int)json_integer_value(json_object_get(b, "id"));
	if (strcmp(jstr(b, "state"), BOARD_STATE_READY)) {
		hi->out_of_service = true;
		snprintf(hi->reason, sizeof(hi->reason), "board %s is %s: %s",
			 m->board, jstr(b, "state"),
			 jstr(b, "state_reason") ? jstr(b, "state_reason") :
						   "");
	} else if (m->status == RUN_STATUS_COMPLETE) {
		if (health_env_drift(json_object_get(b, "environment"),
				     json_object_get(m->doc, "environment"),
				     drift, sizeof(drift))) {
			hi->out_of_service = hi->drift = true;
			snprintf(hi->reason, sizeof(hi->reason),
				 "environment changed since run %" JSON_INTEGER_FORMAT
				 ": %s",
				 json_integer_value(json_object_get(
					 b, "environment_run_id")),
				 drift);
		}
	}
	if (hi->out_of_service && flag_run(flags_text, hi->reason))
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	json_decref(b);
	return ret;
}

int health_ingest_environment_board(const struct health_ingest *hi,
				    bool complete)
{
	return !hi->out_of_service && complete ? hi->board_id : 0;
}

void health_ingest_stored(PGconn *conn, const struct health_ingest *hi,
			  int64_t run_id)
{
	struct rtlab_err err = { "" };

	if (!hi->board_id || !hi->drift)
		return;
	if (db_board_unhealthy(conn, hi->board_id, hi->reason, &err))
		log_error("run %" PRId64 ": board health: %s", run_id, err.msg);
	else
		log_warn("run %" PRId64 ": board out of service: %s", run_id,
			 hi->reason);
}
