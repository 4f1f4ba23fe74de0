// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab verdicts: the regression verdicts stored after each upload, as a
 * table.  Reads PostgreSQL directly (no server needed).
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
		switch (c) {
		case 'b':
			f.board = optarg;
			break;
		case 't':
			f.testcase = optarg;
			break;
		case 'v':
			if (regress_verdict_parse(optarg) < 0) {
				fprintf(stderr,
					"rtlab verdicts: --verdict "
					"'%s': expected REGRESSION, "
					"IMPROVEMENT, NO_CHANGE or "
					"INCONCLUSIVE\n",
					optarg);
				return EXIT_USAGE;
			}
			f.verdict = optarg;
			break;
		case 'k':
			f.kernel = optarg;
			break;
		case 'n':
			if (opt_uint("verdicts", "--limit", optarg, 1, 100000,
				     &f.limit))
				return EXIT_USAGE;
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
	conn = cli_connect("verdicts");
	if (!conn)
		return 1;
	if (db_verdicts_list(conn, &f, &list, &err)) {
		fprintf(stderr, "rtlab verdicts: %s\n", err.msg);
		goto out;
	}
	ret = 0;
	if (as_json) {
		cli_print_json(list);
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
		       "%-12s %-14s %-14s %" JSON_INTEGER_FORMAT
		       "/%" JSON_INTEGER_FORMAT "\n",
		       json_integer_value(json_object_get(v, "id")),
		       cli_jstr(v, "board"), cli_jstr(v, "testcase"),
		       cli_jstr(v, "baseline_kernel"),
		       cli_jstr(v, "candidate_kernel"), cli_jstr(v, "verdict"),
		       p999, max,
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
