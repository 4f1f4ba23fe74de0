/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_API_H
#define RTLAB_API_H

/*
 * The resources `rtlab server` answers, one file each, and the handler
 * table (routes.c) that cli/cmd-server.c gives http_serve():
 *
 *   web.c           /, /regressions, /runs/..., /verdicts/..., /plot/...
 *   api-runs.c      /healthz; /api/v1/runs (upload, list, one run, its
 *                   histograms, plots, artifacts, trace, spike analysis)
 *   api-verdicts.c  /api/v1/verdicts, /api/v1/compare
 *   api-tokens.c    /api/v1/whoami, /api/v1/tokens (admin)
 *   api-lab.c       /api/v1/baselines, /api/v1/testcases (maintainer
 *                   writes)
 *   api-lava.c      /api/v1/lava/notify (LAVA's notify callback)
 *
 * Every handler checks who may do what with http_auth_require()
 * (auth.c); reads are public unless the server says otherwise.
 *
 * JSON everywhere in /api; errors are {"error": "..."} with the status of
 * http_errno_status().  Endpoints are documented in docs/api.md.
 */

#include <stdbool.h>
#include <stddef.h>

#include "http.h"

/** server_routes - the handler table, tried in order; server_nroutes
 *  its length. */
extern const struct http_handler server_routes[];
extern const size_t server_nroutes;

/** api_health_match() - whether @path is /healthz. */
bool api_health_match(const char *path);

/** api_health_handle() - 200 {"status": "ok"} when the database answers,
 *  else 503 naming why.  Return: what libmicrohttpd expects. */
enum MHD_Result api_health_handle(struct http_request *req);

/** api_runs_match() - whether @path is under /api/v1/runs. */
bool api_runs_match(const char *path);

/**
 * api_runs_begin() - called once the request's headers are in: sets
 * @req->want_body for an upload, and answers at once when the headers
 * already decide (wrong method, no or wrong token, declared body over
 * the limit), before any body is read.
 * Return: what libmicrohttpd expects (MHD_YES to go on).
 */
enum MHD_Result api_runs_begin(struct http_request *req);

/** api_runs_pool() - which threads answer @method on @path under
 *  /api/v1/runs: uploads the upload threads, plots and spike analyses the
 *  slow-work threads. */
enum http_pool api_runs_pool(const char *method, const char *path);

/**
 * api_runs_handle() - answer a complete request under /api/v1/runs (body,
 * if any, received).  Return: what libmicrohttpd expects.
 */
enum MHD_Result api_runs_handle(struct http_request *req);

/** api_jobs_match() - whether @path is /api/v1/jobs. */
bool api_jobs_match(const char *path);

/**
 * api_jobs_handle() - answer GET /api/v1/jobs (query: state, board, limit
 * 1..1000 default 50, before: a keyset page), newest first.  @req->db
 * must be connected.  Return: what libmicrohttpd expects.
 */
enum MHD_Result api_jobs_handle(struct http_request *req);

/** verdict_api_match() - whether @path is one of the verdict endpoints:
 *  /api/v1/verdicts, /api/v1/verdicts/ID, /api/v1/compare. */
bool verdict_api_match(const char *path);

/** verdict_api_pool() - /api/v1/compare is slow work. */
enum http_pool verdict_api_pool(const char *method, const char *path);

/**
 * verdict_api_handle() - answer GET /api/v1/verdicts (query: board,
 * testcase, verdict, kernel, limit), GET /api/v1/verdicts/ID and GET
 * /api/v1/compare (query: board, testcase, baseline, candidate, clock).
 * @req->db must be connected.  Return: what libmicrohttpd expects.
 */
enum MHD_Result verdict_api_handle(struct http_request *req);

/** api_lava_match() - whether @path is /api/v1/lava/notify. */
bool api_lava_match(const char *path);

/** api_lava_begin() - POST only, a board's (or a maintainer's) token,
 *  bare as LAVA sends it or as "Bearer TOKEN"; then the JSON body.
 *  Return: what libmicrohttpd expects. */
enum MHD_Result api_lava_begin(struct http_request *req);

/**
 * api_lava_handle() - LAVA's job data ({"id": JOB, ...}, the callback's
 * dataset minimal) wakes the worker following LAVA job JOB: 202
 * {"lava_job": JOB, "notified": true}; 400 without an id.
 * Return: what libmicrohttpd expects.
 */
enum MHD_Result api_lava_handle(struct http_request *req);

/** api_tokens_match() - whether @path is /api/v1/whoami, /api/v1/tokens
 *  or /api/v1/tokens/ID. */
bool api_tokens_match(const char *path);

/** api_tokens_begin() - check the method and the token (any role for
 *  whoami, admin for tokens) before any body is read.
 *  Return: what libmicrohttpd expects. */
enum MHD_Result api_tokens_begin(struct http_request *req);

/** api_tokens_handle() - GET /api/v1/whoami, GET and POST /api/v1/tokens,
 *  DELETE /api/v1/tokens/ID.  Return: what libmicrohttpd expects. */
enum MHD_Result api_tokens_handle(struct http_request *req);

/** api_lab_match() - whether @path is /api/v1/baselines,
 *  /api/v1/testcases, /api/v1/testcases/NAME or .../NAME/verdict. */
bool api_lab_match(const char *path);

/** api_lab_begin() - check the method and, for writes, a maintainer or
 *  admin token before the body is read.
 *  Return: what libmicrohttpd expects. */
enum MHD_Result api_lab_begin(struct http_request *req);

/** api_lab_handle() - PUT/DELETE /api/v1/baselines, GET
 *  /api/v1/testcases[/NAME[/verdict]], PUT /api/v1/testcases/NAME/verdict.
 *  Return: what libmicrohttpd expects. */
enum MHD_Result api_lab_handle(struct http_request *req);

/** api_submissions_match() - /api/v1/submissions[/{id}]. */
bool api_submissions_match(const char *path);

/** api_submissions_begin() - the method, the body of a POST, a token of
 *  a role that submits (developer, maintainer, admin). */
enum MHD_Result api_submissions_begin(struct http_request *req);

/** api_submissions_handle() - POST a submission, GET the list or one
 *  (a developer's own only).  Return: what libmicrohttpd expects. */
enum MHD_Result api_submissions_handle(struct http_request *req);

/** api_submissions_pool() - a POST goes to the upload threads. */
enum http_pool api_submissions_pool(const char *method, const char *path);

#endif
