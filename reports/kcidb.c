// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KCIDB export: the lab's kernels, runs and regressions in the KernelCI
 * common reporting schema v5.3, and a validator of the rules the export
 * relies on, so a document that would be refused is never written.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kcidb.h"
#include "report.h"

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? s : NULL;
}

static bool origin_ok(const char *o)
{
	if (!o || !*o)
		return false;
	for (; *o; o++)
		if (!islower((unsigned char)*o) &&
		    !isdigit((unsigned char)*o) && *o != '_')
			return false;
	return true;
}

char *kcidb_test_path(const char *testcase)
{
	size_t n = strlen(testcase), i, o = 0;
	char *p = malloc(n + 8);
	bool dot = true;

	if (!p)
		return NULL;
	o = (size_t)sprintf(p, "rtlab");
	for (i = 0; i < n; i++) {
		unsigned char c = testcase[i];

		if (c == '-' || c == '.' || c == '/') {
			dot = true;
			continue;
		}
		if (!isalnum(c) && c != '_')
			c = '_';
		if (dot) {
			p[o++] = '.';
			dot = false;
		}
		p[o++] = tolower(c);
	}
	p[o] = '\0';
	return p;
}

static const char *test_status(const char *run_status, bool regressed)
{
	if (!run_status)
		return "ERROR";
	if (!strcmp(run_status, "complete"))
		return regressed ? "FAIL" : "PASS";
	if (!strcmp(run_status, "panic") || !strcmp(run_status, "hang"))
		return "FAIL";
	if (!strcmp(run_status, "boot_failed"))
		return "MISS";
	return "ERROR";
}

static bool iso_time(const char *s, time_t *t)
{
	struct tm tm = { 0 };
	const char *end;

	if (!s)
		return false;
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return false;
	*t = timegm(&tm);
	return true;
}

/* KCIDB allows missing properties, never null ones: drop them. */
static json_t *drop_nulls(json_t *o)
{
	const char *key;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(o, tmp, key, v)
		if (json_is_null(v))
			json_object_del(o, key);
	return o;
}

/* Set @key to a copy of string @val when it is a non-empty string. */
static int set_str(json_t *o, const char *key, const char *val)
{
	if (!val || !*val)
		return 0;
	return json_object_set_new(o, key, json_string(val));
}

static bool in_ids(const json_t *ids, json_int_t id)
{
	const json_t *v;
	size_t i;

	json_array_foreach(ids, i, v)
		if (json_integer_value(v) == id)
			return true;
	return false;
}

/* Whether run @id is a candidate of one of the regressions. */
static bool regressed_run(const json_t *data, json_int_t id)
{
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(data, "regressions"), i, v)
		if (in_ids(json_object_get(v, "candidate_runs"), id))
			return true;
	return false;
}

/* The machine of the first run of kernel @kid, for the build's arch. */
static const char *kernel_arch(const json_t *data, json_int_t kid)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(data, "runs"), i, r)
		if (json_integer_value(json_object_get(r, "kernel_id")) ==
			    kid &&
		    jstr(r, "machine"))
			return jstr(r, "machine");
	return "x86_64";
}

static const json_t *kernel_by_id(const json_t *data, json_int_t kid)
{
	const json_t *k;
	size_t i;

	json_array_foreach(json_object_get(data, "kernels"), i, k)
		if (json_integer_value(json_object_get(k, "id")) == kid)
			return k;
	return NULL;
}

