// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The job queue's queries: queue, claim (FOR UPDATE SKIP LOCKED), lease
 * renewal, finishing with a run, requeueing, giving up on jobs whose
 * workers keep dying, and listing.  Every state change is guarded by
 * "this worker still holds the job", so a worker that lost its lease can
 * never overwrite what the job's new holder did.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-jobs.h"
#include "db.h"

#define ISO(col) \
	"to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/* The columns every query returns, in the order job_from_row() reads. */
#define JOB_COLS                                                          \
	"j.id, j.state, j.board_id, b.name, b.kind, b.definition::text, " \
	"j.kernel, t.name, j.testcase_file, COALESCE(j.duration_s, 0), "  \
	"j.attempts, j.max_attempts, j.worker, j.phase, "                 \
	"floor(extract(epoch FROM j.lease_until - now()))::bigint, "      \
	"j.error, j.run_uuid::text, "                                     \
	"(SELECT string_agg(r.id::text, ',' ORDER BY r.id) FROM runs r "  \
	" WHERE r.job_id = j.id), " ISO("j.created_at") ", " ISO(         \
		"j.finished_at") ", j.infra_errors, j.failure, j.kind"

static const char *const states[] = { "queued", "running", "done", "failed" };

bool db_job_state_valid(const char *state)
{
	size_t i;

	for (i = 0; state && i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(state, states[i]))
			return true;
	return false;
}

static int pg_fail(PGconn *conn, PGresult *res, struct rtlab_err *err,
		   const char *what, int64_t id)
{
	const char *prim =
		res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) :
				  NULL;
	char msg[RTLAB_ERR_LEN];
	size_t n;
	int e = EIO;

	snprintf(msg, sizeof(msg), "%s", prim ? prim : PQerrorMessage(conn));
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	if (state && (!strncmp(state, "22", 2) || !strncmp(state, "23", 2)))
		e = EINVAL;
	if (id > 0)
		return rtlab_err_seterr(err, e, "%s job %" PRId64 ": %s", what,
					id, msg);
	return rtlab_err_seterr(err, e, "%s: %s", what, msg);
}

static PGresult *q(PGconn *conn, const char *sql, int n, const char *const *p)
{
	return PQexecParams(conn, sql, n, NULL, p, NULL, NULL, 0);
}

void db_job_cleanup(struct db_job *job)
{
	if (!job)
		return;
	free(job->state);
	free(job->board);
	free(job->board_kind);
	free(job->board_definition);
	free(job->kernel);
	free(job->testcase);
	free(job->testcase_file);
	free(job->worker);
	free(job->phase);
	free(job->error);
	free(job->run_uuid);
	free(job->run_ids);
	free(job->created_at);
	free(job->finished_at);
	free(job->failure);
	memset(job, 0, sizeof(*job));
}

void db_job_list_free(struct db_job *jobs, size_t count)
{
	size_t i;

	if (!jobs)
		return;
	for (i = 0; i < count; i++)
		db_job_cleanup(&jobs[i]);
	free(jobs);
}

/* A copy of a text column, NULL for SQL NULL; *@oom set when out of
 * memory. */
static char *col(PGresult *res, int row, int c, bool *oom)
{
	char *s;

	if (PQgetisnull(res, row, c))
		return NULL;
	s = strdup(PQgetvalue(res, row, c));
	if (!s)
		*oom = true;
	return s;
}

