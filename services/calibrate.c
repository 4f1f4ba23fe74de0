// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Calibration of a board: false-alarm and detection rates from A/A and
 * injected-vs-clean comparisons, their exact intervals, the injected
 * testcase (a testcase plus an injector load, written with libyaml), the
 * printout and the row in boards.calibration.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "calibrate.h"
#include "board-health.h"
#include "../db/db.h"
#include "regress.h"
#include "stats.h"

#define CALIB_RELIABLE 0.9
#define CALIB_LEVEL 0.95

/* Comparisons, all caught, that it takes for the lower end of the 95 %
 * interval to reach CALIB_RELIABLE: (1 - level)/2 = reliable^n. */
static unsigned int reliable_min_comparisons(void)
{
	return (unsigned int)ceil(log((1 - CALIB_LEVEL) / 2) /
				  log(CALIB_RELIABLE));
}

/* p with P(B >= k | n, p) = t, by bisection (increasing in p). */
static double cp_lower(unsigned int k, unsigned int n, double t)
{
	double lo = 0, hi = 1;
	int i;

	for (i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (stats_binom_sf(k, n, mid) < t)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* p with P(B <= k | n, p) = t (decreasing in p). */
static double cp_upper(unsigned int k, unsigned int n, double t)
{
	double lo = 0, hi = 1;
	int i;

	for (i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (stats_binom_cdf(k, n, mid) > t)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int calibrate_proportion_ci(unsigned int k, unsigned int n, double level,
			    double *lo, double *hi)
{
	double a;

	if (!n || k > n || !(level > 0 && level < 1))
		return -EINVAL;
	a = (1 - level) / 2;
	*lo = k ? cp_lower(k, n, a) : 0;
	*hi = k < n ? cp_upper(k, n, a) : 1;
	return 0;
}

/* ---- the injected testcase ---- */

static int add_pair(yaml_document_t *d, int map, const char *k, const char *v,
		    bool plain)
{
	int kn = yaml_document_add_scalar(d, NULL, (yaml_char_t *)k, -1,
					  YAML_PLAIN_SCALAR_STYLE);
	int vn =
		yaml_document_add_scalar(d, NULL, (yaml_char_t *)v, -1,
					 plain ? YAML_PLAIN_SCALAR_STYLE :
						 YAML_DOUBLE_QUOTED_SCALAR_STYLE);

	if (!kn || !vn || !yaml_document_append_mapping_pair(d, map, kn, vn))
		return -ENOMEM;
	return 0;
}

static int emit_file(yaml_document_t *doc, const char *path,
		     struct rtlab_err *err)
{
	yaml_emitter_t em;
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f) {
		yaml_document_delete(doc);
		return rtlab_err_seterr(err, errno, "%s: %s", path,
					strerror(errno));
	}
	if (!yaml_emitter_initialize(&em)) {
		fclose(f);
		yaml_document_delete(doc);
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	}
	yaml_emitter_set_output_file(&em, f);
	yaml_emitter_set_unicode(&em, 1);
	/* yaml_emitter_dump() takes the document and deletes it. */
	if (!yaml_emitter_open(&em) || !yaml_emitter_dump(&em, doc) ||
	    !yaml_emitter_close(&em) || !yaml_emitter_flush(&em))
		ret = rtlab_err_seterr(err, EIO, "%s: cannot write YAML: %s",
				       path, em.problem ? em.problem : "?");
	yaml_emitter_delete(&em);
	if (fclose(f) && !ret)
		ret = rtlab_err_seterr(err, errno, "%s: %s", path,
				       strerror(errno));
	return ret;
}

int calibrate_injected_testcase(const char *base_path,
				const struct calib_inject *inj,
				const char *out_path, struct rtlab_err *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *n;
	yaml_node_pair_t *pair;
	char buf[32];
	int loads = 0, load, ret = 0;
	FILE *f = fopen(base_path, "r");

	if (!f)
		return rtlab_err_seterr(err, errno, "%s: %s", base_path,
					strerror(errno));
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = rtlab_err_set(err, "%s:%lu: not valid YAML: %s",
				    base_path,
				    (unsigned long)parser.problem_mark.line + 1,
				    parser.problem ? parser.problem : "?");
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		ret = rtlab_err_set(err, "%s: expected a testcase (a mapping)",
				    base_path);
		yaml_document_delete(&doc);
		goto out_parser;
	}
	for (pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		n = yaml_document_get_node(&doc, pair->key);
		if (n && n->type == YAML_SCALAR_NODE &&
		    !strcmp((char *)n->data.scalar.value, "loads"))
			loads = pair->value;
	}
	n = loads ? yaml_document_get_node(&doc, loads) : NULL;
	if (loads && (!n || n->type != YAML_SEQUENCE_NODE)) {
		ret = rtlab_err_set(err, "%s: loads: expected a list",
				    base_path);
		yaml_document_delete(&doc);
		goto out_parser;
	}
	if (!loads) {
		int k = yaml_document_add_scalar(&doc, NULL,
						 (yaml_char_t *)"loads", -1,
						 YAML_PLAIN_SCALAR_STYLE);

		loads = yaml_document_add_sequence(&doc, NULL,
						   YAML_BLOCK_SEQUENCE_STYLE);
		/* The root node index is 1 in libyaml's documents. */
		if (!k || !loads ||
		    !yaml_document_append_mapping_pair(&doc, 1, k, loads))
			ret = -ENOMEM;
	} else {
		/* "loads: []" is a flow sequence: write it as a block. */
		n->data.sequence.style = YAML_BLOCK_SEQUENCE_STYLE;
	}
	load = ret ? 0 :
		     yaml_document_add_mapping(&doc, NULL,
					       YAML_BLOCK_MAPPING_STYLE);
	if (!load || !yaml_document_append_sequence_item(&doc, loads, load))
		ret = -ENOMEM;
	if (!ret)
		ret = add_pair(&doc, load, "name", "injector", true);
	if (!ret)
		ret = add_pair(&doc, load, "mode", inj->mode, true);
	snprintf(buf, sizeof(buf), "%u", inj->spin_us);
	if (!ret)
		ret = add_pair(&doc, load, "spin_us", buf, true);
	snprintf(buf, sizeof(buf), "%u", inj->period_ms);
	if (!ret)
		ret = add_pair(&doc, load, "period_ms", buf, true);
	snprintf(buf, sizeof(buf), "%u", inj->jitter_pct);
	if (!ret)
		ret = add_pair(&doc, load, "jitter_pct", buf, true);
	if (!ret && inj->cpus)
		ret = add_pair(&doc, load, "cpus", inj->cpus, false);
	if (ret) {
		yaml_document_delete(&doc);
		ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory",
				       out_path);
		goto out_parser;
	}
	ret = emit_file(&doc, out_path, err);
out_parser:
	yaml_parser_delete(&parser);
	fclose(f);
	return ret;
}

/* ---- the result ---- */

static json_t *rate_json(unsigned int k, unsigned int n)
{
	double lo = NAN, hi = NAN;

	if (calibrate_proportion_ci(k, n, CALIB_LEVEL, &lo, &hi))
		return json_pack("{s:I, s:I, s:n, s:n}", "comparisons",
				 (json_int_t)n, "hits", (json_int_t)k, "rate",
				 "ci95");
	return json_pack("{s:I, s:I, s:f, s:[f, f]}", "comparisons",
			 (json_int_t)n, "hits", (json_int_t)k, "rate",
			 (double)k / n, "ci95", lo, hi);
}

static const char *verdict_of(json_t *v)
{
	const char *s = json_string_value(json_object_get(v, "verdict"));

	return s ? s : "INCONCLUSIVE";
}

static int uint_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

json_t *calibrate_result_json(json_t *about, const struct calib_cmp *v,
			      size_t n)
{
	json_t *r = json_deep_copy(about), *aa_v = json_object();
	json_t *fa, *det = json_array(), *cmps = json_array();
	unsigned int *spins = calloc(n ? n : 1, sizeof(*spins));
	unsigned int aa = 0, aa_reg = 0, nspins = 0, i, j;
	json_t **aas, *ref;
	size_t naas = 0;
	long reliable = -1;
	bool bad = !r || !aa_v || !det || !cmps || !spins;

	for (i = 0; !bad && i < n; i++) {
		const char *vs = verdict_of(v[i].verdict);
		json_t *c = json_pack(
			"{s:s, s:s, s:O?, s:o?}", "kind",
			v[i].injected ? "injected" : "aa", "verdict", vs,
			"reason", json_object_get(v[i].verdict, "reason"),
			"runs",
			json_pack("{s:O?, s:O?}", "baseline",
				  json_object_get(json_object_get(v[i].verdict,
								  "baseline"),
						  "runs"),
				  "candidate",
				  json_object_get(json_object_get(v[i].verdict,
								  "candidate"),
						  "runs")));

		if (c && v[i].injected)
			json_object_set_new(c, "spin_us",
					    json_integer(v[i].spin_us));
		bad |= !c || json_array_append_new(cmps, c);
		if (v[i].injected) {
			for (j = 0; j < nspins && spins[j] != v[i].spin_us; j++)
				;
			if (j == nspins)
				spins[nspins++] = v[i].spin_us;
			continue;
		}
		/* Either claim about two sets of runs of one kernel is false. */
		aa++;
		aa_reg += !strcmp(vs, "REGRESSION") ||
			  !strcmp(vs, "IMPROVEMENT");
		json_object_set_new(
			aa_v, vs,
			json_integer(json_integer_value(json_object_get(aa_v,
									vs)) +
				     1));
	}
	if (bad)
		goto fail;
	fa = rate_json(aa_reg, aa);
	if (!fa || json_object_set_new(fa, "verdicts", aa_v))
		goto fail;
	aa_v = NULL;
	json_object_set_new(r, "false_alarm", fa);
	qsort(spins, nspins, sizeof(*spins), uint_cmp);
	for (j = 0; j < nspins; j++) {
		unsigned int k = 0, m = 0;
		json_t *d;

		for (i = 0; i < n; i++)
			if (v[i].injected && v[i].spin_us == spins[j]) {
				m++;
				k += !strcmp(verdict_of(v[i].verdict),
					     "REGRESSION");
			}
		d = rate_json(k, m);
		if (!d ||
		    json_object_set_new(d, "spin_us", json_integer(spins[j])) ||
		    json_array_append_new(det, d))
			goto fail;
		/* Reliable from here up, as long as nothing larger misses:
		 * shown by the interval, not by a point estimate (1 of 1). */
		if (json_is_array(json_object_get(d, "ci95")) &&
		    json_number_value(json_array_get(json_object_get(d, "ci95"),
						     0)) >= CALIB_RELIABLE) {
			if (reliable < 0)
				reliable = spins[j];
		} else {
			reliable = -1;
		}
	}
	json_object_set_new(r, "detection", det);
	det = NULL;
	json_object_set_new(r, "smallest_reliable_spin_us",
			    reliable < 0 ? json_null() :
					   json_integer(reliable));
	json_object_set_new(r, "reliable_rate", json_real(CALIB_RELIABLE));
	json_object_set_new(r, "reliable_rule",
			    json_string("the lower end of the 95 % interval "
					"of the detection rate >= "
					"reliable_rate"));
	json_object_set_new(r, "comparisons", cmps);
	cmps = NULL;
	/* What a board health check compares with (lib/board-health.h). */
	aas = calloc(n ? n : 1, sizeof(*aas));
	if (!aas)
		goto fail;
	for (i = 0; i < n; i++)
		if (!v[i].injected)
			aas[naas++] = v[i].verdict;
	ref = health_reference_json(aas, naas);
	free(aas);
	if (json_object_set_new(r, "reference", ref ? ref : json_null()))
		goto fail;
	free(spins);
	return r;
fail:
	json_decref(r);
	json_decref(aa_v);
	json_decref(det);
	json_decref(cmps);
	free(spins);
	return NULL;
}

static void print_rate(FILE *f, json_t *o)
{
	json_t *ci = json_object_get(o, "ci95");

	fprintf(f, "%lld/%lld = %.0f %%",
		json_integer_value(json_object_get(o, "hits")),
		json_integer_value(json_object_get(o, "comparisons")),
		100 * json_number_value(json_object_get(o, "rate")));
	if (json_array_size(ci) == 2)
		fprintf(f, " (95 %% CI %.0f-%.0f %%)",
			100 * json_number_value(json_array_get(ci, 0)),
			100 * json_number_value(json_array_get(ci, 1)));
}

void calibrate_print(FILE *f, json_t *result)
{
	json_t *fa = json_object_get(result, "false_alarm"), *d, *rel;
	json_t *inj = json_object_get(result, "injector");
	const char *k;
	json_t *val;
	size_t i;

	fprintf(f,
		"calibration of board %s (clock %s), kernel %s, testcase %s\n",
		json_string_value(json_object_get(result, "board")),
		json_string_value(json_object_get(result, "clock")),
		json_string_value(json_object_get(result, "kernel_release")),
		json_string_value(json_object_get(result, "testcase")));
	fprintf(f,
		"  %lld run(s) per side, %lld s each; injector %s, every %lld ms +/- %lld %%\n",
		json_integer_value(json_object_get(result, "runs_per_side")),
		json_integer_value(json_object_get(result, "duration_s")),
		json_string_value(json_object_get(inj, "mode")),
		json_integer_value(json_object_get(inj, "period_ms")),
		json_integer_value(json_object_get(inj, "jitter_pct")));
	fprintf(f, "  false alarms (A/A called REGRESSION or IMPROVEMENT): ");
	print_rate(f, fa);
	fprintf(f, "  [");
	json_object_foreach(json_object_get(fa, "verdicts"), k, val)
		fprintf(f, " %s %lld", k, json_integer_value(val));
	fprintf(f, " ]\n");
	json_array_foreach(json_object_get(result, "detection"), i, d) {
		fprintf(f, "  detection, %6lld us spins: ",
			json_integer_value(json_object_get(d, "spin_us")));
		print_rate(f, d);
		fprintf(f, "\n");
	}
	rel = json_object_get(result, "smallest_reliable_spin_us");
	if (json_is_integer(rel))
		fprintf(f,
			"  smallest injection shown caught reliably (95 %% interval above %.0f %%): %lld us\n",
			100 * CALIB_RELIABLE, json_integer_value(rel));
	else
		fprintf(f,
			"  no injected size was shown caught reliably (95 %% interval above %.0f %%; that takes at least %u comparisons, all caught)\n",
			100 * CALIB_RELIABLE, reliable_min_comparisons());
}

int calibrate_store(PGconn *conn, const char *board, const char *kind,
		    json_t *result, struct rtlab_err *err)
{
	char *text = json_dumps(result, JSON_COMPACT);
	const char *params[3] = { board, kind, text };
	int ret;

	if (!text)
		return rtlab_err_seterr(err, ENOMEM, "out of memory");
	ret = db_exec(conn, err,
		      "INSERT INTO boards (name, kind, calibration) "
		      "VALUES ($1, $2, $3::jsonb) ON CONFLICT (name) DO "
		      "UPDATE SET calibration = EXCLUDED.calibration",
		      3, params);
	if (ret)
		rtlab_err_prefix(err, "storing the calibration of board %s",
				 board);
	free(text);
	return ret;
}
