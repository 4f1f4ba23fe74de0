// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The maintainers' web pages: plain HTML with a small embedded style
 * sheet, readable without JavaScript.  Every text that comes from the
 * database (board and testcase names, kernel releases, environment,
 * reasons) goes through html_text() or, inside URLs, through url_part()
 * first.  Pages are built in a growing buffer with a sticky failure flag
 * and checked once before answering.  The comparison and trend plots live
 * here too, so the pages, the API and `rtlab plot` draw the same picture.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../db/db-boards.h"
#include "../db/db-farm.h"
#include "../db/db-health.h"
#include "../db/db-runs.h"
#include "../db/db-submissions.h"
#include "../db/db-verdicts.h"
#include "../db/db-web.h"
#include "../services/bisect.h"
#include "../services/reporting.h"
#include "http.h"
#include "strbuf.h"
#include "testcase.h"
#include "web.h"

#define PLOTS "/api/v1/plots/"

/* Largest report file the report route reads back. */
#define REPORT_FILE_MAX (64u << 20)

static const char style_css[] =
	"/* rtlab maintainers' pages */\n"
	"body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;"
	"background:#fafafa}\n"
	"header{background:#26323a;color:#fff;padding:.6em 1.2em}\n"
	"header a{color:#fff;margin-right:1.2em;text-decoration:none;"
	"font-weight:600}\n"
	"main{padding:1em 1.2em;max-width:1400px}\n"
	"h1{font-size:1.5em;margin:.2em 0 .6em}\n"
	"h2{font-size:1.15em;margin:1.4em 0 .4em;"
	"border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;background:#fff;margin:.3em 0}\n"
	"th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;"
	"vertical-align:top}\n"
	"th{background:#eef1f3}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"td.cell{min-width:8em}\n"
	"td.cell a{color:inherit}\n"
	".v-regression{background:#f4b4b4}\n"
	".v-improvement{background:#b9e4b4}\n"
	".v-no_change{background:#dcdcdc}\n"
	".v-inconclusive{background:#f6d58e}\n"
	".v-none{background:#fff}\n"
	".b-unhealthy{background:#f4b4b4}\n"
	".b-offline{background:#dcdcdc}\n"
	".b-busy{background:#f6d58e}\n"
	"span.badge{padding:.1em .5em;border-radius:.3em;border:1px solid "
	"#999}\n"
	"pre{background:#fff;border:1px solid #ccc;padding:.5em;"
	"overflow-x:auto}\n"
	"img.plot{max-width:100%;height:auto;border:1px solid #ccc;"
	"background:#fff}\n"
	"small,.muted{color:#555}\n"
	"ul.legend{list-style:none;padding:0}\n"
	"ul.legend li{display:inline-block;margin-right:1em;padding:0 .5em;"
	"border:1px solid #999}\n";

/* ------------------------------------------------------------------ */
/* An HTML page under construction                                    */

/* Markup and figures only; never text from the database. */
static void __printf(2, 3) html(struct strbuf *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(p, fmt, ap);
	va_end(ap);
}

/* Text, escaped for element content and quoted attribute values. */
static void html_text(struct strbuf *p, const char *s)
{
	const char *run = s;

	if (!s)
		return;
	for (; *s; s++) {
		const char *rep;

		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&#39;";
			break;
		default:
			continue;
		}
		strbuf_add(p, run, s - run);
		strbuf_add(p, rep, strlen(rep));
		run = s + 1;
	}
	strbuf_add(p, run, s - run);
}

/* Text percent-encoded for a URL (query value or path segment): only
 * unreserved characters stay, so the result is also safe in HTML. */
static void url_part(struct strbuf *p, const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = *s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' || (keep_slash && c == '/')) {
			strbuf_add(p, (const char *)&c, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };

			strbuf_add(p, e, 3);
		}
	}
}

/* "&name=value" (or "?name=value" for the first) into an href. */
static void url_arg(struct strbuf *p, bool first, const char *name,
		    const char *value)
{
	if (!value)
		return;
	html(p, "%s%s=", first ? "?" : "&amp;", name);
	url_part(p, value, false);
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A JSON number as text; "–" for null or missing. */
static void html_num(struct strbuf *p, const json_t *v, const char *unit)
{
	if (json_is_integer(v))
		html(p, "%" JSON_INTEGER_FORMAT "%s%s", json_integer_value(v),
		     unit ? " " : "", unit ? unit : "");
	else if (json_is_real(v) && isfinite(json_real_value(v)))
		html(p, "%.4g%s%s", json_real_value(v), unit ? " " : "",
		     unit ? unit : "");
	else if (json_is_string(v))
		html_text(p, json_string_value(v));
	else
		html(p, "&ndash;");
}

/* Any JSON value as readable text: strings bare, the rest compact. */
static void html_json(struct strbuf *p, const json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		html_text(p, json_string_value(v));
		return;
	}
	if (json_is_null(v) || !v) {
		html(p, "&ndash;");
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!s) {
		p->failed = true;
		return;
	}
	html_text(p, s);
	free(s);
}

/* The CSS class of a verdict: v-regression, ..., v-none. */
static void verdict_class(struct strbuf *p, const char *verdict)
{
	if (!verdict ||
	    (strcmp(verdict, "REGRESSION") && strcmp(verdict, "IMPROVEMENT") &&
	     strcmp(verdict, "NO_CHANGE") && strcmp(verdict, "INCONCLUSIVE"))) {
		html(p, "v-none");
		return;
	}
	html(p, "v-");
	for (; *verdict; verdict++)
		html(p, "%c", tolower((unsigned char)*verdict));
}

static void page_begin(struct strbuf *p, const char *title_fmt, ...)
	__printf(2, 3);

static void page_begin(struct strbuf *p, const char *title_fmt, ...)
{
	char title[512];
	va_list ap;

	va_start(ap, title_fmt);
	vsnprintf(title, sizeof(title), title_fmt, ap);
	va_end(ap);
	html(p, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		"<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width\">\n"
		"<title>");
	html_text(p, title);
	html(p, " &ndash; rtlab</title>\n"
		"<link rel=\"stylesheet\" href=\"/style.css\">\n"
		"</head>\n<body>\n<header><nav>"
		"<a href=\"/\">rtlab overview</a>"
		"<a href=\"/regressions\">Regressions</a>"
		"<a href=\"/farm\">Farm</a>"
		"<a href=\"/api/v1/runs\">API: runs</a>"
		"</nav></header>\n<main>\n");
}

static void page_end(struct strbuf *p)
{
	html(p, "</main>\n</body>\n</html>\n");
}

static enum MHD_Result page_send(struct http_request *req, struct strbuf *p,
				 unsigned int status)
{
	enum MHD_Result r;

	if (p->failed) {
		strbuf_cleanup(p);
		return http_respond_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
					  "%s: out of memory building the "
					  "page",
					  req->path);
	}
	r = http_respond(req, status, "text/html; charset=utf-8", p->buf,
			 p->len, NULL, NULL);
	strbuf_cleanup(p);
	return r;
}

/* A page saying what went wrong: 404 for unknown things, else 500/503. */
static enum MHD_Result error_page(struct http_request *req, unsigned int status,
				  const char *what, const char *msg)
{
	struct strbuf p = { 0 };

	page_begin(&p, "%s", what);
	html(&p, "<h1>");
	html_text(&p, what);
	html(&p, "</h1>\n<p>");
	html_text(&p, msg);
	html(&p, "</p>\n<p><a href=\"/\">Back to the overview</a></p>\n");
	page_end(&p);
	return page_send(req, &p, status);
}

static enum MHD_Result db_error_page(struct http_request *req, int ret,
				     const char *msg)
{
	return error_page(req, http_errno_status(ret),
			  ret == -ENOENT ? "Not found" :
			  ret == -EINVAL ? "Bad request" :
					   "Database error",
			  msg);
}

/* ------------------------------------------------------------------ */
/* Routing                                                            */

