// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server's one authentication and authorization check: bearer token
 * -> role (db/db-tokens.c), then whether that role may do what the
 * handler is about to do.  401 says "who are you?", 403 "not you".
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../db/db-tokens.h"
#include "auth.h"

/* Answer @status with {"error": "MESSAGE; this needs ...", "needs": ...}. */
static void refuse(struct http_request *req, unsigned int status,
		   unsigned int need, const char *fmt, ...) __printf(4, 5);

static void refuse(struct http_request *req, unsigned int status,
		   unsigned int need, const char *fmt, ...)
{
	char msg[RTLAB_ERR_LEN], full[RTLAB_ERR_LEN + 64];
	char *text;
	va_list ap;
	json_t *j;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "%s; this needs %s", msg,
		 role_need_text(need));
	j = json_pack("{ssss}", "error", full, "needs", role_need_text(need));
	text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!text) {
		http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "out of memory");
		return;
	}
	http_respond(req, status, "application/json", text, strlen(text),
		     status == MHD_HTTP_UNAUTHORIZED ? "WWW-Authenticate" :
						       NULL,
		     "Bearer realm=\"rtlab\"");
	free(text);
}

/* Check the request's token once; false when it answered. */
static bool authenticate(struct http_request *req, unsigned int need)
{
	const char *auth = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);
	struct rtlab_err err = { "" };
	struct db_token_who who;
	int ret;

	if (!auth || !*auth) {
		refuse(req, MHD_HTTP_UNAUTHORIZED, need,
		       "missing 'Authorization: Bearer TOKEN' header");
		return false;
	}
	if (strncasecmp(auth, "Bearer ", 7) && !req->auth_bare) {
		refuse(req, MHD_HTTP_UNAUTHORIZED, need,
		       "Authorization header: expected 'Bearer TOKEN'");
		return false;
	}
	if (!req->db) {
		http_respond_error(req, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "database unavailable: %s", req->db_error);
		return false;
	}
	if (!strncasecmp(auth, "Bearer ", 7))
		auth += 7;
	while (*auth == ' ')
		auth++;
	ret = db_token_auth(req->db, auth, &who, &err);
	if (ret == -EACCES) {
		refuse(req, MHD_HTTP_UNAUTHORIZED, need,
		       "Authorization header: bearer token: %s", err.msg);
		return false;
	}
	if (ret) {
		http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
				   "checking the token: %s", err.msg);
		return false;
	}
	req->authed = true;
	req->role = who.role;
	req->token_id = who.id;
	req->token_name = who.name;
	req->board_id = who.board_id;
	req->board = who.board;
	return true;
}

bool http_auth_require(struct http_request *req, unsigned int need)
{
	if (!req->authed && !authenticate(req, need))
		return false;
	if (role_allowed(req->role, need))
		return true;
	refuse(req, MHD_HTTP_FORBIDDEN, need,
	       "the token '%s' is a %s token, which may not %s %s",
	       req->token_name, role_name(req->role), req->method, req->path);
	return false;
}
