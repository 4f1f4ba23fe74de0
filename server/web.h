/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_WEB_H
#define RTLAB_WEB_H

/*
 * The maintainers' web pages served by `rtlab server` (plain HTML and CSS,
 * no JavaScript): the overview of series against the latest kernels, a
 * run, the list of regressions and a verdict's report page, plus the
 * comparison and trend plots they show, which the command line draws too.
 * docs/web.md describes the pages.
 */

#include <stdbool.h>
#include <stddef.h>
#include <libpq-fe.h>
#include <microhttpd.h>

#include "error.h"

struct http_request;

/**
 * web_match() - whether @path is served here: "/", "/style.css",
 * "/regressions", "/runs/{run}", "/verdicts/{id}",
 * "/verdicts/{id}/report/{file}", "/api/v1/plots/compare.{png,svg}",
 * "/api/v1/plots/trend.{png,svg}".
 */
bool web_match(const char *path);

/** web_pool() - the plots are slow work. */
enum http_pool web_pool(const char *method, const char *path);

/**
 * web_handle() - answer a GET or HEAD of a path web_match() accepted:
 * pages as text/html; charset=utf-8 (a 404 page for unknown runs and
 * verdicts), plots as image/png or image/svg+xml (errors as JSON, like
 * the rest of /api/v1).  Return: what libmicrohttpd expects.
 */
enum MHD_Result web_handle(struct http_request *req);

#endif
