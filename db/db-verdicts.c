// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdicts domain of the database: resolving series parts (testcase,
 * kernel), baselines pinned and default, loading a kernel's complete runs
 * of a series with their histograms for a comparison (one indexed query
 * through runs_series), and storing and reading verdicts.  JSON answers
 * are built by PostgreSQL (json_build_object), as in db-runs.c.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-health.h"
#include "db-pipeline.h"
#include "db-verdicts-local.h"
#include "db-verdicts.h"
#include "db.h"

#define ISO(col) \
	"to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/* Serializes verdict stores of one candidate kernel: "rtlabver". */
#define VERDICT_LOCK_KEY "1920234598"

static bool all_digits(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && strspn(s, "0123456789") == n;
}

int db_testcase_lookup(PGconn *conn, const char *name, int *testcase_id,
		       struct rtlab_err *err)
{
	const char *p[1] = { name };
	int64_t id;
	int ret;

	ret = db_query_id(conn, "SELECT id FROM testcases WHERE name = $1", 1,
			  p, &id, err, "looking up the testcase");
	if (ret == -ENOENT)
		return rtlab_err_seterr(err, ENOENT,
					"testcase '%s' not found "
					"(no run of it was stored)",
					name);
	if (!ret)
		*testcase_id = (int)id;
	return ret;
}

int db_kernel_resolve(PGconn *conn, const char *ref, int *kernel_id,
		      struct rtlab_err *err)
{
	const char *p[1] = { ref };
	PGresult *res;
	int ret, n;

	if (all_digits(ref, 9)) {
		int64_t id;

		ret = db_query_id(conn,
				  "SELECT id FROM kernels WHERE id = "
				  "$1::integer",
				  1, p, &id, err, "looking up the kernel");
		if (ret == -ENOENT)
			return rtlab_err_seterr(err, ENOENT,
						"kernel id %s not "
						"found",
						ref);
		if (!ret)
			*kernel_id = (int)id;
		return ret;
	}
	ret = db_query_rows(conn,
			    "SELECT id FROM kernels WHERE release = $1 "
			    "ORDER BY id",
			    1, p, &res, err, "looking up the kernel");
	if (ret)
		return ret;
	n = PQntuples(res);
	if (n == 1) {
		*kernel_id = atoi(PQgetvalue(res, 0, 0));
	} else if (!n) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "kernel '%s' not found "
				       "(expected a kernel id or a release "
				       "as 'rtlab kernel list' shows)",
				       ref);
	} else {
		char ids[200] = "";
		size_t len = 0;
		int i;

		for (i = 0; i < n && len < sizeof(ids) - 16; i++)
			len += snprintf(ids + len, sizeof(ids) - len, "%s%s",
					i ? ", " : "", PQgetvalue(res, i, 0));
		ret = rtlab_err_set(err,
				    "kernel '%s' is ambiguous: %d kernels "
				    "have this release (ids %s); give the id",
				    ref, n, ids);
	}
	PQclear(res);
	return ret;
}

/* The kernel pinned as the baseline of series (@b, @t, @tree), NULL when
 * none: SQL expressions in, a scalar subquery out. */
#define PINNED_BASELINE(b, t, tree)                            \
	"(SELECT kernel_id FROM baselines WHERE board_id = " b \
	" AND testcase_id = " t " AND tree = " tree ")"

/* The default baseline of candidate kernel @k in series (@b, @t, @tree),
 * NULL when none: the kernel of the tree whose first run in the series
 * came last before the candidate's, with a complete run.  Walks
 * series_kernels_order backwards from the candidate: O(kernels of other
 * trees in between), never O(runs) (schema/018_series_kernels.sql). */
#define DEFAULT_BASELINE(b, t, tree, k)                               \
	"(SELECT s.kernel_id FROM series_kernels s "                  \
	"JOIN kernels sk ON sk.id = s.kernel_id, series_kernels c "   \
	"WHERE s.board_id = " b " AND s.testcase_id = " t             \
	" AND sk.tree = " tree " AND s.complete AND c.board_id = " b  \
	" AND c.testcase_id = " t " AND c.kernel_id = " k             \
	" AND (s.first_at, s.kernel_id) < (c.first_at, c.kernel_id) " \
	"ORDER BY s.first_at DESC, s.kernel_id DESC LIMIT 1)"

