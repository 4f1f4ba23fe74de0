// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The regression report of a stored verdict, gathered from the database:
 * the verdict's context, the worst run of each side plotted, both sides
 * pooled, every histogram, the candidate's trace, its spike analysis,
 * console log, config and dmesg, and the config delta.  reports/ renders
 * each part from the data handed to it.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "../db/db-boards.h"
#include "../db/db-reports.h"
#include "../db/db-runs.h"
#include "../db/db-verdicts.h"
#include "../db/db-web.h"
#include "hist.h"
#include "reporting.h"
#include "bisect.h"
#include "spike-store.h"

static json_int_t run_id_of(const json_t *run)
{
	return json_integer_value(json_object_get(run, "id"));
}

static int plot_run(PGconn *conn, struct report *r, const json_t *run,
		    const char *side, struct rtlab_err *err)
{
	struct run_hists rh = { 0 };
	int ret;

	ret = db_run_hists_load(conn, run_id_of(run), &rh, err);
	if (!ret)
		ret = report_attach_run_plot(r, &rh, side, err);
	run_hists_cleanup(&rh);
	return ret == -ENODATA ? 0 : ret; /* no histograms, no plot */
}

/* Pool every run of one side into @h. */
static int pool_side(PGconn *conn, const json_t *runs, struct hist *h,
		     struct rtlab_err *err)
{
	const json_t *run;
	size_t i, j;
	int ret = 0;

	json_array_foreach(runs, i, run) {
		struct run_hists rh = { 0 };

		ret = db_run_hists_load(conn, run_id_of(run), &rh, err);
		for (j = 0; !ret && j < rh.nhists; j++)
			ret = hist_merge(h, &rh.hists[j]);
		run_hists_cleanup(&rh);
		if (ret)
			break;
	}
	return ret;
}

static int plot_overlay(PGconn *conn, struct report *r, struct rtlab_err *err)
{
	struct hist hb = { 0 }, hc = { 0 };
	int ret;

	ret = hist_init(&hb, 1);
	if (!ret)
		ret = hist_init(&hc, 1);
	if (!ret)
		ret = pool_side(conn, json_object_get(r->ctx, "baseline_runs"),
				&hb, err);
	if (!ret)
		ret = pool_side(conn, json_object_get(r->ctx, "candidate_runs"),
				&hc, err);
	if (!ret)
		ret = report_attach_overlay(r, &hb, &hc, err);
	hist_cleanup(&hb);
	hist_cleanup(&hc);
	return ret;
}

/* Every run's histograms, both sides, as report_attach_histograms()
 * takes them. */
static int histograms(PGconn *conn, struct report *r, struct rtlab_err *err)
{
	static const char *const sides[] = { "baseline", "candidate" };
	json_t *doc = json_object(), *arr, *h;
	const json_t *run;
	size_t s, i;
	int ret = 0;

	if (!doc)
		return -ENOMEM;
	for (s = 0; s < 2 && !ret; s++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_runs", sides[s]);
		arr = json_array();
		if (!arr || json_object_set_new(doc, sides[s], arr)) {
			ret = -ENOMEM;
			break;
		}
		json_array_foreach(json_object_get(r->ctx, key), i, run) {
			json_int_t id = run_id_of(run);
			const char *uuid =
				json_string_value(json_object_get(run, "uuid"));

			ret = db_run_histograms(conn, id, &h, err);
			if (ret)
				break;
			if (json_array_append_new(arr,
						  json_pack("{s:I, s:s, s:o}",
							    "run_id", id,
							    "uuid",
							    uuid ? uuid : "",
							    "threads", h))) {
				ret = -ENOMEM;
				break;
			}
		}
	}
	if (!ret)
		ret = report_attach_histograms(r, doc);
	json_decref(doc);
	return ret;
}

/* Artifact @name of @run as an attachment, when it was stored. */
static int attach_artifact(PGconn *conn, struct report *r, const json_t *run,
			   const char *name, const char *file_name,
			   const char *content_type, const char *what,
			   struct rtlab_err *err)
{
	json_int_t id = run_id_of(run);
	struct artifact a = { 0 };
	char summary[200];
	int ret;

