// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The runs resource of the HTTP API, version 1, and /healthz: routing by
 * path and method under /api/v1/runs, uploads (board tokens only,
 * server/auth.c), bundle ingest, and the read side (runs, histograms, plots,
 * artifacts, spike analysis).  Handlers answer through http.c's helpers
 * and take their data from db/ and services/; errors are
 * {"error": "..."} naming the request part that was wrong.
 */

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/plot.h"
#include "../services/spike-store.h"
#include "api.h"
#include "auth.h"
#include "../db/db-runs.h"
#include "../services/ingest.h"
#include "manifest.h"

#define API_RUNS "/api/v1/runs"

enum route {
	ROUTE_NONE,
	ROUTE_RUNS,
	ROUTE_RUN,
	ROUTE_HISTOGRAM,
	ROUTE_PLOT_PNG,
	ROUTE_PLOT_SVG,
	ROUTE_TRACE,
	ROUTE_ARTIFACT,
	ROUTE_SPIKE_TXT,
	ROUTE_SPIKE_JSON,
};

struct match {
	enum route route;
	char ref[128];	  /* run id or uuid */
	const char *name; /* artifact name, points into the path */
};

static void route_path(const char *path, struct match *mt)
{
	const char *rest, *slash;
	size_t n;

	memset(mt, 0, sizeof(*mt));
	if (!strcmp(path, API_RUNS) || !strcmp(path, API_RUNS "/")) {
		mt->route = ROUTE_RUNS;
		return;
	}
	if (strncmp(path, API_RUNS "/", strlen(API_RUNS) + 1))
		return;
	rest = path + strlen(API_RUNS) + 1;
	slash = strchr(rest, '/');
	n = slash ? (size_t)(slash - rest) : strlen(rest);
	if (!n || n >= sizeof(mt->ref))
		return;
	memcpy(mt->ref, rest, n);
	mt->ref[n] = '\0';
	if (!slash || !slash[1]) {
		mt->route = ROUTE_RUN;
		return;
	}
	rest = slash + 1;
	if (!strcmp(rest, "histogram"))
		mt->route = ROUTE_HISTOGRAM;
	else if (!strcmp(rest, "plot.png"))
		mt->route = ROUTE_PLOT_PNG;
	else if (!strcmp(rest, "plot.svg"))
		mt->route = ROUTE_PLOT_SVG;
	else if (!strcmp(rest, "trace.dat"))
		mt->route = ROUTE_TRACE;
	else if (!strcmp(rest, "spike"))
		mt->route = ROUTE_SPIKE_TXT;
	else if (!strcmp(rest, "spike.json"))
		mt->route = ROUTE_SPIKE_JSON;
	else if (!strncmp(rest, "artifacts/", 10) && rest[10]) {
		mt->route = ROUTE_ARTIFACT;
		mt->name = rest + 10;
	}
}

bool api_runs_match(const char *path)
{
	struct match mt;

	route_path(path, &mt);
	return mt.route != ROUTE_NONE;
}

enum MHD_Result api_runs_begin(struct http_request *req)
{
	struct match mt;
	enum MHD_Result ret;

	route_path(req->path, &mt);
	if (mt.route == ROUTE_RUNS && !strcmp(req->method, "POST")) {
		ret = http_take_body(req, "upload");
		if (req->responded)
			return ret;
		/* Only a board uploads, and only its own runs. */
		http_auth_require(req, ROLES_UPLOAD);
		return MHD_YES;
	}
	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD"))
		return http_method_not_allowed(req, mt.route == ROUTE_RUNS ?
							    "GET, HEAD, POST" :
							    "GET, HEAD");
	return MHD_YES;
}

static enum MHD_Result upload(struct http_request *req)
{
	struct rtlab_err err = { "" };
	struct ingest_result res;
	char location[64];
	json_t *j;
	int ret;

