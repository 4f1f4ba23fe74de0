// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The regression report of a stored verdict, for an RT maintainer and for
 * a Bugzilla: report.txt (what got worse, how sure, where, which kernels
 * with their config delta, how to reproduce, the spike), report.html, the
 * POST /rest/bug body and the attachments (plots, histograms, the worst
 * candidate run's trace, console log, config, dmesg).
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <openssl/evp.h>

#include "config.h"
#include "strbuf.h"
#include "plot.h"
#include "report.h"
#include "testcase.h"
#include "spike.h"
#include "trace-window.h"
#include "fsutil.h"
#include "xz.h"

/* ------------------------------------------------------------------ */
/* Reading the verdict's context. */

static const char *jstr(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? s : dflt;
}

static double jnumv(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double jnum(const json_t *o, const char *key)
{
	return jnumv(json_object_get(o, key));
}

/* Figures print as integers when whole, else with two decimals. */
static const char *num(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else if (fabs(v - round(v)) < 1e-9 && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.2f", v);
	return buf;
}

/* Rates and ratios: three significant digits. */
static const char *num_g(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.3g", v);
	return buf;
}

/* A metric's figure in its unit: µs as num(), anything else num_g(). */
static const char *fig(double v, const char *unit, char *buf, size_t n)
{
	return strcmp(unit, "us") ? num_g(v, buf, n) : num(v, buf, n);
}

static const char *signed_num(double v, char *buf, size_t n)
{
	if (n < 2)
		return num(v, buf, n);
	buf[0] = '+';
	if (isfinite(v) && v >= 0)
		num(v, buf + 1, n - 1);
	else
		num(v, buf, n);
	return buf;
}

/* Metrics in the order a reader wants them; the first that regressed
 * heads the summary. */
static const char *const metric_order[] = { "max", "p99.9", "p99", "tail_rate",
					    "w1" };
#define NMETRIC (sizeof(metric_order) / sizeof(metric_order[0]))

static const char *metric_label(const char *name)
{
	if (!strcmp(name, "max"))
		return "max latency";
	if (!strcmp(name, "p99.9"))
		return "p99.9 latency";
	if (!strcmp(name, "p99"))
		return "p99 latency";
	if (!strcmp(name, "tail_rate"))
		return "tail exceedance rate";
	if (!strcmp(name, "w1"))
		return "mean latency (W1 distance)";
	return name;
}

static const json_t *metrics_of(const json_t *ctx)
{
	return json_object_get(json_object_get(ctx, "details"), "metrics");
}

static const char *headline_metric(const json_t *ctx)
{
	const json_t *m = metrics_of(ctx);
	size_t i;

	for (i = 0; i < NMETRIC; i++)
		if (!strcmp(jstr(json_object_get(m, metric_order[i]), "verdict",
				 ""),
			    "REGRESSION"))
			return metric_order[i];
	return "max";
}

static const json_t *run_artifact(const json_t *run, const char *name)
{
	const json_t *a;
	size_t i;

	json_array_foreach(json_object_get(run, "artifacts"), i, a)
		if (!strcmp(jstr(a, "name", ""), name))
			return a;
	return NULL;
}

/* The run of @side ("baseline_runs"/"candidate_runs") with the highest
 * maximum (of equal ones, one that kept a trace.dat), NULL when no run
 * has one. */
static const json_t *worst_run(const json_t *ctx, const char *side)
{
	const json_t *runs = json_object_get(ctx, side), *best = NULL, *r;
	double bmax = -1;
	size_t i;

	json_array_foreach(runs, i, r) {
		double m = jnum(r, "max_us");

		/* Of runs equally bad, one whose trace shows the spike. */
		if (isfinite(m) &&
		    (m > bmax ||
		     (m == bmax && !run_artifact(best, "trace.dat") &&
		      run_artifact(r, "trace.dat")))) {
			bmax = m;
			best = r;
		}
	}
	if (!best)
		best = json_array_get(runs, 0);
	return best;
}

/* A kernel as rtlab job add names it: its definition name, else release. */
static const char *kernel_ref(const json_t *k)
{
	return jstr(k, "name", jstr(k, "release", "?"));
}

const char *report_platform(const char *machine)
{
	if (!machine)
		return "Other";
	if (!strcmp(machine, "x86_64") || !strcmp(machine, "amd64"))
		return "x86-64";
	if (machine[0] == 'i' && strlen(machine) == 4 &&
	    !strcmp(machine + 2, "86"))
		return "IA-32";
	if (!strncmp(machine, "aarch64", 7) || !strncmp(machine, "arm", 3))
		return "ARM";
	if (!strncmp(machine, "ppc64", 5))
		return "PPC-64";
	return "Other";
}

bool report_realtime(const json_t *ctx)
{
	return json_is_true(json_object_get(json_object_get(ctx, "baseline"),
					    "realtime")) ||
	       json_is_true(json_object_get(json_object_get(ctx, "candidate"),
					    "realtime"));
}

const char *report_tree(const json_t *ctx)
{
	if (report_realtime(ctx))
		return "PREEMPT_RT";
	return jstr(json_object_get(ctx, "candidate"), "tree",
		    jstr(json_object_get(ctx, "baseline"), "tree", NULL));
}

/* The highest sample of a side ("baseline_runs"), NAN when none. */
static double worst_of(const json_t *ctx, const char *side)
{
	return jnum(worst_run(ctx, side), "max_us");
}

char *report_regression_tag(const json_t *ctx)
{
	const json_t *b = json_object_get(ctx, "baseline");
	const json_t *c = json_object_get(ctx, "candidate");
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	struct strbuf s = { 0 };
	char *id, hex[17];

	/* What a regression is, in terms two labs share: the board and
	 * testcase by name, the tree, both kernels by what they report. */
	strbuf_addf(&s, "%s\n%s\n%s\n%s %s\n%s %s\n",
		    jstr(json_object_get(ctx, "board"), "name", "?"),
		    jstr(json_object_get(ctx, "testcase"), "name", "?"),
		    jstr(c, "tree", jstr(b, "tree", "")),
		    jstr(b, "release", "?"), jstr(b, "version", ""),
		    jstr(c, "release", "?"), jstr(c, "version", ""));
	id = strbuf_take(&s);
	if (!id ||
	    !EVP_Digest(id, strlen(id), md, &mdlen, EVP_sha256(), NULL)) {
		free(id);
		return NULL;
	}
	free(id);
	for (i = 0; i < 8 && i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	strbuf_addf(&s, "rtlab:%s", hex);
	return strbuf_take(&s);
}

/* Cut @s (malloc'd) to @max bytes with an ellipsis, on a UTF-8 boundary. */
static char *cap(char *s, size_t max)
{
	size_t n;

	if (!s || strlen(s) <= max)
		return s;
	n = max - 3;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(s + n, "...", 4);
	return s;
}

char *report_summary(const json_t *ctx)
{
	const char *name = headline_metric(ctx), *tree = report_tree(ctx);
	const json_t *m = json_object_get(metrics_of(ctx), name);
	double b = jnum(m, "baseline"), c = jnum(m, "candidate");
	double worst = worst_of(ctx, "candidate_runs");
	const char *unit = jstr(m, "unit", "us");
	char bs[40], cs[40], ws[40], ratio[48] = "", tag[80] = "";
	struct strbuf s = { 0 };

	if (isfinite(b) && isfinite(c) && b > 0)
		snprintf(ratio, sizeof(ratio),
			 c / b >= 10 ? " (x%.0f)" : " (x%.1f)", c / b);
	if (tree)
		snprintf(tag, sizeof(tag), "[%s] ", tree);
	/* "max" compares each run's maximum: say so, and give the worst
	 * sample beside it, which is what "max" means to a maintainer. */
	strbuf_addf(&s, "%s%s%s %s -> %s%s%s%s", tag, metric_label(name),
		    strcmp(name, "max") ? "" : " (median of per-run maxima)",
		    fig(b, unit, bs, sizeof(bs)), fig(c, unit, cs, sizeof(cs)),
		    strcmp(unit, "us") ? "" : " ",
		    strcmp(unit, "us") ? "" : "us", ratio);
	if (isfinite(worst))
		strbuf_addf(&s, ", worst %s us", num(worst, ws, sizeof(ws)));
	strbuf_addf(&s, " on %s/%s: %s vs %s",
		    jstr(json_object_get(ctx, "board"), "name", "?"),
		    jstr(json_object_get(ctx, "testcase"), "name", "?"),
		    jstr(json_object_get(ctx, "candidate"), "release", "?"),
		    jstr(json_object_get(ctx, "baseline"), "release", "?"));
	return cap(strbuf_take(&s), REPORT_SUMMARY_MAX);
}

/* ------------------------------------------------------------------ */
/* report.txt */

static void text_metric(struct strbuf *s, const char *name, const json_t *m,
			double alpha_metric)
{
	char b[40], c[40], e[40], lo[40], hi[40], p[40], r[4][40];
	const char *unit = jstr(m, "unit", "us");
	const char *u = strcmp(unit, "us") ? "" : " us";
	const json_t *rb = json_object_get(m, "runs_baseline");
	const json_t *rc = json_object_get(m, "runs_candidate");
	double pv = jnum(m, "p_value");

	strbuf_addf(s, "  %-32s %s%s -> %s%s  %s\n", metric_label(name),
		    fig(jnum(m, "baseline"), unit, b, sizeof(b)), u,
		    fig(jnum(m, "candidate"), unit, c, sizeof(c)), u,
		    jstr(m, "verdict", "?"));
	if (!strcmp(unit, "us"))
		strbuf_addf(s,
			    "      effect %s us, interval [%s, %s] us (%s)\n",
			    signed_num(jnum(m, "effect"), e, sizeof(e)),
			    signed_num(jnum(m, "effect_lo"), lo, sizeof(lo)),
			    signed_num(jnum(m, "effect_hi"), hi, sizeof(hi)),
			    jstr(m, "interval", "no interval"));
	else
		strbuf_addf(s, "      ratio %s, interval [%s, %s] (%s)\n",
			    num_g(jnum(m, "effect"), e, sizeof(e)),
			    num_g(jnum(m, "effect_lo"), lo, sizeof(lo)),
			    num_g(jnum(m, "effect_hi"), hi, sizeof(hi)),
			    jstr(m, "interval", "no interval"));
	strbuf_addf(s, "      per run: baseline %s..%s%s, candidate %s..%s%s\n",
		    fig(jnumv(json_array_get(rb, 0)), unit, r[0], 40),
		    fig(jnumv(json_array_get(rb, 1)), unit, r[1], 40), u,
		    fig(jnumv(json_array_get(rc, 0)), unit, r[2], 40),
		    fig(jnumv(json_array_get(rc, 1)), unit, r[3], 40), u);
	if (isfinite(pv))
		snprintf(p, sizeof(p), "p = %.3g (alpha %.3g)", pv,
			 alpha_metric);
	else
		snprintf(p, sizeof(p), "no p-value");
	/* The engine's reason restates these figures in a sentence: it is
	 * in `rtlab verdict`, not in the page a maintainer skims. */
	strbuf_addf(s, "      %s: %s\n", jstr(m, "test", "no test"), p);
	if (json_is_true(json_object_get(m, "censored")))
		strbuf_addf(s,
			    "      (a figure lies beyond the histogram range: "
			    "a lower bound)\n");
}

static void text_kernel(struct strbuf *s, const char *label, const json_t *k)
{
	const json_t *rt = json_object_get(k, "realtime");

	strbuf_addf(s, "  %s: %s\n", label, jstr(k, "release", "?"));
	strbuf_addf(s, "    version:  %s\n", jstr(k, "version", "-"));
	strbuf_addf(s, "    tree:     %s%s, name %s\n", jstr(k, "tree", "-"),
		    json_is_boolean(rt) ?
			    (json_is_true(rt) ? " (PREEMPT_RT)" :
						" (not realtime)") :
			    "",
		    jstr(k, "name", "-"));
	strbuf_addf(s, "    commit:   %s, config sha256 %.16s%s\n",
		    jstr(k, "commit", "-"), jstr(k, "config_sha256", "-"),
		    strlen(jstr(k, "config_sha256", "-")) > 16 ? "..." : "");
}

/* "hackbench -g 4 -l 100000; hackbench-churn (loops 200)" */
/*
 * The developer's extras the candidate run brought (its manifest's
 * testcase.extras, @done): each module with its version and whether it
 * loaded, each file with its hash, each command with its exit status.
 * A definition with extras but no record (@asked only) says so: the
 * board ran an agent that did not know them.
 */
static void text_extras(struct strbuf *s, const json_t *done,
			const json_t *asked)
{
	const json_t *e;
	size_t i;

	if (!done && !asked)
		return;
	strbuf_addf(s, "  extras:     the testcase brought its own code "
		       "(testcase.extras)\n");
	if (!done) {
		strbuf_addf(s, "    asked for, but the run recorded none of "
			       "them\n");
		return;
	}
	json_array_foreach(json_object_get(done, "modules"), i, e) {
		const char *params = jstr(e, "params", "");

		strbuf_addf(s,
			    "    module %s (%s%s%s): %s\n      vermagic %s\n",
			    jstr(e, "name", "?"), jstr(e, "file", "?"),
			    *params ? " " : "", params,
			    json_is_true(json_object_get(e, "loaded")) ?
				    "loaded" :
				    "NOT loaded",
			    jstr(e, "vermagic", "?"));
		if (json_is_string(json_object_get(e, "srcversion")))
			strbuf_addf(s, "      srcversion %s, ",
				    jstr(e, "srcversion", "?"));
		else
			strbuf_addf(s, "      ");
		strbuf_addf(s, "sha256 %.16s\n", jstr(e, "sha256", "?"));
		if (json_is_string(json_object_get(e, "error")))
			strbuf_addf(s, "      %s\n", jstr(e, "error", ""));
	}
	json_array_foreach(json_object_get(done, "files"), i, e)
		strbuf_addf(s, "    file %s (from %s): sha256 %.16s\n",
			    jstr(e, "dest", "?"), jstr(e, "src", "?"),
			    jstr(e, "sha256", "?"));
	json_array_foreach(json_object_get(done, "commands"), i, e)
		strbuf_addf(s,
			    "    %s: %s: exit status %" JSON_INTEGER_FORMAT
			    "\n",
			    jstr(e, "phase", "?"), jstr(e, "command", "?"),
			    json_integer_value(json_object_get(e,
							       "exit_status")));
}

static void text_loads(struct strbuf *s, const json_t *loads)
{
	const json_t *l, *v;
	const char *key;
	size_t i, j;

	if (!json_array_size(loads)) {
		strbuf_addf(s, "none (idle)");
		return;
	}
	json_array_foreach(loads, i, l) {
		int extra = 0;

		strbuf_addf(s, "%s%s", i ? "; " : "", jstr(l, "name", "?"));
		json_array_foreach(json_object_get(l, "args"), j, v)
			strbuf_addf(s, " %s",
				    json_string_value(v) ?
					    json_string_value(v) :
					    "?");
		json_object_foreach((json_t *)l, key, v) {
			if (!strcmp(key, "name") || !strcmp(key, "args"))
				continue;
			if (json_is_string(v))
				strbuf_addf(s, "%s%s %s", extra++ ? ", " : " (",
					    key, json_string_value(v));
			else if (json_is_number(v))
				strbuf_addf(s, "%s%s %g", extra++ ? ", " : " (",
					    key, json_number_value(v));
		}
		if (extra)
			strbuf_addf(s, ")");
		/* an iperf3-nic load: the traffic came in through a NIC */
		v = json_object_get(l, "nic");
		if (json_is_object(v))
			strbuf_addf(
				s,
				", NIC-driven: %s (%s) received %" JSON_INTEGER_FORMAT
				" packets, %" JSON_INTEGER_FORMAT
				" bytes from outside the board",
				jstr(v, "interface", "?"),
				jstr(v, "driver", "?"),
				json_integer_value(json_object_get(v,
								   "rx_packets")),
				json_integer_value(json_object_get(v,
								   "rx_bytes")));
	}
}

/*
 * ", interval 997 us (the board's, not the testcase's 1000)": what
 * cyclictest -i the run used, whose it is, and what it replaced (runs
 * from before the manifest said so lack the last part).
 */
static void text_interval(struct strbuf *s, const json_t *measurement)
{
	const json_t *iv = json_object_get(measurement, "interval_us");
	const json_t *tv = json_object_get(measurement, "testcase_interval_us");

	if (!json_is_integer(iv))
		return;
	strbuf_addf(s, ", interval %" JSON_INTEGER_FORMAT " us (the %s's",
		    json_integer_value(iv),
		    jstr(measurement, "interval_source", "testcase"));
	if (json_is_integer(tv) &&
	    json_integer_value(tv) != json_integer_value(iv))
		strbuf_addf(s, ", not the testcase's %" JSON_INTEGER_FORMAT,
			    json_integer_value(tv));
	strbuf_addf(s, ")");
}

static void text_runs(struct strbuf *s, const char *label, const json_t *runs)
{
	const json_t *r;
	size_t i;

	json_array_foreach(runs, i, r) {
		char *flags = testcase_flags_text(json_object_get(r, "flags"));
		char m[40], n[40];

		strbuf_addf(s,
			    "  %-9s run %-6" JSON_INTEGER_FORMAT
			    " %.8s  %-11s max %s us, %s samples",
			    label, json_integer_value(json_object_get(r, "id")),
			    jstr(r, "uuid", "?"), jstr(r, "status", "?"),
			    num(jnum(r, "max_us"), m, sizeof(m)),
			    isfinite(jnum(r, "samples")) ?
				    num(jnum(r, "samples"), n, sizeof(n)) :
				    "0");
		text_interval(s, json_object_get(r, "measurement"));
		strbuf_addf(s, "\n");
		if (flags)
			strbuf_addf(s, "            flagged: %s\n", flags);
		free(flags);
	}
}

/* "12 (458 us)" for the @n worst runs of @runs, by their maximum. */
static void worst_runs(struct strbuf *s, const json_t *runs, size_t n)
{
	bool *used = calloc(json_array_size(runs) + 1, sizeof(*used));
	size_t k, i, best;
	const json_t *r;
	char m[40];

	if (!used)
		return;
	for (k = 0; k < n && k < json_array_size(runs); k++) {
		double bmax = -1;

		best = (size_t)-1;
		json_array_foreach(runs, i, r)
			if (!used[i] && isfinite(jnum(r, "max_us")) &&
			    jnum(r, "max_us") > bmax) {
				bmax = jnum(r, "max_us");
				best = i;
			}
		if (best == (size_t)-1)
			break;
		used[best] = true;
		r = json_array_get(runs, best);
		strbuf_addf(s, "%srun %" JSON_INTEGER_FORMAT " (%s us)",
			    k ? ", " : "",
			    json_integer_value(json_object_get(r, "id")),
			    num(jnum(r, "max_us"), m, sizeof(m)));
	}
	free(used);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One side's runs in three lines: how many, their maxima, the worst. */
static void runs_summary(struct strbuf *s, const char *label,
			 const json_t *runs)
{
	size_t n = json_array_size(runs), k = 0, i, empty = 0;
	double *v = calloc(n + 1, sizeof(*v)), samples = 0;
	char a[40], b[40], c[40], d[40];
	const json_t *r;

	if (!v)
		return;
	json_array_foreach(runs, i, r) {
		if (isfinite(jnum(r, "max_us")))
			v[k++] = jnum(r, "max_us");
		else
			empty++;
		if (isfinite(jnum(r, "samples")))
			samples += jnum(r, "samples");
	}
	qsort(v, k, sizeof(*v), dbl_cmp);
	strbuf_addf(s, "  %s: %zu runs, %s samples", label, n,
		    num(samples, d, sizeof(d)));
	if (empty)
		strbuf_addf(s, ", %zu without samples", empty);
	strbuf_addf(s, "\n");
	if (k)
		strbuf_addf(s,
			    "    per-run maxima: lowest %s, median %s, "
			    "highest %s us\n",
			    num(v[0], a, sizeof(a)),
			    num(k % 2 ? v[k / 2] :
					(v[k / 2 - 1] + v[k / 2]) / 2,
				b, sizeof(b)),
			    num(v[k - 1], c, sizeof(c)));
	strbuf_addf(s, "    worst: ");
	worst_runs(s, runs, 3);
	strbuf_addf(s, "\n");
	free(v);
}

char *report_runs_text(const json_t *ctx)
{
	struct strbuf s = { 0 };

	strbuf_addf(&s,
		    "rtlab verdict %" JSON_INTEGER_FORMAT
		    ": every run compared\n",
		    json_integer_value(json_object_get(ctx, "id")));
	text_runs(&s, "baseline", json_object_get(ctx, "baseline_runs"));
	text_runs(&s, "candidate", json_object_get(ctx, "candidate_runs"));
	return strbuf_take(&s);
}

/* The attachment named @name among @atts, NULL when not attached. */
static const struct report_attachment *
att_named(const struct report_attachment *atts, size_t natt, const char *name)
{
	size_t i;

	for (i = 0; i < natt; i++)
		if (!strcmp(atts[i].file_name, name))
			return &atts[i];
	return NULL;
}

/* What happened to the candidate's trace: attached whole, as a window
 * around the spike, or only linked; never "attached" when it is not. */
static void text_trace(struct strbuf *s, const json_t *ctx, const json_t *cand,
		       const json_t *trace,
		       const struct report_attachment *atts, size_t natt)
{
	const json_t *w = json_object_get(ctx, "trace_window");
	const json_t *link = NULL, *l;
	json_int_t id = json_integer_value(json_object_get(cand, "id"));
	const struct report_attachment *a = att_named(atts, natt, "trace.dat");
	char b1[40], b2[40];
	size_t i;

	json_array_foreach(json_object_get(ctx, "linked"), i, l)
		if (!strcmp(jstr(l, "file_name", ""), "trace.dat"))
			link = l;
	strbuf_addf(s,
		    "  trace.dat of candidate run %" JSON_INTEGER_FORMAT
		    " captured (%" JSON_INTEGER_FORMAT " bytes)",
		    id, json_integer_value(json_object_get(trace, "size")));
	if (a) {
		strbuf_addf(s, ", attached; read it with `trace-cmd report` "
			       "or KernelShark.\n");
		return;
	}
	if (link)
		strbuf_addf(s, ", not attached: %s.\n",
			    jstr(link, "reason", "?"));
	else
		strbuf_addf(s, ", not attached.\n");
	if (w) {
		strbuf_addf(s,
			    "  Attached instead: %s (%" JSON_INTEGER_FORMAT
			    " bytes), the %s ms from %s ms before the timer "
			    "expired to just after the spike, every CPU (the "
			    "spike is on CPU %" JSON_INTEGER_FORMAT "); %s.\n",
			    jstr(w, "file_name", "?"),
			    json_integer_value(json_object_get(w, "size")),
			    num_g(jnum(w, "window_ms"), b1, sizeof(b1)),
			    num_g(jnum(w, "margin_ms"), b2, sizeof(b2)),
			    json_integer_value(json_object_get(w, "cpu")),
			    json_is_true(json_object_get(w, "same_analysis")) ?
				    "its spike analysis equals the full "
				    "trace's" :
				    "its spike analysis DIFFERS from the full "
				    "trace's (below)");
		if (json_is_true(json_object_get(w, "xz")))
			strbuf_addf(s,
				    "  It is xz-compressed: `xz -d %s`, "
				    "then `trace-cmd report`.\n",
				    jstr(w, "file_name", "?"));
	}
	if (*jstr(link, "url", ""))
		strbuf_addf(s, "  The full trace: %s\n", jstr(link, "url", ""));
	else
		strbuf_addf(s,
			    "  The full trace is in the lab's database "
			    "(rtlab analyze %" JSON_INTEGER_FORMAT ").\n",
			    id);
}

/* A compact line per metric: what the test compared, both figures, the
 * change and the verdict. */
static void text_regressed(struct strbuf *s, const json_t *ctx)
{
	const json_t *metrics = metrics_of(ctx), *m;
	const json_t *bs =
		json_object_get(json_object_get(ctx, "details"), "baseline");
	const json_t *cs =
		json_object_get(json_object_get(ctx, "details"), "candidate");
	const json_t *cand = worst_run(ctx, "candidate_runs");
	char b[40], c[40], r[48], label[64];
	size_t pass, i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < NMETRIC; i++) {
			const char *unit, *u;
			double vb, vc;

			m = json_object_get(metrics, metric_order[i]);
			if (!m || (pass == 0) != !strcmp(jstr(m, "verdict", ""),
							 "REGRESSION"))
				continue;
			unit = jstr(m, "unit", "us");
			u = strcmp(unit, "us") ? "" : " us";
			vb = jnum(m, "baseline");
			vc = jnum(m, "candidate");
			r[0] = '\0';
			if (isfinite(vb) && isfinite(vc) && vb > 0)
				snprintf(r, sizeof(r), " (x%.3g)", vc / vb);
			snprintf(label, sizeof(label), "%s%s",
				 metric_label(metric_order[i]),
				 strcmp(metric_order[i], "max") ?
					 "" :
					 ", median of per-run maxima");
			strbuf_addf(s, "  %-38s %s -> %s%s%s %s\n", label,
				    fig(vb, unit, b, sizeof(b)),
				    fig(vc, unit, c, sizeof(c)), u, r,
				    jstr(m, "verdict", "?"));
		}
	strbuf_addf(s, "  %-38s %s -> %s us", "worst sample",
		    num(worst_of(ctx, "baseline_runs"), b, sizeof(b)),
		    num(worst_of(ctx, "candidate_runs"), c, sizeof(c)));
	if (cand && isfinite(jnum(cand, "max_us")))
		strbuf_addf(s, " (CPU %s, run %" JSON_INTEGER_FORMAT ")",
			    num(jnum(cand, "max_cpu"), r, sizeof(r)),
			    json_integer_value(json_object_get(cand, "id")));
	strbuf_addf(s,
		    "\n  runs: %" JSON_INTEGER_FORMAT
		    " baseline (%" JSON_INTEGER_FORMAT
		    " samples), %" JSON_INTEGER_FORMAT
		    " candidate (%" JSON_INTEGER_FORMAT " samples)\n",
		    json_integer_value(json_object_get(bs, "runs")),
		    json_integer_value(json_object_get(bs, "samples")),
		    json_integer_value(json_object_get(cs, "runs")),
		    json_integer_value(json_object_get(cs, "samples")));
}

/* A line starting with this is a shell command: wrapped with " \\". */
#define CMD_MARK '\001'

/* Lines of @text wider than @cols broken at spaces, continued four columns
 * further in; a word wider than the line is cut.  A command line (marked
 * with CMD_MARK) ends each broken piece with " \\" so it still pastes. */
char *report_wrap(const char *text, size_t cols)
{
	struct strbuf s = { 0 };
	const char *line = text, *nl;

	for (; *line; line = nl + 1) {
		size_t len, indent = 0, width, used, i, brk, n, cont, w;
		bool cmd = *line == CMD_MARK;
		const char *p;

		if (cmd)
			line++;
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		len = nl - line;
		while (indent < len && line[indent] == ' ')
			indent++;
		cont = indent + 4 > 40 ? 40 : indent + 4;
		p = line;
		n = len;
		width = cols - (cmd ? 2 : 0);
		for (;;) {
			/* columns: UTF-8 continuation bytes take none */
			for (i = 0, used = 0, brk = 0; i < n; i++) {
				if (((unsigned char)p[i] & 0xc0) != 0x80)
					used++;
				if (used > width)
					break;
				if (p[i] == ' ' && i > indent)
					brk = i;
			}
			if (i >= n) {
				strbuf_add(&s, p, n);
				break;
			}
			if (!brk)
				brk = i;
			while (brk && ((unsigned char)p[brk] & 0xc0) == 0x80)
				brk--;
			strbuf_add(&s, p, brk);
			strbuf_addf(&s, "%s\n%*s", cmd ? " \\" : "", (int)cont,
				    "");
			w = brk;
			while (w < n && p[w] == ' ')
				w++;
			p += w;
			n -= w;
			width = cols - cont - (cmd ? 2 : 0);
			indent = 0;
		}
		strbuf_addf(&s, "\n");
		if (!*nl)
			break;
	}
	return strbuf_take(&s);
}

/* What a bisection of this regression found, when one ran. */
static void text_bisect(struct strbuf *s, const json_t *b)
{
	const json_t *c = json_object_get(b, "culprit");
	const json_t *r = json_object_get(b, "range");

	if (!b)
		return;
	strbuf_addf(s, "\n== Bisection ==\n");
	if (c)
		strbuf_addf(s, "  culprit:    %s\n  subject:    %s\n",
			    jstr(c, "id", "?"), jstr(c, "subject", "?"));
	if (c && jstr(c, "author", NULL))
		strbuf_addf(s, "  author:     %s\n", jstr(c, "author", "?"));
	if (!c)
		strbuf_addf(s, "  range:      %s (good) .. %s (bad)\n",
			    json_string_value(json_array_get(r, 0)),
			    json_string_value(json_array_get(r, 1)));
	strbuf_addf(s,
		    "  rtlab bisection %" JSON_INTEGER_FORMAT
		    ", %zu steps, each decided against both ends: "
		    "rtlab bisect log %" JSON_INTEGER_FORMAT "\n",
		    json_integer_value(json_object_get(b, "id")),
		    (size_t)json_integer_value(json_object_get(b, "steps")),
		    json_integer_value(json_object_get(b, "id")));
}

char *report_text(const json_t *ctx, const struct report_attachment *atts,
		  size_t natt, const char *config_delta)
{
	const json_t *d = json_object_get(ctx, "details");
	const json_t *metrics = metrics_of(ctx), *cand, *base, *env, *tc;
	const json_t *trace, *cmd, *board = json_object_get(ctx, "board");
	const json_t *tail = json_object_get(d, "tail"), *l;
	const json_t *bs = json_object_get(d, "baseline");
	const json_t *cs = json_object_get(d, "candidate");
	double alpha_m = jnum(d, "alpha_metric");
	const char *bname = jstr(board, "name", "?");
	const char *tname = jstr(json_object_get(ctx, "testcase"), "name", "?");
	char *summary = report_summary(ctx), *tag = report_regression_tag(ctx);
	char b1[40], b2[40], *text;
	size_t nruns = json_array_size(json_object_get(ctx, "baseline_runs")) +
		       json_array_size(json_object_get(ctx, "candidate_runs"));
	struct strbuf s = { 0 };
	unsigned int nrep, lines = 0;
	size_t i;

	if (!summary || !tag) {
		free(summary);
		free(tag);
		return NULL;
	}
	cand = worst_run(ctx, "candidate_runs");
	base = worst_run(ctx, "baseline_runs");
	env = json_object_get(cand, "environment");
	tc = json_object_get(json_object_get(cand, "testcase"), "definition");
	if (!tc)
		tc = json_object_get(json_object_get(ctx, "testcase"),
				     "definition");

	strbuf_addf(&s, "%s\n\n", summary);
	strbuf_addf(&s,
		    "rtlab verdict %" JSON_INTEGER_FORMAT
		    ": %s, regression %s\n",
		    json_integer_value(json_object_get(ctx, "id")),
		    jstr(ctx, "verdict", "?"), tag);
	if (*jstr(d, "reason", ""))
		strbuf_addf(&s, "%s\n", jstr(d, "reason", ""));

	strbuf_addf(&s, "\n== What regressed ==\n");
	text_regressed(&s, ctx);

	strbuf_addf(&s, "\n== Which kernels ==\n");
	text_kernel(&s, "candidate", json_object_get(ctx, "candidate"));
	text_kernel(&s, "baseline ", json_object_get(ctx, "baseline"));
	strbuf_addf(&s, "  config delta (baseline -> candidate):\n");
	if (config_delta) {
		const char *line = config_delta, *nl;
		size_t total = 0;

		for (nl = config_delta; *nl; nl++)
			total += *nl == '\n';
		for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
			nl = strchr(line, '\n');
			if (++lines > REPORT_DELTA_LINES) {
				strbuf_addf(&s,
					    "    ... %zu more lines: "
					    "config-delta.txt\n",
					    total - REPORT_DELTA_LINES);
				break;
			}
			strbuf_addf(&s, "    %.*s\n",
				    (int)(nl ? nl - line : (long)strlen(line)),
				    line);
			if (!nl)
				break;
		}
	} else {
		strbuf_addf(&s,
			    "    not available (a config is stored only for "
			    "%s)\n",
			    run_artifact(cand, "config") ? "the candidate" :
			    run_artifact(base, "config") ? "the baseline" :
							   "neither kernel");
	}

	text_bisect(&s, json_object_get(ctx, "bisect"));

	strbuf_addf(&s, "\n== Where ==\n");
	strbuf_addf(&s, "  board:      %s (%s), clock %s, machine %s\n", bname,
		    jstr(board, "kind", "?"), jstr(cand, "clock", "?"),
		    jstr(cand, "machine", "?"));
	strbuf_addf(&s, "  cpu:        %s, %s CPUs",
		    jstr(env, "cpu_model", "?"),
		    json_is_integer(json_object_get(env, "cpus")) ?
			    (snprintf(b1, 40, "%" JSON_INTEGER_FORMAT,
				      json_integer_value(json_object_get(env,
									 "cpus"))),
			     b1) :
			    "?");
	if (*jstr(env, "isolcpus", ""))
		strbuf_addf(&s, ", isolcpus %s", jstr(env, "isolcpus", ""));
	if (*jstr(env, "clocksource", ""))
		strbuf_addf(&s, ", clocksource %s",
			    jstr(env, "clocksource", ""));
	strbuf_addf(&s, "\n  cmdline:    %s\n", jstr(env, "cmdline", "?"));
	if (cand && isfinite(jnum(cand, "max_us")))
		strbuf_addf(&s,
			    "  worst spike: %s us, CPU %s, run %" JSON_INTEGER_FORMAT
			    ", %s\n",
			    num(jnum(cand, "max_us"), b1, 40),
			    num(jnum(cand, "max_cpu"), b2, 40),
			    json_integer_value(json_object_get(cand, "id")),
			    jstr(cand, "uuid", "?"));
	strbuf_addf(&s, "  testcase:   %s", tname);
	if (json_is_integer(json_object_get(json_object_get(cand, "testcase"),
					    "duration_s")))
		strbuf_addf(&s, ", %" JSON_INTEGER_FORMAT " s per run",
			    json_integer_value(json_object_get(
				    json_object_get(cand, "testcase"),
				    "duration_s")));
	text_interval(&s, json_object_get(cand, "measurement"));
	strbuf_addf(&s, "\n  loads:      ");
	text_loads(&s, json_object_get(tc, "loads"));
	strbuf_addf(&s, "\n");
	text_extras(&s,
		    json_object_get(json_object_get(cand, "testcase"),
				    "extras"),
		    json_object_get(tc, "extras"));

	strbuf_addf(&s, "\n== Spike analysis ==\n");
	trace = run_artifact(cand, "trace.dat");
	if (trace) {
		const char *analysis = jstr(ctx, "spike_analysis", NULL);

		text_trace(&s, ctx, cand, trace, atts, natt);
		if (analysis)
			strbuf_addf(&s, "\n%s", analysis);
		else
			strbuf_addf(&s,
				    "  The trace could not be analyzed: %s\n",
				    jstr(ctx, "spike_error", "unknown reason"));
	} else
		strbuf_addf(&s,
			    "  no trace captured (candidate run %" JSON_INTEGER_FORMAT
			    " stored no trace.dat)\n",
			    json_integer_value(json_object_get(cand, "id")));

	strbuf_addf(&s, "\n== How to reproduce ==\n");
	if (json_array_size(json_object_get(cand, "commands"))) {
		strbuf_addf(&s,
			    "On the board, as candidate run %" JSON_INTEGER_FORMAT
			    " ran them (manifest.json):\n",
			    json_integer_value(json_object_get(cand, "id")));
		json_array_foreach(json_object_get(cand, "commands"), i, cmd)
			strbuf_addf(&s, "%c  %s\n", CMD_MARK,
				    json_string_value(cmd) ?
					    json_string_value(cmd) :
					    "?");
	} else {
		strbuf_addf(&s, "The runs recorded no command lines.\n");
	}
	nrep = json_array_size(json_object_get(ctx, "candidate_runs"));
	if (json_array_size(json_object_get(ctx, "baseline_runs")) > nrep)
		nrep = json_array_size(json_object_get(ctx, "baseline_runs"));
	if (nrep < 5)
		nrep = 5;
	strbuf_addf(&s, "With rtlab:\n");
	strbuf_addf(&s,
		    "%c  rtlab job add --board %s --kernel %s --testcase %s "
		    "--repeat %u\n",
		    CMD_MARK, bname,
		    kernel_ref(json_object_get(ctx, "baseline")), tname, nrep);
	strbuf_addf(&s,
		    "%c  rtlab job add --board %s --kernel %s --testcase %s "
		    "--repeat %u\n",
		    CMD_MARK, bname,
		    kernel_ref(json_object_get(ctx, "candidate")), tname, nrep);
	strbuf_addf(&s,
		    "  rtlab report VERDICT_ID   # the verdict of the new runs\n");

	strbuf_addf(&s, "\n== Runs ==\n");
	if (nruns <= REPORT_RUNS_LISTED) {
		text_runs(&s, "baseline",
			  json_object_get(ctx, "baseline_runs"));
		text_runs(&s, "candidate",
			  json_object_get(ctx, "candidate_runs"));
	} else {
		runs_summary(&s, "baseline",
			     json_object_get(ctx, "baseline_runs"));
		runs_summary(&s, "candidate",
			     json_object_get(ctx, "candidate_runs"));
		strbuf_addf(&s, "  every run: %s\n",
			    att_named(atts, natt, "runs.txt") ?
				    "runs.txt (attached)" :
				    "`rtlab verdict ID` on the lab");
	}

	strbuf_addf(&s, "\n== Statistics of the metrics that regressed ==\n");
	for (i = 0; i < NMETRIC; i++) {
		const json_t *m = json_object_get(metrics, metric_order[i]);

		if (m && !strcmp(jstr(m, "verdict", ""), "REGRESSION"))
			text_metric(&s, metric_order[i], m, alpha_m);
	}
	strbuf_addf(&s,
		    "  verdict:  %s (family-wise alpha %s, %s per metric)\n",
		    jstr(ctx, "verdict", "?"),
		    num(jnum(json_object_get(d, "params"), "alpha"), b1, 40),
		    isfinite(alpha_m) ?
			    (snprintf(b2, 40, "%.3g", alpha_m), b2) :
			    "n/a");
	if (*jstr(json_object_get(d, "sequential"), "text", ""))
		strbuf_addf(&s, "  look:     %s\n",
			    jstr(json_object_get(d, "sequential"), "text", ""));
	if (json_integer_value(json_object_get(bs, "empty_runs")) ||
	    json_integer_value(json_object_get(cs, "empty_runs")))
		strbuf_addf(&s,
			    "  without samples: %" JSON_INTEGER_FORMAT
			    " baseline, %" JSON_INTEGER_FORMAT
			    " candidate runs\n",
			    json_integer_value(json_object_get(bs,
							       "empty_runs")),
			    json_integer_value(json_object_get(cs,
							       "empty_runs")));
	strbuf_addf(&s, "  p-values:");
	for (i = 0; i < NMETRIC; i++) {
		const json_t *m = json_object_get(metrics, metric_order[i]);
		double pv = jnum(m, "p_value");

		if (!m)
			continue;
		if (isfinite(pv))
			strbuf_addf(&s, " %s %.3g;", metric_order[i], pv);
		else
			strbuf_addf(&s, " %s n/a;", metric_order[i]);
	}
	strbuf_addf(&s, "\n");
	if (tail)
		strbuf_addf(&s,
			    "  tail:     above %" JSON_INTEGER_FORMAT
			    " us (baseline p%g): %" JSON_INTEGER_FORMAT
			    " of %" JSON_INTEGER_FORMAT
			    " baseline samples, %" JSON_INTEGER_FORMAT
			    " of %" JSON_INTEGER_FORMAT " candidate samples\n",
			    json_integer_value(json_object_get(tail,
							       "threshold_us")),
			    100 * jnum(json_object_get(d, "params"), "tail_q"),
			    json_integer_value(json_object_get(tail, "k1")),
			    json_integer_value(json_object_get(tail, "n1")),
			    json_integer_value(json_object_get(tail, "k2")),
			    json_integer_value(json_object_get(tail, "n2")));

	if (natt) {
		strbuf_addf(&s, "\n== Attachments ==\n");
		for (i = 0; i < natt; i++) {
			char head[400];
			size_t n;

			/* The tracker shows each summary beside its file:
			 * here only when it fits the line. */
			n = snprintf(head, sizeof(head),
				     "  %02zu %s (%zu bytes)", i + 1,
				     atts[i].file_name, atts[i].size);
			(void)n; /* sizes vary: decide on a 9-digit one */
			if (strlen(atts[i].file_name) +
				    strlen(atts[i].summary) + 24 <=
			    REPORT_COLUMNS)
				strbuf_addf(&s, "%s: %s\n", head,
					    atts[i].summary);
			else
				strbuf_addf(&s, "%s\n", head);
		}
	}
	if (json_array_size(json_object_get(ctx, "linked"))) {
		strbuf_addf(&s, "\n== Not attached ==\n");
		json_array_foreach(json_object_get(ctx, "linked"), i, l) {
			strbuf_addf(&s,
				    "  %s (%" JSON_INTEGER_FORMAT " bytes): %s",
				    jstr(l, "file_name", "?"),
				    json_integer_value(json_object_get(l,
								       "size")),
				    jstr(l, "reason", "not attached"));
			if (*jstr(l, "url", ""))
				strbuf_addf(&s, "; %s", jstr(l, "url", ""));
			strbuf_addf(&s, "\n");
		}
	}
	free(summary);
	free(tag);
	text = strbuf_take(&s);
	if (!text)
		return NULL;
	summary = report_wrap(text, REPORT_COLUMNS);
	free(text);
	return summary;
}

/* ------------------------------------------------------------------ */
/* report.html */

static void html_escape(struct strbuf *s, const char *t, size_t n)
{
	size_t i;

	for (i = 0; i < n && t[i]; i++) {
		switch (t[i]) {
		case '<':
			strbuf_addf(s, "&lt;");
			break;
		case '>':
			strbuf_addf(s, "&gt;");
			break;
		case '&':
			strbuf_addf(s, "&amp;");
			break;
		case '"':
			strbuf_addf(s, "&quot;");
			break;
		default:
			strbuf_addf(s, "%c", t[i]);
		}
	}
}

char *report_html(const json_t *ctx, const char *text,
		  const struct report_attachment *atts, size_t natt)
{
	const char *line = text, *nl;
	struct strbuf s = { 0 };
	bool in_pre = false, first = true;
	size_t i, n;

	strbuf_addf(&s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
			"<meta charset=\"utf-8\">\n<title>");
	nl = strchr(text, '\n');
	html_escape(&s, text, nl ? (size_t)(nl - text) : strlen(text));
	strbuf_addf(&s,
		    "</title>\n<style>\n"
		    "body { font-family: sans-serif; max-width: 72em; "
		    "margin: 1em auto; padding: 0 1em; color: #222; }\n"
		    "h1 { font-size: 1.3em; }\n"
		    "h2 { font-size: 1.1em; border-bottom: 1px solid #ccc; }\n"
		    "pre { background: #f6f6f6; padding: 0.5em; "
		    "overflow-x: auto; }\n"
		    "img { max-width: 100%%; border: 1px solid #ddd; }\n"
		    ".verdict { color: #b00; font-weight: bold; }\n"
		    "</style>\n</head>\n<body>\n");
	for (; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		n = nl ? (size_t)(nl - line) : strlen(line);
		if (first) {
			strbuf_addf(&s, "<h1>");
			html_escape(&s, line, n);
			strbuf_addf(&s, "</h1>\n<p class=\"verdict\">");
			first = false;
			continue;
		}
		if (n > 6 && !strncmp(line, "== ", 3) &&
		    !strncmp(line + n - 3, " ==", 3)) {
			if (in_pre)
				strbuf_addf(&s, "</pre>\n");
			else
				strbuf_addf(&s, "</p>\n");
			strbuf_addf(&s, "<h2>");
			html_escape(&s, line + 3, n - 6);
			strbuf_addf(&s, "</h2>\n<pre>");
			in_pre = true;
			continue;
		}
		if (!n && !in_pre)
			continue;
		html_escape(&s, line, n);
		strbuf_addf(&s, "\n");
	}
	strbuf_addf(&s, in_pre ? "</pre>\n" : "</p>\n");
	strbuf_addf(&s, "<h2>Plots</h2>\n");
	for (i = 0; i < natt; i++) {
		char *b64;

		if (strcmp(atts[i].content_type, "image/png"))
			continue;
		b64 = report_base64(atts[i].data, atts[i].size);
		if (!b64) {
			s.failed = true;
			break;
		}
		strbuf_addf(&s, "<figure><img alt=\"");
		html_escape(&s, atts[i].summary, strlen(atts[i].summary));
		strbuf_addf(&s,
			    "\" src=\"data:image/png;base64,%s\">"
			    "<figcaption>",
			    b64);
		html_escape(&s, atts[i].summary, strlen(atts[i].summary));
		strbuf_addf(&s, "</figcaption></figure>\n");
		free(b64);
	}
	strbuf_addf(&s,
		    "<p><small>rtlab verdict %" JSON_INTEGER_FORMAT
		    "</small></p>\n</body>\n</html>\n",
		    json_integer_value(json_object_get(ctx, "id")));
	return strbuf_take(&s);
}

/* ------------------------------------------------------------------ */
/* bug.json and attachment bodies */

char *report_base64(const void *data, size_t size)
{
	size_t out = 4 * ((size + 2) / 3) + 1;
	const unsigned char *p = data;
	char *b = malloc(out);
	size_t done = 0, len = 0;

	if (!b)
		return NULL;
	/* EVP_EncodeBlock takes an int: feed it in slices. */
	while (done < size) {
		size_t chunk = size - done > (1u << 30) ? (1u << 30) :
							  size - done;

		len += EVP_EncodeBlock((unsigned char *)b + len, p + done,
				       (int)chunk);
		done += chunk;
	}
	b[len] = '\0';
	return b;
}

json_t *report_attachment_json(const struct report_attachment *a,
			       int64_t bug_id)
{
	char *b64 = report_base64(a->data, a->size);
	json_t *j;

	if (!b64)
		return NULL;
	j = json_pack("{s:[I], s:s, s:s, s:s, s:s, s:b}", "ids",
		      (json_int_t)bug_id, "data", b64, "file_name",
		      a->file_name, "content_type", a->content_type, "summary",
		      a->summary, "is_patch", 0);
	free(b64);
	return j;
}

json_t *report_bug_json(const json_t *ctx, const struct report_fields *f,
			const char *summary, const char *text)
{
	const json_t *cand = worst_run(ctx, "candidate_runs");
	const json_t *m = json_object_get(metrics_of(ctx), "max");
	double b = jnum(m, "baseline"), c = jnum(m, "candidate");
	const char *severity = "normal", *tree = report_tree(ctx);
	char *tag = report_regression_tag(ctx);
	json_t *bug;

	if (!tag)
		return NULL;
	/* A maximum that doubled or more is what RT users notice first;
	 * the kernel's Bugzilla calls that "high", a stock one "major"
	 * (the filing picks what the server offers). */
	if (!strcmp(jstr(m, "verdict", ""), "REGRESSION") && b > 0 &&
	    c / b >= 2)
		severity = "high";
	bug = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, "
			"s:s, s:s}",
			"product",
			f && f->product ? f->product : RTLAB_DEFAULT_BZ_PRODUCT,
			"component",
			f && f->component ? f->component :
					    RTLAB_DEFAULT_BZ_COMPONENT,
			"version",
			f && f->version ? f->version : RTLAB_DEFAULT_BZ_VERSION,
			"summary", summary, "description", text, "op_sys",
			"Linux", "platform",
			report_platform(jstr(cand, "machine", NULL)),
			"severity", severity, "whiteboard", tag,
			"cf_kernel_version",
			jstr(json_object_get(ctx, "candidate"), "release", "?"),
			"cf_regression", "Yes");
	if (bug && tree)
		json_object_set_new(bug, "cf_tree", json_string(tree));
	/* A Bugzilla without the field drops it (the filing asks). */
	if (bug &&
	    jstr(json_object_get(json_object_get(ctx, "bisect"), "culprit"),
		 "id", NULL))
		json_object_set_new(
			bug, "cf_bisect_commit",
			json_string(jstr(json_object_get(json_object_get(ctx,
									 "bisect"),
							 "culprit"),
					 "id", "")));
	free(tag);
	return bug;
}

/* ------------------------------------------------------------------ */
/* Config delta */

struct opt {
	char *name;
	char *val; /* "n" for "# CONFIG_X is not set" */
};

static int opt_cmp(const void *a, const void *b)
{
	return strcmp(((const struct opt *)a)->name,
		      ((const struct opt *)b)->name);
}

static void opts_free(struct opt *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(o[i].name);
		free(o[i].val);
	}
	free(o);
}

/* The CONFIG_ lines of a .config, sorted by name.  -ENOMEM. */
static int opts_parse(const char *t, size_t len, struct opt **out, size_t *nout)
{
	struct opt *o = NULL;
	size_t n = 0, cap = 0, i = 0;

	while (i < len) {
		const char *line = t + i, *end = memchr(line, '\n', len - i);
		size_t ll = end ? (size_t)(end - line) : len - i;
		const char *name = NULL, *val = NULL;
		size_t nl = 0, vl = 0;

		i += ll + 1;
		if (ll > 7 && !strncmp(line, "CONFIG_", 7)) {
			const char *eq = memchr(line, '=', ll);

			if (!eq)
				continue;
			name = line;
			nl = eq - line;
			val = eq + 1;
			vl = ll - nl - 1;
		} else if (ll > 20 && !strncmp(line, "# CONFIG_", 9) &&
			   !strncmp(line + ll - 11, " is not set", 11)) {
			name = line + 2;
			nl = ll - 13;
			val = "n";
			vl = 1;
		} else {
			continue;
		}
		if (n == cap) {
			struct opt *b =
				realloc(o, (cap ? cap * 2 : 256) * sizeof(*o));

			if (!b)
				goto nomem;
			o = b;
			cap = cap ? cap * 2 : 256;
		}
		o[n].name = strndup(name, nl);
		o[n].val = strndup(val, vl);
		n++;
		if (!o[n - 1].name || !o[n - 1].val)
			goto nomem;
	}
	if (n)
		qsort(o, n, sizeof(*o), opt_cmp);
	*out = o;
	*nout = n;
	return 0;
nomem:
	opts_free(o, n);
	return -ENOMEM;
}

char *report_config_delta(const char *base, size_t base_len, const char *cand,
			  size_t cand_len)
{
	struct opt *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, i = 0, j = 0;
	struct strbuf s = { 0 };
	bool any = false;

	if (opts_parse(base, base_len, &a, &na) ||
	    opts_parse(cand, cand_len, &b, &nb)) {
		opts_free(a, na);
		return NULL;
	}
	while (i < na || j < nb) {
		int c = i >= na ? 1 :
			j >= nb ? -1 :
				  strcmp(a[i].name, b[j].name);

		if (c < 0) {
			if (strcmp(a[i].val, "n")) {
				strbuf_addf(&s, "-%s=%s\n", a[i].name,
					    a[i].val);
				any = true;
			}
			i++;
		} else if (c > 0) {
			if (strcmp(b[j].val, "n")) {
				strbuf_addf(&s, "+%s=%s\n", b[j].name,
					    b[j].val);
				any = true;
			}
			j++;
		} else {
			if (strcmp(a[i].val, b[j].val)) {
				if (!strcmp(a[i].val, "n"))
					strbuf_addf(&s, "+%s=%s\n", b[j].name,
						    b[j].val);
				else if (!strcmp(b[j].val, "n"))
					strbuf_addf(&s, "-%s=%s\n", a[i].name,
						    a[i].val);
				else
					strbuf_addf(&s, "~%s: %s -> %s\n",
						    a[i].name, a[i].val,
						    b[j].val);
				any = true;
			}
			i++;
			j++;
		}
	}
	if (!any)
		strbuf_addf(&s, "no CONFIG_ differences\n");
	opts_free(a, na);
	opts_free(b, nb);
	return strbuf_take(&s);
}

/* ------------------------------------------------------------------ */
/* Attachments, from data the caller gathered (services/reporting.c) */

int report_attachment_add(struct report *r, const char *file_name,
			  const char *content_type, const char *summary,
			  void *data, size_t size)
{
	struct report_attachment *a;

	a = realloc(r->att, (r->natt + 1) * sizeof(*a));
	if (!a) {
		free(data);
		return -ENOMEM;
	}
	r->att = a;
	a = &r->att[r->natt];
	a->file_name = strdup(file_name);
	a->content_type = strdup(content_type);
	a->summary = strdup(summary);
	a->data = data;
	a->size = size;
	r->natt++;
	if (!a->file_name || !a->content_type || !a->summary)
		return -ENOMEM;
	return 0;
}

/* @text (malloc'd, taken over; NULL when building it ran out of memory)
 * as an attachment. */
static int attach_text(struct report *r, const char *file_name,
		       const char *content_type, const char *summary,
		       char *text)
{
	if (!text)
		return -ENOMEM;
	return report_attachment_add(r, file_name, content_type, summary, text,
				     strlen(text));
}

static void att_free(struct report_attachment *a)
{
	free(a->file_name);
	free(a->content_type);
	free(a->summary);
	free(a->data);
	memset(a, 0, sizeof(*a));
}

/* Attachment @i of @r replaced: @data (malloc'd) is taken over. */
static int att_replace(struct report *r, size_t i, const char *file_name,
		       const char *content_type, const char *summary,
		       void *data, size_t size)
{
	struct report_attachment *a = &r->att[i];

	att_free(a);
	a->file_name = strdup(file_name);
	a->content_type = strdup(content_type);
	a->summary = strdup(summary);
	a->data = data;
	a->size = size;
	return a->file_name && a->content_type && a->summary ? 0 : -ENOMEM;
}

static void att_remove(struct report *r, size_t i)
{
	att_free(&r->att[i]);
	memmove(&r->att[i], &r->att[i + 1],
		(r->natt - i - 1) * sizeof(r->att[0]));
	r->natt--;
}

/* Where the lab serves attachment @name of the report (the run's own
 * files from its API, the rest from the verdict's page); "" without a
 * lab URL. */
static void lab_link(const struct report *r, const char *name,
		     const char *lab_url, char *url, size_t size)
{
	json_int_t cid =
		json_integer_value(json_object_get(worst_run(r->ctx,
							     "candidate_runs"),
						   "id"));

	url[0] = '\0';
	if (!lab_url || !*lab_url)
		return;
	if (!strcmp(name, "trace.dat"))
		snprintf(url, size,
			 "%s/api/v1/runs/%" JSON_INTEGER_FORMAT "/trace.dat",
			 lab_url, cid);
	else if (!strcmp(name, "console.log") || !strcmp(name, "dmesg.txt"))
		snprintf(url, size,
			 "%s/api/v1/runs/%" JSON_INTEGER_FORMAT "/artifacts/%s",
			 lab_url, cid, name);
	else if (!strncmp(name, "config-", 7))
		snprintf(url, size,
			 "%s/api/v1/runs/%" JSON_INTEGER_FORMAT
			 "/artifacts/config",
			 lab_url, cid);
	else
		snprintf(url, size, "%s/verdicts/%" PRId64, lab_url,
			 r->verdict_id);
}

static int link_add(struct report *r, const char *name, size_t size,
		    const char *reason, const char *url)
{
	json_t *linked = json_object_get(r->ctx, "linked");

	if (!linked) {
		linked = json_array();
		if (!linked || json_object_set_new(r->ctx, "linked", linked))
			return -ENOMEM;
	}
	return json_array_append_new(linked,
				     json_pack("{s:s, s:I, s:s, s:s}",
					       "file_name", name, "size",
					       (json_int_t)size, "reason",
					       reason, "url", url)) ?
		       -ENOMEM :
		       0;
}

/* trace.dat (attachment @i) over the limit: the window around its spike
 * instead, the full trace linked. */
static int fit_trace(struct report *r, size_t i, size_t max, const char *reason,
		     const char *url, bool *kept)
{
	struct rtlab_err werr = { "" };
	struct trace_window w = { 0 };
	char why[RTLAB_ERR_LEN + 200], summary[300];
	const char *name;
	size_t size = r->att[i].size;
	int ret;

	*kept = false;
	ret = trace_window_reduce(r->att[i].data, size, max, &w, &werr);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		snprintf(why, sizeof(why),
			 "%s; no window around the spike "
			 "either: %s",
			 reason, werr.msg);
		att_remove(r, i);
		return link_add(r, "trace.dat", size, why, url);
	}
	name = w.xz ? "trace-window.dat.xz" : "trace-window.dat";
	snprintf(summary, sizeof(summary),
		 "ftrace trace, %.3g ms around the worst spike (%" PRIu64
		 " us, CPU %d)%s",
		 (w.end_ns - w.start_ns) / 1e6, w.spike_us, w.cpu,
		 w.xz ? ", xz-compressed" : "");
	if (json_object_set_new(r->ctx, "trace_window",
				json_pack("{s:s, s:I, s:i, s:f, s:f, s:b, s:b}",
					  "file_name", name, "size",
					  (json_int_t)w.size, "cpu", w.cpu,
					  "margin_ms", w.margin_ns / 1e6,
					  "window_ms",
					  (w.end_ns - w.start_ns) / 1e6,
					  "same_analysis", w.same_analysis,
					  "xz", w.xz))) {
		trace_window_cleanup(&w);
		return -ENOMEM;
	}
	ret = att_replace(r, i, name,
			  w.xz ? "application/x-xz" :
				 "application/octet-stream",
			  summary, w.data, w.size);
	w.data = NULL;
	*kept = true;
	if (!ret)
		ret = link_add(r, "trace.dat", size, reason, url);
	return ret;
}