/* The series of run @id (an SQL expression). */
#define RUN_SERIES_SQL(id)                                                                         \
	"SELECT r.board_id, r.testcase_id, r.kernel_id, r.status, r.clock, "                       \
	"k.tree, " PINNED_BASELINE("r.board_id", "r.testcase_id", "k.tree") ", " DEFAULT_BASELINE( \
		"r.board_id", "r.testcase_id", "k.tree",                                           \
		"r.kernel_id") " FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE r.id = " id

/* Asked after every upload: prepared once per connection. */
static const struct db_stmt run_series_stmt = {
	"rtlab_run_series",
	RUN_SERIES_SQL("$1::bigint"),
	1,
};

/* The same, inside the storing pipeline, of the run it just inserted; a
 * subquery, evaluated once, so that the run is found by its index (not
 * by comparing every run's id with the volatile currval()). */
const struct db_stmt db_run_series_stored_stmt = {
	"rtlab_run_series_stored",
	RUN_SERIES_SQL("(SELECT currval(pg_get_serial_sequence('runs', 'id')))"),
	0,
};

int db_run_series_read(const PGresult *res, struct run_series *rs)
{
	if (PQntuples(res) < 1)
		return -ENOENT;
	rs->board_id = atoi(PQgetvalue(res, 0, 0));
	rs->testcase_id = atoi(PQgetvalue(res, 0, 1));
	rs->kernel_id = atoi(PQgetvalue(res, 0, 2));
	snprintf(rs->status, sizeof(rs->status), "%s", PQgetvalue(res, 0, 3));
	snprintf(rs->clock, sizeof(rs->clock), "%s", PQgetvalue(res, 0, 4));
	snprintf(rs->tree, sizeof(rs->tree), "%s", PQgetvalue(res, 0, 5));
	rs->pinned_kernel_id =
		PQgetisnull(res, 0, 6) ? 0 : atoi(PQgetvalue(res, 0, 6));
	rs->default_kernel_id =
		PQgetisnull(res, 0, 7) ? 0 : atoi(PQgetvalue(res, 0, 7));
	return 0;
}

int db_run_series(PGconn *conn, int64_t run_id, struct run_series *rs,
		  struct rtlab_err *err)
{
	char id[24];
	const char *p[1] = { id };
	PGresult *res;
	int ret;

	snprintf(id, sizeof(id), "%" PRId64, run_id);
	ret = db_stmt_query(conn, &run_series_stmt, p, &res, err,
			    "reading the run's series");
	if (ret)
		return ret;
	if (db_run_series_read(res, rs))
		ret = rtlab_err_seterr(err, ENOENT, "run %s not found", id);
	PQclear(res);
	return ret;
}

int db_kernel_tree(PGconn *conn, int kernel_id, char *tree, size_t size,
		   struct rtlab_err *err)
{
	char id[16];
	const char *p[1] = { id };
	PGresult *res;
	int ret;

	snprintf(id, sizeof(id), "%d", kernel_id);
	ret = db_query_rows(conn,
			    "SELECT tree FROM kernels WHERE id = $1::integer",
			    1, p, &res, err, "reading the kernel's tree");
	if (ret)
		return ret;
	if (PQntuples(res) < 1)
		ret = rtlab_err_seterr(err, ENOENT, "kernel id %s not found",
				       id);
	else
		snprintf(tree, size, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return ret;
}

int db_baseline_set(PGconn *conn, int board_id, int testcase_id,
		    const char *tree, int kernel_id, struct rtlab_err *err)
{
	char b[16], t[16], k[16];
	const char *p[4] = { b, t, tree, k };

	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	snprintf(k, sizeof(k), "%d", kernel_id);
	return db_exec(conn, err,
		       "INSERT INTO baselines (board_id, testcase_id, tree, "
		       "kernel_id) VALUES ($1::integer, $2::integer, $3, "
		       "$4::integer) ON CONFLICT (board_id, testcase_id, tree) "
		       "DO UPDATE SET kernel_id = EXCLUDED.kernel_id, "
		       "set_at = now()",
		       4, p);
}

int db_baseline_unset(PGconn *conn, int board_id, int testcase_id,
		      const char *tree, struct rtlab_err *err)
{
	char b[16], t[16];
	const char *p[3] = { b, t, tree };
	int64_t k;
	int ret;

	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	ret = db_query_id(conn,
			  "DELETE FROM baselines WHERE board_id = $1::integer AND "
			  "testcase_id = $2::integer AND tree = $3 "
			  "RETURNING kernel_id",
			  3, p, &k, err, "removing the baseline");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT,
				 "no baseline is pinned for "
				 "this series (tree '%s')",
				 tree);
	return ret;
}