	if (!report_run_has_artifact(run, name))
		return 0;
	ret = db_artifact_get(conn, id, name, &a, err);
	if (ret)
		return ret;
	snprintf(summary, sizeof(summary),
		 "%s of candidate run %" JSON_INTEGER_FORMAT, what, id);
	ret = report_attachment_add(r, file_name,
				    content_type ? content_type :
						   a.content_type,
				    summary, a.data, a.size);
	a.data = NULL;
	artifact_cleanup(&a);
	return ret;
}

/*
 * The analysis of the worst candidate run's trace: in report.txt (through
 * ctx "spike_analysis") and attached.  A trace that cannot be analyzed
 * (truncated, from another kernel, no spike) is said in the report, not
 * an error: the trace itself is still attached.
 */
static int attach_spike(PGconn *conn, struct report *r, const json_t *run,
			struct rtlab_err *err)
{
	json_int_t id = run_id_of(run);
	struct rtlab_err serr = { "" };
	struct artifact a = { 0 };
	int ret;

	if (spike_run_get(conn, id, false, true, &a, &serr)) {
		json_object_set_new(r->ctx, "spike_error",
				    json_string(serr.msg));
		return 0;
	}
	ret = report_attach_spike(r, id, a.data, a.size, err);
	a.data = NULL;
	artifact_cleanup(&a);
	return ret;
}

/* Whether a kernel config has CONFIG_PREEMPT_RT=y. */
static bool config_rt(const struct artifact *a)
{
	const char *want = "CONFIG_PREEMPT_RT=y\n", *p = a->data;
	size_t n = strlen(want), i;

	for (i = 0; a->data && i + n <= a->size; i++)
		if ((i == 0 || p[i - 1] == '\n') && !memcmp(p + i, want, n))
			return true;
	return false;
}

/* A kernel is realtime when it says so (/sys/kernel/realtime) or when
 * its config has PREEMPT_RT: mainline 6.12+ RT kernels have no
 * /sys/kernel/realtime. */
static void mark_rt(json_t *ctx, const char *side, const struct artifact *a)
{
	json_t *k = json_object_get(ctx, side);

	if (k && config_rt(a))
		json_object_set_new(k, "realtime", json_true());
}

static char *config_delta_of(PGconn *conn, json_t *ctx, const json_t *base,
			     const json_t *cand, struct rtlab_err *err,
			     int *ret)
{
	struct artifact a = { 0 }, b = { 0 };
	char *delta = NULL;

	*ret = 0;
	if (!base || !cand || !report_run_has_artifact(base, "config") ||
	    !report_run_has_artifact(cand, "config"))
		return NULL;
	*ret = db_artifact_get(conn, run_id_of(base), "config", &a, err);
	if (!*ret)
		*ret = db_artifact_get(conn, run_id_of(cand), "config", &b,
				       err);
	if (!*ret) {
		mark_rt(ctx, "baseline", &a);
		mark_rt(ctx, "candidate", &b);
		delta = report_config_delta(a.data, a.size, b.data, b.size);
		if (!delta)
			*ret = -ENOMEM;
	}
	artifact_cleanup(&a);
	artifact_cleanup(&b);
	return delta;
}

/* A run with its config stored, preferring @pref. */
static const json_t *run_with_config(const json_t *ctx, const char *side,
				     const json_t *pref)
{
	const json_t *r;
	size_t i;

	if (pref && report_run_has_artifact(pref, "config"))
		return pref;
	json_array_foreach(json_object_get(ctx, side), i, r)
		if (report_run_has_artifact(r, "config"))
			return r;
	return pref;
}

int reporting_build(PGconn *conn, int64_t verdict_id, bool force,
		    const struct report_fields *fields, struct report *r,
		    struct rtlab_err *err)
{
	const json_t *base, *cand;
	char *delta = NULL, cfgname[160];
	const char *verdict, *release;
	int ret;

	memset(r, 0, sizeof(*r));
	r->verdict_id = verdict_id;
	ret = db_report_verdict_get(conn, verdict_id, &r->ctx, err);
	if (ret)
		return ret;
	verdict = json_string_value(json_object_get(r->ctx, "verdict"));
	if ((!verdict || strcmp(verdict, "REGRESSION")) && !force)
		return rtlab_err_seterr(err, EPERM,
					"verdict %" PRId64
					" is %s, not a REGRESSION: nothing "
					"to report (--force writes a report anyway)",
					verdict_id,
					verdict && *verdict ? verdict : "?");
	bisect_for_report(conn, verdict_id, r->ctx);
	base = report_worst_run(r->ctx, "baseline_runs");
	cand = report_worst_run(r->ctx, "candidate_runs");

