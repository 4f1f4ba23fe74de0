// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Verdicts of a series: which runs are compared (a kernel's complete runs
 * on one board, testcase and clock), with which parameters (the testcase
 * definition's "verdict" object), the comparison itself (regress_compare)
 * and its one JSON shape, whether it comes from the database (after an
 * upload, rtlab compare, the API) or from result bundles on disk.  Also
 * the text people read; the HTTP endpoints live in server/api-verdicts.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle-hists.h"
#include "bundle.h"
#include "cyclictest.h"
#include "../db/db-boards.h"
#include "../db/db-verdicts.h"
#include "log.h"
#include "manifest.h"
#include "verdict.h"

/* Metrics in the order people read them (jsonb does not keep order). */
static const char *const metric_order[] = { "p99", "p99.9", "max", "tail_rate",
					    "w1" };

/* ------------------------------------------------------------------ */
/* Parameters                                                          */

int verdict_params_parse(json_t *def, const char *testcase,
			 struct regress_params *p, struct rtlab_err *err)
{
	double floor_us = NAN, floor_abs_us = NAN;
	struct regress_params q;
	struct regress_seq seq;
	const char *key;
	json_t *v, *val;

	regress_params_init(p);
	if (!json_is_object(def))
		return 0;
	v = json_object_get(def, "verdict");
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return rtlab_err_set(err,
				     "testcase '%s' definition: 'verdict': "
				     "expected an object {floor_us, floor_rel, "
				     "tail_q, alpha, min_runs, looks}",
				     testcase);
	q = *p;
	json_object_foreach(v, key, val) {
		double x;

		if (!json_is_number(val))
			return rtlab_err_set(err,
					     "testcase '%s' definition: "
					     "verdict.%s: expected a number",
					     testcase, key);
		x = json_number_value(val);
		if (!strcmp(key, "floor_us") || !strcmp(key, "floor_abs_us")) {
			if (!isfinite(x) || x < 0)
				return rtlab_err_set(
					err,
					"testcase '%s' definition: "
					"verdict.%s: expected a floor in us "
					">= 0, got %g",
					testcase, key, x);
			if (!strcmp(key, "floor_us"))
				floor_us = x;
			else
				floor_abs_us = x;
		} else if (!strcmp(key, "floor_rel")) {
			if (!isfinite(x) || x < 0 || x > 1)
				return rtlab_err_set(
					err,
					"testcase '%s' definition: "
					"verdict.floor_rel: expected a "
					"fraction from 0 to 1 (0.10 = 10 %%), "
					"got %g",
					testcase, x);
			q.floor_rel = x;
		} else if (!strcmp(key, "tail_q")) {
			if (!(x > 0.5 && x < 1))
				return rtlab_err_set(
					err,
					"testcase '%s' definition: "
					"verdict.tail_q: expected a quantile "
					"between 0.5 and 1, e.g. 0.999, got %g",
					testcase, x);
			q.tail_q = x;
		} else if (!strcmp(key, "alpha")) {
			if (!(x > 0 && x <= 0.5))
				return rtlab_err_set(
					err,
					"testcase '%s' definition: "
					"verdict.alpha: expected a level in "
					"(0, 0.5], e.g. 0.05, got %g",
					testcase, x);
			q.alpha = x;
		} else if (!strcmp(key, "min_runs")) {
			if (!(x >= 2 && x <= 1000) || x != floor(x))
				return rtlab_err_set(
					err,
					"testcase '%s' definition: "
					"verdict.min_runs: expected a whole "
					"number of runs from 2 to 1000, got %g",
					testcase, x);
			q.min_runs = (unsigned int)x;
		} else if (!strcmp(key, "looks")) {
			if (!(x >= 1 && x <= REGRESS_MAX_LOOKS) ||
			    x != floor(x))
				return rtlab_err_set(
					err,
					"testcase '%s' definition: "
					"verdict.looks: expected a whole "
					"number of planned looks from 1 to %d, "
					"got %g",
					testcase, REGRESS_MAX_LOOKS, x);
			q.looks = (unsigned int)x;
		} else {
			return rtlab_err_set(err,
					     "testcase '%s' definition: "
					     "verdict.%s: unknown key "
					     "(expected floor_us, floor_rel, "
					     "tail_q, alpha, min_runs or looks)",
					     testcase, key);
		}
	}
	if (!isnan(floor_us) && !isnan(floor_abs_us) &&
	    floor_us != floor_abs_us)
		return rtlab_err_set(err,
				     "testcase '%s' definition: "
				     "verdict.floor_us (%g) and "
				     "verdict.floor_abs_us (%g) conflict; give "
				     "one floor",
				     testcase, floor_us, floor_abs_us);
	if (!isnan(floor_us))
		q.floor_abs_us = floor_us;
	else if (!isnan(floor_abs_us))
		q.floor_abs_us = floor_abs_us;
	if (regress_plan(&q, 0, &seq, err)) {
		rtlab_err_prefix(err, "testcase '%s' definition: verdict",
				 testcase);
		return -EINVAL;
	}
	*p = q;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Results and their JSON                                              */

/* An all-INCONCLUSIVE result saying @why: regress_compare() of no runs
 * fills every metric's name and an INCONCLUSIVE result; only the reason
 * is ours. */
static void result_unusable(struct regress_result *res, const char *why)
{
	struct regress_params d;
	unsigned int i;

	regress_params_init(&d);
	if (regress_compare(NULL, 0, NULL, 0, &d, res, NULL))
		res->verdict = REGRESS_INCONCLUSIVE;
	res->verdict = REGRESS_INCONCLUSIVE;
	res->more_runs = 0;
	snprintf(res->reason, sizeof(res->reason), "%s", why);
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		res->metrics[i].verdict = REGRESS_INCONCLUSIVE;
		res->metrics[i].more_runs = 0;
		snprintf(res->metrics[i].reason, sizeof(res->metrics[i].reason),
			 "not compared: see the verdict's reason");
	}
}

static int set_str(json_t *o, const char *key, const char *s)
{
	return json_object_set_new(o, key, s ? json_string(s) : json_null());
}

/*
 * The verdict JSON: @names (db_verdict_names() shape, reference stolen)
 * completed with the series, the result and the runs (references stolen).
 */
static int verdict_json(json_t *names, const char *tree, const char *clock,
			const char *source, const struct regress_result *res,
			json_t *base_runs, json_t *cand_runs, const char *error,
			json_t **out, struct rtlab_err *err)
{
	json_t *details = NULL, *b, *c;
	json_error_t jerr;
	char *text;
	int bad = 0;

	*out = NULL;
	text = regress_result_json(res);
	if (text)
		details = json_loads(text, 0, &jerr);
	free(text);
	b = json_object_get(names, "baseline");
	c = json_object_get(names, "candidate");
	if (!details || !b || !c || !base_runs || !cand_runs)
		goto nomem;
	bad |= set_str(details, "clock", clock);
	bad |= set_str(details, "tree", tree);
	bad |= set_str(details, "baseline_source", source);
	if (error) {
		bad |= set_str(details, "error", error);
		/* regress_result.reason is short; keep the whole message */
		bad |= set_str(details, "reason", error);
	}
	bad |= set_str(names, "tree", tree);
	bad |= set_str(names, "clock", clock);
	bad |= set_str(names, "verdict", regress_verdict_name(res->verdict));
	bad |= json_object_set(names, "reason",
			       json_object_get(details, "reason"));
	bad |= set_str(b, "source", source);
	bad |= json_object_set_new(b, "runs", base_runs);
	base_runs = NULL;
	bad |= json_object_set_new(c, "runs", cand_runs);
	cand_runs = NULL;
	bad |= json_object_set_new(names, "details", details);
	details = NULL;
	if (bad)
		goto nomem;
	*out = names;
	return 0;
nomem:
	json_decref(details);
	json_decref(base_runs);
	json_decref(cand_runs);
	json_decref(names);
	return rtlab_err_seterr(err, ENOMEM, "verdict: out of memory");
}

/* ------------------------------------------------------------------ */
/* From the database                                                   */

/* regress_run views of loaded runs; @labels gets the run ids as text. */
static int runs_view(const struct series_runs *s, const char *board,
		     const char *testcase, const char *clock,
		     struct regress_run **out, char (**labels)[24],
		     json_t **ids)
{
	size_t i;

	*out = calloc(s->nruns ? s->nruns : 1, sizeof(**out));
	*labels = calloc(s->nruns ? s->nruns : 1, sizeof(**labels));
	*ids = json_array();
	if (!*out || !*labels || !*ids)
		return -ENOMEM;
	for (i = 0; i < s->nruns; i++) {
		snprintf((*labels)[i], sizeof((*labels)[i]), "%" PRId64,
			 s->runs[i].id);
		(*out)[i].id = (*labels)[i];
		(*out)[i].board = board;
		(*out)[i].testcase = testcase;
		(*out)[i].clock = clock;
		(*out)[i].cpus = s->runs[i].cpus;
		(*out)[i].ncpus = s->runs[i].ncpus;
		if (json_array_append_new(*ids, json_integer(s->runs[i].id)))
			return -ENOMEM;
	}
	return 0;
}

/* "icount:3 (5 runs), tcg (2 runs)" */
static void clocks_text(json_t *clocks, char *buf, size_t size)
{
	const char *key;
	size_t len = 0;
	json_t *n;

	buf[0] = '\0';
	json_object_foreach(clocks, key, n) {
		if (len >= size)
			break;
		len += snprintf(buf + len, size - len,
				"%s'%s' (%" JSON_INTEGER_FORMAT " runs)",
				len ? ", " : "", key, json_integer_value(n));
	}
}

/*
 * The comparison of @vp.  When @unusable_ok, sides that cannot be
 * compared (clocks differ) give an INCONCLUSIVE verdict with "error" set
 * instead of -EINVAL.
 */
static int compute(PGconn *conn, const struct verdict_pair *vp,
		   bool unusable_ok, json_t **out, struct rtlab_err *err)
{
	json_t *names = NULL, *cclocks = NULL, *bclocks = NULL, *def = NULL;
	json_t *bids = NULL, *cids = NULL;
	struct series_runs sb = { 0 }, sc = { 0 };
	struct regress_run *rb = NULL, *rc = NULL;
	char(*lb)[24] = NULL, (*lc)[24] = NULL;
	struct regress_params params;
	struct regress_result *res = NULL;
	struct rtlab_err perr = { "" };
	const char *board, *testcase, *brel, *crel, *clock = vp->clock;
	char why[RTLAB_ERR_LEN] = "", cl[300];
	const char *tree;
	int ret;

	*out = NULL;
	ret = db_verdict_names(conn, vp->board_id, vp->testcase_id,
			       vp->base_kernel_id, vp->cand_kernel_id, &names,
			       err);
	if (ret)
		return ret;
	board = json_string_value(json_object_get(names, "board"));
	testcase = json_string_value(json_object_get(names, "testcase"));
	brel = json_string_value(json_object_get(json_object_get(names,
								 "baseline"),
						 "release"));
	crel = json_string_value(json_object_get(json_object_get(names,
								 "candidate"),
						 "release"));
	tree = json_string_value(json_object_get(json_object_get(names,
								 "candidate"),
						 "tree"));

	ret = db_series_clocks(conn, vp->board_id, vp->testcase_id,
			       vp->cand_kernel_id, &cclocks, err);
	if (ret)
		goto out;
	if (!clock && json_object_size(cclocks) == 1) {
		void *it = json_object_iter(cclocks);

		clock = json_object_iter_key(it);
	}
	if (!clock && !json_object_size(cclocks)) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "candidate kernel %s has "
				       "no complete runs on board %s, testcase "
				       "%s",
				       crel, board, testcase);
		goto out;
	}
	if (!clock) {
		clocks_text(cclocks, cl, sizeof(cl));
		ret = rtlab_err_set(err,
				    "candidate kernel %s has complete runs "
				    "of several clocks on board %s, testcase "
				    "%s: %s; choose one (--clock)",
				    crel, board, testcase, cl);
		goto out;
	}
	if (!json_object_get(cclocks, clock)) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "candidate kernel %s has "
				       "no complete runs with clock '%s' on "
				       "board %s, testcase %s",
				       crel, clock, board, testcase);
		goto out;
	}

	ret = db_series_clocks(conn, vp->board_id, vp->testcase_id,
			       vp->base_kernel_id, &bclocks, err);
	if (ret)
		goto out;
	if (!json_object_size(bclocks)) {
		snprintf(why, sizeof(why),
			 "baseline kernel %s has no complete "
			 "runs on board %s, testcase %s: nothing to compare "
			 "with",
			 brel, board, testcase);
	} else if (!json_object_get(bclocks, clock)) {
		clocks_text(bclocks, cl, sizeof(cl));
		snprintf(why, sizeof(why),
			 "clocks differ: candidate kernel %s "
			 "ran with clock '%s', baseline kernel %s only with %s "
			 "on board %s, testcase %s; figures from different "
			 "clocks are never compared",
			 crel, clock, brel, cl, board, testcase);
		if (!unusable_ok) {
			ret = rtlab_err_set(err, "%s", why);
			goto out;
		}
	}

	ret = db_testcase_definition(conn, vp->testcase_id, &def, err);
	if (ret)
		goto out;
	if (verdict_params_parse(def, testcase, &params, &perr) && !why[0])
		snprintf(why, sizeof(why), "%s", perr.msg);

	ret = db_series_runs_load_ids(conn, vp->board_id, vp->testcase_id,
				      vp->base_kernel_id, clock, vp->base_runs,
				      &sb, err);
	if (!ret)
		ret = db_series_runs_load_ids(conn, vp->board_id,
					      vp->testcase_id,
					      vp->cand_kernel_id, clock,
					      vp->cand_runs, &sc, err);
	if (ret)
		goto out;
	res = calloc(1, sizeof(*res));
	if (!res || runs_view(&sb, board, testcase, clock, &rb, &lb, &bids) ||
	    runs_view(&sc, board, testcase, clock, &rc, &lc, &cids)) {
		ret = rtlab_err_seterr(err, ENOMEM, "verdict: out of memory");
		goto out;
	}
	if (!why[0]) {
		ret = regress_compare(rb, sb.nruns, rc, sc.nruns, &params, res,
				      &perr);
		if (ret == -EINVAL) {
			snprintf(why, sizeof(why), "%s", perr.msg);
			ret = 0;
		} else if (ret) {
			ret = rtlab_err_seterr(err, -ret, "%s", perr.msg);
			goto out;
		}
	}
	if (why[0])
		result_unusable(res, why);
	ret = verdict_json(names, tree, clock, vp->baseline_source, res, bids,
			   cids, why[0] ? why : NULL, out, err);
	names = bids = cids = NULL;