enum web_route {
	WEB_NONE,
	WEB_OVERVIEW,
	WEB_STYLE,
	WEB_REGRESSIONS,
	WEB_FARM,
	WEB_RUN,
	WEB_VERDICT,
	WEB_REPORT_FILE,
	WEB_PLOT_COMPARE,
	WEB_PLOT_TREND,
	WEB_PLOT_LONGTERM,
	WEB_BISECT,
	WEB_SUBMISSION,
};

struct web_match {
	enum web_route route;
	enum plot_format fmt;
	char ref[128];	  /* run or verdict reference */
	const char *file; /* report file, points into the path */
};

/* "/PREFIX/REF[/rest]": copy REF, return what follows it (or NULL). */
static const char *take_ref(const char *path, const char *prefix,
			    struct web_match *m)
{
	size_t n, plen = strlen(prefix);
	const char *rest;

	if (strncmp(path, prefix, plen))
		return NULL;
	rest = path + plen;
	n = strcspn(rest, "/");
	if (!n || n >= sizeof(m->ref))
		return NULL;
	memcpy(m->ref, rest, n);
	m->ref[n] = '\0';
	return rest + n;
}

static void web_route(const char *path, struct web_match *m)
{
	const char *rest;

	memset(m, 0, sizeof(*m));
	if (!strcmp(path, "/") || !strcmp(path, "/index.html"))
		m->route = WEB_OVERVIEW;
	else if (!strcmp(path, "/style.css"))
		m->route = WEB_STYLE;
	else if (!strcmp(path, "/regressions"))
		m->route = WEB_REGRESSIONS;
	else if (!strcmp(path, "/farm"))
		m->route = WEB_FARM;
	else if (!strncmp(path, PLOTS, strlen(PLOTS))) {
		rest = path + strlen(PLOTS);
		if (!strcmp(rest, "compare.png") ||
		    !strcmp(rest, "compare.svg"))
			m->route = WEB_PLOT_COMPARE;
		else if (!strcmp(rest, "trend.png") ||
			 !strcmp(rest, "trend.svg"))
			m->route = WEB_PLOT_TREND;
		else if (!strcmp(rest, "longterm.png") ||
			 !strcmp(rest, "longterm.svg"))
			m->route = WEB_PLOT_LONGTERM;
		if (m->route && plot_format_parse(rest, &m->fmt))
			m->route = WEB_NONE;
	} else if ((rest = take_ref(path, "/runs/", m))) {
		if (!*rest || !strcmp(rest, "/"))
			m->route = WEB_RUN;
	} else if ((rest = take_ref(path, "/bisections/", m))) {
		if (!*rest || !strcmp(rest, "/"))
			m->route = WEB_BISECT;
	} else if ((rest = take_ref(path, "/submissions/", m))) {
		if (!*rest || !strcmp(rest, "/"))
			m->route = WEB_SUBMISSION;
	} else if ((rest = take_ref(path, "/verdicts/", m))) {
		if (!*rest || !strcmp(rest, "/"))
			m->route = WEB_VERDICT;
		else if (!strncmp(rest, "/report/", 8) && rest[8]) {
			m->route = WEB_REPORT_FILE;
			m->file = rest + 8;
		}
	}
}

/* The plots: drawn by gnuplot, answered by the slow pool. */
static bool is_plot(enum web_route r)
{
	return r == WEB_PLOT_COMPARE || r == WEB_PLOT_TREND ||
	       r == WEB_PLOT_LONGTERM;
}

bool web_match(const char *path)
{
	struct web_match m;

	web_route(path, &m);
	return m.route != WEB_NONE;
}

enum http_pool web_pool(const char *method, const char *path)
{
	struct web_match m;

	(void)method;
	web_route(path, &m);
	return is_plot(m.route) ? HTTP_POOL_SLOW : HTTP_POOL_NONE;
}

/* ------------------------------------------------------------------ */
/* Pages                                                              */

static const char *const verdict_names[] = {
	"REGRESSION",
	"IMPROVEMENT",
	"NO_CHANGE",
	"INCONCLUSIVE",
};

static void verdict_badge(struct strbuf *p, const char *verdict)
{
	html(p, "<span class=\"badge ");
	verdict_class(p, verdict);
	html(p, "\">");
	if (verdict)
		html_text(p, verdict);
	else
		html(p, "no verdict");
	html(p, "</span>");
}

/* The cell of kernel @kernel_id in an overview row, or NULL. */
static json_t *find_cell(const json_t *row, const json_t *kernel_id)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(row, "cells"), i, c)
		if (json_integer_value(json_object_get(c, "kernel_id")) ==
		    json_integer_value(kernel_id))
			return c;
	return NULL;
}

/* The boards as the farm sees them (db_board_farm()): kind, state and
 * why, the job running, the last health check.  Return: 0 or the error
 * of the query, with @err set. */
static int boards_table(struct http_request *req, struct strbuf *p,
			struct rtlab_err *err)
{
	json_t *boards = NULL, *b, *job, *h;
	size_t i;
	int ret;

	ret = db_board_farm(req->db, &boards, err);
	if (ret)
		return ret;
	html(p, "<h2>Boards</h2>\n<table id=\"boards\">\n<tr><th>board</th>"
		"<th>kind</th><th>state</th><th>job</th><th>queued</th>"
		"<th>last health check</th></tr>\n");
	json_array_foreach(boards, i, b) {
		job = json_object_get(b, "job");
		h = json_object_get(b, "health");
		html(p, "<tr class=\"b-");
		html_text(p, jstr(b, "state"));
		html(p, "\"><td>");
		html_text(p, jstr(b, "name"));
		html(p, "</td><td>");
		html_text(p, jstr(b, "kind"));
		html(p, "</td><td>");
		html_text(p, jstr(b, "state"));
		if (jstr(b, "state_reason")) {
			html(p, "<br><small>");
			html_text(p, jstr(b, "state_reason"));
			html(p, "</small>");
		}
		html(p, "</td><td>");
		if (json_is_object(job)) {
			html(p, "#%" JSON_INTEGER_FORMAT " ",
			     json_integer_value(json_object_get(job, "id")));
			if (!strcmp(jstr(job, "kind"), "health"))
				html(p, "health check: ");
			html_text(p, jstr(job, "testcase"));
			if (jstr(job, "phase")) {
				html(p, " <small>");
				html_text(p, jstr(job, "phase"));
				html(p, "</small>");
			}
		} else {
			html(p, "-");
		}
		html(p, "</td><td class=\"num\">");
		html_num(p, json_object_get(b, "queued"), NULL);
		html(p, "</td><td>");
		if (json_is_object(h)) {
			html_text(p, jstr(h, "result"));
			html(p, " <small>");
			html_text(p, jstr(h, "at"));
			html(p, "</small>");
			if (jstr(h, "reason")) {
				html(p, "<br><small>");
				html_text(p, jstr(h, "reason"));
				html(p, "</small>");
			}
		} else {
			html(p, "never");
		}
		html(p, "</td></tr>\n");
	}
	html(p, "</table>\n");
	json_decref(boards);
	return 0;
}

static enum MHD_Result overview(struct http_request *req)
{
	struct rtlab_err err = { "" };
	struct strbuf p = { 0 };
	json_t *o = NULL, *kernels, *rows, *row, *k, *cell;
	size_t i, j;
	int ret;