int db_baseline_pinned(PGconn *conn, int board_id, int testcase_id,
		       const char *tree, int *kernel_id, struct rtlab_err *err)
{
	char b[16], t[16];
	const char *p[3] = { b, t, tree };
	int64_t k;
	int ret;

	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	ret = db_query_id(conn,
			  "SELECT " PINNED_BASELINE("$1::integer",
						    "$2::integer", "$3"),
			  3, p, &k, err, "reading the baseline");
	if (!ret)
		*kernel_id = (int)k;
	return ret;
}

/* Kernels of a series with their first-run time and whether any of their
 * runs is complete: the series_kernels table, which triggers on runs keep
 * (schema/018_series_kernels.sql), so no query groups a series' runs. */
#define SERIES_KERNELS                                               \
	"SELECT sk.board_id, sk.testcase_id, k.tree, sk.kernel_id, " \
	"sk.first_at, sk.complete FROM series_kernels sk "           \
	"JOIN kernels k ON k.id = sk.kernel_id"

int db_baseline_default(PGconn *conn, int board_id, int testcase_id,
			const char *tree, int cand_kernel_id, int *kernel_id,
			struct rtlab_err *err)
{
	char b[16], t[16], c[16];
	const char *p[4] = { b, t, tree, c };
	int64_t k;
	int ret;

	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	snprintf(c, sizeof(c), "%d", cand_kernel_id);
	ret = db_query_id(conn,
			  "SELECT " DEFAULT_BASELINE("$1::integer",
						     "$2::integer", "$3",
						     "$4::integer"),
			  4, p, &k, err, "finding the default baseline");
	if (!ret)
		*kernel_id = (int)k;
	return ret;
}

int db_baselines_list(PGconn *conn, const char *board, const char *testcase,
		      const char *tree, json_t **out, struct rtlab_err *err)
{
	static const char sql[] =
		"WITH s AS (" SERIES_KERNELS "), "
		"series AS (SELECT board_id, testcase_id, tree FROM s "
		"UNION SELECT board_id, testcase_id, tree FROM baselines), "
		"x AS (SELECT sr.board_id, sr.testcase_id, sr.tree, "
		"(SELECT s.kernel_id FROM s WHERE (s.board_id, s.testcase_id, "
		"s.tree) = (sr.board_id, sr.testcase_id, sr.tree) "
		"ORDER BY s.first_at DESC, s.kernel_id DESC LIMIT 1) AS latest "
		"FROM series sr), "
		"y AS (SELECT x.*, (SELECT s.kernel_id FROM s, s c "
		"WHERE (s.board_id, s.testcase_id, s.tree) = (x.board_id, "
		"x.testcase_id, x.tree) AND (c.board_id, c.testcase_id, "
		"c.tree, c.kernel_id) = (x.board_id, x.testcase_id, x.tree, "
		"x.latest) AND s.complete AND (s.first_at, s.kernel_id) < "
		"(c.first_at, c.kernel_id) ORDER BY s.first_at DESC, "
		"s.kernel_id DESC LIMIT 1) AS dflt FROM x) "
		"SELECT COALESCE(json_agg(json_build_object("
		"'board', b.name, 'testcase', t.name, 'tree', y.tree, "
		"'pinned', CASE WHEN bl.kernel_id IS NULL THEN NULL ELSE "
		"json_build_object('kernel_id', kp.id, 'release', kp.release) "
		"END, "
		"'latest', CASE WHEN y.latest IS NULL THEN NULL ELSE "
		"json_build_object('kernel_id', kl.id, 'release', kl.release) "
		"END, "
		"'default', CASE WHEN y.dflt IS NULL THEN NULL ELSE "
		"json_build_object('kernel_id', kd.id, 'release', kd.release) "
		"END, 'set_at', " ISO(
			"bl.set_at") ") "
				     "ORDER BY b.name, t.name, y.tree), '[]')::text "
				     "FROM y JOIN boards b ON b.id = y.board_id "
				     "JOIN testcases t ON t.id = y.testcase_id "
				     "LEFT JOIN baselines bl ON (bl.board_id, bl.testcase_id, "
				     "bl.tree) = (y.board_id, y.testcase_id, y.tree) "
				     "LEFT JOIN kernels kp ON kp.id = bl.kernel_id "
				     "LEFT JOIN kernels kl ON kl.id = y.latest "
				     "LEFT JOIN kernels kd ON kd.id = y.dflt "
				     "WHERE ($1::text IS NULL OR b.name = $1) "
				     "AND ($2::text IS NULL OR t.name = $2) "
				     "AND ($3::text IS NULL OR y.tree = $3)";
	const char *p[3] = { board, testcase, tree };

	return db_query_json(conn, sql, 3, p, out, err, "listing baselines");
}