static int job_from_row(PGresult *res, int row, struct db_job *j)
{
	bool oom = false;

	memset(j, 0, sizeof(*j));
	j->id = strtoll(PQgetvalue(res, row, 0), NULL, 10);
	j->state = col(res, row, 1, &oom);
	j->board_id = atoi(PQgetvalue(res, row, 2));
	j->board = col(res, row, 3, &oom);
	j->board_kind = col(res, row, 4, &oom);
	j->board_definition = col(res, row, 5, &oom);
	j->kernel = col(res, row, 6, &oom);
	j->testcase = col(res, row, 7, &oom);
	j->testcase_file = col(res, row, 8, &oom);
	j->duration_s =
		(unsigned int)strtoul(PQgetvalue(res, row, 9), NULL, 10);
	j->attempts = atoi(PQgetvalue(res, row, 10));
	j->max_attempts = atoi(PQgetvalue(res, row, 11));
	j->worker = col(res, row, 12, &oom);
	j->phase = col(res, row, 13, &oom);
	j->has_lease = !PQgetisnull(res, row, 14);
	j->lease_left_s =
		j->has_lease ? strtol(PQgetvalue(res, row, 14), NULL, 10) : 0;
	j->error = col(res, row, 15, &oom);
	j->run_uuid = col(res, row, 16, &oom);
	j->run_ids = col(res, row, 17, &oom);
	j->created_at = col(res, row, 18, &oom);
	j->finished_at = col(res, row, 19, &oom);
	j->infra_errors = atoi(PQgetvalue(res, row, 20));
	j->failure = col(res, row, 21, &oom);
	j->health = !strcmp(PQgetvalue(res, row, 22), "health");
	if (oom) {
		db_job_cleanup(j);
		return -ENOMEM;
	}
	return 0;
}

int db_job_create(PGconn *conn, const struct db_job_new *job, int64_t *id,
		  struct rtlab_err *err)
{
	char bid[16], dur[16], att[16], prio[16], sub[24], bis[24], pos[16];
	const char *p[13];
	PGresult *res;
	int ret = 0;

	snprintf(prio, sizeof(prio), "%u",
		 job->priority ? job->priority : JOB_PRIORITY_DEFAULT);
	snprintf(sub, sizeof(sub), "%" PRId64, job->submission_id);
	p[6] = prio;
	p[7] = job->origin;
	p[8] = job->tree;
	p[9] = job->submission_id > 0 ? sub : NULL;
	snprintf(bid, sizeof(bid), "%d", job->board_id);
	snprintf(dur, sizeof(dur), "%u", job->duration_s);
	snprintf(att, sizeof(att), "%u",
		 job->max_attempts ? job->max_attempts : JOB_MAX_ATTEMPTS);
	p[0] = job->testcase;
	p[1] = bid;
	p[2] = job->kernel;
	p[3] = job->testcase_file;
	p[4] = dur;
	p[5] = att;
	snprintf(bis, sizeof(bis), "%" PRId64, job->bisect_id);
	snprintf(pos, sizeof(pos), "%d", job->bisect_pos);
	p[10] = job->bisect_id ? bis : NULL;
	p[11] = job->bisect_id ? pos : NULL;
	p[12] = job->health ? "health" : "run";
	/* The DO UPDATE (a no-op) makes RETURNING give the existing row. */
	res = q(conn,
		"WITH t AS (INSERT INTO testcases (name) VALUES ($1) "
		"ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name "
		"RETURNING id) "
		"INSERT INTO jobs (board_id, testcase_id, kernel, "
		"testcase_file, duration_s, max_attempts, priority, origin, "
		"tree, submission_id, bisect_id, bisect_pos, kind) "
		"SELECT $2::integer, t.id, $3, $4, $5::integer, $6::integer, "
		"$7::integer, $8, $9, $10::bigint, $11::bigint, $12::integer, "
		"$13 FROM t RETURNING id",
		13, p);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		ret = pg_fail(conn, res, err, "queueing a job", 0);
	else
		*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return ret;
}

