// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Queries for the maintainers' web pages (web.c): the overview grid of
 * series against the latest kernels, a series' trend across the kernels of
 * a tree, and a verdict's latest report.  Each answer is one JSON value
 * built by PostgreSQL (json_build_object), as db-runs.c does, so the pages
 * never see a PGresult.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-web.h"
#include "db.h"

#define ISO(col) \
	"to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/* A run's worst figures over its CPUs, for a runs row aliased "r": kept
 * on the run when it is stored (schema 012), so that a page over
 * thousands of runs never opens their histograms. */
#define RUN_MAX "r.max_us"
#define RUN_P999 "r.p999_us"

int db_web_overview(PGconn *conn, unsigned int nkernels, json_t **out,
		    struct rtlab_err *err)
{
	static const char sql[] =
		/* one probe of runs_kernel_created per kernel, not a
		 * pass over every run of the year */
		"WITH k AS (SELECT kernel_id, first_at FROM "
		"(SELECT kk.id AS kernel_id, (SELECT min(created_at) "
		"FROM runs WHERE kernel_id = kk.id) AS first_at "
		"FROM kernels kk) f WHERE first_at IS NOT NULL "
		"ORDER BY first_at DESC, kernel_id DESC LIMIT $1::integer), "
		"r AS (SELECT r.id, r.board_id, r.testcase_id, r.kernel_id, "
		"r.status, " RUN_MAX " AS max_us, " RUN_P999 " AS p999_us "
		"FROM runs r JOIN k USING (kernel_id)), "
		"c AS (SELECT board_id, testcase_id, kernel_id, "
		"count(*) AS runs, "
		"count(*) FILTER (WHERE status = 'complete') AS complete, "
		"max(max_us) AS max_us, max(p999_us) AS p999_us, "
		"max(id) AS latest_run FROM r GROUP BY 1, 2, 3), "
		"cv AS (SELECT c.*, v.id AS verdict_id, v.verdict FROM c "
		"LEFT JOIN LATERAL (SELECT id, verdict FROM verdicts v "
		"WHERE v.board_id = c.board_id "
		"AND v.testcase_id = c.testcase_id "
		"AND v.candidate_kernel_id = c.kernel_id "
		"ORDER BY v.created_at DESC, v.id DESC LIMIT 1) v ON true), "
		"rows AS (SELECT b.name AS board, t.name AS testcase, "
		"json_agg(json_build_object('kernel_id', cv.kernel_id, "
		"'runs', cv.runs, 'complete', cv.complete, "
		"'max_us', cv.max_us, 'p999_us', cv.p999_us, "
		"'latest_run', cv.latest_run, 'verdict', cv.verdict, "
		"'verdict_id', cv.verdict_id)) AS cells "
		"FROM cv JOIN boards b ON b.id = cv.board_id "
		"JOIN testcases t ON t.id = cv.testcase_id "
		"GROUP BY b.name, t.name) "
		"SELECT json_build_object("
		"'kernels', (SELECT COALESCE(json_agg(json_build_object("
		"'id', kk.id, 'release', kk.release, 'tree', kk.tree) "
		"ORDER BY k.first_at DESC, k.kernel_id DESC), '[]') "
		"FROM k JOIN kernels kk ON kk.id = k.kernel_id), "
		"'rows', (SELECT COALESCE(json_agg(json_build_object("
		"'board', board, 'testcase', testcase, 'cells', cells) "
		"ORDER BY board, testcase), '[]') FROM rows))::text";
	char n[16];
	const char *p[1] = { n };

	snprintf(n, sizeof(n), "%u",
		 nkernels ? nkernels : WEB_OVERVIEW_KERNELS);
	return db_query_json(conn, sql, 1, p, out, err, "reading the overview");
}

