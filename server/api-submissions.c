// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Developer submissions over HTTP: POST /api/v1/submissions (a built
 * kernel as a tar archive, or a JSON tree reference), GET
 * /api/v1/submissions (one's own; everyone's for a maintainer) and GET
 * /api/v1/submissions/{id}.  Every request needs a developer, maintainer
 * or admin token; a developer sees only their own submissions.  The work
 * is services/submission.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-submissions.h"
#include "../services/submission.h"
#include "api.h"
#include "auth.h"

#define API_SUBMISSIONS "/api/v1/submissions"

/* 0: the collection; > 0: one submission; < 0: not ours. */
static int64_t sub_route(const char *path)
{
	const char *rest;
	char *end;
	long long id;

	if (!strcmp(path, API_SUBMISSIONS))
		return 0;
	if (strncmp(path, API_SUBMISSIONS "/", strlen(API_SUBMISSIONS) + 1))
		return -1;
	rest = path + strlen(API_SUBMISSIONS) + 1;
	if (*rest < '1' || *rest > '9')
		return -1;
	id = strtoll(rest, &end, 10);
	return *end || id <= 0 ? -1 : id;
}

bool api_submissions_match(const char *path)
{
	return sub_route(path) >= 0;
}

enum MHD_Result api_submissions_begin(struct http_request *req)
{
	int64_t r = sub_route(req->path);
	enum MHD_Result ret;

	if (!r && !strcmp(req->method, "POST")) {
		ret = http_take_body(req, "submission");
		if (req->responded)
			return ret;
		http_auth_require(req, ROLES_SUBMIT);
		return MHD_YES;
	}
	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD"))
		return http_method_not_allowed(req, r ? "GET, HEAD" :
							"GET, HEAD, POST");
	http_auth_require(req, ROLES_SUBMIT);
	return MHD_YES;
}

enum http_pool api_submissions_pool(const char *method, const char *path)
{
	return !strcmp(method, "POST") && !sub_route(path) ? HTTP_POOL_INGEST :
							     HTTP_POOL_NONE;
}

static bool sees_all(const struct http_request *req)
{
	return req->role == ROLE_MAINTAINER || req->role == ROLE_ADMIN;
}

static enum MHD_Result post(struct http_request *req)
{
	struct rtlab_err err = { "" };
	const char *ct = http_header(req, MHD_HTTP_HEADER_CONTENT_TYPE);
	char location[64];
	json_t *out = NULL;
	int64_t id = 0;
	int ret;

	if (req->too_large)
		return http_respond_error(req, MHD_HTTP_CONTENT_TOO_LARGE,
					  "submission is larger than the "
					  "server's limit of %zu MB "
					  "(max_upload_mb)",
					  req->max_body >> 20);
	if (ct && !strncmp(ct, "application/json", 16)) {
		json_t *body = http_body_json(req, &err);
		const char *kind =
			json_string_value(json_object_get(body, "kind"));

		if (!body)
			return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
						  "%s", err.msg);
		if (!kind || strcmp(kind, "tree")) {
			json_decref(body);
			return http_respond_error(
				req, MHD_HTTP_BAD_REQUEST,
				"a JSON submission is a tree reference "
				"(\"kind\": \"tree\", git, ref, "
				"config_fragment); a built kernel is sent as "
				"a tar archive (application/x-tar or "
				"application/gzip)");
		}
		ret = submission_tree(req->db, req->token_name, req->token_id,
				      body, &id, &err);
		json_decref(body);
	} else if (!req->body_len) {
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "submission: empty body; expected a "
					  "tar archive of submission.json and "
					  "the kernel");
	} else {
		ret = submission_create(req->db, req->token_name, req->token_id,
					req->body, req->body_len, &id, &err);
	}
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	ret = db_submission_get(req->db, id, &out, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	snprintf(location, sizeof(location), API_SUBMISSIONS "/%" PRId64, id);
	json_object_set_new(out, "url", json_string(location));
	return http_respond_json(req, MHD_HTTP_CREATED, out);
}

enum MHD_Result api_submissions_handle(struct http_request *req)
{
	struct rtlab_err err = { "" };
	int64_t r = sub_route(req->path);
	json_t *out = NULL;
	int ret;

	if (!strcmp(req->method, "POST"))
		return post(req);
	if (!r) {
		ret = db_submission_list(req->db,
					 sees_all(req) ? NULL : req->token_name,
					 &out, &err);
		if (ret)
			return http_respond_error(req, http_errno_status(ret),
						  "%s", err.msg);
		return http_respond_json(req, MHD_HTTP_OK, out);
	}
	ret = db_submission_get(req->db, r, &out, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	if (!sees_all(req) &&
	    strcmp(json_string_value(json_object_get(out, "owner")),
		   req->token_name ? req->token_name : "")) {
		json_decref(out);
		return http_respond_error(req, MHD_HTTP_FORBIDDEN,
					  "submission %" PRId64 " is another "
					  "developer's (a maintainer token "
					  "sees every submission)",
					  r);
	}
	return http_respond_json(req, MHD_HTTP_OK, out);
}