	ret = db_web_overview(req->db, 0, &o, &err);
	if (ret)
		return db_error_page(req, ret, err.msg);
	kernels = json_object_get(o, "kernels");
	rows = json_object_get(o, "rows");
	page_begin(&p, "Overview");
	html(&p, "<h1>Latency overview</h1>\n");
	ret = boards_table(req, &p, &err);
	if (ret) {
		strbuf_cleanup(&p);
		json_decref(o);
		return db_error_page(req, ret, err.msg);
	}
	if (!json_array_size(rows)) {
		html(&p, "<p>No runs stored yet.</p>\n");
		goto done;
	}
	html(&p, "<p>Each cell: the worst maximum and worst p99.9 over the "
		 "kernel's runs on that board and testcase, coloured by the "
		 "latest verdict of the kernel there.  Newest kernels "
		 "first.</p>\n<ul class=\"legend\">");
	for (i = 0; i < 4; i++) {
		html(&p, "<li class=\"");
		verdict_class(&p, verdict_names[i]);
		html(&p, "\">%s</li>", verdict_names[i]);
	}
	html(&p, "<li class=\"v-none\">no verdict</li></ul>\n"
		 "<table id=\"overview\">\n<tr><th>board / testcase</th>");
	json_array_foreach(kernels, i, k) {
		html(&p, "<th>");
		html_text(&p, jstr(k, "release"));
		if (jstr(k, "tree") && *jstr(k, "tree")) {
			html(&p, "<br><small>tree ");
			html_text(&p, jstr(k, "tree"));
			html(&p, "</small>");
		}
		html(&p, "</th>");
	}
	html(&p, "</tr>\n");
	json_array_foreach(rows, i, row) {
		html(&p, "<tr><th>");
		html_text(&p, jstr(row, "board"));
		html(&p, " / ");
		html_text(&p, jstr(row, "testcase"));
		html(&p, "<br><small><a href=\"" PLOTS "trend.svg");
		url_arg(&p, true, "board", jstr(row, "board"));
		url_arg(&p, false, "testcase", jstr(row, "testcase"));
		html(&p, "\">trend</a> <a href=\"" PLOTS "longterm.svg");
		url_arg(&p, true, "board", jstr(row, "board"));
		url_arg(&p, false, "testcase", jstr(row, "testcase"));
		html(&p, "\">long-term</a></small></th>");
		json_array_foreach(kernels, j, k) {
			const char *verdict;

			cell = find_cell(row, json_object_get(k, "id"));
			if (!cell) {
				html(&p, "<td class=\"cell v-none\"></td>");
				continue;
			}
			verdict = jstr(cell, "verdict");
			html(&p, "<td class=\"cell ");
			verdict_class(&p, verdict);
			html(&p, "\">");
			html(&p, "<a href=\"/%s/%" JSON_INTEGER_FORMAT "\">",
			     verdict ? "verdicts" : "runs",
			     json_integer_value(json_object_get(
				     cell,
				     verdict ? "verdict_id" : "latest_run")));
			html(&p, "max ");
			html_num(&p, json_object_get(cell, "max_us"), "µs");
			html(&p, "<br>p99.9 ");
			html_num(&p, json_object_get(cell, "p999_us"), "µs");
			html(&p, "</a><br><small>");
			html(&p, "%s &middot; %" JSON_INTEGER_FORMAT " run%s",
			     verdict ? verdict : "no verdict",
			     json_integer_value(json_object_get(cell, "runs")),
			     json_integer_value(json_object_get(cell,
								"runs")) == 1 ?
				     "" :
				     "s");
			html(&p, "</small></td>");
		}
		html(&p, "</tr>\n");
	}
	html(&p, "</table>\n");
done:
	page_end(&p);
	json_decref(o);
	return page_send(req, &p, MHD_HTTP_OK);
}

static bool has_artifact(const json_t *run, const char *name)
{
	const json_t *a;
	size_t i;

	json_array_foreach(json_object_get(run, "artifacts"), i, a)
		if (jstr(a, "name") && !strcmp(jstr(a, "name"), name))
			return true;
	return false;
}

static void row_text(struct strbuf *p, const char *key, const char *value)
{
	html(p, "<tr><th>%s</th><td>", key);
	if (value)
		html_text(p, value);
	else
		html(p, "&ndash;");
	html(p, "</td></tr>\n");
}

/* A developer's extras the run brought (testcases/README.md, "Extras"). */
static void run_extras(struct strbuf *p, const json_t *x)
{
	const json_t *e;
	size_t i;

	if (!x)
		return;
	html(p, "<h2>Extras</h2>\n<table id=\"extras\">\n");
	json_array_foreach(json_object_get(x, "modules"), i, e) {
		html(p, "<tr><th>module</th><td>");
		html_text(p, jstr(e, "name") ? jstr(e, "name") : "?");
		html(p, " (");
		html_text(p, jstr(e, "file") ? jstr(e, "file") : "?");
		if (jstr(e, "params") && *jstr(e, "params")) {
			html(p, " ");
			html_text(p, jstr(e, "params"));
		}
		html(p, "): %s, vermagic ",
		     json_is_true(json_object_get(e, "loaded")) ? "loaded" :
								  "not loaded");
		html_text(p, jstr(e, "vermagic") ? jstr(e, "vermagic") : "?");
		html(p, ", sha256 ");
		html_text(p, jstr(e, "sha256") ? jstr(e, "sha256") : "?");
		if (jstr(e, "error")) {
			html(p, "<br>");
			html_text(p, jstr(e, "error"));
		}
		html(p, "</td></tr>\n");
	}
	json_array_foreach(json_object_get(x, "files"), i, e) {
		html(p, "<tr><th>file</th><td>");
		html_text(p, jstr(e, "dest") ? jstr(e, "dest") : "?");
		html(p, ", sha256 ");
		html_text(p, jstr(e, "sha256") ? jstr(e, "sha256") : "?");
		html(p, "</td></tr>\n");
	}
	json_array_foreach(json_object_get(x, "commands"), i, e) {
		html(p, "<tr><th>");
		html_text(p, jstr(e, "phase") ? jstr(e, "phase") : "?");
		html(p, "</th><td><code>");
		html_text(p, jstr(e, "command") ? jstr(e, "command") : "?");
		html(p,
		     "</code>: exit status %" JSON_INTEGER_FORMAT
		     "</td></tr>\n",
		     json_integer_value(json_object_get(e, "exit_status")));
	}
	html(p, "</table>\n");
}

static enum MHD_Result run_page(struct http_request *req, const char *ref)
{
	static const char *const figs[] = {
		"samples", "overflows", "min_us",   "avg_us", "p50_us",
		"p99_us",  "p999_us",	"p9999_us", "max_us",
	};
	struct rtlab_err err = { "" };
	struct artifact spike = { 0 };
	struct strbuf p = { 0 };
	json_t *run = NULL, *kernel, *v, *a;
	const char *key;
	char *flags;
	int64_t id, vid;
	size_t i, j;
	int ret;

	ret = db_run_resolve(req->db, ref, &id, &err);
	if (!ret)
		ret = db_run_get(req->db, id, &run, &err);
	if (ret)
		return db_error_page(req, ret, err.msg);
	req->run_id = id;
	kernel = json_object_get(run, "kernel");
	page_begin(&p, "Run %" PRId64, id);
	html(&p, "<h1>Run %" PRId64 " <span class=\"badge\">", id);
	html_text(&p, jstr(run, "status"));
	html(&p, "</span></h1>\n<table id=\"identity\">\n");
	row_text(&p, "uuid", jstr(run, "uuid"));
	row_text(&p, "board", jstr(run, "board"));
	row_text(&p, "testcase",
		 jstr(json_object_get(run, "testcase"), "name"));
	row_text(&p, "kernel release", jstr(kernel, "release"));
	row_text(&p, "kernel version", jstr(kernel, "version"));
	row_text(&p, "kernel tree", jstr(kernel, "tree"));
	row_text(&p, "config sha256", jstr(kernel, "config_sha256"));
	row_text(&p, "clock", jstr(run, "clock"));
	row_text(&p, "status", jstr(run, "status"));
	if (jstr(run, "error"))
		row_text(&p, "error", jstr(run, "error"));
	flags = testcase_flags_text(json_object_get(run, "flags"));
	if (flags)
		row_text(&p, "flagged", flags);
	free(flags);
	if (jstr(json_object_get(run, "flags"), DB_RUN_FLAG_OUT_OF_SERVICE))
		row_text(&p, "board out of service",
			 jstr(json_object_get(run, "flags"),
			      DB_RUN_FLAG_OUT_OF_SERVICE));
	row_text(&p, "started", jstr(run, "started_at"));
	row_text(&p, "finished", jstr(run, "finished_at"));
	row_text(&p, "stored", jstr(run, "created_at"));
	if (!db_web_run_verdict(req->db, id, &vid, &err))
		html(&p,
		     "<tr><th>verdict</th><td><a href=\"/verdicts/%" PRId64
		     "\">verdict %" PRId64 "</a></td></tr>\n",
		     vid, vid);
	html(&p, "</table>\n");
	run_extras(&p,
		   json_object_get(json_object_get(run, "testcase"), "extras"));

