// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The runs domain of the database: the one-transaction store of an ingested
 * run and the queries behind GET /api/v1/runs..., `rtlab runs`, `rtlab show`
 * and the plots.  PostgreSQL builds the JSON of query answers itself
 * (json_build_object), so rows never pass through hand-written formatting;
 * histograms go in as one INSERT each with their buckets as binary arrays,
 * and an upload's statements are prepared once per connection and sent
 * as one pipeline (db-pipeline.c).
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "db-pipeline.h"
#include "db-runs.h"
#include "db-verdicts-local.h"
#include "db.h"
#include "manifest.h"

/* Timestamps leave the database as ISO 8601 in UTC. */
#define ISO(col) \
	"to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

const char *artifact_content_type(const char *name)
{
	static const struct {
		const char *suffix, *type;
	} types[] = {
		{ ".json", "application/json" },
		{ ".txt", "text/plain; charset=utf-8" },
		{ ".log", "text/plain; charset=utf-8" },
		{ ".hist", "text/plain; charset=utf-8" },
		{ ".yaml", "application/yaml" },
		{ ".png", "image/png" },
		{ ".svg", "image/svg+xml" },
		{ ".gz", "application/gzip" },
		{ ".html", "text/html; charset=utf-8" },
	};
	const char *base = strrchr(name, '/');
	size_t n = strlen(name), i;

	base = base ? base + 1 : name;
	if (!strcmp(base, "config") || !strncmp(base, "config-", 7))
		return "text/plain; charset=utf-8";
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t s = strlen(types[i].suffix);

		if (n > s && !strcasecmp(name + n - s, types[i].suffix))
			return types[i].type;
	}
	return "application/octet-stream";
}

/* Built-in type oids (pg_type.dat): what the binary arrays hold. */
#define INT4OID 23
#define INT8OID 20

static unsigned char *put_be(unsigned char *p, uint64_t v, int bytes)
{
	while (bytes--)
		*p++ = (unsigned char)(v >> (8 * bytes));
	return p;
}

/*
 * The non-empty buckets' latencies (integer[]) or counts (bigint[]) in
 * PostgreSQL's binary array format (array_send()): neither side formats
 * or parses a number, and the array's header names the element type,
 * which the server checks.  *@len gets the size; caller frees.
 */
static unsigned char *array_binary(const struct hist *h, bool counts, int *len)
{
	uint32_t n = hist_nonempty(h), i;
	int elem = counts ? 8 : 4;
	size_t size = 20 + (size_t)n * (4 + elem);
	unsigned char *s, *p;

	if (size > INT_MAX)
		return NULL;
	s = malloc(size);
	if (!s)
		return NULL;
	p = put_be(s, n ? 1 : 0, 4);		      /* dimensions */
	p = put_be(p, 0, 4);			      /* no NULLs */
	p = put_be(p, counts ? INT8OID : INT4OID, 4); /* element type */
	if (n) {
		p = put_be(p, n, 4); /* the dimension's length */
		p = put_be(p, 1, 4); /* ... and lower bound */
	}
	for (i = 0; i < h->nbuckets; i++) {
		if (!h->counts[i])
			continue;
		p = put_be(p, elem, 4);
		p = put_be(p, counts ? h->counts[i] : i, elem);
	}
	*len = (int)(p - s);
	return s;
}

static const char *q_or_null(int64_t v, char *buf, size_t n)
{
	if (v < 0)
		return NULL;
	snprintf(buf, n, "%" PRId64, v);
	return buf;
}

/* The run's id inside the storing pipeline: the value the run INSERT just
 * drew from its sequence (session-local, so concurrent uploads do not mix). */
#define RUN_ID_SQL "currval(pg_get_serial_sequence('runs', 'id'))"

static const struct db_stmt hist_stmt = {
	"rtlab_store_histogram",
	"INSERT INTO histograms (run_id, thread, cpu, range_us, "
	"bucket_us, counts, overflows, samples, min_us, avg_us, "
	"max_us, p50_us, p99_us, p999_us, p9999_us, metric) VALUES (" RUN_ID_SQL
	", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
	"$12, $13, $14, COALESCE($15, 'latency'))",
	15,
};

static int send_hist(struct db_pipeline *pl, const struct hist *h,
		     struct rtlab_err *err)
{
	char thread[16], cpu[16], range[16], ovf[24], samples[24], min[16],
		avg[40], max[16], p50[24], p99[24], p999[24], p9999[24];
	struct hist_summary s;
	int lens[15] = { 0 }, fmts[15] = { 0 };
	unsigned char *buckets = array_binary(h, false, &lens[3]);
	unsigned char *counts = array_binary(h, true, &lens[4]);
	const char *p[15];
	int ret = 0;

