/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_TESTCASES_H
#define RTLAB_DB_TESTCASES_H

/*
 * The lab's testcases: their definitions (from the lab's testcases/ files,
 * taken at ingest by db_run_store()) and the verdict parameters a
 * maintainer sets (definition->'verdict').  Never a manifest's.
 */

#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/**
 * db_testcase_get() - testcase @name as {id, name, lab, definition,
 * updated_at, updated_by}.
 * Return: 0 with *@out (caller json_decref()s); -ENOENT with @err naming
 * it; -EIO.
 */
int db_testcase_get(PGconn *conn, const char *name, json_t **out,
		    struct rtlab_err *err) __must_check;

/**
 * db_testcases_list() - every testcase, by name, as db_testcase_get()
 * gives one.  Return: 0 with *@out (a JSON array), -EIO.
 */
int db_testcases_list(PGconn *conn, json_t **out,
		      struct rtlab_err *err) __must_check;

/**
 * db_testcase_verdict_put() - make @verdict (a JSON object, already
 * checked) the verdict parameters of testcase @name, creating the row
 * when the lab has no runs of it yet.  @by: who set it (a token or user
 * name), kept in updated_by.
 * Return: 0, or db_fail()'s errno with @err set.
 */
int db_testcase_verdict_put(PGconn *conn, const char *name,
			    const json_t *verdict, const char *by,
			    struct rtlab_err *err) __must_check;

#endif