out:
	free(res);
	free(rb);
	free(rc);
	free(lb);
	free(lc);
	series_runs_cleanup(&sb);
	series_runs_cleanup(&sc);
	json_decref(bids);
	json_decref(cids);
	json_decref(def);
	json_decref(bclocks);
	json_decref(cclocks);
	json_decref(names);
	return ret;
}

int verdict_compute(PGconn *conn, const struct verdict_pair *vp, json_t **out,
		    struct rtlab_err *err)
{
	return compute(conn, vp, false, out, err);
}

/* A JSON array of run ids into a malloc'd int64 array. */
static int64_t *ids_of(json_t *a, size_t *n)
{
	int64_t *v = calloc(json_array_size(a) + 1, sizeof(*v));
	json_t *x;
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	json_array_foreach(a, i, x)
		if (json_is_integer(x))
			v[(*n)++] = json_integer_value(x);
	return v;
}

int verdict_store(PGconn *conn, const struct verdict_pair *vp, json_t *v,
		  int64_t *id, bool *replaced, struct rtlab_err *err)
{
	struct verdict_row row = { 0 };
	int64_t *bids, *cids;
	char *details;
	int ret;

	details = json_dumps(json_object_get(v, "details"), JSON_COMPACT);
	bids = ids_of(json_object_get(json_object_get(v, "baseline"), "runs"),
		      &row.nbase);
	cids = ids_of(json_object_get(json_object_get(v, "candidate"), "runs"),
		      &row.ncand);
	if (!details || !bids || !cids) {
		ret = rtlab_err_seterr(err, ENOMEM, "verdict: out of memory");
		goto out;
	}
	row.board_id = vp->board_id;
	row.testcase_id = vp->testcase_id;
	row.base_kernel_id = vp->base_kernel_id;
	row.cand_kernel_id = vp->cand_kernel_id;
	row.verdict = json_string_value(json_object_get(v, "verdict"));
	row.details_json = details;
	row.clock = json_string_value(json_object_get(v, "clock"));
	row.base_runs = bids;
	row.cand_runs = cids;
	ret = db_verdict_store(conn, &row, id, replaced, err);
out:
	free(details);
	free(bids);
	free(cids);
	return ret;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

int64_t verdict_after_ingest(PGconn *conn, int64_t run_id,
			     const struct run_series *stored)
{
	struct rtlab_err err = { "" };
	struct verdict_pair vp = { 0 };
	struct run_series rs;
	bool replaced = false;
	json_t *v = NULL;
	int64_t id = 0;
	int base, ret;

	if (stored && stored->board_id) {
		rs = *stored;
	} else {
		ret = db_run_series(conn, run_id, &rs, &err);
		if (ret) {
			log_error("run %" PRId64 ": no verdict: %s", run_id,
				  err.msg);
			return ret;
		}
	}
	if (strcmp(rs.status, "complete")) {
		log_debug("run %" PRId64 ": no verdict for a run that is %s",
			  run_id, rs.status);
		return 0;
	}
	/* db_run_series() answered the baselines too: no round trip of
	 * their own. */
	vp.baseline_source = rs.pinned_kernel_id ? "pinned" : "default";
	base = rs.pinned_kernel_id ? rs.pinned_kernel_id : rs.default_kernel_id;
	if (!base) {
		log_info("run %" PRId64 ": no verdict: kernel %d is "
			 "the first of tree '%s' on this board and "
			 "testcase, and no baseline is pinned",
			 run_id, rs.kernel_id, rs.tree);
		return 0;
	}
	if (base == rs.kernel_id) {
		log_info("run %" PRId64 ": no verdict: its kernel %d is the "
			 "pinned baseline of tree '%s'",
			 run_id, rs.kernel_id, rs.tree);
		return 0;
	}
	vp.board_id = rs.board_id;
	vp.testcase_id = rs.testcase_id;
	vp.base_kernel_id = base;
	vp.cand_kernel_id = rs.kernel_id;
	vp.clock = rs.clock;
	ret = compute(conn, &vp, true, &v, &err);
	if (!ret)
		ret = verdict_store(conn, &vp, v, &id, &replaced, &err);
	if (ret) {
		log_error("run %" PRId64 ": verdict of kernel %d against "
			  "baseline kernel %d failed: %s",
			  run_id, rs.kernel_id, base, err.msg);
		json_decref(v);
		return ret;
	}
	if (json_object_get(json_object_get(v, "details"), "error"))
		log_error("run %" PRId64 ": verdict %" PRId64 " (board %s, "
			  "testcase %s, %s -> %s) is INCONCLUSIVE: %s",
			  run_id, id, jstr(v, "board"), jstr(v, "testcase"),
			  jstr(json_object_get(v, "baseline"), "release"),
			  jstr(json_object_get(v, "candidate"), "release"),
			  jstr(v, "reason"));
	else
		log_info("run %" PRId64 ": verdict %" PRId64 " %s: %s (board "
			 "%s, testcase %s, %s baseline %s -> candidate %s)",
			 run_id, id, replaced ? "updated" : "stored",
			 jstr(v, "reason"), jstr(v, "board"),
			 jstr(v, "testcase"), vp.baseline_source,
			 jstr(json_object_get(v, "baseline"), "release"),
			 jstr(json_object_get(v, "candidate"), "release"));
	json_decref(v);
	return id;
}

/* ------------------------------------------------------------------ */
/* From result bundles                                                 */

struct offline_run {
	struct manifest m;
	struct ct_result ct;
};

static void offline_cleanup(struct offline_run *r)
{
	manifest_cleanup(&r->m);
	ct_result_cleanup(&r->ct);
	memset(r, 0, sizeof(*r));
}

static int offline_load(const char *path, struct offline_run *r,
			struct rtlab_err *err)
{
	const struct bundle_file *mf;
	struct bundle *b;
	int ret;

	b = bundle_read(path, err);
	if (!b)
		return -EINVAL;
	mf = bundle_get(b, BUNDLE_MANIFEST);
	if (!mf) {
		ret = rtlab_err_set(err, "%s: no " BUNDLE_MANIFEST, path);
		goto out;
	}
	ret = manifest_parse((const char *)mf->data, mf->size, &r->m, err);
	if (ret) {
		rtlab_err_prefix(err, "%s", path);
		ret = -EINVAL;
		goto out;
	}
	if (r->m.status != RUN_STATUS_COMPLETE) {
		ret = rtlab_err_set(err,
				    "%s: run %s is %s; only complete runs "
				    "are compared",
				    path, r->m.run_id,
				    run_status_name(r->m.status));
		goto out;
	}
	/* As ingest reads it. */
	ret = bundle_tool_hists_read(b, r->m.tool, r->m.hist_range_us, &r->ct,
				     err);
	if (ret) {
		rtlab_err_prefix(err, "%s", path);
	} else {
		/* One metric per run, as from the database: thread 0's
		 * (timerlat: the thread latency, listed first). */
		unsigned int n = 1;

		while (n < r->ct.nthreads && !strcmp(r->ct.threads[n].metric,
						     r->ct.threads[0].metric))
			n++;
		while (r->ct.nthreads > n)
			hist_cleanup(&r->ct.threads[--r->ct.nthreads]);
	}
out:
	bundle_free(b);
	return ret;
}

/* {kernel_id: null, release, version, tree} of a side: the releases of
 * its bundles, comma-separated when they differ. */
static json_t *offline_side(const struct offline_run *r, size_t n)
{
	char rel[300] = "";
	size_t i, j, len = 0;
	json_t *k = json_object_get(r[0].m.doc, "kernel");

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(r[j].m.kernel_release,
				    r[i].m.kernel_release))
				break;
		if (j < i || len >= sizeof(rel))
			continue;
		len += snprintf(rel + len, sizeof(rel) - len, "%s%s",
				len ? ", " : "", r[i].m.kernel_release);
	}
	return json_pack("{s:n, s:s, s:s, s:s, s:o}", "kernel_id", "release",
			 rel, "version",
			 r[0].m.kernel_version ? r[0].m.kernel_version : "",
			 "tree",
			 json_string_value(json_object_get(k, "tree")) ?
				 json_string_value(json_object_get(k, "tree")) :
				 "",
			 "runs", json_array());
}

