// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reports domain of the database: the context of one verdict for a
 * regression report, the reports table (generated and filed reports, a
 * verdict filed once) and the rows behind the KCIDB export.  PostgreSQL
 * builds the JSON of the answers (json_build_object), so rows never pass
 * through hand-written formatting.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-reports.h"
#include "db.h"

/* Timestamps leave the database as ISO 8601 in UTC. */
#define ISO(col) \
	"to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/* One run (alias r) as a JSON object. */
#define RUN_JSON                                                                                                       \
	"json_build_object('id', r.id, 'uuid', r.uuid, "                                                               \
	"'status', r.status, 'error', r.error, 'clock', r.clock, "                                                     \
	"'flags', r.flags, "                                                                                           \
	"'machine', r.manifest->'kernel'->>'machine', "                                                                \
	"'environment', r.environment, 'commands', r.commands, "                                                       \
	"'testcase', r.manifest->'testcase', "                                                                         \
	"'measurement', r.manifest->'measurement', "                                                                   \
	"'started_at', " ISO(                                                                                          \
		"r.started_at") ", "                                                                                   \
				"'finished_at', " ISO(                                                                 \
					"r.finished_at") ", "                                                          \
							 "'samples', (SELECT sum(samples) FROM histograms "            \
							 "WHERE run_id = r.id), "                                      \
							 "'max_us', (SELECT max(max_us) FROM histograms "              \
							 "WHERE run_id = r.id), "                                      \
							 "'max_cpu', (SELECT cpu FROM histograms WHERE run_id = r.id " \
							 "ORDER BY max_us DESC NULLS LAST, thread LIMIT 1), "          \
							 "'artifacts', COALESCE((SELECT json_agg(json_build_object("   \
							 "'name', name, 'content_type', content_type, 'size', size, "  \
							 "'sha256', sha256) ORDER BY name) FROM artifacts "            \
							 "WHERE run_id = r.id), '[]'))"

/* One kernel (alias k) as a JSON object. */
#define KERNEL_JSON                                                      \
	"json_build_object('id', k.id, 'name', k.name, 'tree', k.tree, " \
	"'release', k.release, 'version', k.version, "                   \
	"'commit', k.commit, 'config_sha256', k.config_sha256, "         \
	"'realtime', k.realtime, 'created_at', " ISO("k.created_at") ")"

static void trim_nl(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Run @sql; a failure becomes -EIO (-EINVAL for PostgreSQL's data
 * exceptions, class 22) with @what and PostgreSQL's message. */
static int query(PGconn *conn, const char *sql, int n, const char *const *p,
		 PGresult **out, struct rtlab_err *err, const char *what)
{
	PGresult *res = PQexecParams(conn, sql, n, NULL, p, NULL, NULL, 0);
	const char *state, *prim;
	char msg[RTLAB_ERR_LEN];
	int e = EIO;

	if (res && (PQresultStatus(res) == PGRES_TUPLES_OK ||
		    PQresultStatus(res) == PGRES_COMMAND_OK)) {
		*out = res;
		return 0;
	}
	state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	prim = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	snprintf(msg, sizeof(msg), "%s", prim ? prim : PQerrorMessage(conn));
	trim_nl(msg);
	if (state && !strncmp(state, "22", 2))
		e = EINVAL;
	if (state && !strcmp(state, "23505"))
		e = EEXIST;
	PQclear(res);
	*out = NULL;
	return rtlab_err_seterr(err, e, "%s: %s", what, msg);
}

int db_report_verdict_get(PGconn *conn, int64_t verdict_id, json_t **out,
			  struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT json_build_object('id', v.id, 'verdict', v.verdict, "
		"'details', v.details, "
		"'created_at', " ISO(
			"v.created_at") ", "
					"'board', (SELECT json_build_object('name', b.name, "
					"'kind', b.kind, 'definition', b.definition) FROM boards b "
					"WHERE b.id = v.board_id), "
					"'testcase', (SELECT json_build_object('name', t.name, "
					"'definition', t.definition) FROM testcases t "
					"WHERE t.id = v.testcase_id), "
					"'baseline', (SELECT " KERNEL_JSON
					" FROM kernels k "
					"WHERE k.id = v.baseline_kernel_id), "
					"'candidate', (SELECT " KERNEL_JSON
					" FROM kernels k "
					"WHERE k.id = v.candidate_kernel_id), "
					"'baseline_runs', COALESCE((SELECT json_agg(" RUN_JSON
					" ORDER BY r.id) FROM runs r "
					"WHERE r.id = ANY (v.baseline_runs)), '[]'), "
					"'candidate_runs', COALESCE((SELECT json_agg(" RUN_JSON
					" ORDER BY r.id) FROM runs r "
					"WHERE r.id = ANY (v.candidate_runs)), '[]'))::text "
					"FROM verdicts v WHERE v.id = $1::bigint";
	char id[24];
	const char *p[1] = { id };
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, verdict_id);
	ret = db_query_json(conn, sql, 1, p, out, err, "reading the verdict");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT, "verdict %s not found", id);
	return ret;
}

