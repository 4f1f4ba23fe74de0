// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of lib/regress.c: the verdict cases of tests/stats/verdicts.table
 * (synthetic and real cyclictest histograms; adding a case needs no C), the
 * false-alarm and detection rates measured over many simulated comparisons,
 * refusal of mixed or bad input, and the JSON form of a result.
 */

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "cyclictest.h"
#include "regress.h"

#define MAX_RUNS 64

/* ------------------------------------------------------------------ */
/* The table                                                           */

struct side_files {
	struct ct_result res[MAX_RUNS];
	struct regress_run runs[MAX_RUNS];
	char *names[MAX_RUNS];
	unsigned int n;
};

static void side_files_cleanup(struct side_files *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		ct_result_cleanup(&s->res[i]);
		free(s->names[i]);
	}
	s->n = 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long sz;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)sz + 1);
		if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[sz] = '\0';
			*len = (size_t)sz;
		}
	}
	fclose(f);
	return buf;
}

static int load_file(struct side_files *s, const char *path, char *why,
		     size_t whylen)
{
	struct rtlab_err err = { "" };
	unsigned int k = s->n;
	size_t len;
	char *text;
	int ret;

	if (k >= MAX_RUNS) {
		snprintf(why, whylen, "more than %d runs", MAX_RUNS);
		return -E2BIG;
	}
	text = slurp(path, &len);
	if (!text) {
		snprintf(why, whylen, "%s: cannot read", path);
		return -ENOENT;
	}
	ret = ct_hist_parse(text, len, &s->res[k], &err);
	free(text);
	if (ret) {
		snprintf(why, whylen, "%s: %s", path, err.msg);
		return ret;
	}
	s->names[k] = strdup(path);
	s->runs[k] = (struct regress_run){
		.id = s->names[k],
		.cpus = s->res[k].threads,
		.ncpus = s->res[k].nthreads,
	};
	s->n++;
	return 0;
}

/* "a.hist,b-*.hist" relative to @dir */
static int load_list(struct side_files *s, const char *dir, char *list,
		     char *why, size_t whylen)
{
	char *item, *save = NULL, pat[1024];
	glob_t g;
	size_t i;
	int ret = 0;

	for (item = strtok_r(list, ",", &save); item && !ret;
	     item = strtok_r(NULL, ",", &save)) {
		snprintf(pat, sizeof(pat), "%s/%s", dir, item);
		if (glob(pat, 0, NULL, &g)) {
			snprintf(why, whylen, "no file matches %s", pat);
			return -ENOENT;
		}
		for (i = 0; i < g.gl_pathc && !ret; i++)
			ret = load_file(s, g.gl_pathv[i], why, whylen);
		globfree(&g);
	}
	return ret;
}