/* A verdict's queries are prepared once per connection. */
static const struct db_stmt series_clocks_stmt = {
	"rtlab_series_clocks",
	"SELECT COALESCE(json_object_agg(clock, n ORDER BY "
	"clock), '{}')::text FROM (SELECT clock, count(*) AS n "
	"FROM runs WHERE board_id = $1::integer AND "
	"testcase_id = $2::integer AND kernel_id = $3::integer "
	"AND status = 'complete' AND " DB_RUN_COMPARABLE("") " GROUP BY clock) c",
	3,
};

int db_series_clocks(PGconn *conn, int board_id, int testcase_id, int kernel_id,
		     json_t **out, struct rtlab_err *err)
{
	char b[16], t[16], k[16];
	const char *p[3] = { b, t, k };

	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	snprintf(k, sizeof(k), "%d", kernel_id);
	return db_stmt_query_json(conn, &series_clocks_stmt, p, out, err,
				  "reading the runs' clocks");
}

void series_runs_cleanup(struct series_runs *s)
{
	size_t i;
	unsigned int c;

	if (!s)
		return;
	for (i = 0; i < s->nruns; i++) {
		for (c = 0; c < s->runs[i].ncpus; c++)
			hist_cleanup(&s->runs[i].cpus[c]);
		free(s->runs[i].cpus);
	}
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

/* Columns of the runs query, from 2 on: one histogram. */
static int load_hist(PGresult *res, int row, struct hist *h, uint64_t **lat,
		     uint64_t **cnt, size_t *cap)
{
	uint32_t range = strtoul(PQgetvalue(res, row, 4), NULL, 10);
	size_t n = strtoull(PQgetvalue(res, row, 7), NULL, 10), i;
	int ret;

	if (n > *cap) {
		uint64_t *a = realloc(*lat, n * sizeof(**lat));
		uint64_t *b = a ? realloc(*cnt, n * sizeof(**cnt)) : NULL;

		if (a)
			*lat = a;
		if (!b)
			return -ENOMEM;
		*cnt = b;
		*cap = n;
	}
	ret = hist_init(h, range);
	if (ret)
		return ret;
	h->thread = atoi(PQgetvalue(res, row, 2));
	h->cpu = atoi(PQgetvalue(res, row, 3));
	if (db_parse_list(PQgetvalue(res, row, 5), *lat, n) ||
	    db_parse_list(PQgetvalue(res, row, 6), *cnt, n))
		return -EIO;
	for (i = 0; i < n; i++) {
		if ((*lat)[i] >= range)
			return -EIO;
		h->counts[(*lat)[i]] = (*cnt)[i];
	}
	h->overflows = strtoull(PQgetvalue(res, row, 8), NULL, 10);
	h->samples = strtoull(PQgetvalue(res, row, 9), NULL, 10);
	if (!PQgetisnull(res, row, 10))
		h->min_us = strtoul(PQgetvalue(res, row, 10), NULL, 10);
	if (!PQgetisnull(res, row, 11))
		h->avg_us = strtod(PQgetvalue(res, row, 11), NULL);
	if (!PQgetisnull(res, row, 12))
		h->max_us = strtoul(PQgetvalue(res, row, 12), NULL, 10);
	return 0;
}

int db_series_runs_load(PGconn *conn, int board_id, int testcase_id,
			int kernel_id, const char *clock,
			struct series_runs *out, struct rtlab_err *err)
{
	return db_series_runs_load_ids(conn, board_id, testcase_id, kernel_id,
				       clock, NULL, out, err);
}

int db_series_runs_load_ids(PGconn *conn, int board_id, int testcase_id,
			    int kernel_id, const char *clock,
			    const char *run_ids, struct series_runs *out,
			    struct rtlab_err *err)
{
	/* The newest runs through runs_series, then their histograms
	 * through the histograms primary key; one round trip. */
	static const struct db_stmt load_stmt = {
		"rtlab_series_runs_load",
		"WITH sel AS (SELECT id, uuid FROM runs "
		"WHERE board_id = $1::integer AND testcase_id = $2::integer "
		"AND kernel_id = $3::integer AND status = 'complete' "
		"AND " DB_RUN_COMPARABLE(
			"") " AND clock = $4 "
			    "AND ($6::bigint[] IS NULL OR id = ANY($6::bigint[])) "
			    "ORDER BY id DESC LIMIT $5::integer) "
			    "SELECT sel.id, sel.uuid, h.thread, h.cpu, h.range_us, "
			    "array_to_string(h.bucket_us, ','), "
			    "array_to_string(h.counts, ','), cardinality(h.bucket_us), "
			    "h.overflows, h.samples, h.min_us, h.avg_us, h.max_us "
			    "FROM sel LEFT JOIN histograms h ON h.run_id = sel.id "
			    /* One metric per run: its thread 0's (cyclictest's
		 * latency, timerlat's thread latency). */
			    "AND h.metric = (SELECT h0.metric FROM histograms h0 "
			    "WHERE h0.run_id = sel.id AND h0.thread = 0) "
			    "ORDER BY sel.id, h.thread",
		6,
	};
	char b[16], t[16], k[16], lim[16];
	const char *p[6] = { b, t, k, clock, lim, run_ids };
	uint64_t *lat = NULL, *cnt = NULL;
	size_t cap = 0, nruns = 0;
	PGresult *res;
	int ret, i, n, j;

	memset(out, 0, sizeof(*out));
	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	snprintf(k, sizeof(k), "%d", kernel_id);
	snprintf(lim, sizeof(lim), "%d", SERIES_MAX_RUNS);
	ret = db_stmt_query(conn, &load_stmt, p, &res, err,
			    "loading the series' runs");
	if (ret)
		return ret;
	n = PQntuples(res);
	for (i = 0; i < n; i++)
		if (!i ||
		    strcmp(PQgetvalue(res, i, 0), PQgetvalue(res, i - 1, 0)))
			nruns++;
	out->runs = calloc(nruns ? nruns : 1, sizeof(*out->runs));
	if (!out->runs) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i = j) {
		struct series_run *r = &out->runs[out->nruns];
		unsigned int nh = 0;

		for (j = i; j < n && !strcmp(PQgetvalue(res, j, 0),
					     PQgetvalue(res, i, 0));
		     j++)
			if (!PQgetisnull(res, j, 2))
				nh++;
		r->id = strtoll(PQgetvalue(res, i, 0), NULL, 10);
		snprintf(r->uuid, sizeof(r->uuid), "%s", PQgetvalue(res, i, 1));
		out->nruns++;
		r->cpus = calloc(nh ? nh : 1, sizeof(*r->cpus));
		if (!r->cpus) {
			ret = -ENOMEM;
			goto out;
		}
		for (j = i; j < n && !strcmp(PQgetvalue(res, j, 0),
					     PQgetvalue(res, i, 0));
		     j++) {
			if (PQgetisnull(res, j, 2))
				continue;
			ret = load_hist(res, j, &r->cpus[r->ncpus], &lat, &cnt,
					&cap);
			r->ncpus++;
			if (ret) {
				rtlab_err_seterr(err, -ret,
						 "run %" PRId64
						 ": histogram of thread %s: "
						 "%s",
						 r->id, PQgetvalue(res, j, 2),
						 ret == -ENOMEM ?
							 "out of memory" :
							 "inconsistent buckets in "
							 "the database");
				goto out;
			}
		}
	}
out:
	if (ret == -ENOMEM)
		rtlab_err_seterr(err, ENOMEM,
				 "loading the series' runs: out "
				 "of memory");
	free(lat);
	free(cnt);
	PQclear(res);
	return ret;
}