int db_report_filed(PGconn *conn, int64_t verdict_id, int64_t *bug_id,
		    char **bug_url, struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT bug_id, COALESCE(bug_url, '') FROM reports "
		"WHERE verdict_id = $1::bigint AND bug_id IS NOT NULL "
		"ORDER BY id LIMIT 1";
	char id[24];
	const char *p[1] = { id };
	PGresult *res;
	int ret;

	if (bug_url)
		*bug_url = NULL;
	snprintf(id, sizeof(id), "%" PRId64, verdict_id);
	ret = query(conn, sql, 1, p, &res, err, "reading the reports table");
	if (ret)
		return ret;
	if (PQntuples(res) < 1) {
		ret = -ENOENT;
		goto out;
	}
	*bug_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	if (bug_url) {
		*bug_url = strdup(PQgetvalue(res, 0, 1));
		if (!*bug_url)
			ret = -ENOMEM;
	}
out:
	PQclear(res);
	return ret;
}

int db_report_record(PGconn *conn, int64_t verdict_id, int64_t bug_id,
		     const char *bug_url, const char *regression,
		     const char *files_json, struct rtlab_err *err)
{
	static const char sql[] =
		"INSERT INTO reports (verdict_id, bug_id, bug_url, regression, "
		"files, filed_at) VALUES ($1::bigint, $2::integer, $3, $4, "
		"COALESCE($5::jsonb, '{}'), "
		"CASE WHEN $2::integer IS NULL THEN NULL ELSE now() END)";
	char id[24], bug[24];
	const char *p[5] = { id, bug_id > 0 ? bug : NULL,
			     bug_id > 0 ? bug_url : NULL, regression,
			     files_json };
	PGresult *res;
	int64_t other;
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, verdict_id);
	snprintf(bug, sizeof(bug), "%" PRId64, bug_id);
	ret = query(conn, sql, 5, p, &res, err, "recording the report");
	if (ret == -EEXIST &&
	    !db_report_filed(conn, verdict_id, &other, NULL, NULL))
		rtlab_err_seterr(err, EEXIST,
				 "verdict %s is already filed as bug %" PRId64,
				 id, other);
	if (!ret)
		PQclear(res);
	return ret;
}

int db_report_files_get(PGconn *conn, int64_t verdict_id, json_t **files,
			struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT files::text FROM reports WHERE verdict_id = $1::bigint "
		"AND bug_id IS NOT NULL ORDER BY id LIMIT 1";
	char id[24];
	const char *p[1] = { id };

	snprintf(id, sizeof(id), "%" PRId64, verdict_id);
	return db_query_json(conn, sql, 1, p, files, err,
			     "reading the filed report");
}

int db_report_files_set(PGconn *conn, int64_t verdict_id,
			const char *files_json, struct rtlab_err *err)
{
	static const char sql[] =
		"UPDATE reports SET files = $2::jsonb WHERE verdict_id = "
		"$1::bigint AND bug_id IS NOT NULL";
	char id[24];
	const char *p[2] = { id, files_json };
	PGresult *res;
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, verdict_id);
	ret = query(conn, sql, 2, p, &res, err, "updating the filed report");
	if (!ret)
		PQclear(res);
	return ret;
}

