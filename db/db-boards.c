// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Boards and their upload tokens in PostgreSQL: registering a board,
 * rotating its token, telling which board an upload token belongs to, and
 * listing boards.  Only the token's SHA-256 (PostgreSQL's sha256()) is
 * stored.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-boards.h"
#include "db-tokens.h"
#include "db.h"

static const char *const kinds[] = { "local", "qemu", "ssh", "lava" };

bool db_board_kind_valid(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

/* Same rule as the boards.name CHECK in the schema. */
static bool name_valid(const char *name)
{
	return db_name_valid(name, "._-");
}

static void msg_trim(char *buf, size_t size, const char *msg)
{
	size_t n;

	snprintf(buf, size, "%s", msg ? msg : "");
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
}

int db_board_create(PGconn *conn, const char *name, const char *kind,
		    const char *definition_json, char token_out[65],
		    struct rtlab_err *err)
{
	const char *params[3];
	char msg[400];
	const char *state;
	PGresult *res;
	int ret, tid;

	memset(token_out, 0, 65);
	if (!name_valid(name))
		return rtlab_err_set(
			err,
			"board name '%s': expected 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
			name ? name : "");
	if (!db_board_kind_valid(kind))
		return rtlab_err_set(
			err,
			"board '%s': kind '%s': expected local, qemu, ssh or lava",
			name, kind ? kind : "");
	ret = db_begin(conn, err);
	if (ret)
		return ret;
	params[0] = name;
	params[1] = kind;
	params[2] = definition_json ? definition_json : "{}";
	res = PQexecParams(conn,
			   "INSERT INTO boards (name, kind, definition)"
			   " VALUES ($1, $2, $3::jsonb) RETURNING id",
			   3, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
		ret = atoi(PQgetvalue(res, 0, 0));
		goto out;
	}
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	msg_trim(msg, sizeof(msg), PQerrorMessage(conn));
	if (state && !strcmp(state, "23505"))
		ret = rtlab_err_seterr(err, EEXIST, "board '%s' already exists",
				       name);
	else if (state && !strcmp(state, "22P02"))
		ret = rtlab_err_set(err,
				    "board '%s': definition: expected JSON (%s)",
				    name, msg);
	else if (state && !strcmp(state, "23514"))
		ret = rtlab_err_set(err, "board '%s': %s", name, msg);
	else
		ret = rtlab_err_seterr(err, EIO, "creating board '%s': %s",
				       name, msg);
out:
	PQclear(res);
	/* The board's upload token: a board token named after it. */
	if (ret > 0) {
		int r2 = db_token_create(conn, ROLE_BOARD, name, name,
					 token_out, &tid, err);

		if (!r2)
			r2 = db_commit(conn, err);
		if (r2)
			ret = r2;
	}
	if (ret < 0) {
		db_rollback(conn);
		memset(token_out, 0, 65);
	}
	return ret;
}

int db_board_rotate_token(PGconn *conn, const char *name, char token_out[65],
			  struct rtlab_err *err)
{
	const char *params[1] = { name };
	int ret, tid;

	memset(token_out, 0, 65);
	ret = db_begin(conn, err);
	if (ret)
		return ret;
	ret = db_exec(conn, err,
		      "UPDATE tokens SET revoked_at = now() "
		      "WHERE revoked_at IS NULL AND board_id = "
		      "(SELECT id FROM boards WHERE name = $1)",
		      1, params);
	if (!ret)
		ret = db_token_create(conn, ROLE_BOARD, name, name, token_out,
				      &tid, err);
	if (!ret)
		ret = db_commit(conn, err);
	if (ret) {
		db_rollback(conn);
		memset(token_out, 0, 65);
	}
	return ret;
}

int db_board_lookup(PGconn *conn, const char *name, int *board_id,
		    struct rtlab_err *err)
{
	const char *params[1] = { name };
	char msg[400];
	PGresult *res;
	int ret = 0;

	res = PQexecParams(conn, "SELECT id FROM boards WHERE name = $1", 1,
			   NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		msg_trim(msg, sizeof(msg), PQerrorMessage(conn));
		ret = rtlab_err_seterr(err, EIO, "looking up board '%s': %s",
				       name, msg);
	} else if (PQntuples(res) != 1) {
		ret = rtlab_err_seterr(
			err, ENOENT,
			"no board named '%s' (see 'rtlab board list')", name);
	} else {
		*board_id = atoi(PQgetvalue(res, 0, 0));
	}
	PQclear(res);
	return ret;
}

void db_board_list_free(struct db_board *boards, size_t count)
{
	size_t i;

	if (!boards)
		return;
	for (i = 0; i < count; i++) {
		free(boards[i].name);
		free(boards[i].kind);
		free(boards[i].definition);
		free(boards[i].created_at);
	}
	free(boards);
}

int db_board_list(PGconn *conn, struct db_board **boards, size_t *count,
		  struct rtlab_err *err)
{
	struct db_board *b = NULL;
	char msg[400];
	PGresult *res;
	int ret = 0, n, i;

	*boards = NULL;
	*count = 0;
	res = PQexec(conn, "SELECT id, name, kind, definition::text,"
			   " EXISTS (SELECT 1 FROM tokens t WHERE t.board_id ="
			   "         boards.id AND t.revoked_at IS NULL),"
			   " to_char(created_at AT TIME ZONE 'UTC',"
			   "         'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
			   " FROM boards ORDER BY name");
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		msg_trim(msg, sizeof(msg), PQerrorMessage(conn));
		ret = rtlab_err_seterr(err, EIO, "listing boards: %s", msg);
		goto out;
	}
	n = PQntuples(res);
	b = calloc(n ? (size_t)n : 1, sizeof(*b));
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		b[i].id = atoi(PQgetvalue(res, i, 0));
		b[i].name = strdup(PQgetvalue(res, i, 1));
		b[i].kind = strdup(PQgetvalue(res, i, 2));
		b[i].definition = strdup(PQgetvalue(res, i, 3));
		b[i].has_token = PQgetvalue(res, i, 4)[0] == 't';
		b[i].created_at = strdup(PQgetvalue(res, i, 5));
		if (!b[i].name || !b[i].kind || !b[i].definition ||
		    !b[i].created_at) {
			db_board_list_free(b, (size_t)n);
			b = NULL;
			ret = -ENOMEM;
			goto out;
		}
	}
	*boards = b;
	*count = (size_t)n;