static const struct db_stmt names_stmt = {
	"rtlab_verdict_names",
	"SELECT json_build_object('board', b.name, "
	"'testcase', t.name, "
	"'baseline', json_build_object('kernel_id', kb.id, "
	"'release', kb.release, 'version', kb.version, "
	"'tree', kb.tree), "
	"'candidate', json_build_object('kernel_id', kc.id, "
	"'release', kc.release, 'version', kc.version, "
	"'tree', kc.tree))::text "
	"FROM boards b, testcases t, kernels kb, kernels kc "
	"WHERE b.id = $1::integer AND t.id = $2::integer AND "
	"kb.id = $3::integer AND kc.id = $4::integer",
	4,
};

int db_verdict_names(PGconn *conn, int board_id, int testcase_id,
		     int base_kernel_id, int cand_kernel_id, json_t **out,
		     struct rtlab_err *err)
{
	char b[16], t[16], kb[16], kc[16];
	const char *p[4] = { b, t, kb, kc };
	int ret;

	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	snprintf(kb, sizeof(kb), "%d", base_kernel_id);
	snprintf(kc, sizeof(kc), "%d", cand_kernel_id);
	ret = db_stmt_query_json(conn, &names_stmt, p, out, err,
				 "reading the verdict's names");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT,
				 "board %s, testcase %s or "
				 "kernel %s/%s not found",
				 b, t, kb, kc);
	return ret;
}