	html(&p, "<h2>Environment</h2>\n");
	if (json_object_size(json_object_get(run, "environment"))) {
		html(&p, "<table id=\"environment\">\n");
		json_object_foreach(json_object_get(run, "environment"), key,
				    v) {
			html(&p, "<tr><th>");
			html_text(&p, key);
			html(&p, "</th><td>");
			html_json(&p, v);
			html(&p, "</td></tr>\n");
		}
		html(&p, "</table>\n");
	} else {
		html(&p, "<p>None recorded.</p>\n");
	}
	if (json_array_size(json_object_get(run, "commands"))) {
		html(&p, "<h2>Commands</h2>\n<pre>");
		json_array_foreach(json_object_get(run, "commands"), i, v) {
			html_json(&p, v);
			html(&p, "\n");
		}
		html(&p, "</pre>\n");
	}

	if (json_is_object(json_object_get(run, "results"))) {
		const json_t *res = json_object_get(run, "results");

		html(&p, "<h2>Result</h2>\n<p id=\"result\">");
		html_text(&p, jstr(run, "tool"));
		html(&p, json_is_true(json_object_get(res, "passed")) ?
				 " passed" :
				 " FAILED");
		html(&p, " (return code ");
		html_num(&p, json_object_get(res, "return_code"), NULL);
		if (json_object_get(res, "inversions")) {
			html(&p, ", inversions ");
			html_num(&p, json_object_get(res, "inversions"), NULL);
		}
		html(&p, ")</p>\n");
		if (json_array_size(json_object_get(res, "threads"))) {
			html(&p, "<table id=\"results\">\n<tr><th>thread</th>"
				 "<th>CPU</th><th>cycles</th><th>timeouts</th>"
				 "<th>min µs</th><th>avg µs</th>"
				 "<th>max µs</th></tr>\n");
			json_array_foreach(json_object_get(res, "threads"), i,
					   v) {
				static const char *const rf[] = {
					"thread",   "cpu",    "cycles",
					"timeouts", "min_us", "avg_us",
					"max_us"
				};

				html(&p, "<tr>");
				for (j = 0; j < sizeof(rf) / sizeof(rf[0]);
				     j++) {
					html(&p, "<td class=\"num\">");
					html_num(&p, json_object_get(v, rf[j]),
						 NULL);
					html(&p, "</td>");
				}
				html(&p, "</tr>\n");
			}
			html(&p, "</table>\n");
		}
	}

	html(&p, "<h2>Figures per CPU</h2>\n");
	if (json_array_size(json_object_get(run, "cpus"))) {
		html(&p,
		     "<table id=\"figures\">\n<tr><th>thread</th>"
		     "<th>metric</th><th>CPU</th><th>samples</th><th>overflows</th>"
		     "<th>min µs</th><th>avg µs</th><th>p50 µs</th>"
		     "<th>p99 µs</th><th>p99.9 µs</th><th>p99.99 µs</th>"
		     "<th>max µs</th></tr>\n");
		json_array_foreach(json_object_get(run, "cpus"), i, v) {
			html(&p, "<tr><td class=\"num\">");
			html_num(&p, json_object_get(v, "thread"), NULL);
			html(&p, "</td><td>");
			html_text(&p, jstr(v, "metric"));
			html(&p, "</td><td class=\"num\">");
			html_num(&p, json_object_get(v, "cpu"), NULL);
			html(&p, "</td>");
			for (j = 0; j < sizeof(figs) / sizeof(figs[0]); j++) {
				html(&p, "<td class=\"num\">");
				html_num(&p, json_object_get(v, figs[j]), NULL);
				html(&p, "</td>");
			}
			html(&p, "</tr>\n");
		}
		html(&p,
		     "</table>\n<h2>Latency histogram</h2>\n"
		     "<p><img class=\"plot\" src=\"/api/v1/runs/%" PRId64
		     "/plot.svg\" alt=\"latency histogram per CPU of run %" PRId64
		     "\" width=\"1000\" height=\"600\"></p>\n"
		     "<p><a href=\"/api/v1/runs/%" PRId64 "/plot.png\">"
		     "PNG</a> &middot; <a href=\"/api/v1/runs/%" PRId64
		     "/histogram\">histogram data (JSON)</a></p>\n",
		     id, id, id, id);
	} else if (json_is_object(json_object_get(run, "results"))) {
		html(&p, "<p>No histograms: the tool keeps none.</p>\n");
	} else {
		html(&p, "<p>No histograms: the run did not complete.</p>\n");
	}

	html(&p, "<h2>Trace</h2>\n");
	if (has_artifact(run, "trace.dat"))
		html(&p,
		     "<p><a id=\"trace\" href=\"/api/v1/runs/%" PRId64
		     "/trace.dat\">trace.dat</a> (open with "
		     "<code>trace-cmd report</code> or KernelShark)</p>\n",
		     id);
	else
		html(&p, "<p>No trace captured.</p>\n");

	html(&p, "<h2>Spike analysis</h2>\n");
	ret = db_artifact_get(req->db, id, "spike.txt", &spike, &err);
	if (!ret) {
		char *text = strndup(spike.data, spike.size);

		if (!text)
			p.failed = true;
		html(&p, "<pre id=\"spike\">");
		html_text(&p, text);
		html(&p, "</pre>\n");
		free(text);
	} else if (ret == -ENOENT && has_artifact(run, "trace.dat")) {
		html(&p,
		     "<p id=\"spike\">no analysis stored yet: <a "
		     "href=\"/api/v1/runs/%" PRId64 "/spike\">analyze the "
		     "trace now</a></p>\n",
		     id);
	} else if (ret == -ENOENT) {
		html(&p, "<p id=\"spike\">no analysis</p>\n");
	} else {
		html(&p, "<p id=\"spike\">analysis unreadable: ");
		html_text(&p, err.msg);
		html(&p, "</p>\n");
	}
	artifact_cleanup(&spike);

	html(&p, "<h2>Artifacts</h2>\n");
	if (json_array_size(json_object_get(run, "artifacts"))) {
		html(&p, "<table id=\"artifacts\">\n<tr><th>name</th>"
			 "<th>type</th><th>bytes</th><th>sha256</th></tr>\n");
		json_array_foreach(json_object_get(run, "artifacts"), i, a) {
			html(&p,
			     "<tr><td><a href=\"/api/v1/runs/%" PRId64
			     "/artifacts/",
			     id);
			url_part(&p, jstr(a, "name"), true);
			html(&p, "\">");
			html_text(&p, jstr(a, "name"));
			html(&p, "</a></td><td>");
			html_text(&p, jstr(a, "content_type"));
			html(&p, "</td><td class=\"num\">");
			html_num(&p, json_object_get(a, "size"), NULL);
			html(&p, "</td><td><small>");
			html_text(&p, jstr(a, "sha256"));
			html(&p, "</small></td></tr>\n");
		}
		html(&p, "</table>\n");
	} else {
		html(&p, "<p>None.</p>\n");
	}
	page_end(&p);
	json_decref(run);
	return page_send(req, &p, MHD_HTTP_OK);
}

/* "BASE → CAND" of a figures object {baseline, candidate}. */
static void html_pair(struct strbuf *p, const json_t *o, const char *unit)
{
	html_num(p, json_object_get(o, "baseline"), unit);
	html(p, " &rarr; ");
	html_num(p, json_object_get(o, "candidate"), unit);
}

static enum MHD_Result regressions(struct http_request *req)
{
	struct verdict_filter f = { .verdict = "REGRESSION", .limit = 500 };
	struct rtlab_err err = { "" };
	struct strbuf p = { 0 };
	json_t *list = NULL, *v, *fig;
	size_t i;
	int ret;