	if (!buckets || !counts) {
		ret = rtlab_err_seterr(err, ENOMEM, "histogram: out of memory");
		goto out;
	}
	hist_summarize(h, &s);
	snprintf(thread, sizeof(thread), "%d", h->thread);
	snprintf(cpu, sizeof(cpu), "%d", h->cpu);
	snprintf(range, sizeof(range), "%" PRIu32, h->nbuckets);
	snprintf(ovf, sizeof(ovf), "%" PRIu64, h->overflows);
	snprintf(samples, sizeof(samples), "%" PRIu64, h->samples);
	snprintf(min, sizeof(min), "%" PRIu32, s.min_us);
	snprintf(avg, sizeof(avg), "%.17g", s.avg_us);
	snprintf(max, sizeof(max), "%" PRIu32, s.max_us);
	p[0] = thread;
	p[1] = cpu;
	p[2] = range;
	p[3] = (const char *)buckets;
	p[4] = (const char *)counts;
	fmts[3] = fmts[4] = 1;
	p[5] = ovf;
	p[6] = samples;
	p[7] = s.samples && s.min_us != UINT32_MAX ? min : NULL;
	p[8] = s.samples && isfinite(s.avg_us) ? avg : NULL;
	p[9] = s.samples ? max : NULL;
	p[10] = q_or_null(s.p50_us, p50, sizeof(p50));
	p[11] = q_or_null(s.p99_us, p99, sizeof(p99));
	p[12] = q_or_null(s.p999_us, p999, sizeof(p999));
	p[13] = q_or_null(s.p9999_us, p9999, sizeof(p9999));
	/* libpq copies the parameters into its buffer here. */
	p[14] = h->metric[0] ? h->metric : NULL;
	ret = db_pipeline_send(pl, &hist_stmt, p, lens, fmts,
			       "storing a histogram", err);
out:
	free(buckets);
	free(counts);
	return ret;
}

static const struct db_stmt artifact_stmt = {
	"rtlab_store_artifact",
	"INSERT INTO artifacts (run_id, name, content_type, size, "
	"sha256, data) VALUES (" RUN_ID_SQL ", $1, $2, $3, $4, $5)",
	5,
};

/* The sha256 the manifest lists for @f, which manifest_verify_files()
 * checked against its bytes before the run got here; NULL when the
 * manifest gives none. */
static const char *listed_sha256(const struct manifest *m,
				 const struct bundle_file *f)
{
	size_t i;

	for (i = 0; i < m->nfiles; i++)
		if (!strcmp(m->files[i].name, f->name))
			return m->files[i].sha256[0] ? m->files[i].sha256 :
						       NULL;
	return NULL;
}

static int send_artifact(struct db_pipeline *pl, const struct manifest *m,
			 const struct bundle_file *f, struct rtlab_err *err)
{
	char size[24], sha[65];
	const char *p[5];
	int lens[5] = { 0 }, fmts[5] = { 0, 0, 0, 0, 1 };

	p[3] = listed_sha256(m, f);
	if (!p[3]) {
		sha256_hex(f->data, f->size, sha);
		p[3] = sha;
	}
	snprintf(size, sizeof(size), "%zu", f->size);
	p[0] = f->name;
	p[1] = artifact_content_type(f->name);
	p[2] = size;
	p[4] = f->size ? (const char *)f->data : "";
	lens[4] = (int)f->size;
	return db_pipeline_send(pl, &artifact_stmt, p, lens, fmts,
				"storing an artifact", err);
}

/*
 * The run stored under @uuid: -ENOENT when none; -EXDEV naming the board
 * when another board than @board_id stored it (a uuid is one board's).
 */
static int run_by_uuid(PGconn *conn, const char *uuid, int64_t board_id,
		       int64_t *id, struct rtlab_err *err)
{
	const char *p[1] = { uuid };
	PGresult *res;
	int ret;

	static const struct db_stmt by_uuid = {
		"rtlab_run_by_uuid",
		"SELECT r.id, r.board_id, b.name FROM runs r "
		"JOIN boards b ON b.id = r.board_id WHERE r.uuid = $1::uuid",
		1,
	};

	ret = db_stmt_query(conn, &by_uuid, p, &res, err,
			    "looking up the run's uuid");
	if (ret)
		return ret;
	if (PQntuples(res) != 1)
		ret = -ENOENT;
	else if (strtoll(PQgetvalue(res, 0, 1), NULL, 10) != board_id)
		ret = rtlab_err_seterr(err, EXDEV,
				       "manifest.json: run_id %s is already "
				       "stored by board '%s' (run %s); a run "
				       "id is one board's",
				       uuid, PQgetvalue(res, 0, 2),
				       PQgetvalue(res, 0, 0));
	else
		*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return ret;
}

