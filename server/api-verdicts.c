// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict endpoints of the HTTP API: GET /api/v1/verdicts,
 * /api/v1/verdicts/ID and /api/v1/compare.  The verdicts themselves are
 * decided by services/verdict.c; this file only reads the request and
 * answers it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-boards.h"
#include "../db/db-verdicts.h"
#include "../services/verdict.h"
#include "api.h"
#include "http.h"

#define API_VERDICTS "/api/v1/verdicts"
#define API_COMPARE "/api/v1/compare"

bool verdict_api_match(const char *path)
{
	size_t n = strlen(API_VERDICTS);

	if (!strcmp(path, API_COMPARE))
		return true;
	if (strncmp(path, API_VERDICTS, n))
		return false;
	return !path[n] || (path[n] == '/' && !strchr(path + n + 1, '/'));
}

enum http_pool verdict_api_pool(const char *method, const char *path)
{
	(void)method;
	return strcmp(path, API_COMPARE) ? HTTP_POOL_NONE : HTTP_POOL_SLOW;
}

static enum MHD_Result api_list(struct http_request *req)
{
	struct verdict_filter f = { 0 };
	struct rtlab_err err = { "" };
	json_t *j = NULL;
	int ret;

	f.board = http_query(req, "board");
	f.testcase = http_query(req, "testcase");
	f.verdict = http_query(req, "verdict");
	f.kernel = http_query(req, "kernel");
	if (http_query_uint(req, "limit", 1, 1000, &f.limit, &err))
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST, "%s",
					  err.msg);
	if (f.verdict && regress_verdict_parse(f.verdict) < 0)
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "query 'verdict': expected "
					  "REGRESSION, IMPROVEMENT, NO_CHANGE "
					  "or INCONCLUSIVE, got '%s'",
					  f.verdict);
	ret = db_verdicts_list(req->db, &f, &j, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}

static enum MHD_Result api_get(struct http_request *req, const char *ref)
{
	struct rtlab_err err = { "" };
	json_t *j = NULL;
	char *end;
	long long id;
	int ret;

	id = strtoll(ref, &end, 10);
	if (!*ref || *end || id < 1)
		return http_respond_error(req, MHD_HTTP_NOT_FOUND,
					  "verdict '%s' not found: expected a "
					  "verdict id (a number)",
					  ref);
	ret = db_verdict_get(req->db, id, &j, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}

static enum MHD_Result api_compare(struct http_request *req)
{
	static const char *const need[] = { "board", "testcase", "baseline",
					    "candidate" };
	struct verdict_pair vp = { 0 };
	struct rtlab_err err = { "" };
	json_t *j = NULL;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!http_query(req, need[i]) || !*http_query(req, need[i]))
			return http_respond_error(
				req, MHD_HTTP_BAD_REQUEST,
				"query '%s' is missing: compare needs board, "
				"testcase, baseline and candidate (kernel id "
				"or release)",
				need[i]);
	ret = db_board_lookup(req->db, http_query(req, "board"), &vp.board_id,
			      &err);
	if (!ret)
		ret = db_testcase_lookup(req->db, http_query(req, "testcase"),
					 &vp.testcase_id, &err);
	if (!ret)
		ret = db_kernel_resolve(req->db, http_query(req, "baseline"),
					&vp.base_kernel_id, &err);
	if (!ret)
		ret = db_kernel_resolve(req->db, http_query(req, "candidate"),
					&vp.cand_kernel_id, &err);
	if (!ret) {
		vp.clock = http_query(req, "clock");
		vp.baseline_source = "requested";
		ret = verdict_compute(req->db, &vp, &j, &err);
	}
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}

enum MHD_Result verdict_api_handle(struct http_request *req)
{
	size_t n = strlen(API_VERDICTS);

	if (!strcmp(req->path, API_COMPARE))
		return api_compare(req);
	if (!req->path[n] || !req->path[n + 1])
		return api_list(req);
	return api_get(req, req->path + n + 1);
}
