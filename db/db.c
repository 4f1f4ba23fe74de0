// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The database module's core: which PostgreSQL to talk to (RTLAB_DB, the
 * configuration file, or the embedded cluster), connecting with errors that
 * say what to do, running commands, transactions, and the schema
 * migrations under schema/NNN_name.sql.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "db-pipeline.h"
#include "db.h"

/* pg_advisory_xact_lock key that serializes migrators: "rtlabmig". */
#define MIGRATE_LOCK_KEY "7598807758576396647"

char *db_conninfo(void)
{
	return cluster_conninfo_resolve(NULL, NULL);
}

/* PostgreSQL's messages end in a newline; ours don't. */
static const char *pg_msg(const char *msg, char *buf, size_t size)
{
	size_t n;
	char *p;

	snprintf(buf, size, "%s", msg && *msg ? msg : "no message");
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	/* One line: libpq continues its hints on "\n\t" lines. */
	for (p = buf; (p = strchr(p, '\n'));)
		*p = ' ';
	for (p = buf; (p = strchr(p, '\t'));)
		memmove(p, p + 1, strlen(p));
	return buf;
}

PGconn *db_connect(struct rtlab_err *err)
{
	const char *keys[] = { "dbname", "fallback_application_name", NULL };
	const char *vals[] = { NULL, "rtlab", NULL };
	char where[512], msg[400];
	enum db_origin origin;
	char *conninfo;
	PGresult *res;
	PGconn *conn;

	conninfo = cluster_conninfo_resolve(&origin, err);
	if (!conninfo)
		return NULL;
	vals[0] = conninfo;
	conn = PQconnectdbParams(keys, vals, 1);
	if (!conn) {
		rtlab_err_seterr(err, ENOMEM, "cannot connect: out of memory");
		goto fail;
	}
	if (PQstatus(conn) != CONNECTION_OK) {
		pg_msg(PQerrorMessage(conn), msg, sizeof(msg));
		cluster_conninfo_redact(conninfo, where, sizeof(where));
		if (origin == DB_ORIGIN_EMBEDDED) {
			/* libpq: "connection to server on socket "..."
			 * failed: No such file or directory\n\tIs ..." */
			char *reason = strstr(msg, " failed: ");

			reason = reason ? reason + 9 : msg;
			if (strstr(reason, " Is the server"))
				*strstr(reason, " Is the server") = '\0';
			rtlab_err_seterr(
				err, ECONNREFUSED,
				"cannot connect to the embedded database (%s): is it running? start it with 'rtlab db start' (%s)",
				where, reason);
		} else
			rtlab_err_seterr(
				err, ECONNREFUSED,
				"cannot connect to the database in %s (%s): %s",
				origin == DB_ORIGIN_ENV ?
					"RTLAB_DB" :
					"the configuration file's 'db'",
				where, msg);
		goto fail;
	}
	/* Keep NOTICEs ("already exists, skipping") off the user's terminal;
	 * a commit (an upload's 2xx) waits for the disk whatever the server's
	 * default.  No JIT: rtlab's statements walk indexes and answer in
	 * milliseconds, but a planner's guess above jit_above_cost (a set
	 * function's default 100 rows under a subplan) made PostgreSQL
	 * compile one for 250 ms that then ran in 0.1 ms (the farm's tick,
	 * bench/farm.sh: 122 ms a cell with JIT, docs/scale.md). */
	res = PQexec(conn, "SET client_min_messages = warning; "
			   "SET synchronous_commit = on; SET jit = off");
	PQclear(res);
	free(conninfo);
	return conn;
fail:
	PQfinish(conn);
	free(conninfo);
	return NULL;
}

void db_disconnect(PGconn *conn)
{
	if (!conn)
		return;
	db_stmts_forget(conn);
	PQfinish(conn);
}

static bool result_ok(const PGresult *res)
{
	ExecStatusType st = PQresultStatus(res);

	return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

int db_exec(PGconn *conn, struct rtlab_err *err, const char *sql, int nparams,
	    const char *const *params)
{
	PGresult *res;
	char msg[400];
	int ret = 0;

	res = PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);
	if (!result_ok(res)) {
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		ret = rtlab_err_seterr(err,
				       state && !strcmp(state, "42501") ?
					       EACCES :
					       EIO,
				       "%s",
				       pg_msg(PQerrorMessage(conn), msg,
					      sizeof(msg)));
	}
	PQclear(res);
	return ret;
}

