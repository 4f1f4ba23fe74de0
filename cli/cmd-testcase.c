// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab testcase: the lab's testcases as verdicts see them (the lab's
 * definition from testcases/NAME.yaml, the verdict parameters in force)
 * and the maintainer's way to set those parameters.  The checks and the
 * storing are services/lab.c's, shared with PUT
 * /api/v1/testcases/NAME/verdict.
 */

#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../db/db-testcases.h"
#include "../db/db.h"
#include "../services/lab.h"
#include "commands.h"
#include "common.h"

static void testcase_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab testcase list [--json]\n"
		"       rtlab testcase show NAME [--json]\n"
		"       rtlab testcase set NAME [--floor-us US] [--floor-rel F]\n"
		"                         [--tail-q Q] [--alpha A] [--min-runs N]\n"
		"                         [--looks N] [--default KEY]...\n\n"
		"list  the testcases the lab has stored, and whether each is the\n"
		"      lab's (testcases/NAME.yaml)\n"
		"show  one testcase: the lab's definition and the verdict\n"
		"      parameters every verdict of it uses\n"
		"set   change its verdict parameters (docs/verdicts.md); the\n"
		"      result is checked as verdicts read it before it is stored\n\n"
		"  --floor-us US   practical floor in us, >= 0\n"
		"  --floor-rel F   relative floor, 0..1\n"
		"  --tail-q Q      tail quantile, between 0.5 and 1\n"
		"  --alpha A       family-wise level, (0, 0.5]\n"
		"  --min-runs N    runs per side, 2..1000\n"
		"  --looks N       planned looks, at N x min-runs runs per side\n"
		"  --default KEY   back to the default for KEY (floor_us,\n"
		"                  floor_rel, tail_q, alpha, min_runs, looks)\n"
		"  --json          the answer as JSON\n");
}

static void print_testcase(json_t *t)
{
	json_t *v = json_object_get(t, "verdict");
	const char *e = json_string_value(json_object_get(t, "verdict_error"));
	const char *by = json_string_value(json_object_get(t, "updated_by"));

	printf("testcase   %s\n", cli_jstr(t, "name"));
	printf("lab        %s\n",
	       json_is_true(json_object_get(t, "lab")) ?
		       "yes (testcases/NAME.yaml)" :
		       "no: not a lab testcase; verdicts use these parameters");
	printf("verdict    floor_us %g, floor_rel %g, tail_q %g, alpha %g, "
	       "min_runs %lld\n",
	       json_number_value(json_object_get(v, "floor_us")),
	       json_number_value(json_object_get(v, "floor_rel")),
	       json_number_value(json_object_get(v, "tail_q")),
	       json_number_value(json_object_get(v, "alpha")),
	       (long long)json_integer_value(json_object_get(v, "min_runs")));
	if (e)
		printf("invalid    %s (verdicts are INCONCLUSIVE)\n", e);
	printf("set by     %s at %s\n", by ? by : "-",
	       cli_jstr(t, "updated_at"));
}

static int testcase_list(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	bool json = argc == 2 && !strcmp(argv[1], "--json");
	json_t *list = NULL, *t;
	PGconn *conn;
	size_t i;

	if (argc > 2 || (argc == 2 && !json)) {
		testcase_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("testcase");
	if (!conn)
		return 1;
	if (db_testcases_list(conn, &list, &err)) {
		fprintf(stderr, "rtlab testcase list: %s\n", err.msg);
		db_disconnect(conn);
		return 1;
	}
	db_disconnect(conn);
	if (json) {
		cli_print_json(list);
	} else {
		printf("%-28s %-4s %s\n", "testcase", "lab", "verdict");
		json_array_foreach(list, i, t) {
			json_t *v =
				json_object_get(json_object_get(t,
								"definition"),
						"verdict");
			char *vt = v ? json_dumps(v, JSON_COMPACT) : NULL;

			printf("%-28s %-4s %s\n", cli_jstr(t, "name"),
			       json_is_true(json_object_get(t, "lab")) ? "yes" :
									 "no",
			       vt ? vt : "defaults");
			free(vt);
		}
	}
	json_decref(list);
	return 0;
}

/* The CLI user, for updated_by. */
static void who(char *out, size_t size)
{
	struct passwd *pw = getpwuid(getuid());

	snprintf(out, size, "user '%s' (rtlab testcase set)",
		 pw ? pw->pw_name : "?");
}

static int testcase_show_set(int argc, char **argv, bool set)
{
	static const struct option opts[] = {
		{ "floor-us", required_argument, NULL, 'f' },
		{ "floor-rel", required_argument, NULL, 'r' },
		{ "tail-q", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "min-runs", required_argument, NULL, 'n' },
		{ "looks", required_argument, NULL, 'l' },
		{ "default", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const keys[] = {
		['f'] = "floor_us", ['r'] = "floor_rel", ['t'] = "tail_q",
		['a'] = "alpha",    ['n'] = "min_runs",	 ['l'] = "looks"
	};
	struct rtlab_err err = { "" };
	json_t *changes = json_object(), *out = NULL;
	bool json = false;
	char by[300], *end;
	PGconn *conn;
	int c, ret = EXIT_USAGE;
	double x;

	if (!changes)
		return 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
		case 'r':
		case 't':
		case 'a':
		case 'n':
		case 'l':
			x = strtod(optarg, &end);
			if (!set || end == optarg || *end || !isfinite(x)) {
				fprintf(stderr, "rtlab testcase %s: --%s: %s\n",
					set ? "set" : "show",
					opts[strchr("frtanl", c) - "frtanl"]
						.name,
					set ? "expected a number" :
					      "is for 'set'");
				goto out;
			}
			json_object_set_new(changes, keys[c], json_real(x));
			break;
		case 'd':
			if (!set) {
				fprintf(stderr, "rtlab testcase show: "
						"--default is for 'set'\n");
				goto out;
			}
			json_object_set_new(changes, optarg, json_null());
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			testcase_usage(stdout);
			ret = 0;
			goto out;
		default:
			testcase_usage(stderr);
			goto out;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rtlab testcase %s: one NAME is needed\n",
			set ? "set" : "show");
		goto out;
	}
	if (set && !json_object_size(changes)) {
		fprintf(stderr, "rtlab testcase set: nothing to set (--alpha, "
				"--floor-us, ...)\n");
		goto out;
	}
	ret = 1;
	conn = cli_connect("testcase");
	if (!conn)
		goto out;
	who(by, sizeof(by));
	if (set ? lab_testcase_verdict_set(conn, argv[optind], changes, by,
					   &out, &err) :
		  lab_testcase_get(conn, argv[optind], &out, &err))
		fprintf(stderr, "rtlab testcase %s: %s\n", set ? "set" : "show",
			err.msg);
	else
		ret = 0;
	db_disconnect(conn);
	if (!ret && json)
		cli_print_json(out);
	else if (!ret)
		print_testcase(out);
out:
	json_decref(out);
	json_decref(changes);
	return ret;
}

int cmd_testcase(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		testcase_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "list"))
		return testcase_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return testcase_show_set(argc - 1, argv + 1, false);
	if (!strcmp(argv[1], "set"))
		return testcase_show_set(argc - 1, argv + 1, true);
	fprintf(stderr, "rtlab testcase: unknown subcommand '%s'\n", argv[1]);
	testcase_usage(stderr);
	return EXIT_USAGE;
}