/* The manifest's job must be one queued for the uploading board. */
static int job_check(PGconn *conn, long long job_id, int64_t board_id,
		     const char *board, struct rtlab_err *err)
{
	char jid[24];
	const char *p[1] = { jid };
	PGresult *res;
	int ret;

	snprintf(jid, sizeof(jid), "%lld", job_id);
	ret = db_query_rows(conn,
			    "SELECT j.board_id, b.name FROM jobs j "
			    "JOIN boards b ON b.id = j.board_id "
			    "WHERE j.id = $1::bigint",
			    1, p, &res, err, "looking up the manifest's job");
	if (ret)
		return ret;
	if (PQntuples(res) != 1)
		ret = rtlab_err_set(err,
				    "manifest.json: job_id %s: no such job "
				    "(see 'rtlab jobs')",
				    jid);
	else if (strtoll(PQgetvalue(res, 0, 0), NULL, 10) != board_id)
		ret = rtlab_err_seterr(err, EACCES,
				       "manifest.json: job_id %s is queued "
				       "for board '%s', not '%s'",
				       jid, PQgetvalue(res, 0, 1), board);
	PQclear(res);
	return ret;
}

/* The lab file's definition with the verdict parameters kept. */
#define LAB_DEF                                                           \
	"($14::jsonb || jsonb_strip_nulls(jsonb_build_object('verdict', " \
	"testcases.definition->'verdict')))"

/* Kernel, testcase and run in one statement; the run's id comes back, or
 * no row when the uuid is already taken. */
static const char store_run_sql[] =
	"WITH s AS (SELECT $6::jsonb AS m), "
	/* a kernel built from a git tree is named TREE@COMMIT */
	"k AS (INSERT INTO kernels (release, version, config_sha256, "
	"realtime, name, tree, commit) "
	"SELECT $9, COALESCE($10, ''), COALESCE($11, ''), $12::boolean, "
	"m->'kernel'->>'name', COALESCE(m->'kernel'->>'tree', ''), "
	"substring(m->'kernel'->>'name' FROM '@([0-9a-f]{40})$') FROM s "
	"ON CONFLICT (release, version, config_sha256) DO UPDATE "
	"SET realtime = COALESCE(kernels.realtime, EXCLUDED.realtime), "
	"commit = COALESCE(kernels.commit, EXCLUDED.commit), "
	"name = COALESCE(kernels.name, EXCLUDED.name), "
	"tree = CASE WHEN kernels.tree = '' THEN EXCLUDED.tree "
	"ELSE kernels.tree END RETURNING id), "
	/*
	 * The testcase row is the lab's: its definition comes from the
	 * lab's file ($14, NULL when the lab has none), keeping the verdict
	 * parameters a maintainer set; never from the manifest.
	 */
	"t AS (INSERT INTO testcases (name, definition, lab, updated_by) "
	"VALUES ($13, COALESCE($14::jsonb, '{}'), $14 IS NOT NULL, "
	"CASE WHEN $14 IS NOT NULL THEN 'lab file' END) "
	"ON CONFLICT (name) DO UPDATE SET "
	"definition = CASE WHEN $14 IS NULL THEN testcases.definition "
	"ELSE " LAB_DEF " END, "
	"updated_at = CASE WHEN $14 IS NULL OR " LAB_DEF
	" = testcases.definition THEN testcases.updated_at ELSE now() END, "
	"updated_by = CASE WHEN $14 IS NULL OR " LAB_DEF
	" = testcases.definition THEN testcases.updated_by "
	"ELSE 'lab file' END, "
	"lab = $14 IS NOT NULL "
	"RETURNING id) "
	"INSERT INTO runs (uuid, board_id, kernel_id, testcase_id, job_id, "
	"status, error, clock, environment, commands, manifest, started_at, "
	"finished_at, flags, max_us, p999_us, results) "
	"SELECT $1::uuid, $2::integer, k.id, t.id, $16::bigint, "
	"$3, $4, $5, "
	"CASE WHEN jsonb_typeof(m->'environment') = 'object' "
	"THEN m->'environment' ELSE '{}' END, "
	"CASE WHEN jsonb_typeof(m->'commands') = 'array' "
	"THEN m->'commands' ELSE '[]' END, "
	"m, $7::timestamptz, $8::timestamptz, "
	"COALESCE($15::jsonb, '{}'), $17::integer, $18::integer, "
	"$19::jsonb FROM s, k, t "
	"ON CONFLICT (uuid) DO NOTHING RETURNING id";

static const struct db_stmt run_stmt = { "rtlab_store_run", store_run_sql, 19 };

/*
 * Send everything as one pipeline: the statements up to the sync point
 * form one implicit transaction, so the whole run costs one round trip
 * and an error anywhere rolls all of it back.  If the uuid was taken
 * meanwhile the run INSERT returns no row and the first histogram or
 * artifact INSERT fails on its foreign key, which also rolls back.
 */
/* The board's environment from the run just inserted, when it has none:
 * db_board_environment_set() with only_unset, inside the pipeline.  The
 * run's id as a subquery, evaluated once: compared with currval() itself,
 * which is volatile, the runs would be scanned rather than the index. */
static const struct db_stmt environment_stmt = {
	"rtlab_store_environment",
	"UPDATE boards b SET environment = r.environment, "
	"environment_run_id = r.id FROM runs r "
	"WHERE b.id = $1::integer AND r.id = (SELECT " RUN_ID_SQL
	") AND b.environment IS NULL",
	1,
};