static int metric_index(const char *name)
{
	static const char *const names[] = { "p99", "p99.9", "max", "tail_rate",
					     "w1" };
	unsigned int i;

	for (i = 0; i < REGRESS_NMETRICS; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

static void show_result(const struct regress_result *r)
{
	char seq[400];
	unsigned int i;

	regress_seq_text(r, seq, sizeof(seq));
	printf("#   overall %s: %s (more runs: %d)\n#   %s\n",
	       regress_verdict_name(r->verdict), r->reason, r->more_runs, seq);
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		const struct regress_metric *m = &r->metrics[i];

		printf("#   %-9s %-12s base %.4g cand %.4g effect %.4g [%.4g, %.4g] p=%.3g: %s\n",
		       m->name, regress_verdict_name(m->verdict), m->baseline,
		       m->candidate, m->effect, m->effect_lo, m->effect_hi,
		       m->p_value, m->reason);
	}
}

static void table_line(const char *dir, char *line, unsigned int lineno)
{
	struct side_files *b = calloc(1, sizeof(*b)),
			  *c = calloc(1, sizeof(*c));
	int want_metric[REGRESS_NMETRICS];
	double want_lo[REGRESS_NMETRICS], want_hi[REGRESS_NMETRICS];
	const char *want_error = NULL;
	int want_more = -2;
	struct regress_params p;
	struct regress_result r;
	struct rtlab_err err = { "" };
	char *tok, *save = NULL, *blist = NULL, *clist = NULL, *expect;
	char why[1200] = "", label[160];
	int want, negate = 0, ret = 0, ok, mi;
	unsigned int i;

	if (!b || !c)
		abort();
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		want_metric[i] = -1;
		want_lo[i] = NAN;
		want_hi[i] = NAN;
	}
	regress_params_init(&p);
	expect = strtok_r(line, " \t", &save);
	if (*expect == '!') {
		negate = 1;
		expect++;
	}
	want = !strcmp(expect, "ERROR") ? INT_MAX :
					  regress_verdict_parse(expect);
	if (want < 0) {
		snprintf(why, sizeof(why), "unknown verdict '%s'", expect);
		ret = -EINVAL;
	}
	while (!ret && (tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');

		if (tok[0] == '#')
			break;
		if (!eq) {
			snprintf(why, sizeof(why),
				 "expected KEY=VALUE, got '%s'", tok);
			ret = -EINVAL;
			break;
		}
		*eq++ = '\0';
		if (!strcmp(tok, "baseline"))
			blist = eq;
		else if (!strcmp(tok, "candidate"))
			clist = eq;
		else if (!strcmp(tok, "floor_us"))
			p.floor_abs_us = atof(eq);
		else if (!strcmp(tok, "floor_rel"))
			p.floor_rel = atof(eq);
		else if (!strcmp(tok, "tail_q"))
			p.tail_q = atof(eq);
		else if (!strcmp(tok, "alpha"))
			p.alpha = atof(eq);
		else if (!strcmp(tok, "min_runs"))
			p.min_runs = (unsigned int)atoi(eq);
		else if (!strcmp(tok, "looks"))
			p.looks = (unsigned int)atoi(eq);
		else if (!strcmp(tok, "more_runs"))
			want_more = atoi(eq);
		else if (!strcmp(tok, "error")) {
			want_error = eq;
			for (; *eq; eq++)
				if (*eq == '_')
					*eq = ' ';
		} else if (!strncmp(tok, "lo.", 3) &&
			   (mi = metric_index(tok + 3)) >= 0)
			want_lo[mi] = atof(eq);
		else if (!strncmp(tok, "hi.", 3) &&
			 (mi = metric_index(tok + 3)) >= 0)
			want_hi[mi] = atof(eq);
		else if (!strncmp(tok, "metric.", 7) &&
			 (mi = metric_index(tok + 7)) >= 0 &&
			 (want_metric[mi] = regress_verdict_parse(eq)) >= 0)
			;
		else {
			snprintf(why, sizeof(why),
				 "unknown key or value '%s=%s'", tok, eq);
			ret = -EINVAL;
		}
	}
	if (!ret && (!blist || !clist)) {
		snprintf(why, sizeof(why), "needs baseline= and candidate=");
		ret = -EINVAL;
	}
	snprintf(label, sizeof(label), "verdicts.table:%u %s%s", lineno,
		 negate ? "not " : "",
		 want == INT_MAX ? "ERROR" :
		 want >= 0	 ? regress_verdict_name(want) :
				   "?");
	if (!ret)
		ret = load_list(b, dir, blist, why, sizeof(why));
	if (!ret)
		ret = load_list(c, dir, clist, why, sizeof(why));
	if (ret) {
		CHECK(0, "%s: %s", label, why);
		goto out;
	}
	ret = regress_compare(b->runs, b->n, c->runs, c->n, &p, &r, &err);
	if (want == INT_MAX) {
		CHECK(ret == -EINVAL &&
			      (!want_error || strstr(err.msg, want_error)),
		      "%s: refused (%d) naming '%s': %s", label, ret,
		      want_error ? want_error : "", err.msg);
		goto out;
	}
	if (ret) {
		CHECK(0, "%s: regress_compare failed %d: %s", label, ret,
		      err.msg);
		goto out;
	}
	ok = negate ? (int)r.verdict != want : (int)r.verdict == want;
	CHECK(ok, "%s (%u vs %u runs): got %s", label, b->n, c->n,
	      regress_verdict_name(r.verdict));
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		if (want_metric[i] < 0)
			continue;
		CHECK((int)r.metrics[i].verdict == want_metric[i],
		      "%s: metric %s is %s (got %s)", label, r.metrics[i].name,
		      regress_verdict_name(want_metric[i]),
		      regress_verdict_name(r.metrics[i].verdict));
		if ((int)r.metrics[i].verdict != want_metric[i])
			ok = 0;
	}
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		if (!isnan(want_lo[i])) {
			CHECK(!(r.metrics[i].effect_lo > want_lo[i]),
			      "%s: metric %s interval reaches down to %g (got [%g, %g])",
			      label, r.metrics[i].name, want_lo[i],
			      r.metrics[i].effect_lo, r.metrics[i].effect_hi);
			if (r.metrics[i].effect_lo > want_lo[i])
				ok = 0;
		}
		if (!isnan(want_hi[i])) {
			CHECK(!(r.metrics[i].effect_hi < want_hi[i]),
			      "%s: metric %s interval reaches up to %g (got [%g, %g])",
			      label, r.metrics[i].name, want_hi[i],
			      r.metrics[i].effect_lo, r.metrics[i].effect_hi);
			if (r.metrics[i].effect_hi < want_hi[i])
				ok = 0;
		}
	}
	if (want_more != -2) {
		CHECK(r.more_runs == want_more, "%s: %d more runs (got %d)",
		      label, want_more, r.more_runs);
		if (r.more_runs != want_more)
			ok = 0;
	}
	if (!ok || getenv("RTLAB_VERBOSE"))
		show_result(&r);
	if (r.verdict == REGRESS_INCONCLUSIVE)
		CHECK(r.more_runs != 0 && r.reason[0],
		      "%s: INCONCLUSIVE says why and how many more runs (%d)",
		      label, r.more_runs);