int db_query_int64(PGconn *conn, struct rtlab_err *err, const char *sql,
		   int nparams, const char *const *params, int64_t *out)
{
	PGresult *res;
	char msg[400], *end;
	const char *v;
	int ret = 0;

	res = PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = rtlab_err_seterr(err, EIO, "%s",
				       pg_msg(PQerrorMessage(conn), msg,
					      sizeof(msg)));
		goto out;
	}
	if (PQntuples(res) < 1 || PQnfields(res) < 1 ||
	    PQgetisnull(res, 0, 0)) {
		ret = -ENODATA;
		goto out;
	}
	v = PQgetvalue(res, 0, 0);
	errno = 0;
	*out = strtoll(v, &end, 10);
	if (errno || end == v || *end)
		ret = rtlab_err_seterr(
			err, EINVAL,
			"expected an integer from the query, got '%s'", v);
out:
	PQclear(res);
	return ret;
}

int db_begin(PGconn *conn, struct rtlab_err *err)
{
	return db_exec(conn, err, "BEGIN", 0, NULL);
}

int db_commit(PGconn *conn, struct rtlab_err *err)
{
	return db_exec(conn, err, "COMMIT", 0, NULL);
}

void db_rollback(PGconn *conn)
{
	PGresult *res;

	if (!conn)
		return;
	switch (PQtransactionStatus(conn)) {
	case PQTRANS_INTRANS:
	case PQTRANS_INERROR:
		res = PQexec(conn, "ROLLBACK");
		PQclear(res);
		break;
	default:
		break;
	}
}

struct migration {
	int version;
	char *file; /* "001_init.sql" */
	char *name; /* "init" */
};

static int migration_cmp(const void *a, const void *b)
{
	const struct migration *x = a, *y = b;

	return (x->version > y->version) - (x->version < y->version);
}

static void migrations_free(struct migration *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(m[i].file);
		free(m[i].name);
	}
	free(m);
}

/* NNN_name.sql files of @dir in version order. */
static int migrations_list(const char *dir, struct migration **out,
			   size_t *count, struct rtlab_err *err)
{
	struct migration *m = NULL, *bigger;
	size_t n = 0, cap = 0, len, i;
	struct dirent *de;
	const char *us;
	char *end;
	long v;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d)
		return rtlab_err_seterr(
			err, errno,
			"schema directory %s: %s (set RTLAB_DATADIR to the directory holding schema/)",
			dir, strerror(errno));
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".sql") ||
		    !isdigit((unsigned char)de->d_name[0]))
			continue;
		errno = 0;
		v = strtol(de->d_name, &end, 10);
		us = end;
		if (errno || *us != '_' || v <= 0 || v > 1000000) {
			ret = rtlab_err_set(
				err,
				"%s/%s: expected a migration named NNN_name.sql with NNN a positive number",
				dir, de->d_name);
			goto out;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			bigger = realloc(m, cap * sizeof(*m));
			if (!bigger) {
				ret = -ENOMEM;
				goto out;
			}
			m = bigger;
		}
		m[n].version = (int)v;
		m[n].file = strdup(de->d_name);
		m[n].name = strndup(us + 1,
				    len - 4 - (size_t)(us + 1 - de->d_name));
		n++;
		if (!m[n - 1].file || !m[n - 1].name) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (n)
		qsort(m, n, sizeof(*m), migration_cmp);
	for (i = 1; i < n; i++)
		if (m[i].version == m[i - 1].version) {
			ret = rtlab_err_set(err,
					    "%s: %s and %s have the same version %d",
					    dir, m[i - 1].file, m[i].file,
					    m[i].version);
			goto out;
		}
out:
	closedir(d);
	if (ret) {
		migrations_free(m, n);
		return ret;
	}
	*out = m;
	*count = n;
	return 0;
}