	if (base)
		ret = plot_run(conn, r, base, "baseline", err);
	if (!ret && cand)
		ret = plot_run(conn, r, cand, "candidate", err);
	if (!ret)
		ret = plot_overlay(conn, r, err);
	if (!ret)
		ret = histograms(conn, r, err);
	if (!ret && cand)
		ret = attach_artifact(conn, r, cand, "trace.dat", "trace.dat",
				      "application/octet-stream",
				      "ftrace trace (trace-cmd) of the worst "
				      "spike",
				      err);
	if (!ret && cand && report_run_has_artifact(cand, "trace.dat"))
		ret = attach_spike(conn, r, cand, err);
	if (!ret && cand)
		ret = attach_artifact(conn, r, cand, "console.log",
				      "console.log", "text/plain",
				      "console log", err);
	release =
		json_string_value(json_object_get(json_object_get(r->ctx,
								  "candidate"),
						  "release"));
	snprintf(cfgname, sizeof(cfgname), "config-%s",
		 release && *release ? release : "candidate");
	if (!ret && cand)
		ret = attach_artifact(conn, r,
				      run_with_config(r->ctx, "candidate_runs",
						      cand),
				      "config", cfgname, "text/plain",
				      "kernel config", err);
	if (!ret && cand)
		ret = attach_artifact(conn, r, cand, "dmesg.txt", "dmesg.txt",
				      "text/plain", "kernel log (dmesg)", err);
	if (!ret)
		delta = config_delta_of(conn, r->ctx,
					run_with_config(r->ctx, "baseline_runs",
							base),
					run_with_config(r->ctx,
							"candidate_runs", cand),
					err, &ret);
	if (!ret)
		ret = report_render(r, fields, delta, err);
	if (ret == -ENOMEM && !err->msg[0])
		rtlab_err_seterr(err, ENOMEM,
				 "report of verdict %" PRId64 ": out of memory",
				 verdict_id);
	free(delta);
	return ret;
}