/* The statements that return rows, in the order sent: the run's INSERT
 * (its id, or no row when the uuid was taken), then the run's series
 * when asked for. */
struct inserted {
	int64_t *id;
	bool *taken;
	struct run_series *series;
	bool seen;
};

static bool run_inserted(PGresult *res, void *arg)
{
	struct inserted *ins = arg;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return false;
	if (ins->seen) {
		/* The series; none when the uuid was taken. */
		if (ins->series && !*ins->taken &&
		    db_run_series_read(res, ins->series))
			ins->series->board_id = 0;
		return false;
	}
	if (PQntuples(res) == 1)
		*ins->id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	else
		*ins->taken = true;
	ins->seen = true;
	return false;
}

static int store_pipeline(PGconn *conn, const struct run_record *rec,
			  const char *bid, int64_t *id, bool *taken,
			  struct rtlab_err *err)
{
	const struct manifest *m = rec->manifest;
	struct db_pipeline pl;
	const char *p[19];
	char *results = NULL;
	char jid[24], max[16], p999[24];
	int64_t max_us = -1, p999_us = -1;
	struct hist_summary hs;
	struct inserted ins = { id, taken, rec->series, false };
	char env_bid[16];
	size_t i;
	int ret = 0;

	*taken = false;
	ret = db_pipeline_begin(&pl, conn, err);
	if (ret)
		return ret;
	p[0] = m->run_id;
	p[1] = bid;
	p[2] = run_status_name(m->status);
	p[3] = m->error;
	p[4] = m->clock ? m->clock : "host";
	p[5] = m->json;
	p[6] = m->started_at;
	p[7] = m->finished_at;
	p[8] = m->kernel_release;
	p[9] = m->kernel_version;
	p[10] = m->kernel_config_sha256;
	p[11] = m->kernel_realtime < 0 ? NULL :
		m->kernel_realtime     ? "true" :
					 "false";
	p[12] = m->testcase;
	p[13] = rec->lab_definition;
	p[14] = rec->flags;
	snprintf(jid, sizeof(jid), "%lld", m->job_id);
	p[15] = m->job_id > 0 ? jid : NULL;
	/* The run's worst figures over its CPUs, as max() over its
	 * histograms' columns would give them. */
	for (i = 0; i < rec->nhists; i++) {
		hist_summarize(&rec->hists[i], &hs);
		if (hs.samples && (int64_t)hs.max_us > max_us)
			max_us = hs.max_us;
		if (hs.p999_us > p999_us)
			p999_us = hs.p999_us;
	}
	p[16] = q_or_null(max_us, max, sizeof(max));
	p[17] = q_or_null(p999_us, p999, sizeof(p999));
	if (rec->results) {
		results = json_dumps(rec->results, JSON_COMPACT);
		if (!results) {
			ret = rtlab_err_seterr(err, ENOMEM,
					       "results: out of memory");
			db_pipeline_end(&pl, NULL);
			return ret;
		}
	}
	p[18] = results;
	ret = db_pipeline_send(&pl, &run_stmt, p, NULL, NULL, "storing the run",
			       err);
	free(results);
	if (ret)
		goto sync;
	for (i = 0; i < rec->nhists; i++) {
		ret = send_hist(&pl, &rec->hists[i], err);
		if (ret)
			goto sync;
	}
	for (i = 0; rec->bundle && i < rec->bundle->nfiles; i++) {
		const struct bundle_file *f = &rec->bundle->files[i];

		if (!strcmp(f->name, BUNDLE_MANIFEST))
			continue;
		ret = send_artifact(&pl, m, f, err);
		if (ret)
			goto sync;
	}
	if (rec->environment_board_id > 0) {
		snprintf(env_bid, sizeof(env_bid), "%d",
			 rec->environment_board_id);
		p[0] = env_bid;
		ret = db_pipeline_send(&pl, &environment_stmt, p, NULL, NULL,
				       "remembering the board's environment",
				       err);
		if (ret)
			goto sync;
	}
	if (rec->series)
		ret = db_pipeline_send(&pl, &db_run_series_stored_stmt, NULL,
				       NULL, NULL, "reading the run's series",
				       err);
sync:
	ret = db_pipeline_finish(&pl, ret, run_inserted, &ins,
				 "storing the run", err);
	if (*taken)
		ret = 0;
	return ret;
}