out:
	side_files_cleanup(b);
	side_files_cleanup(c);
	free(b);
	free(c);
}

static void test_table(void)
{
	const char *top = getenv("RTLAB_TOP");
	char dir[900], path[1000], line[4096];
	unsigned int lineno = 0, cases = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/tests/stats", top ? top : ".");
	snprintf(path, sizeof(path), "%s/verdicts.table", dir);
	f = fopen(path, "r");
	CHECK(f != NULL, "open %s", path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = line + strspn(line, " \t");

		lineno++;
		s[strcspn(s, "\r\n")] = '\0';
		if (!*s || *s == '#')
			continue;
		cases++;
		table_line(dir, s, lineno);
	}
	fclose(f);
	CHECK(cases >= 10, "verdicts.table has %u cases", cases);
}

/* ------------------------------------------------------------------ */
/* Simulated reruns: false alarms and detection                        */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_uniform(void)
{
	return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
	return sqrt(-2.0 * log(rng_uniform())) *
	       cos(2.0 * M_PI * rng_uniform());
}

#define SIM_CPUS 2
#define SIM_SAMPLES 10000

static int sim_samples = SIM_SAMPLES;

/*
 * One run: per CPU, a lognormal body that wanders by run and an
 * exponential (unbounded) tail whose weight varies by run, like reruns of
 * one kernel; @spike_frac adds injected 60-100 µs latencies.
 */
