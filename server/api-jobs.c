// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The job queue over HTTP, read-only: GET /api/v1/jobs, the page
 * `rtlab jobs` prints (db_job_list(), db_jobs_json()), for a farm's
 * dashboards and for people without database access.  Queueing stays
 * with `rtlab job add`, the farm's tick and submissions.
 */

#include <limits.h>
#include <string.h>

#include "../db/db-jobs.h"
#include "api.h"
#include "http.h"

#define API_JOBS "/api/v1/jobs"

bool api_jobs_match(const char *path)
{
	return !strcmp(path, API_JOBS);
}

enum MHD_Result api_jobs_handle(struct http_request *req)
{
	struct db_job_filter f = { .limit = 50 };
	struct rtlab_err err = { "" };
	struct db_job *jobs = NULL;
	unsigned int before = 0;
	json_t *list;
	size_t n = 0;
	int ret;

	f.state = http_query(req, "state");
	f.board = http_query(req, "board");
	if (http_query_uint(req, "limit", 1, 1000, &f.limit, &err) ||
	    http_query_uint(req, "before", 1, UINT_MAX, &before, &err))
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST, "%s",
					  err.msg);
	f.before = before;
	if (f.state && !db_job_state_valid(f.state))
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "query 'state': expected queued, "
					  "running, done or failed, got '%s'",
					  f.state);
	ret = db_job_list(req->db, &f, &jobs, &n, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	list = db_jobs_json(jobs, n);
	db_job_list_free(jobs, n);
	if (!list)
		return http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
					  "out of memory");
	return http_respond_json(req, MHD_HTTP_OK, list);
}