int db_run_store(PGconn *conn, const struct run_record *rec, int64_t *run_id,
		 bool *duplicate, struct rtlab_err *err)
{
	const struct manifest *m = rec->manifest;
	int64_t board_id = rec->board_id, id = -1;
	const char *p[1];
	bool taken;
	char bid[24];
	int ret;

	*duplicate = false;
	if (rec->series)
		memset(rec->series, 0, sizeof(*rec->series));
	if (board_id < 0) {
		p[0] = m->board;
		ret = db_query_id(conn, "SELECT id FROM boards WHERE name = $1",
				  1, p, &board_id, err, "looking up the board");
		if (ret == -ENOENT)
			ret = rtlab_err_set(err,
					    "manifest.json: board '%s' is not "
					    "registered (rtlab board add %s)",
					    m->board, m->board);
		if (ret)
			return ret;
	}
	/* The common duplicate (an agent retrying) writes nothing at all. */
	ret = run_by_uuid(conn, m->run_id, board_id, &id, err);
	if (!ret) {
		*run_id = id;
		*duplicate = true;
		return 0;
	}
	if (ret != -ENOENT)
		return ret;
	if (m->job_id > 0) {
		ret = job_check(conn, m->job_id, board_id, m->board, err);
		if (ret)
			return ret;
	}
	snprintf(bid, sizeof(bid), "%" PRId64, board_id);

	ret = store_pipeline(conn, rec, bid, &id, &taken, err);
	if (ret)
		return ret;
	if (taken) {
		/* Stored by a concurrent upload since we looked. */
		ret = run_by_uuid(conn, m->run_id, board_id, &id, err);
		if (ret == -ENOENT)
			ret = rtlab_err_seterr(err, EIO,
					       "run %s: neither "
					       "stored nor found",
					       m->run_id);
		if (ret)
			return ret;
		*duplicate = true;
	}
	*run_id = id;
	return 0;
}

static bool all_digits(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && strspn(s, "0123456789") == n;
}

int db_run_resolve(PGconn *conn, const char *ref, int64_t *run_id,
		   struct rtlab_err *err)
{
	size_t n = strlen(ref);
	const char *p[1] = { ref };
	PGresult *res;
	int ret;

	/* A number is a run id first; one that is no run's id may still be
	 * a uuid prefix (one in 40 uuids starts with eight digits). */
	ret = -ENOENT;
	if (all_digits(ref, 18))
		ret = db_query_id(conn,
				  "SELECT id FROM runs WHERE id = $1::bigint",
				  1, p, run_id, err, "looking up the run");
	if (ret != -ENOENT)
		return ret;
	if (n == 36 && strspn(ref, "0123456789abcdefABCDEF-") == n)
		ret = db_query_id(conn,
				  "SELECT id FROM runs WHERE uuid = $1::uuid",
				  1, p, run_id, err, "looking up the run");
	else if (n >= 4 && n < 36 &&
		 strspn(ref, "0123456789abcdefABCDEF-") == n) {
		/* A uuid prefix, as `rtlab runs` prints it. */
		ret = db_query_rows(conn,
				    "SELECT id FROM runs WHERE uuid::text LIKE "
				    "lower($1) || '%' LIMIT 2",
				    1, p, &res, err, "looking up the run");
		if (ret)
			return ret;
		if (PQntuples(res) == 1)
			*run_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		ret = PQntuples(res) == 1 ? 0 :
		      PQntuples(res) == 0 ? -ENOENT :
					    -EEXIST;
		PQclear(res);
		if (ret == -EEXIST)
			return rtlab_err_seterr(err, EINVAL,
						"run '%s' is ambiguous: "
						"several runs' uuids start "
						"with it",
						ref);
	} else {
		ret = -ENOENT;
	}
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT, "run '%s' not found", ref);
	return ret;
}

int db_runs_list(PGconn *conn, const struct run_filter *f, json_t **out,
		 struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT COALESCE(json_agg(x ORDER BY x.id DESC), '[]')::text "
		"FROM (SELECT r.id, r.uuid, b.name AS board, "
		"k.release AS kernel, t.name AS testcase, r.status, r.clock, "
		"r.flags, "
		"h.max_us, h.samples, " ISO(
			"r.created_at") " AS created_at "
					"FROM runs r JOIN boards b ON b.id = r.board_id "
					"JOIN kernels k ON k.id = r.kernel_id "
					"JOIN testcases t ON t.id = r.testcase_id "
					"LEFT JOIN LATERAL (SELECT max(max_us) AS max_us, "
					"sum(samples) AS samples FROM histograms "
					"WHERE run_id = r.id) h ON true "
					/* the board's id, so that runs_board_id
					 * walks its runs newest first */
					"WHERE ($1::text IS NULL OR r.board_id = "
					"(SELECT id FROM boards WHERE name = $1)) "
					"AND ($2::text IS NULL OR k.release = $2) "
					"AND ($3::text IS NULL OR t.name = $3) "
					"AND ($4::text IS NULL OR r.status = $4) "
					"AND ($6::bigint IS NULL OR r.id < $6) "
					"ORDER BY r.id DESC LIMIT $5::integer) x";
	char limit[16], before[24];
	const char *p[6];

	snprintf(limit, sizeof(limit), "%u", f->limit ? f->limit : 50);
	p[0] = f->board;
	p[1] = f->kernel;
	p[2] = f->testcase;
	p[3] = f->status;
	p[4] = limit;
	snprintf(before, sizeof(before), "%" PRId64, f->before);
	p[5] = f->before > 0 ? before : NULL;
	return db_query_json(conn, sql, 6, p, out, err, "listing runs");
}

/* @sql's JSON about run @run_id (its only parameter), naming the run
 * when there is none. */