static void sim_run(struct hist *cpus, double spike_frac)
{
	double shift = rng_normal() * 0.3;
	double frac = 0.005 * fmax(0.2, 1.0 + 0.2 * rng_normal());
	double v;
	int c, i;

	for (c = 0; c < SIM_CPUS; c++) {
		if (hist_init(&cpus[c], 400))
			abort();
		cpus[c].cpu = c;
		for (i = 0; i < sim_samples; i++) {
			double u = rng_uniform();

			if (u < spike_frac)
				v = 60.0 + 40.0 * rng_uniform();
			else if (u < spike_frac + frac)
				v = 25.0 - 6.0 * log(rng_uniform());
			else
				v = 10.0 + shift +
				    exp(log(4.0) + 0.35 * rng_normal());
			hist_add(&cpus[c], (uint32_t)v, 1);
		}
	}
}

static int sim_compare(unsigned int runs, double spike_frac,
		       enum regress_verdict *v)
{
	struct hist h[2][MAX_RUNS][SIM_CPUS];
	struct regress_run r[2][MAX_RUNS];
	struct regress_params p;
	struct regress_result res;
	unsigned int s, i, c;
	int ret;

	for (s = 0; s < 2; s++)
		for (i = 0; i < runs; i++) {
			sim_run(h[s][i], s ? spike_frac : 0.0);
			r[s][i] = (struct regress_run){ .clock = "realtime",
							.cpus = h[s][i],
							.ncpus = SIM_CPUS };
		}
	regress_params_init(&p);
	ret = regress_compare(r[0], runs, r[1], runs, &p, &res, NULL);
	*v = res.verdict;
	for (s = 0; s < 2; s++)
		for (i = 0; i < runs; i++)
			for (c = 0; c < SIM_CPUS; c++)
				hist_cleanup(&h[s][i][c]);
	return ret;
}

static void test_rates(void)
{
	const int naa = 200, ninj = 100;
	int i, fa = 0, nc = 0, det = 0, err = 0;
	enum regress_verdict v;

	rng_state = 424242;
	for (i = 0; i < naa; i++) {
		err |= sim_compare(5, 0.0, &v);
		fa += v == REGRESS_REGRESSION;
		nc += v == REGRESS_NO_CHANGE;
	}
	CHECK(!err && fa <= naa * 5 / 100,
	      "A/A false alarms: %d of %d comparisons called REGRESSION (%.1f%%; NO_CHANGE %d)",
	      fa, naa, 100.0 * fa / naa, nc);
	for (i = 0; i < ninj; i++) {
		err |= sim_compare(5, 0.003, &v);
		det += v == REGRESS_REGRESSION;
	}
	CHECK(!err && det >= ninj * 90 / 100,
	      "injected 0.3%% spikes of 60-100 us: detected in %d of %d (%.0f%%)",
	      det, ninj, 100.0 * det / ninj);
}

