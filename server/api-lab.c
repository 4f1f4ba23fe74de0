// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the lab's maintainers decide, over HTTP: PUT and DELETE
 * /api/v1/baselines (pin and unpin a series' baseline), GET
 * /api/v1/testcases[/NAME] (the lab's testcases and the verdict
 * parameters in force) and PUT /api/v1/testcases/NAME/verdict.  Writes
 * need a maintainer (or admin) token; the work is services/lab.c's.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../db/db-testcases.h"
#include "../services/lab.h"
#include "api.h"
#include "auth.h"

#define API_BASELINES "/api/v1/baselines"
#define API_TESTCASES "/api/v1/testcases"

enum lab_route {
	LAB_NONE,
	LAB_BASELINES,
	LAB_TESTCASES,
	LAB_TESTCASE,
	LAB_VERDICT,
};

/* Which resource @path is; @name gets a testcase's name. */
static enum lab_route lab_route(const char *path, char *name, size_t size)
{
	const char *rest, *slash;
	size_t n;

	if (!strcmp(path, API_BASELINES))
		return LAB_BASELINES;
	if (!strcmp(path, API_TESTCASES))
		return LAB_TESTCASES;
	if (strncmp(path, API_TESTCASES "/", strlen(API_TESTCASES) + 1))
		return LAB_NONE;
	rest = path + strlen(API_TESTCASES) + 1;
	slash = strchr(rest, '/');
	n = slash ? (size_t)(slash - rest) : strlen(rest);
	if (!n || n >= size)
		return LAB_NONE;
	memcpy(name, rest, n);
	name[n] = '\0';
	if (!slash)
		return LAB_TESTCASE;
	return !strcmp(slash, "/verdict") ? LAB_VERDICT : LAB_NONE;
}

bool api_lab_match(const char *path)
{
	char name[160];

	return lab_route(path, name, sizeof(name)) != LAB_NONE;
}

static bool is_get(const char *m)
{
	return !strcmp(m, "GET") || !strcmp(m, "HEAD");
}

enum MHD_Result api_lab_begin(struct http_request *req)
{
	char name[160];

	switch (lab_route(req->path, name, sizeof(name))) {
	case LAB_BASELINES:
		if (strcmp(req->method, "PUT") && strcmp(req->method, "DELETE"))
			return http_method_not_allowed(req, "PUT, DELETE");
		if (!http_auth_require(req, ROLES_MAINTAIN))
			return MHD_YES;
		return http_want_json_body(req);
	case LAB_VERDICT:
		if (is_get(req->method))
			return MHD_YES;
		if (strcmp(req->method, "PUT"))
			return http_method_not_allowed(req, "GET, HEAD, PUT");
		if (!http_auth_require(req, ROLES_MAINTAIN))
			return MHD_YES;
		return http_want_json_body(req);
	default:
		if (!is_get(req->method))
			return http_method_not_allowed(req, "GET, HEAD");
		return MHD_YES;
	}
}

/* String field @key of @body, or NULL. */
static const char *field(json_t *body, const char *key)
{
	return json_string_value(json_object_get(body, key));
}

static enum MHD_Result baselines(struct http_request *req)
{
	struct rtlab_err err = { "" };
	bool set = !strcmp(req->method, "PUT");
	const char *board, *testcase, *kernel, *tree;
	json_t *body, *j = NULL;
	int ret;

	body = http_body_json(req, &err);
	if (!body)
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST, "%s",
					  err.msg);
	board = field(body, "board");
	testcase = field(body, "testcase");
	kernel = field(body, "kernel");
	tree = field(body, "tree");
	if (!board || !testcase || (set && !kernel) || (!set && !tree)) {
		json_decref(body);
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  set ? "body: expected {\"board\", "
						"\"testcase\", \"kernel\"[, "
						"\"tree\"]}" :
						"body: expected {\"board\", "
						"\"testcase\", \"tree\"}");
	}
	if (set)
		ret = lab_baseline_set(req->db, board, testcase, kernel, tree,
				       &j, &err);
	else
		ret = lab_baseline_unset(req->db, board, testcase, tree, &err);
	if (!ret && !set)
		j = json_pack("{sssssssb}", "board", board, "testcase",
			      testcase, "tree", tree, "pinned", 0);
	json_decref(body);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}

static enum MHD_Result verdict_set(struct http_request *req, const char *name)
{
	struct rtlab_err err = { "" };
	json_t *body, *j = NULL;
	char by[200];
	int ret;

	body = http_body_json(req, &err);
	if (!body)
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST, "%s",
					  err.msg);
	snprintf(by, sizeof(by), "%s token '%s'", role_name(req->role),
		 req->token_name);
	ret = lab_testcase_verdict_set(req->db, name, body, by, &j, &err);
	json_decref(body);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}

enum MHD_Result api_lab_handle(struct http_request *req)
{
	struct rtlab_err err = { "" };
	json_t *j = NULL;
	char name[160];
	int ret;

	switch (lab_route(req->path, name, sizeof(name))) {
	case LAB_BASELINES:
		return baselines(req);
	case LAB_TESTCASES:
		ret = db_testcases_list(req->db, &j, &err);
		break;
	case LAB_VERDICT:
		if (!is_get(req->method))
			return verdict_set(req, name);
		ret = lab_testcase_get(req->db, name, &j, &err);
		if (!ret) {
			json_t *v = json_incref(json_object_get(j, "verdict"));

			json_decref(j);
			j = v;
		}
		break;
	default:
		ret = lab_testcase_get(req->db, name, &j, &err);
		break;
	}
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}