static int add_kernel(json_t *doc, const json_t *data, const json_t *k,
		      const char *origin)
{
	json_int_t id = json_integer_value(json_object_get(k, "id"));
	json_t *co, *b, *misc;
	char cid[96], bid[96], comment[512];
	const char *commit = jstr(k, "commit"), *arch;
	bool hex = commit && (strlen(commit) == 40 || strlen(commit) == 64);
	int bad = 0;

	snprintf(cid, sizeof(cid), "%s:kernel-%" JSON_INTEGER_FORMAT, origin,
		 id);
	snprintf(bid, sizeof(bid), "%s:build-%" JSON_INTEGER_FORMAT, origin,
		 id);
	snprintf(comment, sizeof(comment), "%s %s",
		 jstr(k, "release") ? jstr(k, "release") : "?",
		 jstr(k, "version") ? jstr(k, "version") : "");
	for (size_t i = 0; hex && commit[i]; i++)
		hex = isxdigit((unsigned char)commit[i]) &&
		      !isupper((unsigned char)commit[i]);
	misc = json_pack("{s:s?, s:s?, s:s?, s:s?}", "release",
			 jstr(k, "release"), "version", jstr(k, "version"),
			 "config_sha256", jstr(k, "config_sha256"), "name",
			 jstr(k, "name"));
	if (misc && json_is_boolean(json_object_get(k, "realtime")))
		bad |= json_object_set(misc, "realtime",
				       json_object_get(k, "realtime"));
	co = json_pack("{s:s, s:s, s:s, s:b, s:o}", "id", cid, "origin", origin,
		       "comment", comment, "valid", 1, "misc",
		       drop_nulls(misc));
	if (!co)
		return -ENOMEM;
	bad |= set_str(co, "tree_name", jstr(k, "tree"));
	if (hex)
		bad |= set_str(co, "git_commit_hash", commit);
	bad |= set_str(co, "start_time", jstr(k, "created_at"));
	bad |= json_array_append_new(json_object_get(doc, "checkouts"), co);

	arch = kernel_arch(data, id);
	b = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id", bid,
		      "checkout_id", cid, "origin", origin, "architecture",
		      !strcmp(arch, "amd64") ? "x86_64" : arch, "config_name",
		      json_is_true(json_object_get(k, "realtime")) ?
			      "preempt_rt" :
			      "default",
		      "status", "PASS", "comment",
		      "prebuilt kernel image, booted by the lab");
	if (!b)
		return -ENOMEM;
	if (jstr(k, "config_sha256"))
		bad |= json_object_set_new(b, "misc",
					   json_pack("{s:s}", "config_sha256",
						     jstr(k, "config_sha256")));
	bad |= json_array_append_new(json_object_get(doc, "builds"), b);
	return bad ? -ENOMEM : 0;
}

static int add_run(json_t *doc, const json_t *data, const json_t *r,
		   const char *origin)
{
	json_int_t id = json_integer_value(json_object_get(r, "id"));
	const char *status =
		test_status(jstr(r, "status"), regressed_run(data, id));
	json_t *t, *max = json_object_get(r, "max_us");
	char tid[96], bid[96], comment[256];
	char *path = kcidb_test_path(jstr(r, "testcase") ? jstr(r, "testcase") :
							   "unknown");
	time_t t0, t1;
	int bad = 0;

	if (!path)
		return -ENOMEM;
	snprintf(tid, sizeof(tid), "%s:run-%s", origin,
		 jstr(r, "uuid") ? jstr(r, "uuid") : "?");
	snprintf(bid, sizeof(bid), "%s:build-%" JSON_INTEGER_FORMAT, origin,
		 json_integer_value(json_object_get(r, "kernel_id")));
	if (json_is_number(max))
		snprintf(comment, sizeof(comment),
			 "%s on %s: max latency "
			 "%.0f us (run %" JSON_INTEGER_FORMAT ", clock %s)",
			 jstr(r, "testcase"), jstr(r, "board"),
			 json_number_value(max), id, jstr(r, "clock"));
	else
		snprintf(comment, sizeof(comment),
			 "%s on %s: %s (run %" JSON_INTEGER_FORMAT ")",
			 jstr(r, "testcase"), jstr(r, "board"),
			 jstr(r, "status"), id);
	t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:{s:s, s:s}}, "
		      "s:{s:I, s:s, s:s, s:s, s:s}}",
		      "id", tid, "build_id", bid, "origin", origin, "path",
		      path, "status", status, "comment", comment, "environment",
		      "comment", jstr(r, "board"), "misc", "board",
		      jstr(r, "board"), "clock",
		      jstr(r, "clock") ? jstr(r, "clock") : "host", "misc",
		      "run_id", id, "uuid", jstr(r, "uuid"), "run_status",
		      jstr(r, "status"), "board", jstr(r, "board"), "clock",
		      jstr(r, "clock") ? jstr(r, "clock") : "host");
	free(path);
	if (!t)
		return -ENOMEM;
	/* The number is the test's output only when the test ran. */
	if (json_is_number(max) && strcmp(status, "MISS"))
		bad |= json_object_set_new(t, "number",
					   json_pack("{s:f, s:s, s:s}", "value",
						     json_number_value(max) /
							     1e6,
						     "unit", "s", "prefix",
						     "metric"));
	if (json_is_number(json_object_get(r, "samples")))
		bad |= json_object_set(json_object_get(t, "misc"), "samples",
				       json_object_get(r, "samples"));
	bad |= set_str(t, "start_time", jstr(r, "started_at"));
	if (iso_time(jstr(r, "started_at"), &t0) &&
	    iso_time(jstr(r, "finished_at"), &t1) && t1 >= t0)
		bad |= json_object_set_new(t, "duration",
					   json_real((double)(t1 - t0)));
	bad |= json_array_append_new(json_object_get(doc, "tests"), t);
	return bad ? -ENOMEM : 0;
}

