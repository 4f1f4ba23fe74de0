// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The testcases table as the lab's: reading a testcase's definition and
 * who set it, and storing the verdict parameters a maintainer chose.
 */

#include <errno.h>
#include <stdlib.h>

#include "db-testcases.h"
#include "db.h"

#define TESTCASE_JSON                                            \
	"json_build_object('id', id, 'name', name, 'lab', lab, " \
	"'definition', definition, 'updated_at', "               \
	"to_char(updated_at AT TIME ZONE 'UTC', "                \
	"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'updated_by', updated_by)"

int db_testcase_get(PGconn *conn, const char *name, json_t **out,
		    struct rtlab_err *err)
{
	const char *p[1] = { name };
	int ret;

	ret = db_query_json(conn,
			    "SELECT " TESTCASE_JSON "::text FROM testcases "
			    "WHERE name = $1",
			    1, p, out, err, "reading a testcase");
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT,
				 "no testcase named '%s' (see 'rtlab testcase "
				 "list')",
				 name);
	return ret;
}

int db_testcases_list(PGconn *conn, json_t **out, struct rtlab_err *err)
{
	return db_query_json(conn,
			     "SELECT COALESCE(json_agg(" TESTCASE_JSON
			     " ORDER BY name), '[]')::text FROM testcases",
			     0, NULL, out, err, "listing testcases");
}

int db_testcase_verdict_put(PGconn *conn, const char *name,
			    const json_t *verdict, const char *by,
			    struct rtlab_err *err)
{
	char *text = json_dumps(verdict, JSON_COMPACT | JSON_SORT_KEYS);
	const char *p[3] = { name, text, by };
	int ret;

	if (!text)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = db_exec(conn, err,
		      "INSERT INTO testcases (name, definition, updated_by) "
		      "VALUES ($1, jsonb_build_object('verdict', $2::jsonb), "
		      "$3) ON CONFLICT (name) DO UPDATE SET "
		      "definition = testcases.definition || "
		      "jsonb_build_object('verdict', $2::jsonb), "
		      "updated_at = now(), updated_by = $3",
		      3, p);
	free(text);
	return ret;
}