/* Clopper-Pearson lower bound of a proportion k/n, one-sided at @a. */
static double cp_lower(unsigned int k, unsigned int n, double a)
{
	double lo = 0, hi = 1;
	int i;

	if (!k)
		return 0;
	for (i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (stats_binom_sf(k, n, mid) < a)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The sequential plan over repeated looks: A/A comparisons recomputed
 * after every upload, as the server does, with both floors at 0 (the
 * hardest case: nothing but the tests stands between noise and a claim).
 * (a) the baseline stays at 5 runs while the candidate grows to 30;
 * (b) both sides grow to 15 runs, through all three looks.  A false claim
 * is a REGRESSION or an IMPROVEMENT at any recomputation; its rate must
 * not be shown above alpha (the lower end of its 95 % interval <= alpha).
 */
#define SEQ_REPS 200
#define SEQ_BASE 15
#define SEQ_CAND 30

static void test_sequential(void)
{
	static struct hist h[SEQ_BASE + SEQ_CAND][SIM_CPUS];
	struct regress_run b[SEQ_BASE], c[SEQ_CAND];
	struct regress_params p;
	struct regress_result res;
	unsigned int rep, n, i, k, fa_a = 0, fa_b = 0, first = 0;
	unsigned int looks_seen = 0, changed_between = 0;
	int err = 0;

	rng_state = 20261203;
	sim_samples = 2000;
	regress_params_init(&p);
	p.floor_abs_us = 0;
	p.floor_rel = 0;
	for (rep = 0; rep < SEQ_REPS; rep++) {
		int claim_a = 0, claim_b = 0;
		enum regress_verdict at_look = REGRESS_INCONCLUSIVE;
		unsigned int look = 0;

		for (i = 0; i < SEQ_BASE + SEQ_CAND; i++) {
			sim_run(h[i], 0.0);
			if (i < SEQ_BASE)
				b[i] = (struct regress_run){
					.cpus = h[i], .ncpus = SIM_CPUS
				};
			else
				c[i - SEQ_BASE] = (struct regress_run){
					.cpus = h[i], .ncpus = SIM_CPUS
				};
		}
		for (n = 5; n <= SEQ_CAND; n++) {
			err |= regress_compare(b, 5, c, n, &p, &res, NULL);
			k = res.verdict == REGRESS_REGRESSION ||
			    res.verdict == REGRESS_IMPROVEMENT;
			claim_a |= k;
			if (n == 5)
				first += k;
		}
		for (n = 5; n <= SEQ_BASE; n++) {
			err |= regress_compare(b, n, c, n, &p, &res, NULL);
			claim_b |= res.verdict == REGRESS_REGRESSION ||
				   res.verdict == REGRESS_IMPROVEMENT;
			/* between looks the decision does not move */
			if (res.seq.look == look && res.verdict != at_look)
				changed_between++;
			look = res.seq.look;
			at_look = res.verdict;
			looks_seen |= 1u << look;
		}
		fa_a += claim_a;
		fa_b += claim_b;
		for (i = 0; i < SEQ_BASE + SEQ_CAND; i++)
			for (k = 0; k < SIM_CPUS; k++)
				hist_cleanup(&h[i][k]);
	}
	sim_samples = SIM_SAMPLES;
	CHECK(!err, "sequential simulation ran");
	CHECK(looks_seen == 0xe && !changed_between,
	      "recomputing after every upload decides only at looks 1-3 (seen mask %#x, %u changes between looks)",
	      looks_seen, changed_between);
	CHECK(cp_lower(fa_a, SEQ_REPS, 0.025) <= p.alpha,
	      "baseline 5 runs, candidate 5->30, floors 0: false claims in %u of %d series at any look (%.1f%%; %u at the first look)",
	      fa_a, SEQ_REPS, 100.0 * fa_a / SEQ_REPS, first);
	CHECK(cp_lower(fa_b, SEQ_REPS, 0.025) <= p.alpha,
	      "both sides 5->15 through 3 looks, floors 0: false claims in %u of %d series at any look (%.1f%%)",
	      fa_b, SEQ_REPS, 100.0 * fa_b / SEQ_REPS);
}

/* ------------------------------------------------------------------ */
/* Bad input                                                           */

static void test_input(void)
{
	struct hist h[6][SIM_CPUS];
	struct regress_run b[3], c[3];
	struct regress_params p;
	struct regress_result r;
	struct rtlab_err err = { "" };
	unsigned int i;
	char *js;
	json_t *root, *m;
	json_error_t jerr;

	rng_state = 1;
	for (i = 0; i < 6; i++)
		sim_run(h[i], 0.0);
	for (i = 0; i < 3; i++) {
		b[i] = (struct regress_run){ .board = "qemu-icount",
					     .testcase = "idle",
					     .clock = "icount3",
					     .cpus = h[i],
					     .ncpus = SIM_CPUS };
		c[i] = b[i];
		c[i].cpus = h[3 + i];
	}
	regress_params_init(&p);
	c[1].clock = "realtime";
	c[1].id = "42";
	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), -EINVAL,
		  "different clocks refused");
	CHECK(strstr(err.msg, "candidate run 42") && strstr(err.msg, "clock"),
	      "message names the run and the clock: %s", err.msg);
	c[1].clock = "icount3";
	c[2].board = "other";
	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), -EINVAL,
		  "different boards refused");
	CHECK(strstr(err.msg, "board") != NULL, "message: %s", err.msg);
	c[2].board = "qemu-icount";
	b[0].testcase = NULL;
	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), -EINVAL,
		  "unset testcase against a set one refused");
	b[0].testcase = "idle";

	p.floor_abs_us = NAN;
	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), -EINVAL,
		  "NaN floor refused");
	CHECK(strstr(err.msg, "floor_abs_us") != NULL, "message: %s", err.msg);
	regress_params_init(&p);
	p.floor_rel = -0.1;
	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), -EINVAL,
		  "negative relative floor refused");
	regress_params_init(&p);
	p.alpha = 0;
	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), -EINVAL,
		  "alpha 0 refused");
	regress_params_init(&p);
	h[4][0].samples++; /* counts no longer add up */
	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), -EINVAL,
		  "inconsistent histogram refused");
	CHECK(strstr(err.msg, "candidate run 42, CPU histogram 0") != NULL,
	      "message: %s", err.msg);
	h[4][0].samples--;

	CHECK_INT(regress_compare(b, 0, c, 3, &p, &r, &err), 0,
		  "no baseline runs is not an error");
	CHECK(r.verdict == REGRESS_INCONCLUSIVE && strstr(r.reason, "baseline"),
	      "no baseline runs: INCONCLUSIVE (%s)", r.reason);

	CHECK_INT(regress_compare(b, 3, c, 3, &p, &r, &err), 0,
		  "three runs per side");
	CHECK(r.verdict == REGRESS_INCONCLUSIVE && r.more_runs >= 2,
	      "three runs per side: INCONCLUSIVE, %d more runs", r.more_runs);
	CHECK_INT(r.params.min_runs, 5, "min_runs as applied");

	js = regress_result_json(&r);
	CHECK(js != NULL, "result as JSON");
	root = js ? json_loads(js, 0, &jerr) : NULL;
	CHECK(root != NULL, "JSON parses back");
	CHECK_STR(json_string_value(json_object_get(root, "verdict")),
		  "INCONCLUSIVE", "JSON verdict");
	m = json_object_get(json_object_get(root, "metrics"), "p99.9");
	CHECK(m && json_is_string(json_object_get(m, "test")) &&
		      json_is_integer(json_object_get(m, "more_runs")) &&
		      json_is_real(json_object_get(m, "baseline")),
	      "JSON metric p99.9 carries figures, test and more_runs");
	CHECK(json_integer_value(json_object_get(json_object_get(root,
								 "sequential"),
						 "look")) == 0 &&
		      json_is_integer(json_object_get(
			      json_object_get(json_object_get(root,
							      "sequential"),
					      "more_runs"),
			      "candidate")),
	      "JSON says look 0 and the runs the first look still needs");
	json_decref(root);
	free(js);
	r.metrics[REGRESS_M_P999].p_value = NAN;
	js = regress_result_json(&r);
	root = js ? json_loads(js, 0, &jerr) : NULL;
	m = json_object_get(json_object_get(root, "metrics"), "p99.9");
	CHECK(json_is_null(json_object_get(m, "p_value")),
	      "NaN p-value (no test ran) is null");
	json_decref(root);
	free(js);

	for (i = 0; i < 6; i++) {
		hist_cleanup(&h[i][0]);
		hist_cleanup(&h[i][1]);
	}
	CHECK_STR(regress_verdict_name(REGRESS_NO_CHANGE), "NO_CHANGE",
		  "verdict names match the schema");
	CHECK_INT(regress_verdict_parse("IMPROVEMENT"), REGRESS_IMPROVEMENT,
		  "verdict parse");
	CHECK_INT(regress_verdict_parse("better"), -EINVAL,
		  "unknown verdict refused");
}