int db_report_regression_bug(PGconn *conn, const char *regression,
			     int64_t *bug_id, char **bug_url,
			     struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT bug_id, COALESCE(bug_url, '') FROM reports "
		"WHERE regression = $1 AND bug_id IS NOT NULL "
		"ORDER BY id LIMIT 1";
	const char *p[1] = { regression };
	PGresult *res;
	int ret;

	*bug_url = NULL;
	ret = query(conn, sql, 1, p, &res, err, "reading the reports table");
	if (ret)
		return ret;
	if (PQntuples(res) < 1) {
		ret = -ENOENT;
	} else {
		*bug_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		*bug_url = strdup(PQgetvalue(res, 0, 1));
		if (!*bug_url)
			ret = -ENOMEM;
	}
	PQclear(res);
	return ret;
}

int db_kcidb_get(PGconn *conn, const char *since, json_t **out,
		 struct rtlab_err *err)
{
	static const char sql[] =
		"WITH vs AS (SELECT * FROM verdicts v "
		"WHERE v.verdict = 'REGRESSION' AND ($1::timestamptz IS NULL "
		"OR v.created_at >= $1::timestamptz)), "
		"rs AS (SELECT * FROM runs r WHERE $1::timestamptz IS NULL "
		"OR r.created_at >= $1::timestamptz OR r.id IN "
		"(SELECT unnest(candidate_runs) FROM vs)) "
		"SELECT json_build_object("
		"'kernels', COALESCE((SELECT json_agg(" KERNEL_JSON
		" ORDER BY k.id) FROM kernels k WHERE k.id IN "
		"(SELECT kernel_id FROM rs UNION SELECT candidate_kernel_id "
		"FROM vs UNION SELECT baseline_kernel_id FROM vs)), '[]'), "
		"'runs', COALESCE((SELECT json_agg(json_build_object("
		"'id', r.id, 'uuid', r.uuid, 'kernel_id', r.kernel_id, "
		"'board', b.name, 'testcase', t.name, 'status', r.status, "
		"'error', r.error, 'clock', r.clock, 'flags', r.flags, "
		"'machine', r.manifest->'kernel'->>'machine', "
		"'started_at', " ISO(
			"r.started_at") ", "
					"'finished_at', " ISO(
						"r.finished_at") ", "
								 "'created_at', " ISO(
									 "r.created_at") ", "
											 "'max_us', (SELECT max(max_us) FROM histograms "
											 "WHERE run_id = r.id), "
											 "'samples', (SELECT sum(samples) FROM histograms "
											 "WHERE run_id = r.id)) ORDER BY r.id) "
											 "FROM rs r JOIN boards b ON b.id = r.board_id "
											 "JOIN testcases t ON t.id = r.testcase_id), '[]'), "
											 "'regressions', COALESCE((SELECT json_agg(json_build_object("
											 "'id', v.id, 'board', b.name, 'testcase', t.name, "
											 "'baseline_kernel_id', v.baseline_kernel_id, "
											 "'candidate_kernel_id', v.candidate_kernel_id, "
											 "'candidate_runs', to_json(v.candidate_runs), "
											 "'details', v.details, "
											 "'created_at', " ISO(
												 "v.created_at") ", "
														 "'bug_url', (SELECT bug_url FROM reports p WHERE "
														 "p.verdict_id = v.id AND p.bug_id IS NOT NULL LIMIT 1)) "
														 "ORDER BY v.id) FROM vs v JOIN boards b ON b.id = v.board_id "
														 "JOIN testcases t ON t.id = v.testcase_id), '[]'))::text";
	const char *p[1] = { since };
	int ret;

	ret = db_query_json(conn, sql, 1, p, out, err,
			    "reading runs for KCIDB");
	if (ret == -EINVAL)
		rtlab_err_seterr(err, EINVAL,
				 "--since '%s': expected an ISO "
				 "date or time such as 2026-12-01 or "
				 "2026-12-01T03:00:00Z",
				 since ? since : "");
	return ret;
}
