/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_REPORT_H
#define RTLAB_REPORT_H

/*
 * The regression report of one stored verdict: what got worse, how sure
 * the lab is, where, which kernels, how to reproduce, the spike analysis;
 * as plain text (report.txt), HTML (report.html) and the body of a
 * Bugzilla 5 `POST /rest/bug` (bug.json), plus the attachments (plots,
 * histograms, the worst candidate run's trace.dat, console.log, config,
 * dmesg), each the body of `POST /rest/bug/{id}/attachment`.
 *
 * Everything here is a pure function of data handed in: the verdict's
 * context (the JSON of db_report_verdict_get()), histograms, artifacts.
 * Gathering them from the database is services/reporting.c's job.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "error.h"

struct rtlab_config;

struct report_attachment {
	char *file_name; /* as the bug tracker shows it */
	char *content_type;
	char *summary; /* one line */
	void *data;
	size_t size;
};

struct report_fields {
	const char *product; /* NULL: the RTLAB_DEFAULT_BZ_* default */
	const char *component;
	const char *version;
	size_t max_attachment_bytes; /* the tracker's limit, 0: none */
	const char *lab_url; /* where the lab serves runs, NULL: unknown */
};

#define REPORT_SUMMARY_MAX 255	 /* Bugzilla's summary limit, bytes */
#define REPORT_COMMENT_MAX 65535 /* Bugzilla's comment limit */
#define REPORT_COLUMNS 80	 /* width of report.txt */
#define REPORT_DELTA_LINES 20	 /* config delta lines in report.txt */
#define REPORT_RUNS_LISTED 20	 /* more runs are summarised */

struct report {
	int64_t verdict_id;
	json_t *ctx;   /* db_report_verdict_get(), owned */
	char *summary; /* "[PREEMPT_RT] ..." */
	char *text;    /* report.txt */
	char *html;    /* report.html */
	json_t *bug;   /* bug.json: POST /rest/bug body */
	size_t natt;
	struct report_attachment *att;
};

/*
 * Building a report: the caller (services/reporting.c) fills @r->ctx and
 * @r->verdict_id, adds the attachments from the data it gathered with the
 * report_attach_*() functions below, then calls report_render().
 */

/**
 * report_attachment_add() - append an attachment to @r; @data (malloc'd)
 * is taken over, also on failure.  Return: 0 or -ENOMEM.
 */
int report_attachment_add(struct report *r, const char *file_name,
			  const char *content_type, const char *summary,
			  void *data, size_t size) __must_check;

/** report_worst_run() - the run of @side ("baseline_runs" or
 *  "candidate_runs") of @ctx with the highest maximum (of equal ones, one
 *  that kept a trace.dat), else its first;
 *  NULL when the side is empty.  Borrowed from @ctx. */
const json_t *report_worst_run(const json_t *ctx, const char *side);

/** report_run_has_artifact() - whether @run (of the context) lists an
 *  artifact @name. */
bool report_run_has_artifact(const json_t *run, const char *name);

struct run_hists;
struct hist;

/**
 * report_attach_run_plot() - attach the PNG plot of one stored run of
 * @side ("baseline" or "candidate").  A run without histograms adds
 * nothing.  Return: 0 or what plot_stored_run() returned.
 */
int report_attach_run_plot(struct report *r, const struct run_hists *rh,
			   const char *side,
			   struct rtlab_err *err) __must_check;

/**
 * report_attach_overlay() - attach baseline-over-candidate.png of the
 * pooled histograms @hb and @hc (nothing when either is empty).
 * Return: 0 or what plot_run_histogram() returned.
 */
int report_attach_overlay(struct report *r, const struct hist *hb,
			  const struct hist *hc,
			  struct rtlab_err *err) __must_check;

/**
 * report_attach_histograms() - attach histograms.json (@doc as is) and
 * histograms.csv.  @doc: {"baseline": [RUN...], "candidate": [RUN...]},
 * RUN = {run_id, uuid, threads: db_run_histograms()'s array}.
 * Return: 0 or -ENOMEM.
 */
int report_attach_histograms(struct report *r, const json_t *doc) __must_check;

/**
 * report_attach_spike() - put the spike analysis @text (@size bytes,
 * malloc'd, taken over) of candidate run @run_id in the report text and
 * attach it as spike-analysis.txt.  Return: 0 or -ENOMEM.
 */
int report_attach_spike(struct report *r, int64_t run_id, void *text,
			size_t size, struct rtlab_err *err) __must_check;

/**
 * report_fit_attachments() - make every attachment of @r at most
 * @max_bytes: trace.dat becomes the window around its worst spike
 * (trace-window.dat, or .dat.xz; reports/trace-window.h) with ctx
 * "trace_window" describing it; other files are xz-compressed when that
 * fits.  What still does not fit is left out and listed in ctx "linked"
 * ({file_name, size, reason, url}: where @lab_url serves it).
 * Return: 0 or -ENOMEM.
 */
int report_fit_attachments(struct report *r, size_t max_bytes,
			   const char *lab_url,
			   struct rtlab_err *err) __must_check;