/* A decided result survives the trip through JSON metric by metric. */
static void test_json(void)
{
	struct hist h[2][5][SIM_CPUS];
	struct regress_run r[2][5];
	struct regress_params p;
	struct regress_result res;
	unsigned int s, i, c, same = 0;
	json_t *root, *m;
	char *js;

	rng_state = 5;
	for (s = 0; s < 2; s++)
		for (i = 0; i < 5; i++) {
			sim_run(h[s][i], s ? 0.003 : 0.0);
			r[s][i] = (struct regress_run){ .cpus = h[s][i],
							.ncpus = SIM_CPUS };
		}
	regress_params_init(&p);
	CHECK_INT(regress_compare(r[0], 5, r[1], 5, &p, &res, NULL), 0,
		  "compare with injected spikes");
	CHECK(res.verdict == REGRESS_REGRESSION, "injected spikes: %s (%s)",
	      regress_verdict_name(res.verdict), res.reason);
	js = regress_result_json(&res);
	root = js ? json_loads(js, 0, NULL) : NULL;
	CHECK(root != NULL, "REGRESSION result as JSON parses back");
	for (i = 0; i < REGRESS_NMETRICS; i++) {
		m = json_object_get(json_object_get(root, "metrics"),
				    res.metrics[i].name);
		same += m &&
			!strcmp(json_string_value(json_object_get(m, "verdict")) ?:
					"",
				regress_verdict_name(res.metrics[i].verdict));
	}
	CHECK_INT(same, REGRESS_NMETRICS, "every metric's verdict in JSON");
	CHECK(json_integer_value(json_object_get(json_object_get(root, "tail"),
						 "threshold_us")) ==
		      res.threshold_us,
	      "tail threshold in JSON");
	CHECK(json_is_null(json_object_get(root, "more_runs")),
	      "a decided result has no more_runs");
	json_decref(root);
	free(js);
	for (s = 0; s < 2; s++)
		for (i = 0; i < 5; i++)
			for (c = 0; c < SIM_CPUS; c++)
				hist_cleanup(&h[s][i][c]);
}