int db_testcase_definition(PGconn *conn, int testcase_id, json_t **out,
			   struct rtlab_err *err)
{
	char t[16];
	const char *p[1] = { t };
	int ret;

	snprintf(t, sizeof(t), "%d", testcase_id);
	ret = db_query_json(conn,
			    "SELECT definition::text FROM testcases "
			    "WHERE id = $1::integer",
			    1, p, out, err, "reading the testcase definition");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT, "testcase id %s not found", t);
	return ret;
}

/* "{1,2,3}" for a bigint[] parameter. */
static char *id_array(const int64_t *v, size_t n)
{
	size_t cap = n * 21 + 3, len = 0, i;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[len++] = '{';
	for (i = 0; i < n; i++)
		len += snprintf(s + len, cap - len, "%s%" PRId64, i ? "," : "",
				v[i]);
	s[len++] = '}';
	s[len] = '\0';
	return s;
}

/* Concurrent stores of one pair take turns. */
static const struct db_stmt verdict_lock_stmt = {
	"rtlab_verdict_lock",
	"SELECT pg_advisory_xact_lock(" VERDICT_LOCK_KEY ", $1::integer)",
	1,
};

/* Replaces the pair's latest verdict unless a report names it, else adds
 * one; answers the verdict's id and whether it replaced one. */