/* A string of @o, NULL when absent. */
static const char *jstr2(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* ------------------------------------------------------------------ */
/* Plots of series, for the web pages and rtlab plot                  */

/* Pool every CPU of every complete run of a kernel in a series. */
static int pool_kernel(PGconn *conn, int board_id, int testcase_id,
		       int kernel_id, const char *clock, struct hist *h,
		       unsigned int *nruns, struct rtlab_err *err)
{
	struct series_runs sr = { 0 };
	size_t i, j;
	int ret;

	ret = db_series_runs_load(conn, board_id, testcase_id, kernel_id, clock,
				  &sr, err);
	for (i = 0; !ret && i < sr.nruns; i++)
		for (j = 0; !ret && j < sr.runs[i].ncpus; j++)
			ret = hist_merge(h, &sr.runs[i].cpus[j]);
	if (ret == -ENOMEM)
		rtlab_err_seterr(err, ENOMEM, "plot: out of memory");
	*nruns = sr.nruns;
	series_runs_cleanup(&sr);
	return ret;
}

/* The clock to compare on: @q->clock, else the candidate's only one. */
static int compare_clock(PGconn *conn, const struct reporting_compare_query *q,
			 int board_id, int testcase_id, int cand_id,
			 char *clock, size_t size, struct rtlab_err *err)
{
	char list[256] = "";
	json_t *clocks = NULL, *v;
	const char *key;
	int ret;

	if (q->clock) {
		snprintf(clock, size, "%s", q->clock);
		return 0;
	}
	ret = db_series_clocks(conn, board_id, testcase_id, cand_id, &clocks,
			       err);
	if (ret)
		return ret;
	if (json_object_size(clocks) == 1) {
		json_object_foreach(clocks, key, v)
			snprintf(clock, size, "%s", key);
	} else if (!json_object_size(clocks)) {
		ret = rtlab_err_seterr(err, ENOENT,
				       "candidate kernel '%s' has "
				       "no complete run on board '%s', "
				       "testcase '%s'",
				       q->candidate, q->board, q->testcase);
	} else {
		json_object_foreach(clocks, key, v) {
			size_t n = strlen(list);

			snprintf(list + n, sizeof(list) - n, "%s%s",
				 n ? ", " : "", key);
		}
		ret = rtlab_err_seterr(err, EINVAL,
				       "candidate kernel '%s' ran "
				       "with several clocks (%s): choose one "
				       "with clock",
				       q->candidate, list);
	}
	json_decref(clocks);
	return ret;
}

int reporting_plot_compare(PGconn *conn,
			   const struct reporting_compare_query *q,
			   enum plot_format fmt, void **img, size_t *size,
			   struct rtlab_err *err)
{
	struct hist hb = { 0 }, hc = { 0 };
	struct plot_compare pc = { 0 };
	char clock[64], title[400], sub[200];
	int board_id, testcase_id, base_id, cand_id;
	json_t *names = NULL;
	int ret;

	ret = db_board_lookup(conn, q->board, &board_id, err);
	if (!ret)
		ret = db_testcase_lookup(conn, q->testcase, &testcase_id, err);
	if (!ret)
		ret = db_kernel_resolve(conn, q->baseline, &base_id, err);
	if (!ret)
		ret = db_kernel_resolve(conn, q->candidate, &cand_id, err);
	if (!ret)
		ret = compare_clock(conn, q, board_id, testcase_id, cand_id,
				    clock, sizeof(clock), err);
	if (!ret)
		ret = db_verdict_names(conn, board_id, testcase_id, base_id,
				       cand_id, &names, err);
	if (ret)
		goto out;
	ret = hist_init(&hb, 1);
	if (!ret)
		ret = hist_init(&hc, 1);
	if (ret) {
		rtlab_err_seterr(err, ENOMEM, "plot: out of memory");
		goto out;
	}
	ret = pool_kernel(conn, board_id, testcase_id, base_id, clock, &hb,
			  &pc.baseline.nruns, err);
	if (!ret)
		ret = pool_kernel(conn, board_id, testcase_id, cand_id, clock,
				  &hc, &pc.candidate.nruns, err);
	if (ret)
		goto out;
	snprintf(title, sizeof(title), "%s / %s: baseline over candidate",
		 q->board, q->testcase);
	snprintf(sub, sizeof(sub),
		 "clock %s, all complete runs of each "
		 "kernel pooled",
		 clock);
	pc.title = title;
	pc.subtitle = sub;
	pc.baseline.release =
		jstr2(json_object_get(names, "baseline"), "release");
	pc.baseline.hist = &hb;
	pc.candidate.release =
		jstr2(json_object_get(names, "candidate"), "release");
	pc.candidate.hist = &hc;
	ret = plot_compare_render(&pc, fmt, img, size, err);
out:
	json_decref(names);
	hist_cleanup(&hb);
	hist_cleanup(&hc);
	return ret;
}

/* The series a trend or long-term plot follows: its board, its testcase
 * and db_web_trend()'s kernels with their runs. */
static int trend_series(PGconn *conn, const struct reporting_trend_query *q,
			int *board_id, int *testcase_id, json_t **t,
			struct rtlab_err *err)
{
	int ret = db_board_lookup(conn, q->board, board_id, err);

	if (!ret)
		ret = db_testcase_lookup(conn, q->testcase, testcase_id, err);
	if (!ret)
		ret = db_web_trend(conn, q->board, q->testcase, q->tree,
				   q->clock, t, err);
	return ret;
}

int reporting_plot_longterm(PGconn *conn, const struct reporting_trend_query *q,
			    unsigned int nkernels, enum plot_format fmt,
			    void **img, size_t *size, struct rtlab_err *err)
{
	struct plot_longterm_kernel *lk = NULL;
	struct plot_longterm pl = { 0 };
	struct hist *h = NULL;
	char title[400], sub[300];
	json_t *t = NULL, *kernels, *k;
	const char *clock;
	size_t i, n = 0, first;
	int board_id, testcase_id;
	int ret;

	if (nkernels < 1 || nkernels > REPORTING_LONGTERM_MAX)
		return rtlab_err_set(err,
				     "kernels %u: expected 1 to %d (the newest "
				     "kernels of the series drawn)",
				     nkernels, REPORTING_LONGTERM_MAX);
	ret = trend_series(conn, q, &board_id, &testcase_id, &t, err);
	if (ret)
		goto out;
	kernels = json_object_get(t, "kernels");
	clock = jstr2(t, "clock");
	first = json_array_size(kernels) > nkernels ?
			json_array_size(kernels) - nkernels :
			0;
	n = json_array_size(kernels) - first;
	lk = calloc(n + 1, sizeof(*lk));
	h = calloc(n + 1, sizeof(*h));
	if (!lk || !h) {
		ret = rtlab_err_seterr(err, ENOMEM, "plot: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		k = json_array_get(kernels, first + i);
		ret = hist_init(&h[i], 1);
		if (ret) {
			rtlab_err_seterr(err, ENOMEM, "plot: out of memory");
			goto out;
		}
		ret = pool_kernel(conn, board_id, testcase_id,
				  (int)json_integer_value(json_object_get(k,
									  "id")),
				  clock, &h[i], &lk[i].nruns, err);
		if (ret)
			goto out;
		lk[i].release = jstr2(k, "release");
		lk[i].hist = &h[i];
	}
	snprintf(title, sizeof(title),
		 "%s / %s: the long-term view of tree '%s'", q->board,
		 q->testcase, jstr2(t, "tree") ? jstr2(t, "tree") : "");
	snprintf(sub, sizeof(sub),
		 "clock %s; %zu kernel(s), oldest at the bottom, each with "
		 "all its complete runs pooled",
		 clock ? clock : "?", n);
	pl.title = title;
	pl.subtitle = sub;
	pl.nkernels = n;
	pl.kernels = lk;
	ret = plot_longterm_render(&pl, fmt, img, size, err);
out:
	for (i = 0; h && i < n; i++)
		hist_cleanup(&h[i]);
	free(h);
	free(lk);
	json_decref(t);
	return ret;
}

/* A figure of the trend's JSON, NAN when null. */
static double jfig(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

int reporting_plot_trend(PGconn *conn, const struct reporting_trend_query *q,
			 enum plot_format fmt, void **img, size_t *size,
			 struct rtlab_err *err)
{
	struct plot_trend_kernel *tk = NULL;
	struct plot_trend pt = { 0 };
	char title[400], sub[300];
	double *vals = NULL;
	json_t *t = NULL, *kernels, *k, *runs, *run;
	size_t i, j, total = 0, at = 0;
	int board_id, testcase_id;
	int ret;

	ret = trend_series(conn, q, &board_id, &testcase_id, &t, err);
	if (ret)
		goto out;
	kernels = json_object_get(t, "kernels");
	json_array_foreach(kernels, i, k)
		total += json_array_size(json_object_get(k, "runs"));
	tk = calloc(json_array_size(kernels) + 1, sizeof(*tk));
	vals = calloc(2 * total + 1, sizeof(*vals));
	if (!tk || !vals) {
		ret = rtlab_err_seterr(err, ENOMEM, "plot: out of memory");
		goto out;
	}
	json_array_foreach(kernels, i, k) {
		runs = json_object_get(k, "runs");
		tk[i].release = jstr2(k, "release");
		tk[i].nruns = json_array_size(runs);
		tk[i].max_us = vals + at;
		tk[i].p999_us = vals + total + at;
		json_array_foreach(runs, j, run) {
			vals[at + j] = jfig(run, "max_us");
			vals[total + at + j] = jfig(run, "p999_us");
		}
		at += tk[i].nruns;
	}
	snprintf(title, sizeof(title),
		 "%s / %s: latency across the kernels "
		 "of tree '%s'",
		 q->board, q->testcase,
		 jstr2(t, "tree") ? jstr2(t, "tree") : "");
	snprintf(sub, sizeof(sub),
		 "clock %s; each complete run's worst CPU "
		 "as a point, medians per kernel joined",
		 jstr2(t, "clock") ? jstr2(t, "clock") : "?");
	pt.title = title;
	pt.subtitle = sub;
	pt.nkernels = json_array_size(kernels);
	pt.kernels = tk;
	ret = plot_trend_render(&pt, fmt, img, size, err);
out:
	free(tk);
	free(vals);
	json_decref(t);
	return ret;
}
