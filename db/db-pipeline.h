/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_PIPELINE_H
#define RTLAB_DB_PIPELINE_H

/*
 * Statements sent in libpq's pipeline mode, prepared once per connection:
 * what runs on every upload (the token check, the run, its histograms and
 * artifacts, its series) costs the server one parse and plan per
 * connection instead of one per upload, and the client one round trip
 * per pipeline.  Private to db/.
 */

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <libpq-fe.h>
#include "error.h"

/* A statement with a name unique among the prepared ones. */
struct db_stmt {
	const char *name;
	const char *sql;
	int nparams;
};

/* What the caller expects back, one entry per result of the pipeline. */
struct db_pipeline_sent {
	const char *what;		/* for errors: "storing a histogram" */
	const struct db_stmt *prepares; /* a prepare's result; else NULL */
};

struct db_pipeline {
	PGconn *conn;
	struct db_pipeline_sent *sent;
	size_t n, cap;
};

/**
 * db_pipeline_begin() - enter pipeline mode on @conn for @pl.
 * Return: 0, or db_fail()'s errno.  End with db_pipeline_end() either way.
 */
int db_pipeline_begin(struct db_pipeline *pl, PGconn *conn,
		      struct rtlab_err *err) __must_check;

/**
 * db_pipeline_send() - queue @st with text parameters @params (and
 * binary ones where @fmts says so, @lens their lengths; both may be
 * NULL), preparing it first when this connection has not.
 * Return: 0, or -ENOMEM / db_fail()'s errno with @what in @err.
 */
int db_pipeline_send(struct db_pipeline *pl, const struct db_stmt *st,
		     const char *const *params, const int *lens,
		     const int *fmts, const char *what,
		     struct rtlab_err *err) __must_check;

/**
 * db_pipeline_what() - the label of result @i of the pipeline (in the
 * order results arrive), and whether it is the result of a prepare
 * rather than of a statement the caller sent.
 */
const char *db_pipeline_what(const struct db_pipeline *pl, size_t i,
			     bool *is_prepare);

/**
 * db_pipeline_prepared() - note that result @i, a prepare's, succeeded:
 * the connection holds that statement from now on.
 */
void db_pipeline_prepared(struct db_pipeline *pl, size_t i);

/** db_pipeline_end() - leave pipeline mode and free @pl's bookkeeping.
 *  Return: 0, or db_fail()'s errno. */
int db_pipeline_end(struct db_pipeline *pl, struct rtlab_err *err);

/**
 * db_pipeline_finish() - mark the sync point, read every result up to it
 * and end @pl (db_pipeline_end()).  Each successful result of a statement
 * the caller sent (not of a prepare) goes to @on_result, when given, which
 * returns true to keep @res (it then clears it itself).  @ret is what the
 * caller's sends returned: it wins over what the results say; else the
 * first failed result, named by the @what its statement was sent with,
 * else a connection that broke (@what).
 * Return: 0, or the first error with @err set.
 */
int db_pipeline_finish(struct db_pipeline *pl, int ret,
		       bool (*on_result)(PGresult *res, void *arg), void *arg,
		       const char *what, struct rtlab_err *err);

/**
 * db_stmt_query() - run @st alone (a pipeline of one, preparing it on
 * first use): db_query_rows() for a statement that runs on every request.
 * Return: 0 with *@out (the caller PQclear()s it), or db_fail()'s errno
 * with @what in @err and *@out NULL.
 */
int db_stmt_query(PGconn *conn, const struct db_stmt *st,
		  const char *const *params, PGresult **out,
		  struct rtlab_err *err, const char *what) __must_check;

/**
 * db_stmt_query_json() - db_stmt_query() for a statement answering one
 * JSON value.  Return: as db_query_json().
 */
int db_stmt_query_json(PGconn *conn, const struct db_stmt *st,
		       const char *const *params, json_t **out,
		       struct rtlab_err *err, const char *what) __must_check;

/** db_stmts_forget() - @conn is closing: forget what it had prepared. */
void db_stmts_forget(PGconn *conn);

#endif
