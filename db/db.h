/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_H
#define RTLAB_DB_H

/*
 * The database module: connecting to PostgreSQL (the embedded cluster under
 * the state directory, or RTLAB_DB), migrations, and the queries of each
 * domain in db/db-*.c.  PGresult never leaves these files; every path
 * clears it.
 */

#include <stdint.h>
#include <jansson.h>
#include <stdbool.h>
#include <libpq-fe.h>
#include "error.h"

/**
 * db_conninfo() - the libpq connection string every command uses: $RTLAB_DB
 * when set, else `db` from the configuration file, else the embedded
 * cluster's unix socket under the state directory
 * (cluster_conninfo_resolve()).  Return: malloc'd string, caller frees;
 * NULL when the configuration file is unreadable, or on -ENOMEM.
 */
char *db_conninfo(void);

/**
 * db_connect() - connect with db_conninfo().  Return: the connection
 * (caller closes with db_disconnect()) or NULL with @err saying where it
 * tried and what PostgreSQL answered (and, for the embedded cluster, that
 * `rtlab db start` starts it).
 */
PGconn *db_connect(struct rtlab_err *err);

/** db_disconnect() - PQfinish; NULL is fine. */
void db_disconnect(PGconn *conn);

/** db_exec() - run a command that returns no rows, with text parameters.
 *  Return: 0 or -EIO with @err holding PostgreSQL's message. */
int db_exec(PGconn *conn, struct rtlab_err *err, const char *sql, int nparams,
	    const char *const *params) __must_check;

/** db_query_int64() - run a query whose first row's first column is an
 *  integer (a count, an id) and store it in *@out.
 *  Return: 0; -ENODATA when there is no row or the value is NULL; -EIO
 *  with @err holding PostgreSQL's message. */
int db_query_int64(PGconn *conn, struct rtlab_err *err, const char *sql,
		   int nparams, const char *const *params,
		   int64_t *out) __must_check;

/**
 * db_fail() - turn a failed query into an error: "@what: PostgreSQL's
 * message" in @err.  Data the client sent that PostgreSQL refused (SQLSTATE
 * class 22, data exception, or 23, integrity violation) is -EINVAL, the
 * client's fault; anything else is -EIO.  @res may be NULL; not cleared.
 */
int db_fail(PGconn *conn, PGresult *res, struct rtlab_err *err,
	    const char *what);

/**
 * db_query_rows() - run a query that returns rows (possibly none).
 * Return: 0 with *@out (the caller PQclear()s it; it stays inside the
 * database module), or db_fail()'s errno with *@out NULL.
 */
int db_query_rows(PGconn *conn, const char *sql, int nparams,
		  const char *const *params, PGresult **out,
		  struct rtlab_err *err, const char *what) __must_check;

/**
 * db_query_id() - the first row's first column, an integer (an id, a
 * count), into *@v.
 * Return: 0; -ENOENT when there is no row or it is NULL; db_fail()'s
 * errno with @what in @err.
 */
int db_query_id(PGconn *conn, const char *sql, int n, const char *const *p,
		int64_t *v, struct rtlab_err *err,
		const char *what) __must_check;

/**
 * db_query_json() - the first row's first column, JSON text, parsed.
 * Return: 0 with *@out (caller json_decref()s); -ENOENT when there is no
 * row or it is NULL; -EIO for unreadable JSON; db_fail()'s errno.
 */
int db_query_json(PGconn *conn, const char *sql, int nparams,
		  const char *const *params, json_t **out,
		  struct rtlab_err *err, const char *what) __must_check;

/**
 * db_result_json() - the first row's first column of @res, JSON text,
 * parsed: db_query_json()'s answer from a result at hand (not cleared).
 * Return: as db_query_json().
 */
int db_result_json(PGresult *res, json_t **out, struct rtlab_err *err,
		   const char *what) __must_check;

/**
 * db_parse_list() - the @n unsigned numbers of an array_to_string(arr, ',')
 * column ("1,2,3") into @vals: how histogram arrays leave the database.
 * Return: 0, or -EINVAL when the text is not exactly @n numbers.
 */
int db_parse_list(const char *s, uint64_t *vals, size_t n) __must_check;

/** db_begin()/db_commit()/db_rollback() - transaction brackets.
 *  db_rollback() is safe to call when no transaction is open. */
int db_begin(PGconn *conn, struct rtlab_err *err) __must_check;
int db_commit(PGconn *conn, struct rtlab_err *err) __must_check;
void db_rollback(PGconn *conn);

/**
 * db_migrate() - apply the numbered schema/NNN_*.sql files that are newer
 * than schema_version, each in its own transaction.  Idempotent.
 * @schema_dir: directory of the migrations.
 * Return: number applied (>= 0), or a negative errno with @err naming the
 * file and PostgreSQL's message.
 */
int db_migrate(PGconn *conn, const char *schema_dir, struct rtlab_err *err);

/**
 * db_schema_ready() - whether the database suits this rtlab: every
 * migration under @schema_dir applied (and none newer), and the connected
 * role allowed to read and write every table and use every sequence of
 * the schema (what a least-privilege server role needs).
 * Return: 0; -ESTALE the schema is behind or ahead; -EACCES a right is
 * missing; another negative errno on a database error.  @err says which
 * role lacks what, and what to run.
 */
int db_schema_ready(PGconn *conn, const char *schema_dir,
		    struct rtlab_err *err) __must_check;

/**
 * db_name_valid() - a name of at most 64 characters: letters and digits,
 * and after the first character also those of @punct (the rule of the
 * schema's CHECKs on board and token names).
 */
bool db_name_valid(const char *name, const char *punct);

#endif
