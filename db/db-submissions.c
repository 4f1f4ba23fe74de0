// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Developer submissions in PostgreSQL.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-submissions.h"
#include "db.h"

int db_submission_create(PGconn *conn, const struct db_submission_new *s,
			 int64_t *id, struct rtlab_err *err)
{
	char tid[16], runs[16], dur[16];
	char *b = json_dumps(s->boards, JSON_COMPACT);
	char *t = json_dumps(s->testcases, JSON_COMPACT);
	const char *p[9] = { s->owner,	  tid,	s->kind,
			     s->tree,	  b,	t,
			     s->baseline, runs, s->duration_s ? dur : NULL };
	int ret;

	snprintf(tid, sizeof(tid), "%d", s->token_id);
	snprintf(runs, sizeof(runs), "%u", s->runs);
	snprintf(dur, sizeof(dur), "%u", s->duration_s);
	if (!b || !t)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	else
		ret = db_query_id(
			conn,
			"INSERT INTO submissions (owner, token_id, kind, tree, "
			"boards, testcases, baseline, runs, duration_s) VALUES "
			"($1, $2::integer, $3, $4, ARRAY(SELECT "
			"json_array_elements_text($5::json)), ARRAY(SELECT "
			"json_array_elements_text($6::json)), $7, $8::integer, "
			"$9::integer) RETURNING id",
			9, p, id, err, "storing a submission");
	free(b);
	free(t);
	return ret;
}

int db_submission_set_kernel(PGconn *conn, int64_t id, const char *kernel,
			     struct rtlab_err *err)
{
	char sid[24];
	const char *p[2] = { sid, kernel };

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	return db_exec(conn, err,
		       "UPDATE submissions SET kernel = $2 WHERE id = "
		       "$1::bigint",
		       2, p);
}

#define SUB_FIELDS                                                         \
	"'id', s.id, 'owner', s.owner, 'kind', s.kind, 'state', s.state, " \
	"'tree', s.tree, 'boards', s.boards, 'testcases', s.testcases, "   \
	"'baseline', s.baseline, 'kernel', s.kernel, 'runs', s.runs, "     \
	"'duration_s', s.duration_s, 'result', s.result, 'created_at', "   \
	"s.created_at, 'finished_at', s.finished_at"

int db_submission_get(PGconn *conn, int64_t id, json_t **out,
		      struct rtlab_err *err)
{
	char sid[24];
	const char *p[1] = { sid };
	int ret;

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	ret = db_query_json(
		conn,
		"SELECT json_build_object(" SUB_FIELDS ", 'jobs', "
		"COALESCE((SELECT json_agg(json_build_object('id', j.id, "
		"'kernel', j.kernel, 'side', CASE WHEN j.kernel = s.kernel "
		"THEN 'candidate' ELSE 'baseline' END, 'board', b.name, "
		"'testcase', t.name, 'state', j.state, 'run_uuid', j.run_uuid, "
		"'error', j.error, 'failure', j.failure) ORDER BY j.id) "
		"FROM jobs j JOIN boards b ON b.id = j.board_id JOIN testcases "
		"t ON t.id = j.testcase_id WHERE j.submission_id = s.id), "
		"'[]'), 'verdicts', COALESCE((SELECT json_agg("
		"json_build_object('id', v.id, 'board', b.name, 'testcase', "
		"t.name, 'verdict', v.verdict, 'reason', v.details->>'reason') "
		"ORDER BY v.id) FROM verdicts v JOIN boards b ON b.id = "
		"v.board_id JOIN testcases t ON t.id = v.testcase_id WHERE "
		"v.id = ANY(s.verdict_ids)), '[]')) FROM submissions s WHERE "
		"s.id = $1::bigint",
		1, p, out, err, "reading a submission");
	if (ret == -ENOENT)
		rtlab_err_set(err, "no submission %" PRId64, id);
	return ret;
}

int db_submission_list(PGconn *conn, const char *owner, json_t **out,
		       struct rtlab_err *err)
{
	const char *p[1] = { owner };

	return db_query_json(conn,
			     "SELECT COALESCE(json_agg(json_build_object(" SUB_FIELDS
			     ") ORDER BY s.id DESC), '[]') FROM submissions s "
			     "WHERE $1::text IS NULL OR s.owner = $1",
			     1, p, out, err, "listing submissions");
}

int db_submission_ended(PGconn *conn, json_t **out, struct rtlab_err *err)
{
	return db_query_json(conn,
			     "SELECT COALESCE(json_agg(s.id ORDER BY s.id), "
			     "'[]') FROM submissions s WHERE s.state = "
			     "'queued' AND NOT EXISTS (SELECT 1 FROM jobs j "
			     "WHERE j.submission_id = s.id AND j.state IN "
			     "('queued', 'running'))",
			     0, NULL, out, err, "finding ended submissions");
}

int db_submission_finish(PGconn *conn, int64_t id, const char *state,
			 const char *result, const char *verdict_ids,
			 struct rtlab_err *err)
{
	char sid[24];
	const char *p[4] = { sid, state, result, verdict_ids };

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	return db_exec(conn, err,
		       "UPDATE submissions SET state = $2, result = $3, "
		       "verdict_ids = COALESCE($4::bigint[], '{}'), "
		       "finished_at = now() WHERE id = $1::bigint",
		       4, p);
}

int db_submission_series(PGconn *conn, const char *board, const char *testcase,
			 int *board_id, int *testcase_id, struct rtlab_err *err)
{
	const char *p[2] = { board, testcase };
	int64_t v;
	int ret;

	ret = db_query_id(conn, "SELECT id FROM boards WHERE name = $1", 1, p,
			  &v, err, "finding a board");
	if (ret)
		return ret;
	*board_id = (int)v;
	ret = db_query_id(conn, "SELECT id FROM testcases WHERE name = $1", 1,
			  p + 1, &v, err, "finding a testcase");
	if (!ret)
		*testcase_id = (int)v;
	return ret;
}

int db_submission_tree_baseline(PGconn *conn, const char *tree, char **kernel,
				struct rtlab_err *err)
{
	const char *p[1] = { tree };
	json_t *j = NULL;
	int ret;

	*kernel = NULL;
	ret = db_query_json(conn,
			    "SELECT to_json(k.package || '=' || k.version) "
			    "FROM tree_kernels k WHERE k.tree = $1 AND "
			    "EXISTS (SELECT 1 FROM jobs j WHERE j.kernel = "
			    "k.package || '=' || k.version AND j.state = "
			    "'done') ORDER BY k.position DESC LIMIT 1",
			    1, p, &j, err, "finding a tree's tested kernel");
	if (!ret) {
		*kernel = strdup(json_string_value(j));
		if (!*kernel)
			ret = -ENOMEM;
	}
	json_decref(j);
	return ret;
}