static char *read_text(const char *path, struct rtlab_err *err)
{
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *bigger;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		rtlab_err_seterr(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 4096) {
			bigger = realloc(buf, cap + 65536);
			if (!bigger) {
				free(buf);
				fclose(f);
				rtlab_err_seterr(err, ENOMEM,
						 "%s: out of memory", path);
				return NULL;
			}
			buf = bigger;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		rtlab_err_seterr(err, EIO, "%s: read error", path);
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Line of @sql holding 1-based character position @pos (bytes suffice:
 * the schema is ASCII). */
static int line_of(const char *sql, const char *pos)
{
	long p = pos ? strtol(pos, NULL, 10) : 0;
	int line = 1;
	long i;

	for (i = 0; i < p - 1 && sql[i]; i++)
		if (sql[i] == '\n')
			line++;
	return line;
}

/* Apply one migration unless it already is, in one transaction.
 * Return: 1 applied, 0 already there, negative errno. */
static int migrate_one(PGconn *conn, const char *dir, const struct migration *m,
		       struct rtlab_err *err)
{
	char path[4096], vbuf[16], msg[400];
	const char *params[2] = { vbuf, m->name };
	int64_t applied = 0;
	PGresult *res;
	char *sql = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, m->file);
	snprintf(vbuf, sizeof(vbuf), "%d", m->version);
	ret = db_begin(conn, err);
	if (ret)
		goto fail;
	ret = db_exec(conn, err,
		      "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK_KEY ")", 0,
		      NULL);
	if (ret)
		goto fail;
	ret = db_exec(conn, err,
		      "CREATE TABLE IF NOT EXISTS schema_version ("
		      " version integer PRIMARY KEY,"
		      " name text NOT NULL,"
		      " applied_at timestamptz NOT NULL DEFAULT now())",
		      0, NULL);
	if (ret)
		goto fail;
	ret = db_query_int64(
		conn, err,
		"SELECT count(*) FROM schema_version WHERE version = $1", 1,
		params, &applied);
	if (ret)
		goto fail;
	if (applied) {
		db_rollback(conn);
		return 0;
	}
	sql = read_text(path, err);
	if (!sql) {
		ret = -EIO;
		goto fail;
	}
	res = PQexec(conn, sql);
	if (!result_ok(res)) {
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		ret = rtlab_err_seterr(
			err, state && !strcmp(state, "42501") ? EACCES : EIO,
			"%s line %d: %s", path,
			line_of(sql,
				PQresultErrorField(res,
						   PG_DIAG_STATEMENT_POSITION)),
			pg_msg(PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY),
			       msg, sizeof(msg)));
		PQclear(res);
		goto fail;
	}
	PQclear(res);
	ret = db_exec(conn, err,
		      "INSERT INTO schema_version (version, name) VALUES ($1, $2)",
		      2, params);
	if (ret)
		goto fail;
	ret = db_commit(conn, err);
	if (ret)
		goto fail;
	free(sql);
	return 1;
fail:
	db_rollback(conn);
	if (err && !strstr(err->msg, m->file))
		rtlab_err_prefix(err, "%s", path);
	if (err && ret == -EACCES)
		snprintf(err->msg + strlen(err->msg),
			 sizeof(err->msg) - strlen(err->msg),
			 " (migrations need the role that owns the database, "
			 "not the server's role: docs/database.md, 'An "
			 "external PostgreSQL')");
	free(sql);
	return ret;
}

int db_migrate(PGconn *conn, const char *schema_dir, struct rtlab_err *err)
{
	struct migration *m = NULL;
	size_t n = 0, i;
	int ret, applied = 0;

	ret = migrations_list(schema_dir, &m, &n, err);
	if (ret)
		return ret;
	if (!n) {
		migrations_free(m, n);
		return rtlab_err_seterr(
			err, ENOENT,
			"schema directory %s: no NNN_name.sql migrations",
			schema_dir);
	}
	for (i = 0; i < n; i++) {
		ret = migrate_one(conn, schema_dir, &m[i], err);
		if (ret < 0)
			break;
		applied += ret;
	}
	migrations_free(m, n);
	return ret < 0 ? ret : applied;
}