out:
	PQclear(res);
	return ret;
}

int db_board_farm(PGconn *conn, json_t **out, struct rtlab_err *err)
{
	int ret;

	/* A running job whose lease ran out has lost its worker: the board
	 * is not busy with it. */
	ret = db_query_json(
		conn,
		"SELECT COALESCE(json_agg(json_build_object("
		"'name', b.name, 'kind', b.kind, 'has_token', EXISTS (SELECT 1 "
		"FROM tokens t WHERE t.board_id = b.id AND t.revoked_at IS "
		"NULL), 'state', CASE WHEN b.state <> 'ready' THEN b.state "
		"WHEN j.id IS NOT NULL THEN 'busy' ELSE 'idle' END, "
		"'state_reason', b.state_reason, 'job', CASE WHEN j.id IS NOT "
		"NULL THEN json_build_object('id', j.id, 'kind', j.kind, "
		"'testcase', t.name, 'kernel', j.kernel, 'phase', j.phase, "
		"'worker', j.worker) END, 'queued', (SELECT count(*) FROM jobs "
		"q WHERE q.board_id = b.id AND q.state = 'queued'), 'health', "
		"CASE WHEN b.health_result IS NOT NULL THEN json_build_object("
		"'result', b.health_result, 'reason', b.health_reason, 'at', "
		"to_char(b.health_at AT TIME ZONE 'UTC', "
		"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'job_id', "
		"b.health_job_id) END) ORDER BY b.name), '[]')::text "
		"FROM boards b LEFT JOIN LATERAL (SELECT * FROM jobs r "
		"WHERE r.board_id = b.id AND r.state = 'running' "
		"AND r.lease_until >= now() ORDER BY r.id LIMIT 1) j ON true "
		"LEFT JOIN testcases t ON t.id = j.testcase_id",
		0, NULL, out, err, "listing boards");
	return ret;
}