	ret = db_verdicts_list(req->db, &f, &list, &err);
	if (ret)
		return db_error_page(req, ret, err.msg);
	page_begin(&p, "Regressions");
	html(&p, "<h1>Regressions</h1>\n");
	if (!json_array_size(list)) {
		html(&p, "<p>No REGRESSION verdicts.</p>\n");
		goto done;
	}
	html(&p, "<table id=\"regressions\">\n<tr><th>verdict</th>"
		 "<th>when</th><th>board</th><th>testcase</th><th>clock</th>"
		 "<th>baseline &rarr; candidate</th><th>p99.9</th>"
		 "<th>max</th><th>runs</th><th>reason</th></tr>\n");
	json_array_foreach(list, i, v) {
		fig = json_object_get(v, "figures");
		html(&p,
		     "<tr class=\"v-regression\"><td><a href=\"/verdicts/%" JSON_INTEGER_FORMAT
		     "\">%" JSON_INTEGER_FORMAT "</a></td><td>",
		     json_integer_value(json_object_get(v, "id")),
		     json_integer_value(json_object_get(v, "id")));
		html_text(&p, jstr(v, "created_at"));
		html(&p, "</td><td>");
		html_text(&p, jstr(v, "board"));
		html(&p, "</td><td>");
		html_text(&p, jstr(v, "testcase"));
		html(&p, "</td><td>");
		html_text(&p, jstr(v, "clock"));
		html(&p, "</td><td>");
		html_text(&p, jstr(v, "baseline_kernel"));
		html(&p, " &rarr; ");
		html_text(&p, jstr(v, "candidate_kernel"));
		html(&p, "</td><td class=\"num\">");
		html_pair(&p, json_object_get(fig, "p99.9"), "µs");
		html(&p, "</td><td class=\"num\">");
		html_pair(&p, json_object_get(fig, "max"), "µs");
		html(&p, "</td><td class=\"num\">");
		html_num(&p, json_object_get(v, "baseline_runs"), NULL);
		html(&p, " / ");
		html_num(&p, json_object_get(v, "candidate_runs"), NULL);
		html(&p, "</td><td>");
		html_text(&p, jstr(v, "reason"));
		html(&p, "</td></tr>\n");
	}
	html(&p, "</table>\n");
done:
	page_end(&p);
	json_decref(list);
	return page_send(req, &p, MHD_HTTP_OK);
}

static void side_row(struct strbuf *p, const char *name, const json_t *side)
{
	const json_t *r;
	size_t i;

	html(p, "<tr><th>%s</th><td>", name);
	html_text(p, jstr(side, "release"));
	if (jstr(side, "version") && *jstr(side, "version")) {
		html(p, " <small>");
		html_text(p, jstr(side, "version"));
		html(p, "</small>");
	}
	if (jstr(side, "source")) {
		html(p, " <small>(");
		html_text(p, jstr(side, "source"));
		html(p, " baseline)</small>");
	}
	html(p, "<br>runs:");
	json_array_foreach(json_object_get(side, "runs"), i, r) {
		if (json_is_integer(r))
			html(p,
			     " <a href=\"/runs/%" JSON_INTEGER_FORMAT
			     "\">%" JSON_INTEGER_FORMAT "</a>",
			     json_integer_value(r), json_integer_value(r));
	}
	if (!json_array_size(json_object_get(side, "runs")))
		html(p, " none");
	html(p, "</td></tr>\n");
}

/* The metrics in the order a maintainer reads them; others follow. */
static const char *const metric_order[] = {
	"p99", "p99.9", "max", "tail_rate", "w1",
};
#define NMETRIC_ORDER (sizeof(metric_order) / sizeof(metric_order[0]))

static bool metric_known(const char *name)
{
	size_t i;

	for (i = 0; i < NMETRIC_ORDER; i++)
		if (!strcmp(name, metric_order[i]))
			return true;
	return false;
}

static void metrics_table(struct strbuf *p, const json_t *metrics)
{
	const char *name;
	json_t *m;
	size_t k;

	html(p, "<table id=\"metrics\">\n<tr><th>metric</th><th>verdict</th>"
		"<th>baseline &rarr; candidate</th><th>effect</th>"
		"<th>interval</th><th>floor</th><th>test</th><th>p</th>"
		"<th>per-run range (baseline; candidate)</th>"
		"<th>reason</th></tr>\n");
	for (k = 0; k < NMETRIC_ORDER + json_object_size(metrics); k++) {
		const char *unit;
		const char *u;
		json_t *rb, *rc;

		if (k < NMETRIC_ORDER) {
			name = metric_order[k];
			m = json_object_get(metrics, name);
		} else {
			/* Metrics this page does not know, as stored. */
			void *it = json_object_iter((json_t *)metrics);
			size_t n;

			for (n = NMETRIC_ORDER; it && n < k; n++)
				it = json_object_iter_next((json_t *)metrics,
							   it);
			name = it ? json_object_iter_key(it) : NULL;
			m = it ? json_object_iter_value(it) : NULL;
			if (name && metric_known(name))
				continue;
		}
		if (!m)
			continue;
		unit = jstr(m, "unit");
		u = unit && !strcmp(unit, "us") ? "µs" : NULL;
		rb = json_object_get(m, "runs_baseline");
		rc = json_object_get(m, "runs_candidate");

		html(p, "<tr class=\"");
		verdict_class(p, jstr(m, "verdict"));
		html(p, "\"><th>");
		html_text(p, name);
		html(p, "</th><td>");
		html_text(p, jstr(m, "verdict"));
		html(p, "</td><td class=\"num\">");
		html_num(p, json_object_get(m, "baseline"), u);
		html(p, " &rarr; ");
		html_num(p, json_object_get(m, "candidate"), u);
		html(p, "</td><td class=\"num\">");
		if (!u && unit && !strcmp(unit, "ratio"))
			u = "×";
		html_num(p, json_object_get(m, "effect"), u);
		html(p, "</td><td>[");
		html_num(p, json_object_get(m, "effect_lo"), NULL);
		html(p, ", ");
		html_num(p, json_object_get(m, "effect_hi"), NULL);
		html(p, "]");
		if (jstr(m, "interval")) {
			html(p, "<br><small>");
			html_text(p, jstr(m, "interval"));
			html(p, "</small>");
		}
		html(p, "</td><td class=\"num\">");
		html_num(p, json_object_get(m, "floor"), NULL);
		html(p, "</td><td>");
		html_text(p, jstr(m, "test"));
		html(p, "</td><td class=\"num\">");
		html_num(p, json_object_get(m, "p_value"), NULL);
		html(p, "</td><td class=\"num\">");
		html_num(p, json_array_get(rb, 0), NULL);
		html(p, "&ndash;");
		html_num(p, json_array_get(rb, 1), NULL);
		html(p, "; ");
		html_num(p, json_array_get(rc, 0), NULL);
		html(p, "&ndash;");
		html_num(p, json_array_get(rc, 1), NULL);
		html(p, "</td><td>");
		html_text(p, jstr(m, "reason"));
		html(p, "</td></tr>\n");
	}
	html(p, "</table>\n");
}

/* The href of a plot of this verdict's series. */
static void plot_href(struct strbuf *p, const json_t *v, const char *plot)
{
	html(p, PLOTS "%s", plot);
	url_arg(p, true, "board", jstr(v, "board"));
	url_arg(p, false, "testcase", jstr(v, "testcase"));
	if (!strncmp(plot, "compare", 7)) {
		html(p,
		     "&amp;baseline=%" JSON_INTEGER_FORMAT
		     "&amp;candidate=%" JSON_INTEGER_FORMAT,
		     json_integer_value(json_object_get(
			     json_object_get(v, "baseline"), "kernel_id")),
		     json_integer_value(json_object_get(
			     json_object_get(v, "candidate"), "kernel_id")));
	} else {
		url_arg(p, false, "tree",
			jstr(json_object_get(v, "candidate"), "tree"));
	}
	url_arg(p, false, "clock", jstr(v, "clock"));
}