/**
 * report_render() - write @r's summary, text, HTML and bug JSON from its
 * context and attachments.  @config_delta: report_config_delta() or NULL.
 * Runs beyond REPORT_RUNS_LISTED are summarised in the text and attached
 * whole as runs.txt, a longer config delta as config-delta.txt; with
 * @fields->max_attachment_bytes, report_fit_attachments() runs first.
 * Return: 0 or -ENOMEM.
 */
int report_render(struct report *r, const struct report_fields *fields,
		  const char *config_delta, struct rtlab_err *err) __must_check;

/**
 * report_fit_comment() - a rendered @r whose text is longer than @max
 * characters (Bugzilla: REPORT_COMMENT_MAX) gets it cut at a line, with a
 * note, in its text and bug description, and the whole text attached as
 * report.txt.  Return: 0 or -ENOMEM.
 */
int report_fit_comment(struct report *r, size_t max) __must_check;

/**
 * report_write() - write @r into @dir (created, with parents): bug.json,
 * report.txt, report.html and attachments/NN-NAME.json.
 * Return: 0 or a negative errno with @err naming the file.
 */
int report_write(const struct report *r, const char *dir,
		 struct rtlab_err *err) __must_check;

/** report_cleanup() - free what was built into @r; safe twice. */
void report_cleanup(struct report *r);

/**
 * report_attachment_json() - the body of POST /rest/bug/@bug_id/attachment
 * for @a: {ids [@bug_id], data (base64), file_name, content_type, summary,
 * is_patch false}.  @bug_id 0 is the placeholder of the unfiled report.
 * Return: new reference, caller json_decref()s; NULL on -ENOMEM.
 */
json_t *report_attachment_json(const struct report_attachment *a,
			       int64_t bug_id);

/**
 * report_summary() - the bug summary of the verdict context @ctx, e.g.
 * "[PREEMPT_RT] max latency (median of per-run maxima) 55 -> 4690 us
 * (x85), worst 4971 us on qemu-icount/cyclictest-hackbench: 6.1.0-57-amd64
 * vs 6.1.0-57-rt-amd64" (the regressed metric, the worst sample,
 * candidate vs baseline), tagged with report_tree(), at most
 * REPORT_SUMMARY_MAX bytes (cut with "...").
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_summary(const json_t *ctx);

/**
 * report_realtime() - whether either kernel of @ctx is realtime (its
 * "realtime" flag: /sys/kernel/realtime or CONFIG_PREEMPT_RT=y).
 */
bool report_realtime(const json_t *ctx);

/**
 * report_tree() - the tree a report is tagged with: "PREEMPT_RT" when
 * report_realtime(), else the candidate's tree (else the baseline's);
 * NULL when neither names one.  Borrowed from @ctx.
 */
const char *report_tree(const json_t *ctx);

/**
 * report_regression_tag() - "rtlab:" and 16 hex digits naming the
 * regression of @ctx: board, testcase, tree and both kernels (release and
 * version), so that every verdict of it, in any lab, has the same tag.
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_regression_tag(const json_t *ctx);

/**
 * report_runs_text() - runs.txt: every run of both sides, one a line.
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_runs_text(const json_t *ctx);

/**
 * report_wrap() - @text with every line wider than @cols columns broken
 * at spaces and continued four columns further in.
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_wrap(const char *text, size_t cols);

/**
 * report_text() - report.txt of @ctx, at most REPORT_COLUMNS wide.  @atts names the attachments (may
 * be NULL with @natt 0); @config_delta is the text of
 * report_config_delta() or NULL when the configs are not both stored.
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_text(const json_t *ctx, const struct report_attachment *atts,
		  size_t natt, const char *config_delta);

/**
 * report_html() - report.html: @text's sections as HTML, with the PNG
 * attachments inlined.  Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_html(const json_t *ctx, const char *text,
		  const struct report_attachment *atts, size_t natt);

/**
 * report_bug_json() - the POST /rest/bug body: product, component,
 * version (@fields or defaults), summary, description (@text), op_sys,
 * platform, severity, whiteboard (report_regression_tag()),
 * cf_kernel_version, cf_regression, cf_tree (report_tree(), left out
 * when there is none), cf_bisect_commit (the culprit's id of the ctx's
 * "bisect" object, when a bisection named one).
 * Return: new reference, caller json_decref()s; NULL on -ENOMEM.
 */
json_t *report_bug_json(const json_t *ctx, const struct report_fields *fields,
			const char *summary, const char *text);

/**
 * report_platform() - Bugzilla's Hardware value for a `uname -m`:
 * x86_64 -> "x86-64", i686 -> "IA-32", aarch64/arm* -> "ARM",
 * ppc64* -> "PPC-64", else "Other".
 */
const char *report_platform(const char *machine);

/**
 * report_config_delta() - CONFIG_ options added, removed or changed from
 * kernel config @base to @cand ("# CONFIG_X is not set" counts as unset),
 * one line each, sorted: "+CONFIG_X=y", "-CONFIG_Y=y",
 * "~CONFIG_HZ: 250 -> 1000"; "no CONFIG_ differences\n" when equal.
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_config_delta(const char *base, size_t base_len, const char *cand,
			  size_t cand_len);

/** report_base64() - @size bytes as base64 (no line breaks).
 *  Return: malloc'd, caller frees; NULL on -ENOMEM. */
char *report_base64(const void *data, size_t size);

#endif
