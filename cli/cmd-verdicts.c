// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab verdicts / verdict / compare / baseline: the regression verdicts
 * stored after each upload, one verdict in full, a comparison made now
 * (from the database, or offline from result bundles), and the pinned
 * baselines of the series.  Reads PostgreSQL directly (no server needed).
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

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

static PGconn *connect_or_say(const char *cmd)
{
	struct rtlab_err err = { "" };
	PGconn *conn = db_connect(&err);

	if (!conn)
		fprintf(stderr, "rtlab %s: %s\n", cmd, err.msg);
	return conn;
}

static void print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
}

/* "12.0->45.0" of figures.NAME; "-" when unknown. */
static void pair(char *buf, size_t n, json_t *figures, const char *name)
{
	json_t *m = json_object_get(figures, name);
	json_t *b = json_object_get(m, "baseline");
	json_t *c = json_object_get(m, "candidate");

	if (json_is_number(b) && json_is_number(c))
		snprintf(buf, n, "%.1f->%.1f", json_number_value(b),
			 json_number_value(c));
	else
		snprintf(buf, n, "-");
}

static void verdicts_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab verdicts [--board B] [--testcase T] [--verdict V]\n"
		"                      [--kernel RELEASE] [--limit N] [--json]\n\n"
		"List stored verdicts, newest first (default limit 50).  V is\n"
		"REGRESSION, IMPROVEMENT, NO_CHANGE or INCONCLUSIVE; --kernel\n"
		"matches the baseline or the candidate.  'rtlab verdict ID'\n"
		"shows one in full.\n");
}