int report_fit_attachments(struct report *r, size_t max_bytes,
			   const char *lab_url, struct rtlab_err *err)
{
	char reason[200], url[600], name[300], summary[400];
	struct rtlab_err xerr = { "" };
	size_t i = 0;
	int ret = 0;

	while (!ret && i < r->natt) {
		struct report_attachment *a = &r->att[i];
		void *xz = NULL;
		size_t xz_size = 0;

		if (a->size <= max_bytes) {
			i++;
			continue;
		}
		snprintf(reason, sizeof(reason),
			 "over the server's attachment limit of %zu KB",
			 max_bytes / 1024);
		lab_link(r, a->file_name, lab_url, url, sizeof(url));
		if (!strcmp(a->file_name, "trace.dat")) {
			bool kept;

			ret = fit_trace(r, i, max_bytes, reason, url, &kept);
			if (kept)
				i++;
			continue;
		}
		ret = xz_compress(a->data, a->size, &xz, &xz_size, &xerr);
		if (ret == -ENOMEM)
			break;
		if (!ret && xz_size <= max_bytes) {
			snprintf(name, sizeof(name), "%s.xz", a->file_name);
			snprintf(summary, sizeof(summary), "%s (xz)",
				 a->summary);
			ret = att_replace(r, i, name, "application/x-xz",
					  summary, xz, xz_size);
			i++;
			continue;
		}
		free(xz);
		snprintf(name, sizeof(name), "%s", a->file_name);
		xz_size = a->size;
		att_remove(r, i);
		ret = link_add(r, name, xz_size, reason, url);
	}
	if (ret == -ENOMEM)
		return rtlab_err_seterr(err, ENOMEM,
					"report of verdict %" PRId64
					": out of memory",
					r->verdict_id);
	return ret;
}

