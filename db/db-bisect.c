// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bisections in PostgreSQL: the bisection, its steps, and what its jobs
 * produced per position of the range.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-bisect.h"
#include "db.h"

int db_bisect_create(PGconn *conn, const struct db_bisect_new *b, int64_t *id,
		     struct rtlab_err *err)
{
	char bid[16], dur[16], pf[16];
	json_t *arr = json_array();
	char *kernels = NULL, *commits = NULL;
	const char *p[11];
	size_t i;
	int ret;

	for (i = 0; arr && i < b->nkernels; i++)
		if (json_array_append_new(arr, json_string(b->kernels[i])))
			break;
	kernels = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
	json_decref(arr);
	commits = b->commits ? json_dumps(b->commits, JSON_COMPACT) : NULL;
	if (!kernels || (b->commits && !commits)) {
		free(kernels);
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	snprintf(bid, sizeof(bid), "%d", b->board_id);
	snprintf(dur, sizeof(dur), "%u", b->duration_s);
	snprintf(pf, sizeof(pf), "%d", b->plant_from);
	p[0] = bid;
	p[1] = b->testcase;
	p[2] = b->testcase_file;
	p[3] = b->duration_s ? dur : NULL;
	p[4] = b->series;
	p[5] = kernels;
	p[6] = b->plant_from >= 0 ? pf : NULL;
	p[7] = b->plant_from >= 0 ? b->plant_file : NULL;
	p[8] = b->range_kind ? b->range_kind : "series";
	p[9] = b->tree;
	p[10] = commits;
	ret = db_query_id(conn,
			  "INSERT INTO bisections (board_id, testcase, "
			  "testcase_file, duration_s, series, kernels, "
			  "plant_from, plant_file, lo, hi, range_kind, tree, "
			  "commits) "
			  "SELECT $1::integer, $2, $3, $4::integer, $5, "
			  "ARRAY(SELECT json_array_elements_text($6::json)), "
			  "$7::integer, $8, 0, json_array_length($6::json) - 1, "
			  "$9, $10, $11::jsonb "
			  "RETURNING id",
			  11, p, id, err, "creating a bisection");
	free(commits);
	free(kernels);
	return ret;
}

#define BISECT_JSON                                                            \
	"json_build_object('id', x.id, 'board', b.name, 'board_id', "          \
	"x.board_id, 'testcase', x.testcase, 'testcase_file', "                \
	"x.testcase_file, 'duration_s', x.duration_s, 'series', x.series, "    \
	"'kernels', to_json(x.kernels), 'plant_from', x.plant_from, "          \
	"'plant_file', x.plant_file, 'state', x.state, 'step', x.step, 'lo', " \
	"x.lo, 'hi', x.hi, 'culprit', x.culprit, 'result', x.result, "         \
	"'ends_verdict', x.ends_verdict, 'regression_id', x.regression_id, "   \
	"'range_kind', x.range_kind, 'tree', x.tree, 'commits', x.commits, "   \
	"'created_at', to_char(x.created_at AT TIME ZONE 'UTC', "              \
	"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'finished_at', "                   \
	"to_char(x.finished_at AT TIME ZONE 'UTC', "                           \
	"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

int db_bisect_get(PGconn *conn, int64_t id, json_t **out, struct rtlab_err *err)
{
	char sid[24];
	const char *p[1] = { sid };
	int ret;

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	ret = db_query_json(
		conn,
		"SELECT " BISECT_JSON ", 'steps', (SELECT "
		"COALESCE(json_agg(json_build_object('position', s.position, "
		"'kernel', s.kernel, 'mark', s.mark, 'decision', s.decision, "
		"'reason', s.reason, 'look', s.look, 'vs_good', s.vs_good, 'vs_bad', s.vs_bad, "
		"'decided_at', to_char(s.decided_at AT TIME ZONE 'UTC', "
		"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')) ORDER BY s.decided_at, "
		"s.position), '[]') FROM bisect_steps s WHERE s.bisect_id = "
		"x.id), 'positions', (SELECT COALESCE(json_agg(json_build_object("
		"'position', j.pos, 'queued', j.queued, 'failed', j.failed, "
		"'runs', j.runs, 'kernel_ids', j.kids) ORDER BY j.pos), '[]') "
		"FROM (SELECT jb.bisect_pos AS pos, "
		"count(*) FILTER (WHERE jb.state IN ('queued', 'running')) "
		"AS queued, count(*) FILTER (WHERE jb.state = 'failed') "
		"AS failed, COALESCE((SELECT json_agg(r.id ORDER BY r.id) FROM "
		"runs r JOIN jobs jr ON jr.run_uuid = r.uuid WHERE "
		"jr.bisect_id = x.id AND jr.bisect_pos = jb.bisect_pos AND "
		"jr.state = 'done' AND r.status = 'complete'), '[]') AS runs, "
		"COALESCE((SELECT json_agg(DISTINCT r.kernel_id) FROM runs r "
		"JOIN jobs jr ON jr.run_uuid = r.uuid WHERE jr.bisect_id = x.id "
		"AND jr.bisect_pos = jb.bisect_pos AND jr.state = 'done' AND "
		"r.status = 'complete'), '[]') AS kids "
		"FROM jobs jb WHERE jb.bisect_id = x.id GROUP BY jb.bisect_pos) "
		"j)) FROM bisections x JOIN boards b ON b.id = x.board_id "
		"WHERE x.id = $1::bigint",
		1, p, out, err, "reading a bisection");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT, "no bisection %" PRId64, id);
	return ret;
}

