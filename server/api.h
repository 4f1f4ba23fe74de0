/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_API_H
#define RTLAB_API_H

/*
 * The rtlab HTTP API (version 1): routes and handlers.  JSON everywhere;
 * errors are {"error": "..."} with the fitting status.  Endpoints are
 * documented in docs/api.md.
 */

#include "http.h"

/**
 * api_begin() - called once the request's headers are in: sets
 * @req->want_body for requests that carry one, and answers at once when
 * the headers already decide (unknown path, wrong method, no or wrong
 * token, declared body over the limit), before any body is read.
 * Return: what libmicrohttpd expects (MHD_YES to go on).
 */
enum MHD_Result api_begin(struct http_request *req);

/**
 * api_handle() - answer a complete request (body, if any, received).
 * Return: what libmicrohttpd expects.
 */
enum MHD_Result api_handle(struct http_request *req);

/** verdict_api_match() - whether @path is one of the verdict endpoints:
 *  /api/v1/verdicts, /api/v1/verdicts/ID, /api/v1/compare
 *  (api-verdicts.c). */
bool verdict_api_match(const char *path);

/**
 * verdict_api_handle() - answer GET /api/v1/verdicts (query: board,
 * testcase, verdict, kernel, limit), GET /api/v1/verdicts/ID and GET
 * /api/v1/compare (query: board, testcase, baseline, candidate, clock).
 * @req->db must be connected.  Return: what libmicrohttpd expects.
 */
enum MHD_Result verdict_api_handle(struct http_request *req);

#endif