static int add_regression(json_t *doc, const json_t *data, const json_t *v,
			  const char *origin)
{
	json_int_t vid = json_integer_value(json_object_get(v, "id"));
	json_int_t ck =
		json_integer_value(json_object_get(v, "candidate_kernel_id"));
	json_int_t bk =
		json_integer_value(json_object_get(v, "baseline_kernel_id"));
	const json_t *kc = kernel_by_id(data, ck), *kb = kernel_by_id(data, bk);
	const json_t *r;
	json_t *ctx, *issue;
	char iid[96], *subject;
	size_t i;
	int bad = 0;

	snprintf(iid, sizeof(iid), "%s:verdict-%" JSON_INTEGER_FORMAT, origin,
		 vid);
	ctx = json_pack("{s:{s:s?}, s:{s:s?}, s:{s:s?, s:s?, s:O?}, "
			"s:{s:s?, s:s?, s:O?}, s:O?}",
			"board", "name", jstr(v, "board"), "testcase", "name",
			jstr(v, "testcase"), "candidate", "release",
			jstr(kc, "release"), "tree", jstr(kc, "tree"),
			"realtime", json_object_get(kc, "realtime"), "baseline",
			"release", jstr(kb, "release"), "tree",
			jstr(kb, "tree"), "realtime",
			json_object_get(kb, "realtime"), "details",
			json_object_get(v, "details"));
	subject = ctx ? report_summary(ctx) : NULL;
	json_decref(ctx);
	if (!subject)
		return -ENOMEM;
	issue = json_pack("{s:s, s:i, s:s, s:s, s:[s], s:{s:b, s:b, s:b}, "
			  "s:s, s:{s:I, s:s?, s:s?}}",
			  "id", iid, "version", 1, "origin", origin,
			  "report_subject", subject, "categories",
			  "latency.regression", "culprit", "code", 1, "tool", 0,
			  "harness", 0, "comment", subject, "misc",
			  "verdict_id", vid, "board", jstr(v, "board"),
			  "testcase", jstr(v, "testcase"));
	free(subject);
	if (!issue)
		return -ENOMEM;
	drop_nulls(json_object_get(issue, "misc"));
	bad |= set_str(issue, "report_url", jstr(v, "bug_url"));
	bad |= json_array_append_new(json_object_get(doc, "issues"), issue);

	json_array_foreach(json_object_get(data, "runs"), i, r) {
		json_int_t id = json_integer_value(json_object_get(r, "id"));
		char nid[160], tid[96], bid[96];

		if (!in_ids(json_object_get(v, "candidate_runs"), id))
			continue;
		snprintf(nid, sizeof(nid),
			 "%s:verdict-%" JSON_INTEGER_FORMAT "-run-%s", origin,
			 vid, jstr(r, "uuid"));
		snprintf(tid, sizeof(tid), "%s:run-%s", origin,
			 jstr(r, "uuid"));
		snprintf(bid, sizeof(bid), "%s:build-%" JSON_INTEGER_FORMAT,
			 origin, ck);
		bad |= json_array_append_new(
			json_object_get(doc, "incidents"),
			json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:b}", "id",
				  nid, "origin", origin, "issue_id", iid,
				  "issue_version", 1, "test_id", tid,
				  "build_id", bid, "present", 1));
	}
	return bad ? -ENOMEM : 0;
}

json_t *kcidb_build(const json_t *data, const char *origin,
		    struct rtlab_err *err)
{
	const json_t *o;
	json_t *doc;
	size_t i;
	int ret = 0;

