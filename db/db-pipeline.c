// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pipelines of prepared statements.  Which statements a connection holds
 * is remembered here, per connection and backend (a reset connection is a
 * new backend with nothing prepared), and only once PostgreSQL has
 * answered the prepare: a pipeline that fails before it leaves the
 * statement unprepared and the next one prepares it again.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "db-pipeline.h"
#include "db.h"

#define STMTS_MAX 16 /* prepared statements per connection */

struct conn_stmts {
	const PGconn *conn;
	int backend_pid;
	const struct db_stmt *stmts[STMTS_MAX];
	size_t n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn_stmts *conns;
static size_t nconns, capconns;

/* Under @lock: @conn's entry, NULL when it has none. */
static struct conn_stmts *conn_find(const PGconn *conn)
{
	int pid = PQbackendPID(conn);
	size_t i;

	for (i = 0; i < nconns; i++)
		if (conns[i].conn == conn) {
			if (conns[i].backend_pid != pid) {
				conns[i].backend_pid = pid;
				conns[i].n = 0;
			}
			return &conns[i];
		}
	return NULL;
}

static bool stmt_is_prepared(const PGconn *conn, const struct db_stmt *st)
{
	struct conn_stmts *c;
	bool found = false;
	size_t i;

	pthread_mutex_lock(&lock);
	c = conn_find(conn);
	for (i = 0; c && i < c->n && !found; i++)
		found = c->stmts[i] == st;
	pthread_mutex_unlock(&lock);
	return found;
}

/* Remembering is an optimisation: without memory, statements are
 * prepared again (and refused as duplicates), so a full table just
 * stops remembering. */
static void stmt_remember(const PGconn *conn, const struct db_stmt *st)
{
	struct conn_stmts *c, *bigger;

	pthread_mutex_lock(&lock);
	c = conn_find(conn);
	if (!c && nconns == capconns) {
		size_t cap = capconns ? 2 * capconns : 8;

		bigger = realloc(conns, cap * sizeof(*conns));
		if (bigger) {
			conns = bigger;
			capconns = cap;
		}
	}
	if (!c && nconns < capconns) {
		c = &conns[nconns++];
		memset(c, 0, sizeof(*c));
		c->conn = conn;
		c->backend_pid = PQbackendPID(conn);
	}
	if (c && c->n < STMTS_MAX)
		c->stmts[c->n++] = st;
	pthread_mutex_unlock(&lock);
}

void db_stmts_forget(PGconn *conn)
{
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nconns; i++)
		if (conns[i].conn == conn) {
			conns[i] = conns[--nconns];
			break;
		}
	pthread_mutex_unlock(&lock);
}

int db_pipeline_begin(struct db_pipeline *pl, PGconn *conn,
		      struct rtlab_err *err)
{
	memset(pl, 0, sizeof(*pl));
	pl->conn = conn;
	if (!PQenterPipelineMode(conn))
		return db_fail(conn, NULL, err, "entering pipeline mode");
	return 0;
}

static int expect(struct db_pipeline *pl, const char *what,
		  const struct db_stmt *prepares)
{
	struct db_pipeline_sent *bigger;

	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 16;

		bigger = realloc(pl->sent, cap * sizeof(*pl->sent));
		if (!bigger)
			return -ENOMEM;
		pl->sent = bigger;
		pl->cap = cap;
	}
	pl->sent[pl->n].what = what;
	pl->sent[pl->n].prepares = prepares;
	pl->n++;
	return 0;
}

int db_pipeline_send(struct db_pipeline *pl, const struct db_stmt *st,
		     const char *const *params, const int *lens,
		     const int *fmts, const char *what, struct rtlab_err *err)
{
	size_t i;

	/* Once per pipeline is enough: its own results say whether the
	 * prepare took. */
	for (i = 0; i < pl->n; i++)
		if (pl->sent[i].prepares == st)
			break;
	if (i == pl->n && !stmt_is_prepared(pl->conn, st)) {
		if (expect(pl, what, st))
			return rtlab_err_seterr(err, ENOMEM,
						"%s: out of memory", what);
		if (!PQsendPrepare(pl->conn, st->name, st->sql, st->nparams,
				   NULL))
			return db_fail(pl->conn, NULL, err, what);
	}
	if (expect(pl, what, NULL))
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", what);
	if (!PQsendQueryPrepared(pl->conn, st->name, st->nparams, params, lens,
				 fmts, 0))
		return db_fail(pl->conn, NULL, err, what);
	return 0;
}