/* The newest migration under @schema_dir, 0 when there is none. */
static int migrations_newest(const char *schema_dir, int *newest,
			     struct rtlab_err *err)
{
	struct migration *m = NULL;
	size_t n = 0;
	int ret;

	ret = migrations_list(schema_dir, &m, &n, err);
	if (ret)
		return ret;
	*newest = n ? m[n - 1].version : 0;
	migrations_free(m, n);
	return 0;
}

int db_schema_ready(PGconn *conn, const char *schema_dir, struct rtlab_err *err)
{
	/* The catalogs are readable by any role, so whether the schema is
	 * there is asked of them, before anything needs a right. */
	static const char schema_sql[] =
		"SELECT current_user,"
		"       has_schema_privilege(n.oid, 'USAGE'),"
		"       EXISTS (SELECT 1 FROM pg_class c"
		"               WHERE c.relnamespace = n.oid"
		"                 AND c.relname = 'schema_version')"
		"FROM pg_namespace n "
		"WHERE n.nspname = coalesce(current_schema(), 'public')";
	/* Every table and sequence the server's role must read and write;
	 * the first few missing rights, named. */
	static const char rights_sql[] =
		"SELECT count(*) OVER (),"
		"       m.priv || ' on ' || m.kind || ' ' || m.name "
		"FROM (SELECT c.relname AS name, p.priv,"
		"             CASE c.relkind WHEN 'S' THEN 'sequence'"
		"                            ELSE 'table' END AS kind,"
		"             CASE c.relkind"
		"                  WHEN 'S' THEN has_sequence_privilege(c.oid, p.priv)"
		"                  ELSE has_table_privilege(c.oid, p.priv)"
		"             END AS granted"
		"      FROM pg_class c"
		"      JOIN pg_namespace n ON n.oid = c.relnamespace"
		"      JOIN (VALUES ('r', 'SELECT'), ('r', 'INSERT'),"
		"                   ('r', 'UPDATE'), ('r', 'DELETE'),"
		"                   ('p', 'SELECT'), ('p', 'INSERT'),"
		"                   ('p', 'UPDATE'), ('p', 'DELETE'),"
		"                   ('S', 'USAGE')) AS p(relkind, priv)"
		"        ON p.relkind = c.relkind::text"
		"      WHERE n.nspname = coalesce(current_schema(), 'public')) m "
		"WHERE NOT m.granted ORDER BY m.name, m.priv LIMIT 3";
	char list[256] = "", role[128];
	int64_t version = 0;
	int newest = 0, ret, i, missing;
	PGresult *res;

	ret = migrations_newest(schema_dir, &newest, err);
	if (ret)
		return ret;
	ret = db_query_rows(conn, schema_sql, 0, NULL, &res, err,
			    "checking the schema");
	if (ret)
		return ret;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return rtlab_err_seterr(
			err, ESTALE,
			"the database has no schema 'public' for rtlab: "
			"run 'rtlab db migrate' as the role that owns the "
			"database");
	}
	snprintf(role, sizeof(role), "%s", PQgetvalue(res, 0, 0));
	if (strcmp(PQgetvalue(res, 0, 1), "t")) {
		PQclear(res);
		return rtlab_err_seterr(
			err, EACCES,
			"role %s lacks USAGE on the schema: grant the server "
			"role its rights as docs/database.md, 'An external "
			"PostgreSQL', shows",
			role);
	}
	if (strcmp(PQgetvalue(res, 0, 2), "t")) {
		PQclear(res);
		return rtlab_err_seterr(
			err, ESTALE,
			"the database has no rtlab schema yet: run 'rtlab db "
			"migrate' as the role that owns the database");
	}
	PQclear(res);

	ret = db_query_rows(conn, rights_sql, 0, NULL, &res, err,
			    "checking the role's rights");
	if (ret)
		return ret;
	if (PQntuples(res) > 0) {
		missing = atoi(PQgetvalue(res, 0, 0));
		for (i = 0; i < PQntuples(res); i++)
			snprintf(list + strlen(list),
				 sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", PQgetvalue(res, i, 1));
		ret = rtlab_err_seterr(
			err, EACCES,
			"role %s lacks %d rights it needs (%s%s): grant them "
			"as docs/database.md, 'An external PostgreSQL', shows",
			role, missing, list, missing > i ? ", ..." : "");
	}
	PQclear(res);
	if (ret)
		return ret;

	ret = db_query_int64(conn, err,
			     "SELECT coalesce(max(version), 0) "
			     "FROM schema_version",
			     0, NULL, &version);
	if (ret)
		return ret;
	if (version < newest)
		return rtlab_err_seterr(
			err, ESTALE,
			"the database schema is at version %" PRId64
			", this rtlab needs %d (%s): run 'rtlab db migrate' as "
			"the role that owns the database",
			version, newest, schema_dir);
	if (version > newest)
		return rtlab_err_seterr(
			err, ESTALE,
			"the database schema is at version %" PRId64
			", newer than this rtlab knows (%d in %s): upgrade "
			"rtlab",
			version, newest, schema_dir);
	return 0;
}