int db_job_expire(PGconn *conn, unsigned int *count, struct rtlab_err *err)
{
	PGresult *res;
	int ret = 0;

	res = PQexec(conn,
		     "UPDATE jobs SET state = 'failed', finished_at = now(), "
		     "lease_until = NULL, phase = NULL, "
		     "failure = 'infrastructure', "
		     "infra_errors = infra_errors + 1, "
		     "error = concat_ws('; ', error, format("
		     "'lease expired on attempt %s of %s (worker %s stopped "
		     "renewing it): giving up', attempts, max_attempts, worker)) "
		     "WHERE state = 'running' AND lease_until < now() "
		     "AND attempts >= max_attempts");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		ret = pg_fail(conn, res, err, "failing exhausted jobs", 0);
	else if (count)
		*count = (unsigned int)strtoul(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	return ret;
}

int db_job_claim(PGconn *conn, const char *worker, const char *board,
		 const char *const *kinds, unsigned int lease_s,
		 struct db_job *job, struct rtlab_err *err)
{
	char lease[16], arr[256];
	const char *p[4];
	PGresult *res;
	size_t i, len = 0;
	int ret;

	memset(job, 0, sizeof(*job));
	snprintf(lease, sizeof(lease), "%u", lease_s);
	/* a text[] literal: kind names are plain words */
	arr[len++] = '{';
	for (i = 0; kinds[i] && len < sizeof(arr) - 2; i++)
		len += snprintf(arr + len, sizeof(arr) - len, "%s\"%s\"",
				i ? "," : "", kinds[i]);
	if (len >= sizeof(arr) - 1)
		return rtlab_err_set(err, "claiming a job: too many kinds");
	arr[len++] = '}';
	arr[len] = '\0';
	p[0] = worker;
	p[1] = lease;
	p[2] = board;
	p[3] = arr;
	res = q(conn,
		"UPDATE jobs j SET state = 'running', worker = $1, "
		"lease_until = now() + make_interval(secs => $2::integer), "
		"attempts = j.attempts + 1, started_at = now(), "
		/* an expired lease: the last worker died on it */
		"infra_errors = j.infra_errors + "
		"CASE WHEN j.state = 'running' THEN 1 ELSE 0 END, "
		"phase = 'claimed' "
		"FROM boards b, testcases t "
		"WHERE b.id = j.board_id AND t.id = j.testcase_id "
		"AND j.id = (SELECT c.id FROM jobs c "
		"  JOIN boards cb ON cb.id = c.board_id "
		"  WHERE (c.state = 'queued' OR "
		"         (c.state = 'running' AND c.lease_until < now())) "
		"  AND c.attempts < c.max_attempts "
		"  AND ($3::text IS NULL OR cb.name = $3) "
		"  AND cb.kind = ANY($4::text[]) "
		/* out of service: nothing; a health check pending: only it */
		"  AND cb.state = 'ready' "
		"  AND (c.kind = 'health' OR NOT EXISTS (SELECT 1 FROM jobs h "
		"       WHERE h.board_id = c.board_id AND h.kind = 'health' "
		"       AND h.state IN ('queued', 'running'))) "
		"  ORDER BY c.priority DESC, c.id "
		"  FOR UPDATE OF c SKIP LOCKED LIMIT 1) "
		"RETURNING " JOB_COLS,
		4, p);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = pg_fail(conn, res, err, "claiming a job", 0);
		goto out;
	}
	if (PQntuples(res) != 1) {
		ret = -ENOENT;
		goto out;
	}
	ret = job_from_row(res, 0, job);
out:
	PQclear(res);
	return ret;
}

int db_job_renew(PGconn *conn, int64_t id, const char *worker,
		 unsigned int lease_s, const char *phase, struct rtlab_err *err)
{
	char sid[24], lease[16];
	const char *p[4];
	PGresult *res;
	int ret = 0;

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	snprintf(lease, sizeof(lease), "%u", lease_s);
	p[0] = sid;
	p[1] = worker;
	p[2] = lease;
	p[3] = phase;
	res = q(conn,
		"UPDATE jobs SET "
		"lease_until = now() + make_interval(secs => $3::integer), "
		"phase = COALESCE($4, phase) "
		"WHERE id = $1::bigint AND worker = $2 AND state = 'running'",
		4, p);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		ret = pg_fail(conn, res, err, "renewing the lease of", id);
	else if (strcmp(PQcmdTuples(res), "1"))
		ret = rtlab_err_seterr(err, ESTALE,
				       "job %" PRId64 ": worker %s no longer "
				       "holds it (lease expired and taken "
				       "over, or finished)",
				       id, worker);
	PQclear(res);
	return ret;
}