	if (req->too_large && !req->max_body)
		return http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
					  "out of memory receiving the upload");
	if (req->too_large)
		return http_respond_error(req, MHD_HTTP_CONTENT_TOO_LARGE,
					  "upload is larger than the server's "
					  "limit of %zu MB (max_upload_mb)",
					  req->max_body >> 20);
	if (!req->body_len)
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "empty request body: expected a "
					  "result bundle (gzip'd tar)");
	ret = ingest_bundle(req->db, req->body, req->body_len, req->board_id,
			    req->board, &res, &err);
	/* The body is no longer needed; free it before answering. */
	free(req->body);
	req->body = NULL;
	req->body_len = req->body_cap = 0;
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	req->run_id = res.run_id;
	snprintf(location, sizeof(location), API_RUNS "/%" PRId64, res.run_id);
	j = json_pack("{sIsssbsssiss}", "id", (json_int_t)res.run_id, "uuid",
		      res.uuid, "duplicate", res.duplicate, "status",
		      res.status, "histograms", (int)res.nhists, "url",
		      location);
	if (!j)
		return http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
					  "out of memory");
	if (res.duplicate) {
		json_object_del(j, "histograms");
		return http_respond_json(req, MHD_HTTP_OK, j);
	}
	{
		char *text = json_dumps(j, JSON_COMPACT);
		enum MHD_Result r;

		json_decref(j);
		if (!text)
			return http_respond_error(req,
						  MHD_HTTP_INTERNAL_SERVER_ERROR,
						  "out of memory");
		r = http_respond(req, MHD_HTTP_CREATED, "application/json",
				 text, strlen(text), "Location", location);
		free(text);
		return r;
	}
}

static enum MHD_Result list_runs(struct http_request *req)
{
	struct run_filter f = { 0 };
	struct rtlab_err err = { "" };
	enum run_status st;
	json_t *j = NULL;
	int ret;

	f.board = http_query(req, "board");
	f.kernel = http_query(req, "kernel");
	f.testcase = http_query(req, "testcase");
	f.status = http_query(req, "status");
	unsigned int before = 0;

	if (http_query_uint(req, "limit", 1, 1000, &f.limit, &err) ||
	    http_query_uint(req, "before", 1, UINT_MAX, &before, &err))
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST, "%s",
					  err.msg);
	f.before = before;
	if (f.status && run_status_parse(f.status, &st))
		return http_respond_error(req, MHD_HTTP_BAD_REQUEST,
					  "query 'status': expected complete, "
					  "agent_error, boot_failed, panic or "
					  "hang, got '%s'",
					  f.status);
	ret = db_runs_list(req->db, &f, &j, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}

static enum MHD_Result plot(struct http_request *req, int64_t id,
			    enum plot_format fmt)
{
	struct rtlab_err err = { "" };
	struct run_hists rh;
	void *img = NULL;
	size_t size = 0;
	enum MHD_Result r;
	int ret;

	ret = db_run_hists_load(req->db, id, &rh, &err);
	if (ret) {
		r = http_respond_error(req, http_errno_status(ret), "%s",
				       err.msg);
		goto out;
	}
	ret = plot_stored_run(&rh, fmt, &img, &size, &err);
	if (ret == -ENODATA)
		r = http_respond_error(req, MHD_HTTP_NOT_FOUND, "%s", err.msg);
	else if (ret)
		r = http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
				       "%s", err.msg);
	else
		r = http_respond(req, MHD_HTTP_OK,
				 fmt == PLOT_SVG ? "image/svg+xml" :
						   "image/png",
				 img, size, NULL, NULL);
out:
	free(img);
	run_hists_cleanup(&rh);
	return r;
}

/* Bytes fetched from the database per query while streaming. */
#define ARTIFACT_CHUNK (1u << 20)

/* An artifact being sent: read from the database a chunk at a time. */
struct artifact_stream {
	int64_t run_id;
	char *name;
	struct artifact_info info;
	uint64_t buf_off; /* artifact offset of buf[0] */
	size_t buf_len;
	size_t buf_cap; /* ARTIFACT_CHUNK, or less */
	char buf[];
};

