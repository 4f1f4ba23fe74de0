// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tokens of every role in PostgreSQL: making one (only sha256() of its
 * text is stored), telling whose a token is, listing and revoking them.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "db-pipeline.h"
#include "db-tokens.h"
#include "db.h"

#define TOKEN_HASH(n) "sha256(convert_to($" #n ", 'UTF8'))"
#define ISO(col) \
	"to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

void db_token_who_cleanup(struct db_token_who *who)
{
	if (!who)
		return;
	free(who->name);
	free(who->board);
	who->name = who->board = NULL;
}

bool db_token_name_valid(const char *name)
{
	return db_name_valid(name, "._@-");
}

int db_token_make(char out[TOKEN_LEN + 1], struct rtlab_err *err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[TOKEN_LEN / 2];
	size_t got = 0;
	ssize_t n;
	size_t i;

	while (got < sizeof(raw)) {
		n = getrandom(raw + got, sizeof(raw) - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return rtlab_err_seterr(err, errno,
						"getrandom for a token: %s",
						strerror(errno));
		}
		got += (size_t)n;
	}
	for (i = 0; i < sizeof(raw); i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 15];
	}
	out[TOKEN_LEN] = '\0';
	return 0;
}

int db_token_create(PGconn *conn, enum role role, const char *name,
		    const char *board, char token_out[TOKEN_LEN + 1], int *id,
		    struct rtlab_err *err)
{
	const char *p[4];
	int64_t v;
	int ret;

	memset(token_out, 0, TOKEN_LEN + 1);
	if (!db_token_name_valid(name))
		return rtlab_err_set(err,
				     "token name '%s': expected 1 to 64 "
				     "letters, digits, '.', '_', '@' or '-', "
				     "starting with a letter or digit",
				     name ? name : "");
	if (role != ROLE_BOARD && board)
		return rtlab_err_set(err,
				     "token '%s': only a board token belongs "
				     "to a board (role is %s)",
				     name, role_name(role));
	if (role == ROLE_BOARD && !board)
		board = name;
	ret = db_token_make(token_out, err);
	if (ret)
		return ret;
	p[0] = token_out;
	p[1] = role_name(role);
	p[2] = name;
	p[3] = role == ROLE_BOARD ? board : NULL;
	ret = db_query_id(conn,
			  "INSERT INTO tokens (sha256, role, name, board_id) "
			  "SELECT " TOKEN_HASH(
				  1) ", $2, $3, b.id "
				     "FROM (SELECT NULL) x LEFT JOIN boards b "
				     "ON b.name = $4 WHERE $4 IS NULL OR b.id IS NOT NULL "
				     "RETURNING id",
			  4, p, &v, err, "storing a token");
	if (ret == -ENOENT)
		ret = rtlab_err_seterr(err, ENOENT,
				       "no board named '%s' (see 'rtlab board "
				       "list')",
				       board);
	if (ret) {
		memset(token_out, 0, TOKEN_LEN + 1);
		return ret;
	}
	*id = (int)v;
	return 0;
}

/* Every API request's: prepared once per connection.  Notes the use, at
 * most once a minute per token. */
static const struct db_stmt token_auth_stmt = {
	"rtlab_token_auth",
	"WITH t AS (SELECT t.id, t.role, t.name, t.board_id, "
	"b.name AS board, t.revoked_at, t.last_used_at FROM tokens t "
	"LEFT JOIN boards b ON b.id = t.board_id "
	"WHERE t.sha256 = " TOKEN_HASH(
		1) "), "
		   "u AS (UPDATE tokens SET last_used_at = now() FROM t "
		   "WHERE tokens.id = t.id AND t.revoked_at IS NULL AND "
		   "(t.last_used_at IS NULL OR "
		   "t.last_used_at < now() - interval '1 minute')) "
		   "SELECT id, role, name, board_id, board, " ISO(
			   "revoked_at") " FROM t",
	1,
};

int db_token_auth(PGconn *conn, const char *token, struct db_token_who *who,
		  struct rtlab_err *err)
{
	const char *p[1] = { token };
	PGresult *res;
	size_t n;
	int ret;

	memset(who, 0, sizeof(*who));
	who->board_id = -1;
	n = token ? strlen(token) : 0;
	if (n != TOKEN_LEN || strspn(token, "0123456789abcdef") != n)
		return rtlab_err_seterr(err, EACCES,
					"expected the %d hex digits 'rtlab "
					"token add' or 'rtlab board add' "
					"printed",
					TOKEN_LEN);
	ret = db_stmt_query(conn, &token_auth_stmt, p, &res, err,
			    "checking a token");
	if (ret)
		return ret;
	if (PQntuples(res) != 1) {
		ret = rtlab_err_seterr(err, EACCES,
				       "no such token (wrong, or rotated: see "
				       "'rtlab token list')");
		goto out;
	}
	if (!PQgetisnull(res, 0, 5)) {
		ret = rtlab_err_seterr(err, EACCES,
				       "token %s ('%s') was revoked at %s",
				       PQgetvalue(res, 0, 0),
				       PQgetvalue(res, 0, 2),
				       PQgetvalue(res, 0, 5));
		goto out;
	}
	who->id = atoi(PQgetvalue(res, 0, 0));
	if (role_parse(PQgetvalue(res, 0, 1), &who->role, err)) {
		ret = -EIO;
		goto out;
	}
	who->name = strdup(PQgetvalue(res, 0, 2));
	if (!PQgetisnull(res, 0, 3)) {
		who->board_id = atoi(PQgetvalue(res, 0, 3));
		who->board = strdup(PQgetvalue(res, 0, 4));
	}
	if (!who->name || (who->board_id >= 0 && !who->board)) {
		db_token_who_cleanup(who);
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
out:
	PQclear(res);
	return ret;
}

int db_token_list(PGconn *conn, json_t **out, struct rtlab_err *err)
{
	return db_query_json(
		conn,
		"SELECT COALESCE(json_agg(json_build_object('id', t.id, "
		"'role', t.role, 'name', t.name, 'board', b.name, "
		"'created_at', " ISO(
			"t.created_at") ", "
					"'last_used_at', " ISO(
						"t.last_used_at") ", "
								  "'revoked_at', " ISO(
									  "t.revoked_at") ") "
											  "ORDER BY t.revoked_at IS NOT NULL, t.id), '[]')::text "
											  "FROM tokens t LEFT JOIN boards b ON b.id = t.board_id",
		0, NULL, out, err, "listing tokens");
}

int db_token_revoke(PGconn *conn, const char *ref, unsigned int *count,
		    struct rtlab_err *err)
{
	const char *p[1] = { ref };
	size_t n = strlen(ref);
	int64_t v = 0;
	int ret;

	*count = 0;
	ret = db_query_id(conn,
			  "WITH r AS (UPDATE tokens SET revoked_at = now() "
			  "WHERE revoked_at IS NULL AND "
			  "(CASE WHEN $1 ~ '^[0-9]{1,9}$' "
			  "THEN id = $1::integer ELSE name = $1 END) "
			  "RETURNING id) SELECT count(*) FROM r",
			  1, p, &v, err, "revoking a token");
	if (ret)
		return ret;
	if (!v)
		return rtlab_err_seterr(err, ENOENT,
					"no live token %s '%s' (see 'rtlab "
					"token list')",
					n && strspn(ref, "0123456789") == n ?
						"with id" :
						"called",
					ref);
	*count = (unsigned int)v;
	return 0;
}