static const struct db_stmt verdict_upsert_stmt = {
	"rtlab_verdict_upsert",
	"WITH latest AS (SELECT id FROM verdicts "
	"WHERE board_id = $1::integer AND testcase_id = $2::integer "
	"AND candidate_kernel_id = $4::integer "
	"AND baseline_kernel_id = $3::integer "
	"AND details->>'clock' IS NOT DISTINCT FROM $9 "
	"ORDER BY id DESC LIMIT 1), "
	"upd AS (UPDATE verdicts v SET verdict = $5, details = $6::jsonb, "
	"baseline_runs = $7::bigint[], "
	"candidate_runs = $8::bigint[], created_at = now() "
	"FROM latest WHERE v.id = latest.id AND NOT EXISTS "
	"(SELECT 1 FROM reports r WHERE r.verdict_id = v.id) "
	"RETURNING v.id), "
	"ins AS (INSERT INTO verdicts (board_id, testcase_id, "
	"baseline_kernel_id, candidate_kernel_id, verdict, details, "
	"baseline_runs, candidate_runs) SELECT $1::integer, $2::integer, "
	"$3::integer, $4::integer, $5, $6::jsonb, $7::bigint[], "
	"$8::bigint[] WHERE NOT EXISTS (SELECT 1 FROM upd) RETURNING id) "
	"SELECT id, true FROM upd UNION ALL SELECT id, false FROM ins",
	9,
};

/* What the verdict's upsert answered: its id and whether it replaced. */
struct stored {
	int64_t *id;
	bool *replaced;
	bool stored;
};

static bool verdict_stored(PGresult *res, void *arg)
{
	struct stored *st = arg;

	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQnfields(res) == 2 &&
	    PQntuples(res) == 1) {
		*st->id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		if (st->replaced)
			*st->replaced = PQgetvalue(res, 0, 1)[0] == 't';
		st->stored = true;
	}
	return false;
}

int db_verdict_store(PGconn *conn, const struct verdict_row *v, int64_t *id,
		     bool *replaced, struct rtlab_err *err)
{
	char b[16], t[16], kb[16], kc[16];
	char *ab = id_array(v->base_runs, v->nbase);
	char *ac = id_array(v->cand_runs, v->ncand);
	const char *p[9] = { b,	 t,  kb,      kc, v->verdict, v->details_json,
			     ab, ac, v->clock };
	const char *what = "storing the verdict";
	struct stored st = { id, replaced, false };
	struct db_pipeline pl;
	int ret = 0;

	if (replaced)
		*replaced = false;
	if (!ab || !ac) {
		ret = rtlab_err_seterr(err, ENOMEM,
				       "storing the verdict: out "
				       "of memory");
		goto out;
	}
	snprintf(b, sizeof(b), "%d", v->board_id);
	snprintf(t, sizeof(t), "%d", v->testcase_id);
	snprintf(kb, sizeof(kb), "%d", v->base_kernel_id);
	snprintf(kc, sizeof(kc), "%d", v->cand_kernel_id);
	/*
	 * One round trip: the lock and the upsert up to the sync point are
	 * one implicit transaction, committed at the sync.  The upsert, a
	 * statement of its own, reads the verdicts after the lock is held.
	 */
	ret = db_pipeline_begin(&pl, conn, err);
	if (ret)
		goto out;
	ret = db_pipeline_send(&pl, &verdict_lock_stmt, &p[3], NULL, NULL, what,
			       err);
	if (!ret)
		ret = db_pipeline_send(&pl, &verdict_upsert_stmt, p, NULL, NULL,
				       what, err);
	ret = db_pipeline_finish(&pl, ret, verdict_stored, &st, what, err);
	if (!ret && !st.stored)
		ret = rtlab_err_seterr(err, EIO, "%s: no verdict id came back",
				       what);
out:
	free(ab);
	free(ac);
	return ret;
}