static void artifact_stream_free(void *cls)
{
	struct artifact_stream *st = cls;

	if (!st)
		return;
	free(st->name);
	artifact_info_cleanup(&st->info);
	free(st);
}

/* libmicrohttpd asks for the bytes at @pos as it sends them. */
static ssize_t artifact_stream_read(void *cls, uint64_t pos, char *out,
				    size_t max)
{
	struct artifact_stream *st = cls;
	struct rtlab_err err = { "" };
	PGconn *db;
	size_t n;

	if (pos >= st->info.size)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (pos < st->buf_off || pos >= st->buf_off + st->buf_len) {
		db = http_thread_db(&err);
		if (!db ||
		    db_artifact_read(db, st->run_id, st->name, st->info.sha256,
				     pos, st->buf, st->buf_cap, &st->buf_len,
				     &err) ||
		    !st->buf_len) {
			fprintf(stderr,
				"rtlab server: run %" PRId64 " "
				"artifact '%s' at byte %" PRIu64 ": %s\n",
				st->run_id, st->name, pos,
				err.msg[0] ? err.msg : "shorter than stored");
			return MHD_CONTENT_READER_END_WITH_ERROR;
		}
		st->buf_off = pos;
	}
	n = st->buf_off + st->buf_len - pos;
	if (n > max)
		n = max;
	memcpy(out, st->buf + (pos - st->buf_off), n);
	return n;
}

/*
 * The type an artifact is served as: boards supply artifacts, so nothing
 * a browser would run or render as a page (HTML, SVG, XML ...) keeps its
 * type; text is shown as plain text, the rest is bytes.
 */
static const char *artifact_served_type(const char *stored)
{
	static const char *const keep[] = {
		"text/plain; charset=utf-8",
		"application/json",
		"application/yaml",
		"application/gzip",
		"image/png",
	};
	size_t i;

	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (!strcmp(stored, keep[i]))
			return keep[i];
	if (!strncmp(stored, "text/", 5) || !strcmp(stored, "image/svg+xml"))
		return "text/plain; charset=utf-8";
	return "application/octet-stream";
}

/* The file name of @name for Content-Disposition: quotes and controls
 * would break out of the header's quoted string. */
static void disposition(char *out, size_t size, const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	size_t n = 0;

	n = snprintf(out, size, "attachment; filename=\"");
	for (; *base && n + 3 < size; base++)
		out[n++] = (*base == '"' || *base == '\\' ||
			    (unsigned char)*base < 0x20 ||
			    (unsigned char)*base >= 0x7f) ?
				   '_' :
				   *base;
	out[n++] = '"';
	out[n] = '\0';
}

/* A stored artifact, streamed from the database: constant memory however
 * large it is, served as an attachment that never runs in the page. */
static enum MHD_Result artifact(struct http_request *req, int64_t id,
				const char *name, bool trace)
{
	struct rtlab_err err = { "" };
	struct artifact_stream *st;
	struct artifact_info info;
	enum MHD_Result r;
	char disp[300];
	size_t cap;
	int ret;

	ret = db_artifact_stat(req->db, id, name, &info, &err);
	if (ret) {
		if (ret == -ENOENT && trace)
			return http_respond_error(req, MHD_HTTP_NOT_FOUND,
						  "run %" PRId64
						  " has no trace (no trace.dat "
						  "in its bundle)",
						  id);
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	}
	/* A small artifact needs no megabyte of buffer. */
	cap = info.size < ARTIFACT_CHUNK ? info.size + 1 : ARTIFACT_CHUNK;
	st = calloc(1, sizeof(*st) + cap);
	if (!st || !(st->name = strdup(name))) {
		free(st);
		artifact_info_cleanup(&info);
		return http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
					  "out of memory");
	}
	st->run_id = id;
	st->info = info;
	st->buf_cap = cap;
	disposition(disp, sizeof(disp), name);
	r = http_respond_stream(req, MHD_HTTP_OK,
				artifact_served_type(st->info.content_type),
				st->info.size, artifact_stream_read, st,
				artifact_stream_free, "Content-Disposition",
				disp);
	return r;
}

