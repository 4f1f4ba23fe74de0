// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab compare: a comparison made now, from the database or offline from
 * result bundles.
 */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-boards.h"
#include "../db/db-verdicts.h"
#include "../db/db.h"
#include "../services/verdict.h"
#include "commands.h"
#include "regress.h"
#include "common.h"

static void compare_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab compare --board B --testcase T --baseline K1\n"
		"                     --candidate K2 [--clock C] [--json]\n"
		"                     [--baseline-runs IDS] [--candidate-runs IDS]\n"
		"                     [--store]\n"
		"       rtlab compare [--json] BASE.bundle... -- CAND.bundle...\n\n"
		"Compare two kernels now: their complete runs on one board,\n"
		"testcase and clock from the database (K = kernel id or release;\n"
		"--clock when the candidate ran with several), or result bundles\n"
		"offline (no database).  Parameters come from the testcase\n"
		"definition's 'verdict' object.  --baseline-runs and\n"
		"--candidate-runs (comma-separated run ids) pick the runs of\n"
		"each side, e.g. clean and injected runs of one kernel.\n"
		"Nothing is stored unless --store: then the verdict is kept\n"
		"like those computed as runs land (rtlab verdicts, reports).\n\n"
		"Exit status: 0 a verdict was computed (whatever it is, also\n"
		"INCONCLUSIVE); 1 the comparison could not be made (unknown\n"
		"board, testcase or kernel, no candidate runs, clocks or boards\n"
		"differ, unreadable bundle, database error); 2 usage error.\n");
}

/* Options of compare, parsed from argv[0..argc). */
struct compare_opts {
	const char *board, *testcase, *base, *cand, *clock;
	char *base_runs, *cand_runs; /* "{1,2}", malloc'd */
	bool as_json, store;
};

/* "4,5,6" -> "{4,5,6}"; NULL when it is not a list of run ids. */
static char *run_ids_literal(const char *list)
{
	const char *p;
	char *lit;

	if (!*list)
		return NULL;
	for (p = list; *p; p++)
		if (!isdigit((unsigned char)*p) &&
		    !(*p == ',' && p != list && p[1] && p[1] != ','))
			return NULL;
	if (asprintf(&lit, "{%s}", list) < 0)
		return NULL;
	return lit;
}