static int run_json(PGconn *conn, const char *sql, int64_t run_id, json_t **out,
		    struct rtlab_err *err, const char *what)
{
	char id[24];
	const char *p[1] = { id };
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, run_id);
	ret = db_query_json(conn, sql, 1, p, out, err, what);

	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT, "run '%s' not found", id);
	return ret;
}

int db_run_get(PGconn *conn, int64_t run_id, json_t **out,
	       struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT json_build_object("
		"'id', r.id, 'uuid', r.uuid, 'board', b.name, "
		"'status', r.status, 'error', r.error, 'clock', r.clock, "
		"'flags', r.flags, 'results', r.results, "
		"'tool', COALESCE(r.manifest->'testcase'->>'tool', "
		"'cyclictest'), "
		"'kernel', json_build_object('id', k.id, 'release', k.release, "
		"'version', k.version, 'realtime', k.realtime, "
		"'config_sha256', k.config_sha256, 'name', k.name, "
		"'tree', k.tree), "
		"'testcase', jsonb_strip_nulls(jsonb_build_object('id', t.id, "
		"'name', t.name, 'extras', r.manifest->'testcase'->'extras')), "
		"'job_id', r.job_id, "
		"'started_at', " ISO(
			"r.started_at") ", "
					"'finished_at', " ISO(
						"r.finished_at") ", "
								 "'created_at', " ISO(
									 "r.created_at") ", "
											 "'environment', r.environment, 'commands', r.commands, "
											 "'max_us', (SELECT max(max_us) FROM histograms "
											 "WHERE run_id = r.id), "
											 "'cpus', COALESCE((SELECT json_agg(json_build_object("
											 "'thread', thread, 'metric', metric, 'cpu', cpu, 'range_us', range_us, "
											 "'samples', samples, 'overflows', overflows, "
											 "'min_us', min_us, 'avg_us', avg_us, 'p50_us', p50_us, "
											 "'p99_us', p99_us, 'p999_us', p999_us, 'p9999_us', p9999_us, "
											 "'max_us', max_us) ORDER BY thread) FROM histograms "
											 "WHERE run_id = r.id), '[]'), "
											 "'artifacts', COALESCE((SELECT json_agg(json_build_object("
											 "'name', name, 'content_type', content_type, 'size', size, "
											 "'sha256', sha256) ORDER BY name) FROM artifacts "
											 "WHERE run_id = r.id), '[]'))::text "
											 "FROM runs r JOIN boards b ON b.id = r.board_id "
											 "JOIN kernels k ON k.id = r.kernel_id "
											 "JOIN testcases t ON t.id = r.testcase_id "
											 "WHERE r.id = $1::bigint";

	return run_json(conn, sql, run_id, out, err, "reading the run");
}

int db_run_histograms(PGconn *conn, int64_t run_id, json_t **out,
		      struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT COALESCE((SELECT json_agg(json_build_object("
		"'thread', thread, 'metric', metric, 'cpu', cpu, "
		"'range_us', range_us, "
		"'samples', samples, 'overflows', overflows, "
		"'min_us', min_us, 'avg_us', avg_us, 'max_us', max_us, "
		"'bucket_us', bucket_us, 'counts', counts) ORDER BY thread) "
		"FROM histograms WHERE run_id = r.id), '[]')::text "
		"FROM runs r WHERE r.id = $1::bigint";

	return run_json(conn, sql, run_id, out, err, "reading histograms");
}

static int load_hist(PGresult *res, int row, struct hist *h)
{
	uint32_t range = strtoul(PQgetvalue(res, row, 2), NULL, 10);
	size_t n = strtoull(PQgetvalue(res, row, 5), NULL, 10), i;
	uint64_t *lat = NULL, *cnt = NULL;
	int ret;

	ret = hist_init(h, range);
	if (ret)
		return ret;
	h->thread = atoi(PQgetvalue(res, row, 0));
	h->cpu = atoi(PQgetvalue(res, row, 1));
	lat = calloc(n ? n : 1, sizeof(*lat));
	cnt = calloc(n ? n : 1, sizeof(*cnt));
	if (!lat || !cnt) {
		ret = -ENOMEM;
		goto out;
	}
	if (db_parse_list(PQgetvalue(res, row, 3), lat, n) ||
	    db_parse_list(PQgetvalue(res, row, 4), cnt, n)) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (lat[i] >= range) {
			ret = -EIO;
			goto out;
		}
		h->counts[lat[i]] = cnt[i];
	}
	h->overflows = strtoull(PQgetvalue(res, row, 6), NULL, 10);
	h->samples = strtoull(PQgetvalue(res, row, 7), NULL, 10);
	if (!PQgetisnull(res, row, 8))
		h->min_us = strtoul(PQgetvalue(res, row, 8), NULL, 10);
	if (!PQgetisnull(res, row, 9))
		h->avg_us = strtod(PQgetvalue(res, row, 9), NULL);
	if (!PQgetisnull(res, row, 10))
		h->max_us = strtoul(PQgetvalue(res, row, 10), NULL, 10);
out:
	free(lat);
	free(cnt);
	return ret;
}

static int dup_field(PGresult *res, int col, char **out)
{
	*out = strdup(PQgetisnull(res, 0, col) ? "" : PQgetvalue(res, 0, col));
	return *out ? 0 : -ENOMEM;
}

int db_run_hists_load(PGconn *conn, int64_t run_id, struct run_hists *rh,
		      struct rtlab_err *err)
{
	char id[24];
	const char *p[1] = { id };
	PGresult *res;
	int ret, i, n;

	memset(rh, 0, sizeof(*rh));
	rh->run_id = run_id;
	snprintf(id, sizeof(id), "%" PRId64, run_id);
	ret = db_query_rows(conn,
			    "SELECT r.uuid, b.name, k.release, k.version, t.name, "
			    "r.status, r.clock FROM runs r "
			    "JOIN boards b ON b.id = r.board_id "
			    "JOIN kernels k ON k.id = r.kernel_id "
			    "JOIN testcases t ON t.id = r.testcase_id "
			    "WHERE r.id = $1::bigint",
			    1, p, &res, err, "reading the run");
	if (ret)
		return ret;
	if (PQntuples(res) < 1) {
		PQclear(res);
		return rtlab_err_seterr(err, ENOENT, "run '%s' not found", id);
	}
	snprintf(rh->uuid, sizeof(rh->uuid), "%s", PQgetvalue(res, 0, 0));
	ret = dup_field(res, 1, &rh->board);
	if (!ret)
		ret = dup_field(res, 2, &rh->kernel);
	if (!ret)
		ret = dup_field(res, 3, &rh->kernel_version);
	if (!ret)
		ret = dup_field(res, 4, &rh->testcase);
	if (!ret)
		ret = dup_field(res, 5, &rh->status);
	if (!ret)
		ret = dup_field(res, 6, &rh->clock);
	PQclear(res);
	if (ret)
		return rtlab_err_seterr(err, ENOMEM, "run %s: out of memory",
					id);

	ret = db_query_rows(
		conn,
		"SELECT thread, cpu, range_us, "
		"array_to_string(bucket_us, ','), "
		"array_to_string(counts, ','), cardinality(bucket_us), "
		"overflows, samples, min_us, avg_us, max_us, metric "
		"FROM histograms WHERE run_id = $1::bigint ORDER BY thread",
		1, p, &res, err, "reading histograms");
	if (ret)
		return ret;
	n = PQntuples(res);
	rh->hists = calloc(n ? n : 1, sizeof(*rh->hists));
	if (!rh->hists) {
		ret = rtlab_err_seterr(err, ENOMEM, "run %s: out of memory",
				       id);
		goto out;
	}
	for (i = 0; i < n; i++) {
		ret = load_hist(res, i, &rh->hists[i]);
		rh->nhists = i + 1;
		if (!ret && strcmp(PQgetvalue(res, i, 11), "latency"))
			snprintf(rh->hists[i].metric,
				 sizeof(rh->hists[i].metric), "%s",
				 PQgetvalue(res, i, 11));
		if (ret) {
			rtlab_err_seterr(err, -ret,
					 "run %s: histogram of "
					 "thread %s: %s",
					 id, PQgetvalue(res, i, 0),
					 ret == -ENOMEM ?
						 "out of memory" :
						 "inconsistent buckets in the "
						 "database");
			goto out;
		}
	}
out:
	PQclear(res);
	return ret;
}

void artifact_cleanup(struct artifact *a)
{
	if (!a)
		return;
	free(a->name);
	free(a->content_type);
	free(a->data);
	memset(a, 0, sizeof(*a));
}

int db_artifact_get(PGconn *conn, int64_t run_id, const char *name,
		    struct artifact *a, struct rtlab_err *err)
{
	char id[24];
	const char *p[2] = { id, name };
	PGresult *res;
	int ret = 0, len;

	memset(a, 0, sizeof(*a));
	snprintf(id, sizeof(id), "%" PRId64, run_id);
	/* Binary results: the bytes come back as they were stored. */
	res = PQexecParams(conn,
			   "SELECT content_type, data FROM artifacts "
			   "WHERE run_id = $1::bigint AND name = $2",
			   2, NULL, p, NULL, NULL, 1);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = db_fail(conn, res, err, "reading the artifact");
		goto out;
	}
	if (PQntuples(res) < 1) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "run %s has no artifact '%s'", id, name);
		goto out;
	}
	len = PQgetlength(res, 0, 1);
	a->name = strdup(name);
	a->content_type =
		strndup(PQgetvalue(res, 0, 0), PQgetlength(res, 0, 0));
	a->data = malloc(len ? len : 1);
	if (!a->name || !a->content_type || !a->data) {
		artifact_cleanup(a);
		ret = rtlab_err_seterr(err, ENOMEM,
				       "artifact '%s': out of memory", name);
		goto out;
	}
	memcpy(a->data, PQgetvalue(res, 0, 1), len);
	a->size = len;
out:
	PQclear(res);
	return ret;
}

void artifact_info_cleanup(struct artifact_info *info)
{
	if (!info)
		return;
	free(info->content_type);
	memset(info, 0, sizeof(*info));
}

int db_artifact_stat(PGconn *conn, int64_t run_id, const char *name,
		     struct artifact_info *info, struct rtlab_err *err)
{
	char id[24];
	const char *p[2] = { id, name };
	PGresult *res = NULL;
	int ret;

	memset(info, 0, sizeof(*info));
	snprintf(id, sizeof(id), "%" PRId64, run_id);
	/* octet_length() of a stored value reads its header, not its data. */
	ret = db_query_rows(conn,
			    "SELECT content_type, octet_length(data), sha256 "
			    "FROM artifacts WHERE run_id = $1::bigint AND "
			    "name = $2",
			    2, p, &res, err, "reading the artifact");
	if (ret)
		return ret;
	if (PQntuples(res) < 1) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "run %s has no artifact '%s'", id, name);
		goto out;
	}
	info->content_type = strdup(PQgetvalue(res, 0, 0));
	info->size = strtoull(PQgetvalue(res, 0, 1), NULL, 10);
	snprintf(info->sha256, sizeof(info->sha256), "%s",
		 PQgetvalue(res, 0, 2));
	if (!info->content_type)
		ret = rtlab_err_seterr(err, ENOMEM,
				       "artifact '%s': out of memory", name);