const json_t *report_worst_run(const json_t *ctx, const char *side)
{
	return worst_run(ctx, side);
}

bool report_run_has_artifact(const json_t *run, const char *name)
{
	return run_artifact(run, name) != NULL;
}

int report_attach_run_plot(struct report *r, const struct run_hists *rh,
			   const char *side, struct rtlab_err *err)
{
	char name[96], summary[160];
	void *img = NULL;
	size_t size = 0;
	int ret;

	ret = plot_stored_run(rh, PLOT_PNG, &img, &size, err);
	if (ret == -ENODATA)
		return 0; /* a run without histograms has no plot */
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%s-run-%" PRId64 ".png", side,
		 rh->run_id);
	snprintf(summary, sizeof(summary),
		 "latency histogram per CPU, %s "
		 "run %" PRId64 " (worst of its side)",
		 side, rh->run_id);
	return report_attachment_add(r, name, "image/png", summary, img, size);
}

int report_attach_overlay(struct report *r, const struct hist *hb,
			  const struct hist *hc, struct rtlab_err *err)
{
	struct plot_compare pc = { 0 };
	char title[256], sub[256];
	void *img = NULL;
	size_t size = 0;
	int ret;

	if (!hb->samples || !hc->samples)
		return 0;
	snprintf(title, sizeof(title), "%s / %s: baseline over candidate",
		 jstr(json_object_get(r->ctx, "board"), "name", "?"),
		 jstr(json_object_get(r->ctx, "testcase"), "name", "?"));
	snprintf(sub, sizeof(sub),
		 "verdict %" PRId64 ", all runs of each side pooled, each "
		 "as the fraction of its own samples",
		 r->verdict_id);
	pc.title = title;
	pc.subtitle = sub;
	pc.baseline.release =
		jstr(json_object_get(r->ctx, "baseline"), "release", "?");
	pc.baseline.nruns =
		json_array_size(json_object_get(r->ctx, "baseline_runs"));
	pc.baseline.hist = hb;
	pc.candidate.release =
		jstr(json_object_get(r->ctx, "candidate"), "release", "?");
	pc.candidate.nruns =
		json_array_size(json_object_get(r->ctx, "candidate_runs"));
	pc.candidate.hist = hc;
	ret = plot_compare_render(&pc, PLOT_PNG, &img, &size, err);
	if (!ret)
		ret = report_attachment_add(r, "baseline-over-candidate.png",
					    "image/png",
					    "latency histograms, baseline "
					    "over candidate (all runs pooled, "
					    "normalised)",
					    img, size);
	return ret;
}