	if (!origin_ok(origin)) {
		rtlab_err_set(err,
			      "--origin '%s': expected lower-case letters, "
			      "digits and '_' (KCIDB origin names)",
			      origin ? origin : "");
		return NULL;
	}
	doc = json_pack("{s:{s:i, s:i}, s:[], s:[], s:[], s:[], s:[]}",
			"version", "major", KCIDB_MAJOR, "minor", KCIDB_MINOR,
			"checkouts", "builds", "tests", "issues", "incidents");
	if (!doc)
		goto nomem;
	json_array_foreach(json_object_get(data, "kernels"), i, o)
		if (!ret)
			ret = add_kernel(doc, data, o, origin);
	json_array_foreach(json_object_get(data, "runs"), i, o)
		if (!ret)
			ret = add_run(doc, data, o, origin);
	json_array_foreach(json_object_get(data, "regressions"), i, o)
		if (!ret)
			ret = add_regression(doc, data, o, origin);
	if (!ret)
		return doc;
	json_decref(doc);
nomem:
	rtlab_err_seterr(err, ENOMEM, "KCIDB export: out of memory");
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Validation */

struct list_rule {
	const char *list;
	const char *const *required;
	const char *const *refs; /* "field=list" */
};

static const char *const req_checkout[] = { "id", "origin", NULL };
static const char *const req_build[] = { "checkout_id", "id", "origin", NULL };
static const char *const req_test[] = { "build_id", "id", "origin", NULL };
static const char *const req_issue[] = { "id", "version", "origin", NULL };
static const char *const req_incident[] = { "id", "origin", "issue_id",
					    "issue_version", NULL };
static const char *const ref_build[] = { "checkout_id=checkouts", NULL };
static const char *const ref_test[] = { "build_id=builds", NULL };
static const char *const ref_incident[] = { "issue_id=issues", "test_id=tests",
					    "build_id=builds", NULL };
static const char *const ref_none[] = { NULL };

static const struct list_rule rules[] = {
	{ "checkouts", req_checkout, ref_none },
	{ "builds", req_build, ref_build },
	{ "tests", req_test, ref_test },
	{ "issues", req_issue, ref_none },
	{ "incidents", req_incident, ref_incident },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

static bool has_id(const json_t *list, const char *id)
{
	const json_t *o;
	size_t i;

	json_array_foreach(list, i, o)
		if (jstr(o, "id") && !strcmp(jstr(o, "id"), id))
			return true;
	return false;
}

/* -1 when there is no null anywhere under @v, else 1. */
static int find_null(const json_t *v, char *where, size_t n)
{
	const char *key;
	json_t *e;
	size_t i;

	if (json_is_null(v))
		return 1;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, e)
			if (find_null(e, where, n) > 0) {
				if (!*where)
					snprintf(where, n, "%s", key);
				return 1;
			}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			if (find_null(e, where, n) > 0)
				return 1;
	}
	return -1;
}

static bool is_status(const char *s)
{
	static const char *const st[] = { "FAIL", "ERROR", "MISS", "PASS",
					  "DONE", "SKIP",  NULL };
	size_t i;

	for (i = 0; s && st[i]; i++)
		if (!strcmp(s, st[i]))
			return true;
	return false;
}

