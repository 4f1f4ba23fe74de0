// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Board health's queries: a board's service state and the environment it
 * was last healthy in, the outcome of its health jobs, and which boards
 * are due a health check.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-health.h"
#include "db.h"

#define ISO(col) \
	"to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

int db_board_health_get(PGconn *conn, const char *name, json_t **out,
			struct rtlab_err *err)
{
	const char *p[1] = { name };
	int ret;

	ret = db_query_json(
		conn,
		"SELECT json_build_object('id', id, 'name', name, 'kind', kind, "
		"'definition', definition, 'state', state, 'state_reason', "
		"state_reason, 'calibration', calibration, 'environment', "
		"environment, 'environment_run_id', environment_run_id, "
		"'health_result', health_result, 'health_reason', "
		"health_reason, 'health_at', " ISO(
			"health_at") ")::text "
				     "FROM boards WHERE name = $1",
		1, p, out, err, "reading the board's health");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT,
				 "no board named '%s' (see 'rtlab board list')",
				 name);
	return ret;
}

int db_board_state_set(PGconn *conn, const char *name, const char *state,
		       const char *reason, struct rtlab_err *err)
{
	const char *p[3] = { name, state, reason };
	int64_t id;
	int ret;

	ret = db_query_id(conn,
			  "UPDATE boards SET state = $2, state_reason = $3, "
			  "state_changed_at = now(), "
			  "environment = CASE WHEN $2 = 'ready' THEN NULL "
			  "ELSE environment END, "
			  "environment_run_id = CASE WHEN $2 = 'ready' THEN NULL "
			  "ELSE environment_run_id END "
			  "WHERE name = $1 RETURNING id",
			  3, p, &id, err, "changing the board's state");
	if (ret == -ENOENT || ret == -ENODATA)
		ret = rtlab_err_seterr(
			err, ENOENT,
			"no board named '%s' (see 'rtlab board list')", name);
	return ret;
}

int db_board_unhealthy(PGconn *conn, int board_id, const char *reason,
		       struct rtlab_err *err)
{
	char id[16];
	const char *p[2] = { id, reason };

	snprintf(id, sizeof(id), "%d", board_id);
	return db_exec(conn, err,
		       "UPDATE boards SET state = 'unhealthy', "
		       "state_reason = $2, state_changed_at = now() "
		       "WHERE id = $1::integer AND state <> 'unhealthy'",
		       2, p);
}

int db_board_environment_set(PGconn *conn, int board_id, int64_t run_id,
			     bool only_unset, struct rtlab_err *err)
{
	char id[16], rid[24];
	const char *p[3] = { id, rid, only_unset ? "t" : "f" };

	snprintf(id, sizeof(id), "%d", board_id);
	snprintf(rid, sizeof(rid), "%" PRId64, run_id);
	return db_exec(conn, err,
		       "UPDATE boards b SET environment = r.environment, "
		       "environment_run_id = r.id FROM runs r "
		       "WHERE b.id = $1::integer AND r.id = $2::bigint "
		       "AND (NOT $3::boolean OR b.environment IS NULL)",
		       3, p);
}

int db_board_health_record(PGconn *conn, int board_id, int64_t job_id,
			   bool pass, const char *reason, struct rtlab_err *err)
{
	char id[16], jid[24];
	const char *p[4] = { id, jid, pass ? "pass" : "fail", reason };

	snprintf(id, sizeof(id), "%d", board_id);
	snprintf(jid, sizeof(jid), "%" PRId64, job_id);
	return db_exec(conn, err,
		       "UPDATE boards SET health_result = $3, "
		       "health_reason = $4, health_job_id = $2::bigint, "
		       "health_at = now() WHERE id = $1::integer",
		       4, p);
}

int db_health_job_run(PGconn *conn, int64_t job_id, json_t **out,
		      struct rtlab_err *err)
{
	char jid[24];
	const char *p[1] = { jid };

	snprintf(jid, sizeof(jid), "%" PRId64, job_id);
	/* The worst thread's figures; a NULL quantile (among the
	 * overflows) makes the run's NULL too. */
	return db_query_json(
		conn,
		"SELECT json_build_object('board_id', j.board_id, 'state', "
		"j.state, 'error', j.error, 'run_id', r.id, 'status', "
		"r.status, 'p99_us', CASE WHEN bool_and(h.p99_us IS NOT NULL) "
		"THEN max(h.p99_us) END, 'p999_us', CASE WHEN "
		"bool_and(h.p999_us IS NOT NULL) THEN max(h.p999_us) END)::text "
		"FROM jobs j LEFT JOIN runs r ON r.uuid = j.run_uuid "
		"LEFT JOIN histograms h ON h.run_id = r.id "
		"WHERE j.id = $1::bigint "
		"GROUP BY j.board_id, j.state, j.error, r.id, r.status",
		1, p, out, err, "reading the health job's run");
}

int db_health_due(PGconn *conn, unsigned int max_age_h, json_t **out,
		  struct rtlab_err *err)
{
	char age[16];
	const char *p[1] = { age };

	snprintf(age, sizeof(age), "%u", max_age_h);
	return db_query_json(
		conn,
		"SELECT COALESCE(json_agg(json_build_object('id', b.id, "
		"'name', b.name, 'kind', b.kind) ORDER BY b.name), "
		"'[]')::text FROM boards b "
		"WHERE b.state = 'ready' AND b.calibration IS NOT NULL "
		"AND (b.health_at IS NULL OR b.health_at < "
		"now() - make_interval(hours => $1::integer)) "
		"AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.board_id = b.id "
		"AND j.kind = 'health' AND j.state IN ('queued', 'running'))",
		1, p, out, err, "finding the boards due a health check");
}