/* The spike analysis of the run's trace: the stored one (`rtlab analyze
 * --store`), else analyzed now and not stored, since a GET writes
 * nothing (services/spike-store.c). */
static enum MHD_Result spike(struct http_request *req, int64_t id, bool json)
{
	struct rtlab_err err = { "" };
	struct artifact a;
	enum MHD_Result r;
	unsigned int status;
	int ret;

	ret = spike_run_get(req->db, id, json, false, &a, &err);
	if (ret) {
		/*
		 * The request was fine but the stored trace is damaged or
		 * has no spike: 422, not the 400 of a bad request.  Another
		 * kernel's trace is http_errno_status()'s 409.
		 */
		status = ret == -EINVAL ? MHD_HTTP_UNPROCESSABLE_CONTENT :
					  http_errno_status(ret);
		return http_respond_error(req, status, "%s", err.msg);
	}
	r = http_respond(req, MHD_HTTP_OK, a.content_type, a.data, a.size, NULL,
			 NULL);
	artifact_cleanup(&a);
	return r;
}

enum http_pool api_runs_pool(const char *method, const char *path)
{
	struct match mt;

	route_path(path, &mt);
	if (mt.route == ROUTE_RUNS && !strcmp(method, "POST"))
		return HTTP_POOL_INGEST;
	if (mt.route == ROUTE_PLOT_PNG || mt.route == ROUTE_PLOT_SVG ||
	    mt.route == ROUTE_SPIKE_TXT || mt.route == ROUTE_SPIKE_JSON)
		return HTTP_POOL_SLOW;
	return HTTP_POOL_NONE;
}

bool api_health_match(const char *path)
{
	return !strcmp(path, "/healthz");
}

enum MHD_Result api_health_handle(struct http_request *req)
{
	struct rtlab_err err = { "" };

	if (!req->db)
		return http_respond_error(req, MHD_HTTP_SERVICE_UNAVAILABLE,
					  "database unreachable: %s",
					  req->db_error);
	if (db_ping(req->db, &err))
		return http_respond_error(req, MHD_HTTP_SERVICE_UNAVAILABLE,
					  "database unreachable: %s", err.msg);
	return http_respond_json(req, MHD_HTTP_OK,
				 json_pack("{ss}", "status", "ok"));
}

enum MHD_Result api_runs_handle(struct http_request *req)
{
	struct rtlab_err err = { "" };
	struct match mt;
	json_t *j = NULL;
	int64_t id;
	int ret;

	route_path(req->path, &mt);
	if (mt.route == ROUTE_RUNS)
		return strcmp(req->method, "POST") ? list_runs(req) :
						     upload(req);

	ret = db_run_resolve(req->db, mt.ref, &id, &err);
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	req->run_id = id;
	switch (mt.route) {
	case ROUTE_RUN:
		ret = db_run_get(req->db, id, &j, &err);
		break;
	case ROUTE_HISTOGRAM:
		ret = db_run_histograms(req->db, id, &j, &err);
		if (!ret)
			j = json_pack("{sIso}", "id", (json_int_t)id, "threads",
				      j);
		break;
	case ROUTE_PLOT_PNG:
		return plot(req, id, PLOT_PNG);
	case ROUTE_PLOT_SVG:
		return plot(req, id, PLOT_SVG);
	case ROUTE_TRACE:
		return artifact(req, id, "trace.dat", true);
	case ROUTE_ARTIFACT:
		return artifact(req, id, mt.name, false);
	case ROUTE_SPIKE_TXT:
	case ROUTE_SPIKE_JSON:
		return spike(req, id, mt.route == ROUTE_SPIKE_JSON);
	default:
		return http_respond_error(req, MHD_HTTP_NOT_FOUND,
					  "no such path: %s", req->path);
	}
	if (ret)
		return http_respond_error(req, http_errno_status(ret), "%s",
					  err.msg);
	return http_respond_json(req, MHD_HTTP_OK, j);
}