static bool is_path(const char *p)
{
	bool start = true;

	if (!p)
		return false;
	if (!*p)
		return true; /* the root of the tree */
	for (; *p; p++) {
		if (*p == '.') {
			if (start)
				return false;
			start = true;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
		start = false;
	}
	return !start;
}

int kcidb_validate(const json_t *doc, const char *origin, struct rtlab_err *err)
{
	const json_t *ver = json_object_get(doc, "version"), *o, *v;
	char prefix[80], where[64] = "";
	const char *key;
	size_t r, i, k;

	if (!json_is_object(doc))
		return rtlab_err_set(err, "KCIDB: expected a JSON object");
	json_object_foreach((json_t *)doc, key, v) {
		bool known = !strcmp(key, "version");

		for (r = 0; r < NRULES; r++)
			known |= !strcmp(key, rules[r].list);
		if (!known)
			return rtlab_err_set(err,
					     "KCIDB: unknown top-level "
					     "field '%s'",
					     key);
	}
	if (!json_is_integer(json_object_get(ver, "major")) ||
	    json_integer_value(json_object_get(ver, "major")) != KCIDB_MAJOR ||
	    (json_object_get(ver, "minor") &&
	     (!json_is_integer(json_object_get(ver, "minor")) ||
	      json_integer_value(json_object_get(ver, "minor")) < 0 ||
	      json_integer_value(json_object_get(ver, "minor")) > KCIDB_MINOR)))
		return rtlab_err_set(err,
				     "KCIDB: version: expected {\"major\": "
				     "%d, \"minor\": 0..%d}",
				     KCIDB_MAJOR, KCIDB_MINOR);
	if (find_null(doc, where, sizeof(where)) > 0)
		return rtlab_err_set(err,
				     "KCIDB: null value (field '%s'): "
				     "properties may be missing, never null",
				     where);
	snprintf(prefix, sizeof(prefix), "%s:", origin);
	for (r = 0; r < NRULES; r++) {
		const json_t *list = json_object_get(doc, rules[r].list);

		if (list && !json_is_array(list))
			return rtlab_err_set(err,
					     "KCIDB: %s: expected an "
					     "array",
					     rules[r].list);
		json_array_foreach(list, i, o) {
			if (!json_is_object(o))
				return rtlab_err_set(err,
						     "KCIDB: %s[%zu]: "
						     "expected an object",
						     rules[r].list, i);
			for (k = 0; rules[r].required[k]; k++)
				if (!json_object_get(o, rules[r].required[k]))
					return rtlab_err_set(
						err,
						"KCIDB: %s[%zu]: missing "
						"required field '%s'",
						rules[r].list, i,
						rules[r].required[k]);
			if (!jstr(o, "origin") ||
			    strcmp(jstr(o, "origin"), origin))
				return rtlab_err_set(err,
						     "KCIDB: %s[%zu]: "
						     "origin: expected '%s'",
						     rules[r].list, i, origin);
			json_object_foreach((json_t *)o, key, v) {
				size_t kl = strlen(key);

				if (strcmp(key, "id") &&
				    (kl < 3 || strcmp(key + kl - 3, "_id")))
					continue;
				if (!json_is_string(v) ||
				    strncmp(json_string_value(v), prefix,
					    strlen(prefix)) ||
				    !json_string_value(v)[strlen(prefix)])
					return rtlab_err_set(
						err,
						"KCIDB: %s[%zu]: %s: expected "
						"'%sID'",
						rules[r].list, i, key, prefix);
			}
			for (k = 0; rules[r].refs[k]; k++) {
				char f[32];
				const char *eq = strchr(rules[r].refs[k], '=');
				const char *id;

				snprintf(f, sizeof(f), "%.*s",
					 (int)(eq - rules[r].refs[k]),
					 rules[r].refs[k]);
				id = jstr(o, f);
				if (id &&
				    !has_id(json_object_get(doc, eq + 1), id))
					return rtlab_err_set(
						err,
						"KCIDB: %s[%zu]: %s '%s' names "
						"no object of %s",
						rules[r].list, i, f, id,
						eq + 1);
			}
			if (json_object_get(o, "status") &&
			    !is_status(jstr(o, "status")))
				return rtlab_err_set(
					err,
					"KCIDB: %s[%zu]: "
					"status: expected FAIL, ERROR, MISS, "
					"PASS, DONE or SKIP",
					rules[r].list, i);
			if (json_object_get(o, "path") &&
			    !is_path(json_string_value(json_object_get(o,
								       "path"))))
				return rtlab_err_set(
					err,
					"KCIDB: %s[%zu]: "
					"path: expected dot-separated names",
					rules[r].list, i);
			v = json_object_get(o, "number");
			if (v && (!json_is_object(v) ||
				  !json_is_number(json_object_get(v, "value"))))
				return rtlab_err_set(
					err,
					"KCIDB: %s[%zu]: "
					"number: expected {\"value\": N, ...}",
					rules[r].list, i);
			v = json_object_get(o, "version");
			if (v &&
			    (!json_is_integer(v) || json_integer_value(v) < 0))
				return rtlab_err_set(
					err,
					"KCIDB: %s[%zu]: "
					"version: expected an integer >= 0",
					rules[r].list, i);
		}
	}
	return 0;
}