/* One row of histograms.csv: @lat_us is a bucket ("12") or the
 * overflows (">=100"). */
static void csv_row(struct strbuf *csv, const char *side, json_int_t run_id,
		    const char *uuid, const json_t *t, const char *lat_us,
		    json_int_t count)
{
	strbuf_addf(csv,
		    "%s,%" JSON_INTEGER_FORMAT ",%s,%" JSON_INTEGER_FORMAT
		    ",%" JSON_INTEGER_FORMAT ",%s,%" JSON_INTEGER_FORMAT "\n",
		    side, run_id, uuid,
		    json_integer_value(json_object_get(t, "thread")),
		    json_integer_value(json_object_get(t, "cpu")), lat_us,
		    count);
}

int report_attach_histograms(struct report *r, const json_t *doc)
{
	static const char *const sides[] = { "baseline", "candidate" };
	const json_t *run, *t;
	struct strbuf csv = { 0 };
	char *text, lat[32];
	json_int_t over;
	size_t s, i, j, k;
	int ret;

	strbuf_addf(&csv, "side,run_id,run_uuid,thread,cpu,lat_us,count\n");
	for (s = 0; s < 2; s++) {
		json_array_foreach(json_object_get(doc, sides[s]), i, run) {
			json_int_t id =
				json_integer_value(json_object_get(run,
								   "run_id"));
			const char *uuid = jstr(run, "uuid", "");

			json_array_foreach(json_object_get(run, "threads"), j,
					   t) {
				json_t *bu = json_object_get(t, "bucket_us");
				json_t *co = json_object_get(t, "counts");

				for (k = 0; k < json_array_size(bu); k++) {
					snprintf(lat, sizeof(lat),
						 "%" JSON_INTEGER_FORMAT,
						 json_integer_value(
							 json_array_get(bu,
									k)));
					csv_row(&csv, sides[s], id, uuid, t,
						lat,
						json_integer_value(
							json_array_get(co, k)));
				}
				over = json_integer_value(
					json_object_get(t, "overflows"));
				if (over) {
					snprintf(lat, sizeof(lat),
						 ">=%" JSON_INTEGER_FORMAT,
						 json_integer_value(json_object_get(
							 t, "range_us")));
					csv_row(&csv, sides[s], id, uuid, t,
						lat, over);
				}
			}
		}
	}
	text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	ret = attach_text(r, "histograms.json", "application/json",
			  "every run's histograms per CPU (1 us buckets)",
			  text);
	if (ret)
		goto out;
	text = strbuf_take(&csv);
	csv.buf = NULL;
	ret = attach_text(r, "histograms.csv", "text/csv",
			  "every run's histograms as CSV "
			  "(side, run, thread, cpu, lat_us, count)",
			  text);
out:
	free(csv.buf);
	return ret;
}