int db_job_finish(PGconn *conn, int64_t id, const char *worker,
		  const char *run_uuid, bool failed, const char *error,
		  struct rtlab_err *err)
{
	const char *p[5];
	char sid[24];
	PGresult *res;
	int ret;

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	p[0] = sid;
	p[1] = worker;
	p[2] = run_uuid;
	p[3] = failed ? "failed" : "done";
	p[4] = failed ? error : NULL;
	ret = db_begin(conn, err);
	if (ret)
		return ret;
	res = q(conn,
		"UPDATE jobs SET state = $4, run_uuid = $3::uuid, error = $5, "
		"failure = CASE WHEN $4 = 'failed' THEN 'run' END, "
		"finished_at = now(), lease_until = NULL, phase = NULL, "
		"kernel_id = COALESCE((SELECT kernel_id FROM runs "
		"WHERE uuid = $3::uuid), kernel_id) "
		"WHERE id = $1::bigint AND worker = $2 AND state = 'running'",
		5, p);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		ret = pg_fail(conn, res, err, "finishing", id);
		goto fail;
	}
	if (strcmp(PQcmdTuples(res), "1")) {
		ret = rtlab_err_seterr(err, ESTALE,
				       "job %" PRId64 ": worker %s no longer "
				       "holds it; run %s stays unlinked",
				       id, worker, run_uuid);
		goto fail;
	}
	PQclear(res);
	res = q(conn,
		"UPDATE runs SET job_id = $1::bigint "
		"WHERE uuid = $2::uuid AND job_id IS NULL AND board_id = "
		"(SELECT board_id FROM jobs WHERE id = $1::bigint)",
		2, (const char *const[]){ sid, run_uuid });
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		ret = pg_fail(conn, res, err, "linking the run of", id);
		goto fail;
	}
	PQclear(res);
	return db_commit(conn, err);
fail:
	PQclear(res);
	db_rollback(conn);
	return ret;
}

int db_job_requeue(PGconn *conn, int64_t id, const char *worker,
		   const char *error, bool abandoned, bool *failed_out,
		   struct rtlab_err *err)
{
	const char *p[4];
	char sid[24];
	PGresult *res;
	int ret = 0;

	snprintf(sid, sizeof(sid), "%" PRId64, id);
	p[0] = sid;
	p[1] = worker;
	p[2] = error;
	p[3] = abandoned ? "t" : "f";
	res = q(conn,
		"UPDATE jobs SET "
		"attempts = CASE WHEN $4::boolean THEN greatest(attempts - 1, 0) "
		"ELSE attempts END, "
		"state = CASE WHEN NOT $4::boolean AND attempts >= max_attempts "
		"THEN 'failed' ELSE 'queued' END, "
		"finished_at = CASE WHEN NOT $4::boolean AND "
		"attempts >= max_attempts THEN now() END, "
		"infra_errors = infra_errors + CASE WHEN $4::boolean THEN 0 "
		"ELSE 1 END, "
		"failure = CASE WHEN NOT $4::boolean AND "
		"attempts >= max_attempts THEN 'infrastructure' END, "
		"error = COALESCE($3, error), worker = CASE WHEN $4::boolean "
		"THEN NULL ELSE worker END, lease_until = NULL, phase = NULL "
		"WHERE id = $1::bigint AND worker = $2 AND state = 'running' "
		"RETURNING state",
		4, p);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = pg_fail(conn, res, err, "requeueing", id);
	} else if (PQntuples(res) != 1) {
		ret = rtlab_err_seterr(err, ESTALE,
				       "job %" PRId64 ": worker %s no longer "
				       "holds it",
				       id, worker);
	} else if (failed_out) {
		*failed_out = !strcmp(PQgetvalue(res, 0, 0), "failed");
	}
	PQclear(res);
	return ret;
}