int db_web_trend(PGconn *conn, const char *board, const char *testcase,
		 const char *tree, const char *clock, json_t **out,
		 struct rtlab_err *err)
{
	static const char sql[] =
		"WITH s AS (SELECT b.id AS board_id, t.id AS testcase_id "
		"FROM boards b, testcases t "
		"WHERE b.name = $1 AND t.name = $2), "
		"latest AS (SELECT r.clock, k.tree FROM runs r "
		"JOIN s USING (board_id, testcase_id) "
		"JOIN kernels k ON k.id = r.kernel_id "
		"WHERE r.status = 'complete' "
		"AND ($3::text IS NULL OR k.tree = $3) "
		"AND ($4::text IS NULL OR r.clock = $4) "
		"ORDER BY r.created_at DESC, r.id DESC LIMIT 1), "
		"rr AS (SELECT r.id, r.kernel_id, r.created_at, " RUN_MAX
		" AS max_us, " RUN_P999 " AS p999_us "
		"FROM runs r JOIN s USING (board_id, testcase_id) "
		"JOIN kernels k ON k.id = r.kernel_id "
		"JOIN latest l ON l.tree = k.tree AND l.clock = r.clock "
		"WHERE r.status = 'complete'), "
		"kk AS (SELECT kernel_id, min(created_at) AS first_at, "
		"json_agg(json_build_object('id', id, 'max_us', max_us, "
		"'p999_us', p999_us) ORDER BY id) AS runs "
		"FROM rr GROUP BY kernel_id) "
		"SELECT json_build_object('board', $1::text, "
		"'testcase', $2::text, 'tree', l.tree, 'clock', l.clock, "
		"'kernels', (SELECT COALESCE(json_agg(json_build_object("
		"'id', k.id, 'release', k.release, 'runs', kk.runs) "
		"ORDER BY kk.first_at, k.id), '[]') "
		"FROM kk JOIN kernels k ON k.id = kk.kernel_id))::text "
		"FROM latest l";
	const char *p[4] = { board, testcase, tree, clock };
	int ret;

	ret = db_query_json(conn, sql, 4, p, out, err, "reading the trend");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT,
				 "no complete run of board '%s', "
				 "testcase '%s'%s%s%s%s%s%s",
				 board, testcase, tree ? ", tree '" : "",
				 tree ? tree : "", tree ? "'" : "",
				 clock ? ", clock '" : "", clock ? clock : "",
				 clock ? "'" : "");
	return ret;
}

int db_web_report(PGconn *conn, int64_t verdict_id, json_t **out,
		  struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT json_build_object('id', id, 'bug_id', bug_id, "
		"'bug_url', bug_url, 'files', files, "
		"'created_at', " ISO(
			"created_at") ", "
				      "'filed_at', " ISO(
					      "filed_at") ")::text "
							  "FROM reports WHERE verdict_id = $1::bigint "
							  "ORDER BY (bug_id IS NOT NULL) DESC, id DESC LIMIT 1";
	char id[24];
	const char *p[1] = { id };
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, verdict_id);
	ret = db_query_json(conn, sql, 1, p, out, err, "reading the report");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT, "verdict %s has no report", id);
	return ret;
}

int db_web_run_verdict(PGconn *conn, int64_t run_id, int64_t *verdict_id,
		       struct rtlab_err *err)
{
	static const char sql[] =
		/* @> rather than = ANY: the GIN indexes answer it */
		"SELECT id::text FROM verdicts "
		"WHERE candidate_runs @> ARRAY[$1::bigint] "
		"OR baseline_runs @> ARRAY[$1::bigint] "
		"ORDER BY ($1::bigint = ANY (candidate_runs)) DESC, "
		"created_at DESC, id DESC LIMIT 1";
	char id[24];
	const char *p[1] = { id };
	json_t *j = NULL;
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, run_id);
	ret = db_query_json(conn, sql, 1, p, &j, err,
			    "finding the run's verdict");
	if (!ret) {
		*verdict_id = json_integer_value(j);
		if (*verdict_id <= 0)
			ret = -ENOENT;
	}
	json_decref(j);
	return ret;
}