int db_fail(PGconn *conn, PGresult *res, struct rtlab_err *err,
	    const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) :
				  NULL;
	const char *prim =
		res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char msg[RTLAB_ERR_LEN];
	size_t n;
	int e = EIO;

	snprintf(msg, sizeof(msg), "%s", prim ? prim : PQerrorMessage(conn));
	n = strlen(msg);
	while (n && isspace((unsigned char)msg[n - 1]))
		msg[--n] = '\0';
	/* caused by the request's data: data exception, integrity
	 * constraint, program limit (e.g. an index row too large) */
	if (state && (!strncmp(state, "22", 2) || !strncmp(state, "23", 2) ||
		      !strncmp(state, "54", 2)))
		e = EINVAL;
	else if (state && !strcmp(state, "42501"))
		e = EACCES;
	return rtlab_err_seterr(err, e, "%s: %s", what, msg);
}

int db_query_rows(PGconn *conn, const char *sql, int nparams,
		  const char *const *params, PGresult **out,
		  struct rtlab_err *err, const char *what)
{
	PGresult *res =
		PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);
	int ret;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ret = db_fail(conn, res, err, what);
		PQclear(res);
		*out = NULL;
		return ret;
	}
	*out = res;
	return 0;
}

int db_query_id(PGconn *conn, const char *sql, int n, const char *const *p,
		int64_t *v, struct rtlab_err *err, const char *what)
{
	PGresult *res;
	int ret = db_query_rows(conn, sql, n, p, &res, err, what);

	if (ret)
		return ret;
	if (PQntuples(res) < 1 || PQgetisnull(res, 0, 0))
		ret = -ENOENT;
	else
		*v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return ret;
}

int db_result_json(PGresult *res, json_t **out, struct rtlab_err *err,
		   const char *what)
{
	json_error_t jerr;

	*out = NULL;
	if (PQntuples(res) < 1 || PQgetisnull(res, 0, 0))
		return -ENOENT;
	*out = json_loads(PQgetvalue(res, 0, 0), JSON_DECODE_ANY, &jerr);
	if (!*out)
		return rtlab_err_seterr(err, EIO,
					"%s: bad JSON from the "
					"database: %s",
					what, jerr.text);
	return 0;
}

int db_query_json(PGconn *conn, const char *sql, int nparams,
		  const char *const *params, json_t **out,
		  struct rtlab_err *err, const char *what)
{
	PGresult *res;
	int ret = db_query_rows(conn, sql, nparams, params, &res, err, what);

	*out = NULL;
	if (ret)
		return ret;
	ret = db_result_json(res, out, err, what);
	PQclear(res);
	return ret;
}

int db_parse_list(const char *s, uint64_t *vals, size_t n)
{
	size_t i;
	char *end;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		vals[i] = strtoull(s, &end, 10);
		s = end;
		if (*s == ',')
			s++;
	}
	return *s ? -EINVAL : 0;
}

bool db_name_valid(const char *name, const char *punct)
{
	const char *p;

	if (!name || !*name || strlen(name) > 64)
		return false;
	for (p = name; *p; p++) {
		bool alnum = (*p >= 'a' && *p <= 'z') ||
			     (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9');

		if (!alnum && (p == name || !strchr(punct, *p)))
			return false;
	}
	return true;
}