int db_job_list(PGconn *conn, const struct db_job_filter *f,
		struct db_job **jobs, size_t *count, struct rtlab_err *err)
{
	struct db_job *out = NULL;
	const char *p[4];
	char lim[16], before[24];
	PGresult *res;
	int ret = 0, n, i;

	*jobs = NULL;
	*count = 0;
	if (f->state && !db_job_state_valid(f->state))
		return rtlab_err_set(err,
				     "job state '%s': expected queued, "
				     "running, done or failed",
				     f->state);
	snprintf(lim, sizeof(lim), "%u", f->limit);
	snprintf(before, sizeof(before), "%" PRId64, f->before);
	p[0] = f->state;
	p[1] = f->limit ? lim : NULL;
	p[2] = f->board;
	p[3] = f->before > 0 ? before : NULL;
	/* newest first down the primary key (or a board's open jobs down
	 * jobs_board_open): a page costs the same a year on */
	res = q(conn,
		"SELECT " JOB_COLS " FROM jobs j "
		"JOIN boards b ON b.id = j.board_id "
		"JOIN testcases t ON t.id = j.testcase_id "
		"WHERE ($1::text IS NULL OR j.state = $1) "
		"AND ($3::text IS NULL OR j.board_id = "
		"     (SELECT id FROM boards WHERE name = $3)) "
		"AND ($4::bigint IS NULL OR j.id < $4) "
		"ORDER BY j.id DESC LIMIT $2::bigint",
		4, p);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = pg_fail(conn, res, err, "listing jobs", 0);
		goto out;
	}
	n = PQntuples(res);
	out = calloc(n ? (size_t)n : 1, sizeof(*out));
	if (!out) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		ret = job_from_row(res, i, &out[i]);
		if (ret) {
			db_job_list_free(out, (size_t)i);
			out = NULL;
			goto out;
		}
	}
	*jobs = out;
	*count = (size_t)n;
out:
	PQclear(res);
	return ret;
}

/* One job of db_jobs_json(). */
static json_t *job_json(const struct db_job *j)
{
	json_t *o, *runs = json_array();
	const char *state = j->state;
	char *ids, *tok, *save = NULL;

	if (j->failure && !strcmp(j->failure, "infrastructure"))
		state = "infra-failed";
	ids = j->run_ids ? strdup(j->run_ids) : NULL;
	for (tok = ids ? strtok_r(ids, ",", &save) : NULL; runs && tok;
	     tok = strtok_r(NULL, ",", &save))
		json_array_append_new(runs,
				      json_integer(strtoll(tok, NULL, 10)));
	free(ids);
	o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s?, "
		      "s:s?, s:o, s:s?, s:s?, s:o, s:s, s:s?}",
		      "id", (json_int_t)j->id, "state", state, "board",
		      j->board, "kernel", j->kernel, "testcase", j->testcase,
		      "kind", j->health ? "health" : "run", "attempts",
		      j->attempts, "max_attempts", j->max_attempts,
		      "infra_errors", j->infra_errors, "worker", j->worker,
		      "phase", j->phase, "lease_left_s",
		      j->has_lease ? json_integer(j->lease_left_s) :
				     json_null(),
		      "error", j->error, "run_uuid", j->run_uuid, "runs",
		      runs ? runs : json_null(), "created_at", j->created_at,
		      "finished_at", j->finished_at);
	return o;
}

json_t *db_jobs_json(const struct db_job *jobs, size_t count)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < count; i++)
		if (json_array_append_new(list, job_json(&jobs[i]))) {
			json_decref(list);
			return NULL;
		}
	return list;
}