int report_attach_spike(struct report *r, int64_t run_id, void *text,
			size_t size, struct rtlab_err *err)
{
	char summary[200];
	char *s;
	int ret;

	s = strndup(text, size);
	ret = s ? json_object_set_new(r->ctx, "spike_analysis",
				      json_string(s)) :
		  -1;
	free(s);
	if (ret) {
		free(text);
		return rtlab_err_seterr(err, ENOMEM, "report: out of memory");
	}
	snprintf(summary, sizeof(summary),
		 "spike analysis of the trace of "
		 "candidate run %" PRId64,
		 run_id);
	return report_attachment_add(r, "spike-analysis.txt", "text/plain",
				     summary, text, size);
}

int report_fit_comment(struct report *r, size_t max)
{
	size_t len = strlen(r->text), cut;
	char *whole, *t;

	if (len <= max)
		return 0;
	whole = strdup(r->text);
	if (!whole ||
	    report_attachment_add(r, "report.txt", "text/plain",
				  "the whole report (comment 0 is cut)", whole,
				  len))
		return -ENOMEM;
	cut = max > 200 ? max - 200 : 0;
	while (cut && r->text[cut - 1] != '\n')
		cut--;
	if (asprintf(&t,
		     "%.*s\n[cut at %zu of %zu characters, the tracker's "
		     "limit:\nthe whole report is report.txt, attached]\n",
		     (int)cut, r->text, cut, len) < 0)
		return -ENOMEM;
	free(r->text);
	r->text = t;
	return json_object_set_new(r->bug, "description", json_string(t)) ?
		       -ENOMEM :
		       0;
}