out:
	PQclear(res);
	return ret;
}

int db_artifact_read(PGconn *conn, int64_t run_id, const char *name,
		     const char *sha256, uint64_t off, void *buf, size_t len,
		     size_t *got, struct rtlab_err *err)
{
	char id[24], from[24], count[24];
	const char *p[5] = { id, name, sha256, from, count };
	PGresult *res;
	size_t n;
	int ret = 0;

	*got = 0;
	snprintf(id, sizeof(id), "%" PRId64, run_id);
	snprintf(from, sizeof(from), "%" PRIu64, off + 1);
	snprintf(count, sizeof(count), "%zu", len);
	/* Binary results: the bytes come back as they were stored. */
	res = PQexecParams(conn,
			   "SELECT substring(data FROM $4::integer FOR "
			   "$5::integer) FROM artifacts WHERE run_id = "
			   "$1::bigint AND name = $2 AND sha256 = $3",
			   5, NULL, p, NULL, NULL, 1);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = db_fail(conn, res, err, "reading the artifact");
		goto out;
	}
	if (PQntuples(res) < 1) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "run %s: artifact '%s' "
				       "was removed or replaced while being "
				       "read",
				       id, name);
		goto out;
	}
	n = PQgetlength(res, 0, 0);
	if (n > len)
		n = len;
	memcpy(buf, PQgetvalue(res, 0, 0), n);
	*got = n;
