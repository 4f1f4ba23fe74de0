// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * POST /api/v1/lava/notify: LAVA's notify callback.  A lava-server whose
 * job definition asks for it (boards/lava.c, the board's notify_url) posts
 * the finished job here; the worker following that job is woken
 * (db/db-lava.h) and asks lava-server at once instead of at its next poll.
 * The body says nothing rtlab believes: the job's outcome is still read
 * from lava-server, so the token only keeps strangers from waking workers.
 * LAVA sends the token bare ("Authorization: TOKEN"); "Bearer TOKEN" works
 * too.
 */

#include <errno.h>
#include <string.h>

#include "../db/db-lava.h"
#include "api.h"
#include "auth.h"

#define API_LAVA_NOTIFY "/api/v1/lava/notify"

bool api_lava_match(const char *path)
{
	return !strcmp(path, API_LAVA_NOTIFY);
}

enum MHD_Result api_lava_begin(struct http_request *req)
{
	if (strcmp(req->method, "POST"))
		return http_method_not_allowed(req, "POST");
	req->auth_bare = true;
	if (!http_auth_require(req, ROLES_UPLOAD | ROLES_MAINTAIN))
		return MHD_YES;
	return http_want_json_body(req);
}

enum MHD_Result api_lava_handle(struct http_request *req)
{
	struct rtlab_err err = { "" };
	json_t *body, *id;
	long job;
	int ret;

	body = http_body_json(req, &err);
	if (!body)
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST, "%s",
					  err.msg);
	/* LAVA's job data: "id", "state_string", "health_string", ... */
	id = json_object_get(body, "id");
	if (!json_is_integer(id) || json_integer_value(id) <= 0) {
		json_decref(body);
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "body: expected LAVA's job data, "
					  "{\"id\": JOB, ...} (callback "
					  "content-type json)");
	}
	job = (long)json_integer_value(id);
	json_decref(body);
	ret = db_lava_notify(req->db, job, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_ACCEPTED,
				 json_pack("{sisb}", "lava_job",
					   (json_int_t)job, "notified", 1));
}