/* Lines of @text. */
static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

int report_render(struct report *r, const struct report_fields *fields,
		  const char *config_delta, struct rtlab_err *err)
{
	size_t nruns =
		json_array_size(json_object_get(r->ctx, "baseline_runs")) +
		json_array_size(json_object_get(r->ctx, "candidate_runs"));
	int ret = 0;

	/* What comment 0 summarises goes whole into attachments. */
	if (nruns > REPORT_RUNS_LISTED)
		ret = attach_text(r, "runs.txt", "text/plain",
				  "every run of the verdict: id, uuid, "
				  "status, highest sample, samples",
				  report_runs_text(r->ctx));
	if (!ret && config_delta &&
	    count_lines(config_delta) > REPORT_DELTA_LINES)
		ret = attach_text(r, "config-delta.txt", "text/plain",
				  "every CONFIG_ difference, baseline -> "
				  "candidate",
				  strdup(config_delta));
	if (ret)
		return rtlab_err_seterr(err, ENOMEM,
					"report of verdict %" PRId64
					": out of memory",
					r->verdict_id);
	if (fields && fields->max_attachment_bytes) {
		ret = report_fit_attachments(r, fields->max_attachment_bytes,
					     fields->lab_url, err);
		if (ret)
			return ret;
	}
	r->summary = report_summary(r->ctx);
	r->text = report_text(r->ctx, r->att, r->natt, config_delta);
	if (r->text)
		r->html = report_html(r->ctx, r->text, r->att, r->natt);
	if (r->summary && r->text)
		r->bug = report_bug_json(r->ctx, fields, r->summary, r->text);
	if (!r->summary || !r->text || !r->html || !r->bug)
		return rtlab_err_seterr(err, ENOMEM,
					"report of verdict %" PRId64
					": out of memory",
					r->verdict_id);
	return 0;
}