static int compare_parse(int argc, char **argv, struct compare_opts *o)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "candidate", required_argument, NULL, 'C' },
		{ "clock", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "baseline-runs", required_argument, NULL, 'X' },
		{ "candidate-runs", required_argument, NULL, 'Y' },
		{ "store", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "b:t:B:C:c:jh", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'b':
			o->board = optarg;
			break;
		case 't':
			o->testcase = optarg;
			break;
		case 'B':
			o->base = optarg;
			break;
		case 'C':
			o->cand = optarg;
			break;
		case 'c':
			o->clock = optarg;
			break;
		case 'j':
			o->as_json = true;
			break;
		case 'X':
		case 'Y': {
			char **dst = c == 'X' ? &o->base_runs : &o->cand_runs;

			free(*dst);
			*dst = run_ids_literal(optarg);
			if (!*dst) {
				fprintf(stderr,
					"rtlab compare: --%s-runs %s: "
					"expected run ids separated by commas, "
					"e.g. 4,5,6\n",
					c == 'X' ? "baseline" : "candidate",
					optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'S':
			o->store = true;
			break;
		case 'h':
			compare_usage(stdout);
			return 1;
		default:
			compare_usage(stderr);
			return EXIT_USAGE;
		}
	}
	return 0;
}

static int compare_offline(struct compare_opts *o, char **base, int nbase,
			   char **cand, int ncand)
{
	struct rtlab_err err = { "" };
	json_t *v = NULL;

	if (o->board || o->testcase || o->base || o->cand || o->clock ||
	    o->base_runs || o->cand_runs || o->store) {
		fprintf(stderr,
			"rtlab compare: --board, --testcase, "
			"--baseline, --candidate, --clock, the run lists and "
			"--store are for the "
			"database; bundles carry their own\n");
		return EXIT_USAGE;
	}
	if (!nbase || !ncand) {
		fprintf(stderr,
			"rtlab compare: expected BASE.bundle... -- "
			"CAND.bundle... (no %s bundles given)\n",
			!nbase ? "baseline" : "candidate");
		return EXIT_USAGE;
	}
	if (verdict_compare_bundles((const char *const *)base, nbase,
				    (const char *const *)cand, ncand, &v,
				    &err)) {
		fprintf(stderr, "rtlab compare: %s\n", err.msg);
		return 1;
	}
	if (o->as_json)
		cli_print_json(v);
	else
		verdict_print(stdout, v);
	json_decref(v);
	return 0;
}

/* Runs, passes, failures and the worst thread maximum of a side's
 * pass/fail results. */
static json_t *results_side(const json_t *runs)
{
	size_t i, j, passed = 0;
	long long worst = -1, cycles = 0, inv = 0;
	json_t *r, *t;

	json_array_foreach(runs, i, r) {
		const json_t *res = json_object_get(r, "results");

		if (json_is_true(json_object_get(res, "passed")))
			passed++;
		inv += json_integer_value(json_object_get(res, "inversions"));
		json_array_foreach(json_object_get(res, "threads"), j, t) {
			long long m =
				json_integer_value(json_object_get(t,
								   "max_us"));

			if (m > worst)
				worst = m;
			cycles += json_integer_value(json_object_get(t,
								     "cycles"));
		}
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "runs",
			 (json_int_t)json_array_size(runs), "passed",
			 (json_int_t)passed, "failed",
			 (json_int_t)(json_array_size(runs) - passed), "max_us",
			 (json_int_t)worst, "cycles", (json_int_t)cycles,
			 "inversions", (json_int_t)inv);
}

static void results_print(const char *side, const char *kernel, const json_t *s)
{
	printf("%-9s %s: %lld run(s), %lld passed, %lld failed", side, kernel,
	       json_integer_value(json_object_get(s, "runs")),
	       json_integer_value(json_object_get(s, "passed")),
	       json_integer_value(json_object_get(s, "failed")));
	if (json_integer_value(json_object_get(s, "max_us")) >= 0)
		printf(", worst max %lld us over %lld cycles",
		       json_integer_value(json_object_get(s, "max_us")),
		       json_integer_value(json_object_get(s, "cycles")));
	if (json_integer_value(json_object_get(s, "inversions")))
		printf(", %lld inversions",
		       json_integer_value(json_object_get(s, "inversions")));
	printf("\n");
}

/*
 * A testcase whose tool keeps no histogram (signaltest, pmqtest,
 * cyclicdeadline, pi_stress): the sides' pass/fail counts, and a verdict
 * by rule: failures only on the candidate's side are a REGRESSION, only
 * on the baseline's an IMPROVEMENT, else NO_CHANGE (docs/verdicts.md).
 * Return: 1 when the candidate has no such results (not this kind of
 * testcase), 0 when printed, -1 on error (reported).
 */
static int compare_results(PGconn *conn, const struct verdict_pair *vp,
			   const struct compare_opts *o)
{
	struct rtlab_err err = { "" };
	json_t *base = NULL, *cand = NULL, *bs = NULL, *cs = NULL, *out;
	const char *verdict;
	long long bf, cf;
	int ret = -1;

	if (db_series_results_load(conn, vp->board_id, vp->testcase_id,
				   vp->cand_kernel_id, vp->cand_runs, &cand,
				   &err) ||
	    db_series_results_load(conn, vp->board_id, vp->testcase_id,
				   vp->base_kernel_id, vp->base_runs, &base,
				   &err)) {
		fprintf(stderr, "rtlab compare: %s\n", err.msg);
		goto out;
	}
	if (!json_array_size(cand)) {
		ret = 1;
		goto out;
	}
	bs = results_side(base);
	cs = results_side(cand);
	if (!bs || !cs) {
		fprintf(stderr, "rtlab compare: out of memory\n");
		goto out;
	}
	bf = json_integer_value(json_object_get(bs, "failed"));
	cf = json_integer_value(json_object_get(cs, "failed"));
	verdict = !json_array_size(base) ? "INCONCLUSIVE" :
		  cf && !bf		 ? "REGRESSION" :
		  bf && !cf		 ? "IMPROVEMENT" :
					   "NO_CHANGE";
	if (o->as_json) {
		out = json_pack("{s:s, s:s, s:O, s:O}", "kind", "pass_fail",
				"verdict", verdict, "baseline", bs, "candidate",
				cs);
		cli_print_json(out);
		json_decref(out);
	} else {
		printf("testcase %s on board %s: pass/fail (the tool keeps no "
		       "histogram)\n",
		       o->testcase, o->board);
		results_print("baseline", o->base, bs);
		results_print("candidate", o->cand, cs);
		printf("verdict: %s\n", verdict);
	}
	ret = 0;
out:
	json_decref(base);
	json_decref(cand);
	json_decref(bs);
	json_decref(cs);
	return ret;
}

static int compare_db(struct compare_opts *o)
{
	struct verdict_pair vp = { 0 };
	struct rtlab_err err = { "" };
	json_t *v = NULL;
	PGconn *conn;
	int ret = 1;

	if (!o->board || !o->testcase || !o->base || !o->cand) {
		fprintf(stderr, "rtlab compare: --board, --testcase, "
				"--baseline and --candidate are all needed (or "
				"bundles: BASE.bundle... -- CAND.bundle...)\n");
		return EXIT_USAGE;
	}
	conn = cli_connect("compare");
	if (!conn)
		return 1;
	if (db_board_lookup(conn, o->board, &vp.board_id, &err) ||
	    db_testcase_lookup(conn, o->testcase, &vp.testcase_id, &err) ||
	    db_kernel_resolve(conn, o->base, &vp.base_kernel_id, &err) ||
	    db_kernel_resolve(conn, o->cand, &vp.cand_kernel_id, &err)) {
		fprintf(stderr, "rtlab compare: %s\n", err.msg);
		goto out;
	}
	vp.clock = o->clock;
	vp.base_runs = o->base_runs;
	vp.cand_runs = o->cand_runs;
	vp.baseline_source = "requested";
	switch (compare_results(conn, &vp, o)) {
	case 0:
		ret = 0;
		goto out;
	case 1:
		break;
	default:
		goto out;
	}
	if (verdict_compute(conn, &vp, &v, &err)) {
		fprintf(stderr, "rtlab compare: %s\n", err.msg);
		goto out;
	}
	if (o->as_json)
		cli_print_json(v);
	else
		verdict_print(stdout, v);
	if (o->store) {
		int64_t id;

		if (verdict_store(conn, &vp, v, &id, NULL, &err)) {
			fprintf(stderr,
				"rtlab compare: storing the verdict: "
				"%s\n",
				err.msg);
			goto out;
		}
		if (!o->as_json)
			printf("stored as verdict %lld\n", (long long)id);
	}
	ret = 0;
out:
	json_decref(v);
	db_disconnect(conn);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { 0 };
	int sep, ret;

	/* getopt would swallow the "--" that splits the two sides, so the
	 * candidate side is cut off first. */
	for (sep = 1; sep < argc; sep++)
		if (!strcmp(argv[sep], "--"))
			break;
	ret = compare_parse(sep, argv, &o);
	if (ret)
		ret = ret == 1 ? 0 : ret;
	else if (sep < argc)
		ret = compare_offline(&o, argv + optind, sep - optind,
				      argv + sep + 1, argc - sep - 1);
	else if (optind < sep) {
		fprintf(stderr,
			"rtlab compare: unexpected argument '%s' "
			"(bundles are compared as BASE.bundle... -- "
			"CAND.bundle...)\n",
			argv[optind]);
		ret = EXIT_USAGE;
	} else {
		ret = compare_db(&o);
	}
	free(o.base_runs);
	free(o.cand_runs);
	return ret;
}