static void plot_block(struct strbuf *p, const json_t *v, const char *kind,
		       const char *alt)
{
	char svg[32], png[32];

	snprintf(svg, sizeof(svg), "%s.svg", kind);
	snprintf(png, sizeof(png), "%s.png", kind);
	html(p, "<p><img class=\"plot\" id=\"%s-plot\" src=\"", kind);
	plot_href(p, v, svg);
	html(p,
	     "\" alt=\"%s\" width=\"1000\" height=\"600\"></p>\n"
	     "<p><a href=\"",
	     alt);
	plot_href(p, v, png);
	html(p, "\">PNG</a></p>\n");
}

static const char *const report_fixed[] = {
	"report.txt",
	"report.html",
	"bug.json",
};

static void report_block(struct strbuf *p, PGconn *db, int64_t id)
{
	struct rtlab_err err = { "" };
	json_t *r = NULL, *files, *a;
	const char *dir;
	size_t i;
	int ret;

	html(p, "<h2>Report</h2>\n");
	ret = db_web_report(db, id, &r, &err);
	if (ret == -ENOENT) {
		html(p,
		     "<p id=\"report\">No report yet (<code>rtlab report %" PRId64
		     "</code> writes one).</p>\n",
		     id);
		return;
	}
	if (ret) {
		html(p, "<p id=\"report\">Report unreadable: ");
		html_text(p, err.msg);
		html(p, "</p>\n");
		return;
	}
	files = json_object_get(r, "files");
	dir = jstr(files, "dir");
	html(p, "<div id=\"report\">\n");
	if (jstr(r, "bug_url")) {
		html(p, "<p>Filed as <a href=\"");
		html_text(p, jstr(r, "bug_url"));
		html(p, "\">bug ");
		html_num(p, json_object_get(r, "bug_id"), NULL);
		html(p, "</a> on ");
		html_text(p, jstr(r, "filed_at"));
		html(p, ".</p>\n");
	}
	if (jstr(files, "summary")) {
		html(p, "<p>Summary: <q>");
		html_text(p, jstr(files, "summary"));
		html(p, "</q></p>\n");
	}
	html(p, "<p>Generated ");
	html_text(p, jstr(r, "created_at"));
	if (dir) {
		html(p, " into <code>");
		html_text(p, dir);
		html(p, "</code>");
	}
	html(p, ".</p>\n<ul>\n");
	for (i = 0; dir && i < 3; i++)
		html(p,
		     "<li><a href=\"/verdicts/%" PRId64 "/report/%s\">%s"
		     "</a></li>\n",
		     id, report_fixed[i], report_fixed[i]);
	json_array_foreach(json_object_get(files, "attachments"), i, a) {
		const char *name = json_string_value(a);

		if (!name)
			continue;
		html(p, "<li>");
		if (dir && !strchr(name, '/')) {
			html(p,
			     "<a href=\"/verdicts/%" PRId64
			     "/report/attachments/%02zu-",
			     id, i + 1);
			url_part(p, name, false);
			html(p, ".json\">");
		}
		html(p, "attachment: ");
		html_text(p, name);
		html(p, "%s</li>\n", dir && !strchr(name, '/') ? "</a>" : "");
	}
	html(p, "</ul>\n</div>\n");
	json_decref(r);
}

static int parse_id(const char *s, int64_t *id)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v <= 0)
		return -EINVAL;
	*id = v;
	return 0;
}

static enum MHD_Result verdict_page(struct http_request *req, const char *ref)
{
	struct rtlab_err err = { "" };
	struct strbuf p = { 0 };
	json_t *v = NULL, *details;
	int64_t id;
	int ret;

	if (parse_id(ref, &id))
		return error_page(req, MHD_HTTP_NOT_FOUND, "Not found",
				  "no such verdict (expected a verdict id)");
	ret = db_verdict_get(req->db, id, &v, &err);
	if (ret)
		return db_error_page(req, ret, err.msg);
	details = json_object_get(v, "details");
	page_begin(&p, "Verdict %" PRId64, id);
	html(&p, "<h1>Verdict %" PRId64 ": ", id);
	verdict_badge(&p, jstr(v, "verdict"));
	html(&p, "</h1>\n<p id=\"reason\">");
	html_text(&p, jstr(v, "reason"));
	html(&p, "</p>\n<table id=\"verdict\">\n");
	row_text(&p, "board", jstr(v, "board"));
	row_text(&p, "testcase", jstr(v, "testcase"));
	row_text(&p, "tree", jstr(v, "tree"));
	row_text(&p, "clock", jstr(v, "clock"));
	side_row(&p, "baseline", json_object_get(v, "baseline"));
	side_row(&p, "candidate", json_object_get(v, "candidate"));
	row_text(&p, "computed", jstr(v, "created_at"));
	if (jstr(details, "error"))
		row_text(&p, "error", jstr(details, "error"));
	if (jstr(json_object_get(details, "sequential"), "text"))
		row_text(&p, "look",
			 jstr(json_object_get(details, "sequential"), "text"));
	html(&p, "</table>\n<h2>Metrics</h2>\n");
	if (json_object_size(json_object_get(details, "metrics")))
		metrics_table(&p, json_object_get(details, "metrics"));
	else
		html(&p, "<p>No metrics were computed.</p>\n");
	html(&p, "<h2>Baseline over candidate</h2>\n");
	plot_block(&p, v, "compare",
		   "pooled latency histograms, baseline "
		   "over candidate");
	html(&p, "<h2>Trend across the tree</h2>\n");
	plot_block(&p, v, "trend",
		   "max and p99.9 across the kernels of the "
		   "tree");
	html(&p, "<h2>Long-term view of the tree</h2>\n");
	plot_block(&p, v, "longterm",
		   "every kernel's pooled histogram, oldest at the "
		   "bottom");
	report_block(&p, req->db, id);
	html(&p,
	     "<p><a href=\"/api/v1/verdicts/%" PRId64 "\">verdict as "
	     "JSON</a></p>\n",
	     id);
	page_end(&p);
	json_decref(v);
	return page_send(req, &p, MHD_HTTP_OK);
}

/* A verdict's figure @metric ("max", "p99.9") of side @side, as text. */
static void step_fig(struct strbuf *p, const json_t *v, const char *metric,
		     const char *side)
{
	const json_t *m =
		json_object_get(json_object_get(json_object_get(v, "details"),
						"metrics"),
				metric);

	html_num(p, json_object_get(m, side), "µs");
}

/* One bisection: where it stands, every step with the verdicts against
 * both ends and the figures (max, p99.9) that made them. */
static enum MHD_Result bisect_page(struct http_request *req, const char *ref)
{
	struct rtlab_err err = { "" };
	struct strbuf p = { 0 };
	json_t *b = NULL, *s, *ends;
	int64_t id;
	size_t i;
	int ret;

