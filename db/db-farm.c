// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The farm in PostgreSQL: what each kernel of a tree has and still needs,
 * the night's counts, regressions to tell and what was told.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-farm.h"
#include "db.h"

int db_farm_lock(PGconn *conn, struct rtlab_err *err)
{
	return db_exec(conn, err,
		       "SELECT pg_advisory_xact_lock(hashtext('rtlab farm'))",
		       0, NULL);
}

int db_farm_cells(PGconn *conn, const char *kernel, json_t *boards,
		  json_t *testcases, json_t **cells, struct rtlab_err *err)
{
	char *b = json_dumps(boards, JSON_COMPACT);
	char *t = json_dumps(testcases, JSON_COMPACT);
	const char *p[3] = { kernel, b, t };
	int ret;

	if (!b || !t) {
		free(b);
		free(t);
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	/* One statement for every cell of the kernel: a tick over 100
	 * boards x 10 testcases asks 3 times, not 6000.  Both counts
	 * walk indexes of the cell (jobs_farm_key, verdicts_pair). */
	ret = db_query_json(
		conn,
		"WITH k AS (SELECT DISTINCT kernel_id FROM jobs "
		"           WHERE kernel = $1 AND kernel_id IS NOT NULL), "
		"c AS (SELECT b.id AS board_id, t.id AS testcase_id, "
		"      b.name AS board, t.name AS testcase "
		"      FROM boards b, testcases t "
		"      WHERE b.name IN (SELECT json_array_elements_text($2)) "
		"      AND t.name IN (SELECT json_array_elements_text($3))), "
		"bc AS (SELECT c.board, json_object_agg(c.testcase, "
		"json_build_array("
		" (SELECT count(*) FROM jobs j WHERE j.kernel = $1 "
		"  AND j.board_id = c.board_id "
		"  AND j.testcase_id = c.testcase_id "
		"  AND NOT (j.state = 'failed' AND "
		"           j.failure IS DISTINCT FROM 'run')), "
		" (SELECT COALESCE(max((v.details->'sequential'->>"
		"  'next_look_runs')::integer), 0) FROM "
		"  (SELECT DISTINCT ON (v.baseline_kernel_id, "
		"   v.candidate_kernel_id) v.verdict, v.details "
		"   FROM verdicts v WHERE v.board_id = c.board_id "
		"   AND v.testcase_id = c.testcase_id "
		"   AND (v.candidate_kernel_id IN (SELECT kernel_id FROM k) "
		"        OR v.baseline_kernel_id IN (SELECT kernel_id FROM k)) "
		"   ORDER BY v.baseline_kernel_id, v.candidate_kernel_id, "
		"            v.created_at DESC, v.id DESC) v "
		"  WHERE v.verdict = 'INCONCLUSIVE'))) AS testcases "
		"  FROM c GROUP BY c.board) "
		"SELECT COALESCE(json_object_agg(board, testcases), '{}') "
		"FROM bc",
		3, p, cells, err, "reading what a kernel's cells have");
	free(b);
	free(t);
	return ret;
}

void db_farm_cell(json_t *cells, const char *board, const char *testcase,
		  int64_t *have, int64_t *look)
{
	json_t *c = json_object_get(json_object_get(cells, board), testcase);

	*have = json_integer_value(json_array_get(c, 0));
	*look = json_integer_value(json_array_get(c, 1));
}

int db_farm_kernel_id(PGconn *conn, const char *kernel, int64_t *id,
		      struct rtlab_err *err)
{
	const char *p[1] = { kernel };

	return db_query_id(conn,
			   "SELECT kernel_id FROM jobs WHERE kernel = $1 "
			   "AND kernel_id IS NOT NULL ORDER BY id DESC LIMIT 1",
			   1, p, id, err, "finding a kernel's runs");
}

int db_farm_status(PGconn *conn, unsigned int hours, json_t **out,
		   struct rtlab_err *err)
{
	char h[16];
	const char *p[1] = { h };

	snprintf(h, sizeof(h), "%u", hours);
	return db_query_json(
		conn,
		"WITH j AS (SELECT COALESCE(j.tree, CASE WHEN j.submission_id "
		"  IS NOT NULL THEN 'submission ' || j.submission_id "
		"  ELSE '(by hand)' END) AS tree, b.name AS board, j.state, "
		"  j.failure FROM jobs j JOIN boards b ON b.id = j.board_id "
		"  WHERE j.state IN ('queued', 'running') OR j.created_at > "
		"  now() - make_interval(hours => $1::integer)), "
		"c AS (SELECT tree, board, "
		"  count(*) FILTER (WHERE state = 'queued') AS queued, "
		"  count(*) FILTER (WHERE state = 'running') AS running, "
		"  count(*) FILTER (WHERE state = 'done') AS done, "
		"  count(*) FILTER (WHERE state = 'failed') AS failed "
		"  FROM j GROUP BY tree, board), "
		"v AS (SELECT DISTINCT ON (v.board_id, v.testcase_id, "
		"  v.candidate_kernel_id) fj.tree, fj.kernel, b.name AS board, "
		"  t.name AS testcase, v.id, v.verdict, v.created_at "
		"  FROM verdicts v JOIN boards b ON b.id = v.board_id "
		"  JOIN testcases t ON t.id = v.testcase_id "
		"  JOIN LATERAL (SELECT tree, kernel FROM jobs "
		"    WHERE kernel_id = v.candidate_kernel_id AND tree IS NOT NULL "
		"    AND origin = 'farm' LIMIT 1) fj ON true "
		"  WHERE v.created_at > now() - make_interval(hours => "
		"  $1::integer) ORDER BY v.board_id, v.testcase_id, "
		"  v.candidate_kernel_id, v.created_at DESC) "
		"SELECT json_build_object('cells', COALESCE((SELECT json_agg("
		"  json_build_object('tree', tree, 'board', board, 'queued', "
		"  queued, 'running', running, 'done', done, 'failed', failed) "
		"  ORDER BY tree, board) FROM c), '[]'), 'verdicts', "
		"  COALESCE((SELECT json_agg(json_build_object('tree', tree, "
		"  'kernel', kernel, 'board', board, 'testcase', testcase, "
		"  'id', id, 'verdict', verdict, 'created_at', created_at) "
		"  ORDER BY tree, kernel, board, testcase) FROM v), '[]'))",
		1, p, out, err, "reading the farm's status");
}

/* The latest verdict of each pair (board, testcase, baseline, candidate)
 * whose candidate belongs to tree $1 (kernels.tree, or the farm's jobs of
 * the tree made it), as "v". */
#define TREE_LATEST_VERDICTS                                              \
	"v AS (SELECT DISTINCT ON (v.board_id, v.testcase_id, "           \
	"  v.baseline_kernel_id, v.candidate_kernel_id) v.* "             \
	"  FROM verdicts v JOIN kernels ck ON ck.id = "                   \
	"  v.candidate_kernel_id WHERE ck.tree = $1 OR EXISTS (SELECT 1 " \
	"  FROM jobs j WHERE j.kernel_id = v.candidate_kernel_id AND "    \
	"  j.tree = $1) ORDER BY v.board_id, v.testcase_id, "             \
	"  v.baseline_kernel_id, v.candidate_kernel_id, "                 \
	"  v.created_at DESC, v.id DESC)"

int db_farm_regressions(PGconn *conn, const char *tree, json_t **out,
			struct rtlab_err *err)
{
	const char *p[1] = { tree };

	return db_query_json(
		conn,
		"WITH " TREE_LATEST_VERDICTS " "
		"SELECT COALESCE(json_agg(json_build_object('id', v.id, "
		"  'board_id', v.board_id, 'testcase_id', v.testcase_id, "
		"  'baseline_kernel_id', v.baseline_kernel_id, "
		"  'candidate_kernel_id', v.candidate_kernel_id, "
		"  'board', b.name, 'testcase', t.name, 'baseline', bk.release, "
		"  'candidate', ck.release, 'verdict', v.verdict, 'reason', "
		"  v.details->>'reason', 'runs', cardinality(v.candidate_runs), "
		"  'created_at', v.created_at) ORDER BY v.id), '[]') "
		"FROM v JOIN boards b ON b.id = v.board_id "
		"JOIN testcases t ON t.id = v.testcase_id "
		"JOIN kernels bk ON bk.id = v.baseline_kernel_id "
		"JOIN kernels ck ON ck.id = v.candidate_kernel_id "
		"WHERE v.verdict = 'REGRESSION' OR EXISTS (SELECT 1 FROM "
		"  notifications n WHERE n.subject = 'regression:' || "
		"  v.board_id || ':' || v.testcase_id || ':' || "
		"  v.baseline_kernel_id || ':' || v.candidate_kernel_id)",
		1, p, out, err, "reading a tree's regressions");
}

int db_farm_bisectable(PGconn *conn, const char *tree, json_t **out,
		       struct rtlab_err *err)
{
	const char *p[1] = { tree };

	return db_query_json(
		conn,
		"WITH " TREE_LATEST_VERDICTS ", "
		"s AS (SELECT v.id, v.board_id, b.name AS board, "
		"  t.name AS testcase, "
		"  (SELECT j.kernel FROM jobs j WHERE j.kernel_id = "
		"   v.baseline_kernel_id AND j.tree = $1 ORDER BY j.id DESC "
		"   LIMIT 1) AS good, "
		"  (SELECT j.kernel FROM jobs j WHERE j.kernel_id = "
		"   v.candidate_kernel_id AND j.tree = $1 ORDER BY j.id DESC "
		"   LIMIT 1) AS bad "
		"  FROM v JOIN boards b ON b.id = v.board_id "
		"  JOIN testcases t ON t.id = v.testcase_id "
		"  WHERE v.verdict = 'REGRESSION'), "
		"p AS (SELECT s.*, "
		"  (SELECT position FROM tree_kernels k WHERE k.tree = $1 AND "
		"   k.package || '=' || k.version = s.good) AS gpos, "
		"  (SELECT position FROM tree_kernels k WHERE k.tree = $1 AND "
		"   k.package || '=' || k.version = s.bad) AS bpos FROM s) "
		"SELECT COALESCE(json_agg(json_build_object('id', p.id, "
		"  'board', p.board, 'testcase', p.testcase, 'good', p.good, "
		"  'bad', p.bad) ORDER BY p.id), '[]') FROM p "
		"WHERE p.bpos - p.gpos > 1 AND NOT EXISTS (SELECT 1 FROM "
		"  bisections x WHERE x.board_id = p.board_id AND "
		"  x.testcase = p.testcase AND x.kernels[1] = p.good AND "
		"  x.kernels[cardinality(x.kernels)] = p.bad)",
		1, p, out, err, "reading a tree's regressions to bisect");
}

int db_notification_get(PGconn *conn, const char *subject, char **message_id,
			char **last_id, char **last_state,
			struct rtlab_err *err)
{
	const char *p[1] = { subject };
	PGresult *res;
	int ret;

	*message_id = *last_id = *last_state = NULL;
	ret = db_query_rows(conn,
			    "SELECT message_id, last_message_id, last_state "
			    "FROM notifications WHERE subject = $1",
			    1, p, &res, err, "reading a notification");
	if (ret)
		return ret;
	if (PQntuples(res) != 1) {
		ret = -ENOENT;
	} else {
		*message_id = strdup(PQgetvalue(res, 0, 0));
		*last_id = strdup(PQgetvalue(res, 0, 1));
		*last_state = strdup(PQgetvalue(res, 0, 2));
		if (!*message_id || !*last_id || !*last_state)
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	PQclear(res);
	return ret;
}

int db_notification_put(PGconn *conn, const char *subject,
			const char *message_id, const char *state,
			struct rtlab_err *err)
{
	const char *p[3] = { subject, message_id, state };

	return db_exec(conn, err,
		       "INSERT INTO notifications (subject, message_id, "
		       "last_message_id, last_state) VALUES ($1, $2, $2, $3) "
		       "ON CONFLICT (subject) DO UPDATE SET last_message_id = "
		       "$2, last_state = $3, messages = notifications.messages "
		       "+ 1, updated_at = now()",
		       3, p);
}
