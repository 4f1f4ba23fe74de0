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
};

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
 *  "candidate_runs") of @ctx with the highest maximum, else its first;
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
 * report_render() - write @r's summary, text, HTML and bug JSON from its
 * context and attachments.  @config_delta: report_config_delta() or NULL.
 * Return: 0 or -ENOMEM.
 */
int report_render(struct report *r, const struct report_fields *fields,
		  const char *config_delta, struct rtlab_err *err) __must_check;

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
 * "[PREEMPT_RT] max latency 55 -> 4690 us (x85) on
 * qemu-icount/cyclictest-hackbench: 6.1.0-57-amd64 vs 6.1.0-57-rt-amd64"
 * (the regressed metric, candidate vs baseline).
 * Return: malloc'd, caller frees; NULL on -ENOMEM.
 */
char *report_summary(const json_t *ctx);

/**
 * report_text() - report.txt of @ctx.  @atts names the attachments (may
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
 * platform, severity, cf_kernel_version, cf_regression, cf_tree.
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
