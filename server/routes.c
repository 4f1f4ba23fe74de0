// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The handler table of `rtlab server`: which resource answers which path.
 * The web pages come first because they own "/".  The last field says
 * which requests run on the upload threads and which are slow work
 * (plots, comparisons, spike analyses) for the slow-work threads.
 */

#include "api.h"
#include "web.h"

const struct http_handler server_routes[] = {
	{ "web", web_match, NULL, web_handle, false, web_pool, false },
	{ "health", api_health_match, NULL, api_health_handle, false, NULL,
	  true },
	{ "tokens", api_tokens_match, api_tokens_begin, api_tokens_handle, true,
	  NULL, false },
	{ "lab", api_lab_match, api_lab_begin, api_lab_handle, true, NULL,
	  false },
	{ "submissions", api_submissions_match, api_submissions_begin,
	  api_submissions_handle, true, api_submissions_pool, false },
	{ "verdicts", verdict_api_match, NULL, verdict_api_handle, true,
	  verdict_api_pool, false },
	{ "jobs", api_jobs_match, NULL, api_jobs_handle, true, NULL, false },
	{ "lava", api_lava_match, api_lava_begin, api_lava_handle, true, NULL,
	  false },
	{ "runs", api_runs_match, api_runs_begin, api_runs_handle, true,
	  api_runs_pool, false },
};

const size_t server_nroutes = sizeof(server_routes) / sizeof(server_routes[0]);