int db_bisect_list(PGconn *conn, json_t **out, struct rtlab_err *err)
{
	return db_query_json(conn,
			     "SELECT COALESCE(json_agg(" BISECT_JSON
			     ") ORDER BY x.id DESC), '[]') FROM bisections x "
			     "JOIN boards b ON b.id = x.board_id",
			     0, NULL, out, err, "listing bisections");
}

int db_bisect_update(PGconn *conn, int64_t id, json_t *set,
		     struct rtlab_err *err)
{
	char sid[24], *js = json_dumps(set, JSON_COMPACT);
	const char *p[2] = { sid, js };
	int ret;

	if (!js)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	snprintf(sid, sizeof(sid), "%" PRId64, id);
	ret = db_exec(
		conn, err,
		"UPDATE bisections SET "
		"state = CASE WHEN $2::jsonb ? 'state' THEN $2::jsonb->>'state' "
		"ELSE state END, "
		"step = CASE WHEN $2::jsonb ? 'step' THEN "
		"($2::jsonb->>'step')::integer ELSE step END, "
		"lo = CASE WHEN $2::jsonb ? 'lo' THEN ($2::jsonb->>'lo')::integer "
		"ELSE lo END, "
		"hi = CASE WHEN $2::jsonb ? 'hi' THEN ($2::jsonb->>'hi')::integer "
		"ELSE hi END, "
		"culprit = CASE WHEN $2::jsonb ? 'culprit' THEN "
		"($2::jsonb->>'culprit')::integer ELSE culprit END, "
		"result = CASE WHEN $2::jsonb ? 'result' THEN "
		"$2::jsonb->>'result' ELSE result END, "
		"ends_verdict = CASE WHEN $2::jsonb ? 'ends_verdict' THEN "
		"NULLIF($2::jsonb->'ends_verdict', 'null') ELSE ends_verdict END, "
		"regression_id = CASE WHEN $2::jsonb ? 'regression_id' THEN "
		"($2::jsonb->>'regression_id')::bigint ELSE regression_id END, "
		"finished_at = CASE WHEN $2::jsonb->>'state' IN ('done', "
		"'failed', 'reset') THEN now() ELSE finished_at END "
		"WHERE id = $1::bigint",
		2, p);
	free(js);
	return ret;
}

int db_bisect_step_store(PGconn *conn, int64_t id, int position,
			 const char *kernel, const char *mark,
			 const char *decision, const char *reason, int look,
			 json_t *vs_good, json_t *vs_bad, struct rtlab_err *err)
{
	char sid[24], pos[16], lk[16];
	char *g = vs_good ? json_dumps(vs_good, JSON_COMPACT) : NULL;
	char *b = vs_bad ? json_dumps(vs_bad, JSON_COMPACT) : NULL;
	const char *p[9] = {
		sid, pos, kernel, mark, decision, lk, g, b, reason
	};
	int ret;

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	snprintf(pos, sizeof(pos), "%d", position);
	snprintf(lk, sizeof(lk), "%d", look);
	ret = db_exec(conn, err,
		      "INSERT INTO bisect_steps (bisect_id, position, kernel, "
		      "mark, decision, look, vs_good, vs_bad, reason) VALUES "
		      "($1::bigint, $2::integer, $3, $4, $5, $6::integer, "
		      "$7::jsonb, $8::jsonb, $9)",
		      9, p);
	free(g);
	free(b);
	return ret;
}

int db_bisect_cancel_jobs(PGconn *conn, int64_t id, int position,
			  unsigned int *n, struct rtlab_err *err)
{
	char sid[24], pos[16];
	const char *p[2] = { sid, position >= 0 ? pos : NULL };
	int64_t count = 0;
	int ret;

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	snprintf(pos, sizeof(pos), "%d", position);
	ret = db_query_id(conn,
			  "WITH d AS (DELETE FROM jobs WHERE bisect_id = "
			  "$1::bigint AND state = 'queued' AND ($2::integer "
			  "IS NULL OR bisect_pos = $2::integer) RETURNING 1) "
			  "SELECT count(*) FROM d",
			  2, p, &count, err, "cancelling a bisection's jobs");
	if (n)
		*n = (unsigned int)count;
	return ret;
}

int db_bisect_of_job(PGconn *conn, int64_t job_id, int64_t *id,
		     struct rtlab_err *err)
{
	char sid[24];
	const char *p[1] = { sid };

	snprintf(sid, sizeof(sid), "%" PRId64, job_id);
	return db_query_id(conn,
			   "SELECT bisect_id FROM jobs WHERE id = $1::bigint",
			   1, p, id, err, "finding a job's bisection");
}