out:
	PQclear(res);
	return ret;
}

int db_ping(PGconn *conn, struct rtlab_err *err)
{
	PGresult *res = PQexec(conn, "SELECT 1");
	int ret = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		ret = db_fail(conn, res, err, "database");
	if (ret == -EINVAL)
		ret = -EIO;
	PQclear(res);
	return ret;
}

int db_runs_schema_check(PGconn *conn, struct rtlab_err *err)
{
	PGresult *res;
	int ret;

	ret = db_query_rows(conn,
			    "SELECT to_regclass('runs') IS NOT NULL AND "
			    "to_regclass('histograms') IS NOT NULL AND "
			    "to_regclass('artifacts') IS NOT NULL",
			    0, NULL, &res, err, "checking the schema");
	if (ret)
		return ret == -EINVAL ? -EIO : ret;
	if (strcmp(PQgetvalue(res, 0, 0), "t"))
		ret = rtlab_err_seterr(err, ENOENT,
				       "the database has no rtlab schema "
				       "(tables runs, histograms, artifacts); "
				       "run 'rtlab db migrate'");
	PQclear(res);
	return ret;
}

int db_artifact_put_text(PGconn *conn, int64_t run_id, const char *name,
			 const char *content_type, const char *text,
			 struct rtlab_err *err)
{
	static const char sql[] =
		"INSERT INTO artifacts (run_id, name, content_type, size, "
		"sha256, data) VALUES ($1::bigint, $2, $3, "
		"octet_length(convert_to($4, 'UTF8')), "
		"encode(sha256(convert_to($4, 'UTF8')), 'hex'), "
		"convert_to($4, 'UTF8')) "
		"ON CONFLICT (run_id, name) DO UPDATE SET "
		"content_type = EXCLUDED.content_type, size = EXCLUDED.size, "
		"sha256 = EXCLUDED.sha256, data = EXCLUDED.data";
	const char *p[4] = { NULL, name, content_type, text };
	char id[24];

	snprintf(id, sizeof(id), "%" PRId64, run_id);
	p[0] = id;
	return db_exec(conn, err, sql, 4, p);
}