int verdict_compare_bundles(const char *const *base, size_t nbase,
			    const char *const *cand, size_t ncand, json_t **out,
			    struct rtlab_err *err)
{
	struct offline_run *ob = NULL, *oc = NULL;
	struct regress_run *rb = NULL, *rc = NULL;
	struct regress_result *res = NULL;
	struct regress_params params;
	struct rtlab_err perr = { "" };
	json_t *names = NULL, *bids, *cids, *def;
	char why[RTLAB_ERR_LEN] = "";
	size_t i;
	int ret = 0;

	*out = NULL;
	if (!nbase || !ncand)
		return rtlab_err_set(err, "compare: no %s bundles given",
				     !nbase ? "baseline" : "candidate");
	ob = calloc(nbase, sizeof(*ob));
	oc = calloc(ncand, sizeof(*oc));
	rb = calloc(nbase, sizeof(*rb));
	rc = calloc(ncand, sizeof(*rc));
	res = calloc(1, sizeof(*res));
	if (!ob || !oc || !rb || !rc || !res) {
		ret = rtlab_err_seterr(err, ENOMEM, "compare: out of memory");
		goto out;
	}
	for (i = 0; i < nbase + ncand && !ret; i++) {
		bool isb = i < nbase;
		struct offline_run *r = isb ? &ob[i] : &oc[i - nbase];
		struct regress_run *rr = isb ? &rb[i] : &rc[i - nbase];

		ret = offline_load(isb ? base[i] : cand[i - nbase], r, err);
		if (ret)
			break;
		rr->id = r->m.run_id;
		rr->board = r->m.board;
		rr->testcase = r->m.testcase;
		rr->clock = r->m.clock;
		rr->cpus = r->ct.threads;
		rr->ncpus = r->ct.nthreads;
	}
	if (ret)
		goto out;
	def = json_object_get(json_object_get(oc[0].m.doc, "testcase"),
			      "definition");
	if (verdict_params_parse(def, oc[0].m.testcase, &params, &perr)) {
		snprintf(why, sizeof(why), "%s", perr.msg);
		result_unusable(res, why);
	} else {
		ret = regress_compare(rb, nbase, rc, ncand, &params, res, err);
		if (ret)
			goto out;
	}
	names = json_pack("{s:s, s:s, s:o, s:o}", "board", oc[0].m.board,
			  "testcase", oc[0].m.testcase, "baseline",
			  offline_side(ob, nbase), "candidate",
			  offline_side(oc, ncand));
	bids = json_array();
	cids = json_array();
	for (i = 0; names && bids && cids && i < nbase + ncand; i++)
		if (json_array_append_new(i < nbase ? bids : cids,
					  json_string(i < nbase ?
							      ob[i].m.run_id :
							      oc[i - nbase]
								      .m
								      .run_id)))
			break;
	if (!names) {
		json_decref(bids);
		json_decref(cids);
		ret = rtlab_err_seterr(err, ENOMEM, "compare: out of memory");
		goto out;
	}
	ret = verdict_json(names,
			   json_string_value(json_object_get(
				   json_object_get(names, "candidate"),
				   "tree")),
			   oc[0].m.clock, "bundles", res, bids, cids,
			   why[0] ? why : NULL, out, err);
out:
	for (i = 0; ob && i < nbase; i++)
		offline_cleanup(&ob[i]);
	for (i = 0; oc && i < ncand; i++)
		offline_cleanup(&oc[i]);
	free(ob);
	free(oc);
	free(rb);
	free(rc);
	free(res);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */

static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A figure of a metric: µs with one decimal, a rate or ratio with three
 * significant digits, "?" when unknown. */
static const char *fig(char *buf, size_t n, double v, bool rate, bool sign)
{
	if (isnan(v))
		snprintf(buf, n, "?");
	else if (isinf(v))
		snprintf(buf, n, "%sinf", v < 0 ? "-" : sign ? "+" : "");
	else if (rate)
		snprintf(buf, n, "%.3g", v);
	else
		snprintf(buf, n, sign ? "%+.1f" : "%.1f", v);
	return buf;
}

static void print_runs(FILE *f, json_t *side)
{
	json_t *runs = json_object_get(side, "runs"), *r;
	size_t i;

	fprintf(f, "%-10s runs", "");
	json_array_foreach(runs, i, r) {
		if (json_is_integer(r))
			fprintf(f, " %" JSON_INTEGER_FORMAT,
				json_integer_value(r));
		else
			fprintf(f, " %.8s",
				json_string_value(r) ? json_string_value(r) :
						       "?");
	}
	fprintf(f, "%s\n", json_array_size(runs) ? "" : " (none)");
}

static void print_side(FILE *f, const char *label, json_t *side, json_t *stats)
{
	json_t *kid = json_object_get(side, "kernel_id");
	const char *src = json_string_value(json_object_get(side, "source"));

	fprintf(f, "%-10s %s", label, jstr(side, "release"));
	if (json_is_integer(kid) || src) {
		fprintf(f, " (");
		if (json_is_integer(kid))
			fprintf(f, "kernel %" JSON_INTEGER_FORMAT "%s",
				json_integer_value(kid), src ? ", " : "");
		if (src)
			fprintf(f, "%s",
				!strcmp(src, "requested") ? "as requested" :
							    src);
		fprintf(f, ")");
	}
	fprintf(f,
		": %" JSON_INTEGER_FORMAT
		" runs with samples, %" JSON_INTEGER_FORMAT " samples\n",
		json_integer_value(json_object_get(stats, "runs")),
		json_integer_value(json_object_get(stats, "samples")));
	print_runs(f, side);
}

void verdict_print(FILE *f, json_t *v)
{
	json_t *d = json_object_get(v, "details");
	json_t *p = json_object_get(d, "params");
	json_t *metrics = json_object_get(d, "metrics");
	json_t *id = json_object_get(v, "id"), *more, *seq;
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	size_t i;

	if (json_is_integer(id))
		fprintf(f, "verdict %" JSON_INTEGER_FORMAT ": %s\n",
			json_integer_value(id), jstr(v, "verdict"));
	else
		fprintf(f, "verdict: %s\n", jstr(v, "verdict"));
	fprintf(f, "%-10s %s\n", "reason", jstr(v, "reason"));
	seq = json_object_get(d, "sequential");
	if (json_is_string(json_object_get(seq, "text")))
		fprintf(f, "%-10s %s\n", "look", jstr(seq, "text"));
	fprintf(f, "%-10s %s\n", "board", jstr(v, "board"));
	fprintf(f, "%-10s %s\n", "testcase", jstr(v, "testcase"));
	fprintf(f, "%-10s tree '%s', clock %s\n", "series", jstr(v, "tree"),
		jstr(v, "clock"));
	print_side(f, "baseline", json_object_get(v, "baseline"),
		   json_object_get(d, "baseline"));
	print_side(f, "candidate", json_object_get(v, "candidate"),
		   json_object_get(d, "candidate"));
	fprintf(f,
		"%-10s floor %s us or %.0f %%, tail above the baseline's "
		"p%g, alpha %g (%.3g per metric at this look), looks every "
		"%" JSON_INTEGER_FORMAT " runs per side\n",
		"params",
		fig(b1, sizeof(b1), jnum(p, "floor_abs_us"), true, false),
		jnum(p, "floor_rel") * 100, jnum(p, "tail_q") * 100,
		jnum(p, "alpha"), jnum(d, "alpha_metric"),
		json_integer_value(json_object_get(p, "min_runs")));
	if (json_is_string(json_object_get(v, "created_at")))
		fprintf(f, "%-10s %s\n", "computed", jstr(v, "created_at"));

	fprintf(f, "\n  %-9s %-12s %-24s %s\n", "METRIC", "VERDICT",
		"BASELINE -> CANDIDATE", "EFFECT [INTERVAL]");
	for (i = 0; i < sizeof(metric_order) / sizeof(metric_order[0]); i++) {
		json_t *m = json_object_get(metrics, metric_order[i]);
		char bc[80];
		bool ratio;
		double pv;

		if (!m)
			continue;
		ratio = !strcmp(jstr(m, "unit"), "ratio");
		snprintf(bc, sizeof(bc), "%s -> %s%s",
			 fig(b1, sizeof(b1), jnum(m, "baseline"), ratio, false),
			 fig(b2, sizeof(b2), jnum(m, "candidate"), ratio,
			     false),
			 ratio ? "" : " us");
		fprintf(f, "  %-9s %-12s %-24s", metric_order[i],
			jstr(m, "verdict"), bc);
		if (ratio)
			fprintf(f, " x%s [%s, %s]",
				fig(b3, sizeof(b3), jnum(m, "effect"), true,
				    false),
				fig(b4, sizeof(b4), jnum(m, "effect_lo"), true,
				    false),
				fig(b5, sizeof(b5), jnum(m, "effect_hi"), true,
				    false));
		else
			fprintf(f, " %s us [%s, %s]",
				fig(b3, sizeof(b3), jnum(m, "effect"), false,
				    true),
				fig(b4, sizeof(b4), jnum(m, "effect_lo"), false,
				    true),
				fig(b5, sizeof(b5), jnum(m, "effect_hi"), false,
				    true));
		pv = jnum(m, "p_value");
		if (!isnan(pv))
			fprintf(f, "  p=%.3g", pv);
		fprintf(f, "\n");
		if (*jstr(m, "test") && strcmp(jstr(m, "test"), "-"))
			fprintf(f, "  %-9s test: %s\n", "", jstr(m, "test"));
		if (*jstr(m, "interval") && strcmp(jstr(m, "interval"), "-"))
			fprintf(f, "  %-9s interval: %s\n", "",
				jstr(m, "interval"));
		fprintf(f, "  %-9s %s", "", jstr(m, "reason"));
		more = json_object_get(m, "more_runs");
		if (json_is_integer(more))
			fprintf(f,
				" (about %" JSON_INTEGER_FORMAT " more runs "
				"per side)",
				json_integer_value(more));
		fprintf(f, "\n");
	}
}