/* A run cut short (30 samples of 10000) is not compared with full ones. */
static void test_short_run(void)
{
	struct hist h[10][SIM_CPUS], cut[SIM_CPUS];
	struct regress_run b[5], c[5];
	struct regress_params p;
	struct regress_result r;
	struct rtlab_err err = { "" };
	unsigned int i, k;

	rng_state = 7;
	for (i = 0; i < 10; i++)
		sim_run(h[i], 0.0);
	for (k = 0; k < SIM_CPUS; k++) {
		if (hist_init(&cut[k], 400))
			abort();
		hist_add(&cut[k], 9, 14);
		hist_add(&cut[k], 80, 1);
	}
	for (i = 0; i < 5; i++) {
		b[i] = (struct regress_run){ .clock = "icount:3",
					     .cpus = h[i],
					     .ncpus = SIM_CPUS };
		c[i] = b[i];
		c[i].cpus = h[5 + i];
	}
	regress_params_init(&p);
	CHECK_INT(regress_compare(b, 5, c, 5, &p, &r, &err), 0,
		  "full runs compare");
	CHECK(!strstr(r.reason, "samples against"),
	      "runs of equal length: no sample-count complaint (%s)", r.reason);
	c[3].cpus = cut;
	c[3].id = "77";
	CHECK_INT(regress_compare(b, 5, c, 5, &p, &r, &err), 0,
		  "a short run among full ones is no error");
	CHECK(r.verdict == REGRESS_INCONCLUSIVE &&
		      strstr(r.reason,
			     "candidate run 77: 30 samples against 20000"),
	      "... but INCONCLUSIVE, naming the short run and both counts (%s)",
	      r.reason);
	for (i = 0; i < 10; i++)
		for (k = 0; k < SIM_CPUS; k++)
			hist_cleanup(&h[i][k]);
	for (k = 0; k < SIM_CPUS; k++)
		hist_cleanup(&cut[k]);
}

int main(void)
{
	test_input();
	test_short_run();
	test_json();
	test_table();
	test_rates();
	test_sequential();
	return check_exit();
}