void report_cleanup(struct report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->natt; i++) {
		free(r->att[i].file_name);
		free(r->att[i].content_type);
		free(r->att[i].summary);
		free(r->att[i].data);
	}
	free(r->att);
	json_decref(r->ctx);
	json_decref(r->bug);
	free(r->summary);
	free(r->text);
	free(r->html);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ */
/* Writing the report directory */

static int mkdirs(const char *path, struct rtlab_err *err)
{
	char *p = strdup(path), *s, c;
	int ret = 0;

	if (!p)
		return -ENOMEM;
	for (s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			ret = rtlab_err_seterr(err, errno,
					       "%s: cannot create "
					       "the directory: %s",
					       p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

static int write_file(const char *dir, const char *name, const void *data,
		      size_t size, struct rtlab_err *err)
{
	char *path = NULL;
	FILE *f;
	int ret = 0;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	f = fopen(path, "w");
	if (!f) {
		ret = rtlab_err_seterr(err, errno, "%s: cannot write: %s", path,
				       strerror(errno));
		goto out;
	}
	if (fwrite(data, 1, size, f) != size)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		rtlab_err_seterr(err, EIO, "%s: write failed", path);
out:
	free(path);
	return ret;
}

static int write_json(const char *dir, const char *name, const json_t *j,
		      struct rtlab_err *err)
{
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	int ret;

	if (!text)
		return rtlab_err_seterr(err, ENOMEM, "%s/%s: out of memory",
					dir, name);
	ret = write_file(dir, name, text, strlen(text), err);
	free(text);
	return ret;
}

int report_write(const struct report *r, const char *dir, struct rtlab_err *err)
{
	char *adir = NULL;
	size_t i;
	int ret;

	if (asprintf(&adir, "%s/attachments", dir) < 0)
		return -ENOMEM;
	ret = mkdirs(adir, err);
	if (!ret)
		ret = write_json(dir, "bug.json", r->bug, err);
	if (!ret)
		ret = write_file(dir, "report.txt", r->text, strlen(r->text),
				 err);
	if (!ret)
		ret = write_file(dir, "report.html", r->html, strlen(r->html),
				 err);
	for (i = 0; !ret && i < r->natt; i++) {
		char name[320];
		json_t *j = report_attachment_json(&r->att[i], 0);

		if (!j) {
			ret = rtlab_err_seterr(err, ENOMEM,
					       "attachment %s: "
					       "out of memory",
					       r->att[i].file_name);
			break;
		}
		snprintf(name, sizeof(name), "%02zu-%s.json", i + 1,
			 r->att[i].file_name);
		ret = write_json(adir, name, j, err);
		json_decref(j);
	}
	free(adir);
	return ret;
}