const char *db_pipeline_what(const struct db_pipeline *pl, size_t i,
			     bool *is_prepare)
{
	if (i >= pl->n) {
		*is_prepare = false;
		return "finishing the pipeline";
	}
	*is_prepare = pl->sent[i].prepares != NULL;
	return pl->sent[i].what;
}

void db_pipeline_prepared(struct db_pipeline *pl, size_t i)
{
	if (i < pl->n && pl->sent[i].prepares)
		stmt_remember(pl->conn, pl->sent[i].prepares);
}

int db_pipeline_end(struct db_pipeline *pl, struct rtlab_err *err)
{
	int ret = 0;

	if (pl->conn && !PQexitPipelineMode(pl->conn))
		ret = db_fail(pl->conn, NULL, err, "leaving pipeline mode");
	free(pl->sent);
	memset(pl, 0, sizeof(*pl));
	return ret;
}

int db_pipeline_finish(struct db_pipeline *pl, int ret,
		       bool (*on_result)(PGresult *res, void *arg), void *arg,
		       const char *what, struct rtlab_err *err)
{
	PGconn *conn = pl->conn;
	bool sync_seen = false, is_prepare;
	const char *stmt_what;
	size_t done = 0;
	PGresult *res;
	int end;

	if (!PQpipelineSync(conn) && !ret)
		ret = db_fail(conn, NULL, err, what);
	while (!sync_seen) {
		res = PQgetResult(conn);
		if (!res) {
			/* The end of one statement's results, or of a
			 * broken connection's. */
			if (PQstatus(conn) != CONNECTION_OK) {
				if (!ret)
					ret = db_fail(conn, NULL, err, what);
				break;
			}
			continue;
		}
		stmt_what = db_pipeline_what(pl, done, &is_prepare);
		switch (PQresultStatus(res)) {
		case PGRES_PIPELINE_SYNC:
			sync_seen = true;
			break;
		case PGRES_COMMAND_OK:
		case PGRES_TUPLES_OK:
			if (is_prepare)
				db_pipeline_prepared(pl, done);
			else if (on_result && on_result(res, arg))
				res = NULL;
			done++;
			break;
		case PGRES_PIPELINE_ABORTED:
			done++;
			break;
		default:
			if (!ret)
				ret = db_fail(conn, res, err,
					      stmt_what ? stmt_what : what);
			done++;
			break;
		}
		PQclear(res);
	}
	end = db_pipeline_end(pl, ret ? NULL : err);
	return ret ? ret : end;
}

/* db_stmt_query()'s: the first answer. */
static bool keep_first(PGresult *res, void *arg)
{
	PGresult **out = arg;

	if (*out)
		return false;
	*out = res;
	return true;
}

int db_stmt_query(PGconn *conn, const struct db_stmt *st,
		  const char *const *params, PGresult **out,
		  struct rtlab_err *err, const char *what)
{
	struct db_pipeline pl;
	int ret;

	*out = NULL;
	ret = db_pipeline_begin(&pl, conn, err);
	if (ret)
		return ret;
	ret = db_pipeline_send(&pl, st, params, NULL, NULL, what, err);
	ret = db_pipeline_finish(&pl, ret, keep_first, out, what, err);
	if (!ret && !*out)
		ret = rtlab_err_seterr(err, EIO, "%s: no answer", what);
	if (ret) {
		PQclear(*out);
		*out = NULL;
	}
	return ret;
}

int db_stmt_query_json(PGconn *conn, const struct db_stmt *st,
		       const char *const *params, json_t **out,
		       struct rtlab_err *err, const char *what)
{
	PGresult *res;
	int ret = db_stmt_query(conn, st, params, &res, err, what);

	*out = NULL;
	if (ret)
		return ret;
	ret = db_result_json(res, out, err, what);
	PQclear(res);
	return ret;
}
