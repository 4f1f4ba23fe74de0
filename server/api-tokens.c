// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who am I, and the admin's token endpoints: /api/v1/whoami (any token),
 * GET and POST /api/v1/tokens, DELETE /api/v1/tokens/{id} (admin).  A new
 * token is in the answer to its POST and nowhere else.
 */

#include <errno.h>
#include <string.h>

#include "../db/db-tokens.h"
#include "api.h"
#include "auth.h"

#define API_WHOAMI "/api/v1/whoami"
#define API_TOKENS "/api/v1/tokens"

/* The id of /api/v1/tokens/ID, or NULL when @path is not one. */
static const char *token_ref(const char *path)
{
	const char *ref;

	if (strncmp(path, API_TOKENS "/", strlen(API_TOKENS) + 1))
		return NULL;
	ref = path + strlen(API_TOKENS) + 1;
	return *ref && !strchr(ref, '/') ? ref : NULL;
}

bool api_tokens_match(const char *path)
{
	return !strcmp(path, API_WHOAMI) || !strcmp(path, API_TOKENS) ||
	       token_ref(path);
}

static bool is_get(const char *m)
{
	return !strcmp(m, "GET") || !strcmp(m, "HEAD");
}

enum MHD_Result api_tokens_begin(struct http_request *req)
{
	if (!strcmp(req->path, API_WHOAMI)) {
		if (!is_get(req->method))
			return http_method_not_allowed(req, "GET, HEAD");
		http_auth_require(req, ROLES_ANY);
		return MHD_YES;
	}
	if (!strcmp(req->path, API_TOKENS)) {
		if (!is_get(req->method) && strcmp(req->method, "POST"))
			return http_method_not_allowed(req, "GET, HEAD, POST");
		if (!http_auth_require(req, ROLES_ADMIN))
			return MHD_YES;
		return is_get(req->method) ? MHD_YES : http_want_json_body(req);
	}
	if (strcmp(req->method, "DELETE"))
		return http_method_not_allowed(req, "DELETE");
	http_auth_require(req, ROLES_ADMIN);
	return MHD_YES;
}

static enum MHD_Result whoami(struct http_request *req)
{
	return http_respond_json(req, MHD_HTTP_OK,
				 json_pack("{sssissss?}", "role",
					   role_name(req->role), "id",
					   req->token_id, "name",
					   req->token_name, "board",
					   req->board));
}

static enum MHD_Result token_add(struct http_request *req)
{
	struct rtlab_err err = { "" };
	const char *rname, *name, *board;
	char token[TOKEN_LEN + 1];
	enum role role;
	json_t *body, *j;
	int ret, id;

	body = http_body_json(req, &err);
	if (!body)
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST, "%s",
					  err.msg);
	rname = json_string_value(json_object_get(body, "role"));
	name = json_string_value(json_object_get(body, "name"));
	board = json_string_value(json_object_get(body, "board"));
	if (!rname || !name) {
		json_decref(body);
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "body: expected {\"role\": ROLE, "
					  "\"name\": NAME[, \"board\": "
					  "BOARD]}");
	}
	ret = role_parse(rname, &role, &err);
	if (!ret)
		ret = db_token_create(req->db, role, name, board, token, &id,
				      &err);
	if (ret) {
		json_decref(body);
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	}
	j = json_pack("{sissssssss?}", "id", id, "token", token, "role",
		      role_name(role), "name", name, "board",
		      role == ROLE_BOARD ? (board ? board : name) : NULL);
	json_decref(body);
	return http_respond_json(req, MHD_HTTP_CREATED, j);
}

static enum MHD_Result token_revoke(struct http_request *req, const char *ref)
{
	struct rtlab_err err = { "" };
	unsigned int n;
	size_t len = strlen(ref);
	int ret;

	if (len > 9 || strspn(ref, "0123456789") != len)
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "token id '%s': expected a number "
					  "(see GET " API_TOKENS ")",
					  ref);
	ret = db_token_revoke(req->db, ref, &n, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK,
				 json_pack("{sssb}", "id", ref, "revoked", 1));
}

enum MHD_Result api_tokens_handle(struct http_request *req)
{
	struct rtlab_err err = { "" };
	json_t *j = NULL;
	int ret;

	if (!strcmp(req->path, API_WHOAMI))
		return whoami(req);
	if (strcmp(req->path, API_TOKENS))
		return token_revoke(req, token_ref(req->path));
	if (!strcmp(req->method, "POST"))
		return token_add(req);
	ret = db_token_list(req->db, &j, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}