	if (parse_id(ref, &id))
		return error_page(req, MHD_HTTP_NOT_FOUND, "Not found",
				  "no such bisection (expected an id)");
	ret = bisect_get(req->db, id, &b, &err);
	if (ret)
		return db_error_page(req, ret, err.msg);
	ends = json_object_get(b, "ends_verdict");
	page_begin(&p, "Bisection %" PRId64, id);
	html(&p, "<h1>Bisection %" PRId64 ": ", id);
	html_text(&p, jstr(b, "state"));
	html(&p, "</h1>\n<p id=\"result\">");
	html_text(&p, jstr(b, "result") ? jstr(b, "result") : "in progress");
	html(&p, "</p>\n<table id=\"bisection\">\n");
	row_text(&p, "board", jstr(b, "board"));
	row_text(&p, "testcase", jstr(b, "testcase"));
	row_text(&p, "range", jstr(b, "series"));
	row_text(&p, "good",
		 json_string_value(json_array_get(json_object_get(b, "kernels"),
						  0)));
	row_text(&p, "bad",
		 json_string_value(json_array_get(
			 json_object_get(b, "kernels"),
			 json_array_size(json_object_get(b, "kernels")) - 1)));
	if (jstr(b, "culprit_kernel"))
		row_text(&p, "culprit", jstr(b, "culprit_kernel"));
	row_text(&p, "started", jstr(b, "created_at"));
	html(&p, "</table>\n<h2>Steps</h2>\n<table id=\"steps\">\n"
		 "<tr><th>step</th><th>kernel</th><th>decision</th>"
		 "<th>look</th><th>vs good</th><th>vs bad</th>"
		 "<th>max good / step / bad</th>"
		 "<th>p99.9 good / step / bad</th></tr>\n");
	if (ends && !json_is_null(ends)) {
		html(&p, "<tr><td>ends</td><td>bad against good</td><td>");
		verdict_badge(&p, jstr(ends, "verdict"));
		html(&p, "</td><td></td><td></td><td></td><td>");
		step_fig(&p, ends, "max", "baseline");
		html(&p, " / – / ");
		step_fig(&p, ends, "max", "candidate");
		html(&p, "</td><td>");
		step_fig(&p, ends, "p99.9", "baseline");
		html(&p, " / – / ");
		step_fig(&p, ends, "p99.9", "candidate");
		html(&p, "</td></tr>\n");
	}
	json_array_foreach(json_object_get(b, "steps"), i, s) {
		const json_t *vg = json_object_get(s, "vs_good");
		const json_t *vb = json_object_get(s, "vs_bad");

		html(&p, "<tr><td>%zu</td><td>", i + 1);
		html_text(&p, jstr(s, "kernel"));
		html(&p, "</td><td>");
		html_text(&p, jstr(s, "decision"));
		html(&p, "</td><td>");
		html_num(&p, json_object_get(s, "look"), NULL);
		html(&p, "</td><td>");
		verdict_badge(&p, jstr(vg, "verdict"));
		html(&p, "</td><td>");
		verdict_badge(&p, jstr(vb, "verdict"));
		html(&p, "</td><td>");
		step_fig(&p, vg, "max", "baseline");
		html(&p, " / ");
		step_fig(&p, vg, "max", "candidate");
		html(&p, " / ");
		step_fig(&p, vb, "max", "baseline");
		html(&p, "</td><td>");
		step_fig(&p, vg, "p99.9", "baseline");
		html(&p, " / ");
		step_fig(&p, vg, "p99.9", "candidate");
		html(&p, " / ");
		step_fig(&p, vb, "p99.9", "baseline");
		html(&p, "</td></tr>\n");
	}
	html(&p, "</table>\n");
	page_end(&p);
	json_decref(b);
	return page_send(req, &p, MHD_HTTP_OK);
}

/* A developer's submission: its state, its kernel's and the baseline's
 * jobs with their runs, and its verdicts with their reports. */
static enum MHD_Result submission_page(struct http_request *req,
				       const char *ref)
{
	struct rtlab_err err = { "" };
	struct strbuf p = { 0 };
	json_t *sub = NULL, *j;
	int64_t id;
	size_t i;
	int ret;

	if (parse_id(ref, &id))
		return error_page(req, MHD_HTTP_NOT_FOUND, "Not found",
				  "no such submission (expected an id)");
	ret = db_submission_get(req->db, id, &sub, &err);
	if (ret)
		return db_error_page(req, ret, err.msg);
	page_begin(&p, "Submission %" PRId64, id);
	html(&p, "<h1>Submission %" PRId64 ": ", id);
	html_text(&p, jstr(sub, "state"));
	html(&p, "</h1>\n<p id=\"result\">");
	html_text(&p, jstr(sub, "result") ? jstr(sub, "result") :
					    "its runs are queued or running");
	html(&p, "</p>\n<table id=\"submission\">\n");
	row_text(&p, "developer", jstr(sub, "owner"));
	row_text(&p, "kind", jstr(sub, "kind"));
	row_text(&p, "tree", jstr(sub, "tree"));
	row_text(&p, "kernel", jstr(sub, "kernel"));
	row_text(&p, "baseline", jstr(sub, "baseline"));
	row_text(&p, "submitted", jstr(sub, "created_at"));
	row_text(&p, "finished", jstr(sub, "finished_at"));
	html(&p, "</table>\n<h2>Verdicts</h2>\n<table id=\"verdicts\">\n"
		 "<tr><th>board</th><th>testcase</th><th>verdict</th>"
		 "<th>why</th></tr>\n");
	json_array_foreach(json_object_get(sub, "verdicts"), i, j) {
		html(&p, "<tr><td>");
		html_text(&p, jstr(j, "board"));
		html(&p, "</td><td>");
		html_text(&p, jstr(j, "testcase"));
		html(&p,
		     "</td><td><a href=\"/verdicts/%" JSON_INTEGER_FORMAT "\">",
		     json_integer_value(json_object_get(j, "id")));
		verdict_badge(&p, jstr(j, "verdict"));
		html(&p, "</a></td><td>");
		html_text(&p, jstr(j, "reason") ? jstr(j, "reason") : "");
		html(&p, "</td></tr>\n");
	}
	html(&p, "</table>\n<h2>Jobs</h2>\n<table id=\"jobs\">\n"
		 "<tr><th>job</th><th>side</th><th>board</th><th>testcase</th>"
		 "<th>state</th><th>run or error</th></tr>\n");
	json_array_foreach(json_object_get(sub, "jobs"), i, j) {
		html(&p, "<tr><td>%" JSON_INTEGER_FORMAT "</td><td>",
		     json_integer_value(json_object_get(j, "id")));
		html_text(&p, jstr(j, "side"));
		html(&p, "</td><td>");
		html_text(&p, jstr(j, "board"));
		html(&p, "</td><td>");
		html_text(&p, jstr(j, "testcase"));
		html(&p, "</td><td>");
		html_text(&p, jstr(j, "state"));
		html(&p, "</td><td>");
		if (jstr(j, "run_uuid")) {
			html(&p, "<a href=\"/runs/");
			html_text(&p, jstr(j, "run_uuid"));
			html(&p, "\">run</a>");
		} else {
			html_text(&p, jstr(j, "error") ? jstr(j, "error") : "");
		}
		html(&p, "</td></tr>\n");
	}
	html(&p, "</table>\n");
	page_end(&p);
	json_decref(sub);
	return page_send(req, &p, MHD_HTTP_OK);
}

/* A file of a verdict's report, read back from the directory the report
 * was written to; only the names the report recorded. */
static enum MHD_Result report_file(struct http_request *req, const char *ref,
				   const char *file)
{
	struct rtlab_err err = { "" };
	const char *dir, *ctype = NULL, *name;
	char path[PATH_MAX], want[300];
	json_t *r = NULL, *a;
	enum MHD_Result res;
	struct stat st;
	char *data = NULL;
	int64_t id;
	size_t i;
	int fd = -1, ret;

	if (parse_id(ref, &id))
		return error_page(req, MHD_HTTP_NOT_FOUND, "Not found",
				  "no such verdict (expected a verdict id)");
	ret = db_web_report(req->db, id, &r, &err);
	if (ret) {
		res = db_error_page(req, ret, err.msg);
		goto out;
	}
	dir = jstr(json_object_get(r, "files"), "dir");
	for (i = 0; i < 3; i++)
		if (!strcmp(file, report_fixed[i]))
			ctype = i == 0 ? "text/plain; charset=utf-8" :
				i == 1 ? "text/html; charset=utf-8" :
					 "application/json";
	json_array_foreach(json_object_get(json_object_get(r, "files"),
					   "attachments"),
			   i, a) {
		name = json_string_value(a);
		if (!name || strchr(name, '/'))
			continue;
		snprintf(want, sizeof(want), "attachments/%02zu-%s.json", i + 1,
			 name);
		if (!strcmp(file, want))
			ctype = "application/json";
	}
	if (!ctype || !dir) {
		res = error_page(req, MHD_HTTP_NOT_FOUND, "Not found",
				 "the report of this verdict has no such file");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > REPORT_FILE_MAX) {
		res = error_page(req, MHD_HTTP_NOT_FOUND, "Not found",
				 "the report file is no longer on the server "
				 "(was the report written elsewhere?)");
		goto out;
	}
	data = malloc(st.st_size ? st.st_size : 1);
	if (!data || read(fd, data, st.st_size) != st.st_size) {
		res = error_page(req, MHD_HTTP_INTERNAL_SERVER_ERROR,
				 "Read error",
				 "the report file could not be "
				 "read");
		goto out;
	}
	/* report.html carries its own <style>; nothing else runs. */
	res = http_respond(req, MHD_HTTP_OK, ctype, data, st.st_size,
			   "Content-Security-Policy",
			   "default-src 'none'; style-src 'unsafe-inline'; "
			   "img-src 'self'; frame-ancestors 'none'");
out:
	if (fd >= 0)
		close(fd);
	free(data);
	json_decref(r);
	return res;
}