int cmd_verdicts(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "verdict", required_argument, NULL, 'v' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "limit", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct verdict_filter f = { 0 };
	struct rtlab_err err = { "" };
	json_t *list = NULL, *v;
	bool as_json = false;
	PGconn *conn;
	size_t i;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "b:t:v:k:n:jh", opts, NULL)) !=
	       -1) {
		char *end;

		switch (c) {
		case 'b':
			f.board = optarg;
			break;
		case 't':
			f.testcase = optarg;
			break;
		case 'v':
			if (regress_verdict_parse(optarg) < 0) {
				fprintf(stderr, "rtlab verdicts: --verdict "
					"'%s': expected REGRESSION, "
					"IMPROVEMENT, NO_CHANGE or "
					"INCONCLUSIVE\n", optarg);
				return EXIT_USAGE;
			}
			f.verdict = optarg;
			break;
		case 'k':
			f.kernel = optarg;
			break;
		case 'n':
			f.limit = strtoul(optarg, &end, 10);
			if (!*optarg || *end || f.limit < 1 ||
			    f.limit > 100000) {
				fprintf(stderr, "rtlab verdicts: --limit '%s': "
					"expected a number from 1 to 100000\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			verdicts_usage(stdout);
			return 0;
		default:
			verdicts_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rtlab verdicts: unexpected argument '%s'\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	conn = connect_or_say("verdicts");
	if (!conn)
		return 1;
	if (db_verdicts_list(conn, &f, &list, &err)) {
		fprintf(stderr, "rtlab verdicts: %s\n", err.msg);
		goto out;
	}
	ret = 0;
	if (as_json) {
		print_json(list);
		goto out;
	}
	printf("%-5s %-12s %-18s %-22s %-22s %-12s %-14s %-14s %s\n", "ID",
	       "BOARD", "TESTCASE", "BASELINE", "CANDIDATE", "VERDICT",
	       "P99.9_US", "MAX_US", "RUNS");
	json_array_foreach(list, i, v) {
		char p999[48], max[48];
		json_t *fig = json_object_get(v, "figures");

		pair(p999, sizeof(p999), fig, "p99.9");
		pair(max, sizeof(max), fig, "max");
		printf("%-5" JSON_INTEGER_FORMAT " %-12s %-18s %-22s %-22s "
		       "%-12s %-14s %-14s %" JSON_INTEGER_FORMAT "/%"
		       JSON_INTEGER_FORMAT "\n",
		       json_integer_value(json_object_get(v, "id")),
		       jstr(v, "board"), jstr(v, "testcase"),
		       jstr(v, "baseline_kernel"), jstr(v, "candidate_kernel"),
		       jstr(v, "verdict"), p999, max,
		       json_integer_value(json_object_get(v, "baseline_runs")),
		       json_integer_value(json_object_get(v,
							  "candidate_runs")));
	}
	if (!json_array_size(list))
		printf("(no verdicts)\n");
out:
	json_decref(list);
	db_disconnect(conn);
	return ret;
}

static void verdict_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab verdict ID [--json]\n\n"
		"One stored verdict in full: the two sides and their runs, then\n"
		"every metric (baseline -> candidate, effect and interval, test,\n"
		"p-value, reason).\n");
}

int cmd_verdict(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	bool as_json = false;
	json_t *v = NULL;
	PGconn *conn;
	long long id;
	char *end;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 'h':
			verdict_usage(stdout);
			return 0;
		default:
			verdict_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		verdict_usage(stderr);
		return EXIT_USAGE;
	}
	id = strtoll(argv[optind], &end, 10);
	if (!*argv[optind] || *end || id < 1) {
		fprintf(stderr, "rtlab verdict: '%s': expected a verdict id "
			"(a number, as 'rtlab verdicts' lists)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	conn = connect_or_say("verdict");
	if (!conn)
		return 1;
	if (db_verdict_get(conn, id, &v, &err)) {
		fprintf(stderr, "rtlab verdict: %s\n", err.msg);
		goto out;
	}
	if (as_json)
		print_json(v);
	else
		verdict_print(stdout, v);
	ret = 0;
out:
	json_decref(v);
	db_disconnect(conn);
	return ret;
}

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
	char *base_runs, *cand_runs;	/* "{1,2}", malloc'd */
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
				fprintf(stderr, "rtlab compare: --%s-runs %s: "
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
		fprintf(stderr, "rtlab compare: --board, --testcase, "
			"--baseline, --candidate, --clock, the run lists and "
			"--store are for the "
			"database; bundles carry their own\n");
		return EXIT_USAGE;
	}
	if (!nbase || !ncand) {
		fprintf(stderr, "rtlab compare: expected BASE.bundle... -- "
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
		print_json(v);
	else
		verdict_print(stdout, v);
	json_decref(v);
	return 0;
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
	conn = connect_or_say("compare");
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
	if (verdict_compute(conn, &vp, &v, &err)) {
		fprintf(stderr, "rtlab compare: %s\n", err.msg);
		goto out;
	}
	if (o->as_json)
		print_json(v);
	else
		verdict_print(stdout, v);
	if (o->store) {
		int64_t id;

		if (verdict_store(conn, &vp, v, &id, NULL, &err)) {
			fprintf(stderr, "rtlab compare: storing the verdict: "
				"%s\n", err.msg);
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
		fprintf(stderr, "rtlab compare: unexpected argument '%s' "
			"(bundles are compared as BASE.bundle... -- "
			"CAND.bundle...)\n", argv[optind]);
		ret = EXIT_USAGE;
	} else {
		ret = compare_db(&o);
	}
	free(o.base_runs);
	free(o.cand_runs);
	return ret;
}

static void baseline_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab baseline set --board B --testcase T --kernel K\n"
		"                          [--tree TREE]\n"
		"       rtlab baseline unset --board B --testcase T --tree TREE\n"
		"       rtlab baseline show [--board B] [--testcase T] [--tree TREE]\n"
		"                           [--json]\n\n"
		"A series is (board, testcase, kernel tree).  Each new run of a\n"
		"series is compared with its baseline: the kernel pinned here,\n"
		"else the tree's kernel that ran before it (by first run) with\n"
		"complete runs.  K is a kernel id or release; --tree defaults\n"
		"to K's tree.  'show' lists every series with its pinned\n"
		"baseline, its latest kernel and that kernel's default\n"
		"baseline.\n");
}

static int baseline_show(PGconn *conn, const char *board,
			 const char *testcase, const char *tree,
			 bool as_json)
{
	struct rtlab_err err = { "" };
	json_t *list = NULL, *s;
	size_t i;

	if (db_baselines_list(conn, board, testcase, tree, &list, &err)) {
		fprintf(stderr, "rtlab baseline show: %s\n", err.msg);
		return 1;
	}
	if (as_json) {
		print_json(list);
		json_decref(list);
		return 0;
	}
	printf("%-12s %-18s %-10s %-24s %-8s %s\n", "BOARD", "TESTCASE",
	       "TREE", "BASELINE", "SOURCE", "LATEST KERNEL");
	json_array_foreach(list, i, s) {
		json_t *pin = json_object_get(s, "pinned");
		json_t *dfl = json_object_get(s, "default");
		json_t *use = json_is_object(pin) ? pin : dfl;

		printf("%-12s %-18s %-10s %-24s %-8s %s\n", jstr(s, "board"),
		       jstr(s, "testcase"),
		       *jstr(s, "tree") ? jstr(s, "tree") : "''",
		       json_is_object(use) ? jstr(use, "release") : "(none)",
		       json_is_object(pin) ? "pinned" :
		       json_is_object(dfl) ? "default" : "-",
		       jstr(json_object_get(s, "latest"), "release"));
	}
	if (!json_array_size(list))
		printf("(no series)\n");
	json_decref(list);
	return 0;
}

int cmd_baseline(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "tree", required_argument, NULL, 'T' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *board = NULL, *testcase = NULL, *tree = NULL,
		   *kernel = NULL, *verb;
	struct rtlab_err err = { "" };
	int board_id, testcase_id, kernel_id, c, ret = 1;
	bool as_json = false;
	json_t *clocks = NULL;
	char ktree[128];
	PGconn *conn;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		baseline_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	verb = argv[1];
	if (strcmp(verb, "set") && strcmp(verb, "unset") &&
	    strcmp(verb, "show")) {
		fprintf(stderr, "rtlab baseline: unknown action '%s' "
			"(expected set, unset or show)\n", verb);
		return EXIT_USAGE;
	}
	while ((c = getopt_long(argc - 1, argv + 1, "b:t:T:k:jh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			board = optarg;
			break;
		case 't':
			testcase = optarg;
			break;
		case 'T':
			tree = optarg;
			break;
		case 'k':
			kernel = optarg;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			baseline_usage(stdout);
			return 0;
		default:
			baseline_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "rtlab baseline: unexpected argument '%s'\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (!strcmp(verb, "show")) {
		if (kernel) {
			fprintf(stderr, "rtlab baseline show: --kernel is "
				"for 'set'\n");
			return EXIT_USAGE;
		}
		conn = connect_or_say("baseline");
		if (!conn)
			return 1;
		ret = baseline_show(conn, board, testcase, tree, as_json);
		db_disconnect(conn);
		return ret;
	}
	if (!board || !testcase || (!strcmp(verb, "set") && !kernel) ||
	    (!strcmp(verb, "unset") && !tree)) {
		fprintf(stderr, "rtlab baseline %s: --board, --testcase and "
			"%s are needed\n", verb,
			!strcmp(verb, "set") ? "--kernel" : "--tree");
		return EXIT_USAGE;
	}
	if (!strcmp(verb, "unset") && kernel) {
		fprintf(stderr, "rtlab baseline unset: --kernel is for "
			"'set'\n");
		return EXIT_USAGE;
	}
	conn = connect_or_say("baseline");
	if (!conn)
		return 1;
	if (db_board_lookup(conn, board, &board_id, &err) ||
	    db_testcase_lookup(conn, testcase, &testcase_id, &err))
		goto fail;
	if (!strcmp(verb, "unset")) {
		if (db_baseline_unset(conn, board_id, testcase_id, tree, &err))
			goto fail;
		printf("baseline of %s / %s / tree '%s' unpinned: the default "
		       "applies again\n", board, testcase, tree);
		ret = 0;
		goto out;
	}
	if (db_kernel_resolve(conn, kernel, &kernel_id, &err) ||
	    db_kernel_tree(conn, kernel_id, ktree, sizeof(ktree), &err))
		goto fail;
	if (!tree)
		tree = ktree;
	if (db_baseline_set(conn, board_id, testcase_id, tree, kernel_id,
			    &err))
		goto fail;
	printf("baseline of %s / %s / tree '%s': kernel %d (%s)\n", board,
	       testcase, tree, kernel_id, kernel);
	if (strcmp(tree, ktree))
		fprintf(stderr, "rtlab baseline set: note: kernel %s is of "
			"tree '%s', not '%s'\n", kernel, ktree, tree);
	if (!db_series_clocks(conn, board_id, testcase_id, kernel_id, &clocks,
			      &err) && !json_object_size(clocks))
		fprintf(stderr, "rtlab baseline set: warning: kernel %s has no "
			"complete runs on %s / %s yet; verdicts against it "
			"stay INCONCLUSIVE until it has\n", kernel, board,
			testcase);
	json_decref(clocks);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "rtlab baseline %s: %s\n", verb, err.msg);
out:
	db_disconnect(conn);
	return ret;
}