int db_verdicts_list(PGconn *conn, const struct verdict_filter *f, json_t **out,
		     struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT COALESCE(json_agg(x ORDER BY x.id DESC), '[]')::text "
		"FROM (SELECT v.id, b.name AS board, t.name AS testcase, "
		"v.details->>'tree' AS tree, v.details->>'clock' AS clock, "
		"kb.release AS baseline_kernel, kc.release AS candidate_kernel, "
		"v.verdict, v.details->>'reason' AS reason, "
		"v.details->'more_runs' AS more_runs, "
		"cardinality(v.baseline_runs) AS baseline_runs, "
		"cardinality(v.candidate_runs) AS candidate_runs, "
		"json_build_object("
		"'p99.9', json_build_object("
		"'baseline', v.details->'metrics'->'p99.9'->'baseline', "
		"'candidate', v.details->'metrics'->'p99.9'->'candidate'), "
		"'max', json_build_object("
		"'baseline', v.details->'metrics'->'max'->'baseline', "
		"'candidate', v.details->'metrics'->'max'->'candidate')) "
		"AS figures, " ISO(
			"v.created_at") " AS created_at "
					"FROM verdicts v JOIN boards b ON b.id = v.board_id "
					"JOIN testcases t ON t.id = v.testcase_id "
					"JOIN kernels kb ON kb.id = v.baseline_kernel_id "
					"JOIN kernels kc ON kc.id = v.candidate_kernel_id "
					"WHERE ($1::text IS NULL OR b.name = $1) "
					"AND ($2::text IS NULL OR t.name = $2) "
					"AND ($3::text IS NULL OR v.verdict = $3) "
					"AND ($4::text IS NULL OR kc.release = $4 OR kb.release = $4) "
					"ORDER BY v.id DESC LIMIT $5::integer) x";
	char limit[16];
	const char *p[5] = { f->board, f->testcase, f->verdict, f->kernel,
			     limit };

	snprintf(limit, sizeof(limit), "%u", f->limit ? f->limit : 50);
	return db_query_json(conn, sql, 5, p, out, err, "listing verdicts");
}

int db_verdict_get(PGconn *conn, int64_t id, json_t **out,
		   struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT json_build_object('id', v.id, 'board', b.name, "
		"'testcase', t.name, 'tree', v.details->>'tree', "
		"'clock', v.details->>'clock', 'verdict', v.verdict, "
		"'reason', v.details->>'reason', "
		"'baseline', json_build_object('kernel_id', kb.id, "
		"'release', kb.release, 'version', kb.version, "
		"'tree', kb.tree, 'source', v.details->>'baseline_source', "
		"'runs', v.baseline_runs), "
		"'candidate', json_build_object('kernel_id', kc.id, "
		"'release', kc.release, 'version', kc.version, "
		"'tree', kc.tree, 'runs', v.candidate_runs), "
		"'details', v.details, "
		"'created_at', " ISO(
			"v.created_at") ")::text "
					"FROM verdicts v JOIN boards b ON b.id = v.board_id "
					"JOIN testcases t ON t.id = v.testcase_id "
					"JOIN kernels kb ON kb.id = v.baseline_kernel_id "
					"JOIN kernels kc ON kc.id = v.candidate_kernel_id "
					"WHERE v.id = $1::bigint";
	char ids[24];
	const char *p[1] = { ids };
	int ret;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	ret = db_query_json(conn, sql, 1, p, out, err, "reading the verdict");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT, "verdict %s not found", ids);
	return ret;
}

int db_series_results_load(PGconn *conn, int board_id, int testcase_id,
			   int kernel_id, const char *run_ids, json_t **out,
			   struct rtlab_err *err)
{
	static const char sql[] =
		"SELECT COALESCE(json_agg(json_build_object('id', id, "
		"'clock', clock, 'results', results) ORDER BY id DESC), "
		"'[]')::text FROM runs "
		"WHERE board_id = $1::integer AND testcase_id = $2::integer "
		"AND kernel_id = $3::integer AND status = 'complete' "
		"AND " DB_RUN_COMPARABLE(
			"") " AND results IS NOT NULL "
			    "AND ($4::bigint[] IS NULL OR id = ANY($4::bigint[]))";
	char b[16], t[16], k[16];
	const char *p[4] = { b, t, k, run_ids };

	snprintf(b, sizeof(b), "%d", board_id);
	snprintf(t, sizeof(t), "%d", testcase_id);
	snprintf(k, sizeof(k), "%d", kernel_id);
	return db_query_json(conn, sql, 4, p, out, err,
			     "loading the series' results");
}