static enum MHD_Result plot_answer(struct http_request *req,
				   const struct web_match *m)
{
	static const char *const need_compare[] = {
		"board",
		"testcase",
		"baseline",
		"candidate",
	};
	struct rtlab_err err = { "" };
	void *img = NULL;
	size_t size = 0, i, nneed;
	enum MHD_Result r;
	int ret;

	nneed = m->route == WEB_PLOT_COMPARE ? 4 : 2;
	for (i = 0; i < nneed; i++) {
		const char *v = http_query(req, need_compare[i]);

		if (!v || !*v)
			return http_respond_error(
				req, MHD_HTTP_BAD_REQUEST,
				"%s: missing query '%s' (expected %s)",
				req->path, need_compare[i],
				m->route == WEB_PLOT_COMPARE ?
					"board, testcase, baseline, "
					"candidate and optionally clock" :
					"board, testcase and optionally "
					"tree and clock");
	}
	if (m->route == WEB_PLOT_COMPARE) {
		struct reporting_compare_query q = {
			http_query(req, "board"),
			http_query(req, "testcase"),
			http_query(req, "baseline"),
			http_query(req, "candidate"),
			http_query(req, "clock"),
		};

		if (q.clock && !*q.clock)
			q.clock = NULL;
		ret = reporting_plot_compare(req->db, &q, m->fmt, &img, &size,
					     &err);
	} else {
		struct reporting_trend_query q = {
			http_query(req, "board"),
			http_query(req, "testcase"),
			http_query(req, "tree"),
			http_query(req, "clock"),
		};

		const char *nk = http_query(req, "kernels");
		unsigned long kernels = REPORTING_LONGTERM_DEFAULT;
		char *end = NULL;

		if (q.clock && !*q.clock)
			q.clock = NULL;
		if (m->route == WEB_PLOT_TREND)
			ret = reporting_plot_trend(req->db, &q, m->fmt, &img,
						   &size, &err);
		else if (nk && (kernels = strtoul(nk, &end, 10),
				!*nk || *end || kernels > UINT_MAX))
			ret = rtlab_err_set(&err,
					    "kernels '%s': expected a number "
					    "from 1 to %d",
					    nk, REPORTING_LONGTERM_MAX);
		else
			ret = reporting_plot_longterm(req->db, &q,
						      (unsigned int)kernels,
						      m->fmt, &img, &size,
						      &err);
	}
	if (ret)
		r = http_respond_error(req, http_errno_status(ret), "%s",
				       err.msg);
	else
		r = http_respond(req, MHD_HTTP_OK,
				 m->fmt == PLOT_SVG ? "image/svg+xml" :
						      "image/png",
				 img, size, NULL, NULL);
	free(img);
	return r;
}

/* The night of the farm: jobs per tree and board, the farm's verdicts. */
static enum MHD_Result farm_page(struct http_request *req)
{
	struct rtlab_err err = { "" };
	struct strbuf p = { 0 };
	json_t *st = NULL, *x;
	size_t i;
	int ret;

	ret = db_farm_status(req->db, 24, &st, &err);
	if (ret)
		return db_error_page(req, ret, err.msg);
	page_begin(&p, "Farm");
	html(&p, "<h1>The farm: the last 24 hours</h1>\n");
	ret = boards_table(req, &p, &err);
	if (ret) {
		strbuf_cleanup(&p);
		json_decref(st);
		return db_error_page(req, ret, err.msg);
	}
	html(&p, "<h2>Jobs</h2>\n");
	html(&p, "<table id=\"farm\">\n<tr><th>tree</th><th>board</th>"
		 "<th>queued</th><th>running</th><th>done</th>"
		 "<th>failed</th></tr>\n");
	json_array_foreach(json_object_get(st, "cells"), i, x) {
		html(&p, "<tr><td>");
		html_text(&p, jstr(x, "tree"));
		html(&p, "</td><td>");
		html_text(&p, jstr(x, "board"));
		html(&p, "</td><td class=\"num\">");
		html_num(&p, json_object_get(x, "queued"), NULL);
		html(&p, "</td><td class=\"num\">");
		html_num(&p, json_object_get(x, "running"), NULL);
		html(&p, "</td><td class=\"num\">");
		html_num(&p, json_object_get(x, "done"), NULL);
		html(&p, "</td><td class=\"num\">");
		html_num(&p, json_object_get(x, "failed"), NULL);
		html(&p, "</td></tr>\n");
	}
	html(&p, "</table>\n<h2>Verdicts of the trees' kernels</h2>\n"
		 "<table id=\"farm-verdicts\">\n<tr><th>verdict</th>"
		 "<th>tree</th><th>kernel</th><th>board</th>"
		 "<th>testcase</th></tr>\n");
	json_array_foreach(json_object_get(st, "verdicts"), i, x) {
		html(&p, "<tr class=\"");
		verdict_class(&p, jstr(x, "verdict"));
		html(&p,
		     "\"><td><a href=\"/verdicts/%" JSON_INTEGER_FORMAT "\">",
		     json_integer_value(json_object_get(x, "id")));
		html_text(&p, jstr(x, "verdict"));
		html(&p, "</a></td><td>");
		html_text(&p, jstr(x, "tree"));
		html(&p, "</td><td>");
		html_text(&p, jstr(x, "kernel"));
		html(&p, "</td><td>");
		html_text(&p, jstr(x, "board"));
		html(&p, "</td><td>");
		html_text(&p, jstr(x, "testcase"));
		html(&p, "</td></tr>\n");
	}
	html(&p, "</table>\n");
	page_end(&p);
	json_decref(st);
	return page_send(req, &p, MHD_HTTP_OK);
}

enum MHD_Result web_handle(struct http_request *req)
{
	struct web_match m;

	web_route(req->path, &m);
	if (m.route == WEB_STYLE)
		return http_respond(req, MHD_HTTP_OK, "text/css; charset=utf-8",
				    style_css, sizeof(style_css) - 1,
				    "Cache-Control", "max-age=3600");
	if (!req->db) {
		if (is_plot(m.route))
			return http_respond_error(req,
						  MHD_HTTP_SERVICE_UNAVAILABLE,
						  "database unavailable: %s",
						  req->db_error);
		return error_page(req, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "Database unavailable", req->db_error);
	}
	switch (m.route) {
	case WEB_OVERVIEW:
		return overview(req);
	case WEB_REGRESSIONS:
		return regressions(req);
	case WEB_FARM:
		return farm_page(req);
	case WEB_RUN:
		return run_page(req, m.ref);
	case WEB_VERDICT:
		return verdict_page(req, m.ref);
	case WEB_REPORT_FILE:
		return report_file(req, m.ref, m.file);
	case WEB_BISECT:
		return bisect_page(req, m.ref);
	case WEB_SUBMISSION:
		return submission_page(req, m.ref);
	case WEB_PLOT_COMPARE:
	case WEB_PLOT_TREND:
	case WEB_PLOT_LONGTERM:
		return plot_answer(req, &m);
	default:
		return error_page(req, MHD_HTTP_NOT_FOUND, "Not found",
				  "no such page");
	}
}
