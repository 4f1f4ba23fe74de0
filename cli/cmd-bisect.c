// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab bisect: find the kernel that brought a latency regression, over an
 * ordered range of built kernels, with the verdict engine deciding each
 * step against both ends (services/bisect.h, docs/bisect.md).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-bisect.h"
#include "../db/db.h"
#include "../services/bisect.h"
#include "commands.h"
#include "common.h"

static void bisect_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab bisect start --board B --testcase T --good K1 "
		"--bad K2\n"
		"                          [--kernels K1,...,K2] "
		"[--duration S] [--verdict ID]\n"
		"                          [--plant-from K --plant-testcase "
		"T2]\n"
		"       rtlab bisect status [--json] [ID]\n"
		"       rtlab bisect log [--json] ID\n"
		"       rtlab bisect reset ID\n\n"
		"start   bisect the range from the good kernel K1 to the bad "
		"one K2: both\n"
		"        PACKAGE=VERSION of one recorded tree (rtlab tree "
		"discover), or both\n"
		"        TREE@REF of one git tree (the commits between them, "
		"first parent:\n"
		"        a merge is one step; each is built when its first "
		"job runs, and a\n"
		"        commit that does not build is skipped), or the "
		"ordered range given\n"
		"        with --kernels.  The ends are measured again on the "
		"board first;\n"
		"        then each step runs until the verdict engine decides "
		"it against\n"
		"        both ends, or is skipped.  Jobs go to the board's "
		"queue above every\n"
		"        other job; workers run them (rtlab worker).\n"
		"        --verdict ID: the REGRESSION verdict bisected (its "
		"report gains\n"
		"        the culprit).  --plant-from K --plant-testcase T2: a "
		"self-check of\n"
		"        the lab: kernels from K on run T2 (the same testcase "
		"with an\n"
		"        injector) instead of T.  Prints the bisection's id.\n"
		"status  one bisection (or all): state, range, culprit (for "
		"a git range\n"
		"        its commit id, subject and author) or why it "
		"stopped\n"
		"log     every step with its decision and the two verdicts "
		"behind it\n"
		"reset   stop a bisection: its queued jobs are removed, what "
		"it found is kept\n");
}

static int parse_id(const char *s, int64_t *id)
{
	char *end;
	long long v = s ? strtoll(s, &end, 10) : 0;

	if (!s || !*s || *end || v <= 0) {
		fprintf(stderr, "rtlab bisect: '%s': expected a bisection id\n",
			s ? s : "");
		return -1;
	}
	*id = v;
	return 0;
}

static int start_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'B' },
		{ "kernels", required_argument, NULL, 'k' },
		{ "duration", required_argument, NULL, 'd' },
		{ "verdict", required_argument, NULL, 'v' },
		{ "plant-from", required_argument, NULL, 'p' },
		{ "plant-testcase", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct bisect_spec spec = { 0 };
	struct rtlab_err err = { "" };
	unsigned int vid = 0;
	PGconn *conn;
	int64_t id;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			spec.board = optarg;
			break;
		case 't':
			spec.testcase = optarg;
			break;
		case 'g':
			spec.good = optarg;
			break;
		case 'B':
			spec.bad = optarg;
			break;
		case 'k':
			spec.kernels = optarg;
			break;
		case 'd':
			if (opt_uint("bisect start", "--duration", optarg, 1,
				     604800, &spec.duration_s))
				return EXIT_USAGE;
			break;
		case 'v':
			if (opt_uint("bisect start", "--verdict", optarg, 1,
				     2147483647u, &vid))
				return EXIT_USAGE;
			spec.verdict_id = vid;
			break;
		case 'p':
			spec.plant_from = optarg;
			break;
		case 'P':
			spec.plant_testcase = optarg;
			break;
		case 'h':
			bisect_usage(stdout);
			return 0;
		default:
			bisect_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc || !spec.board || !spec.testcase || !spec.good ||
	    !spec.bad) {
		fprintf(stderr, "rtlab bisect start: %s\n",
			optind < argc ? "unexpected argument" :
					"--board, --testcase, --good and --bad "
					"are needed");
		bisect_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("bisect start");
	if (!conn)
		return 1;
	ret = bisect_start(conn, &spec, &id, &err);
	if (ret) {
		fprintf(stderr, "rtlab bisect start: %s\n", err.msg);
		db_disconnect(conn);
		return ret == -EINVAL ? EXIT_USAGE : 1;
	}
	printf("%" PRId64 "\n", id);
	db_disconnect(conn);
	return 0;
}

static int show_cmd(int argc, char **argv, bool log)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rtlab_err err = { "" };
	bool as_json = false;
	json_t *b = NULL, *e;
	PGconn *conn;
	int64_t id = 0;
	size_t i;
	int c, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j') {
			as_json = true;
		} else if (c == 'h') {
			bisect_usage(stdout);
			return 0;
		} else {
			bisect_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1 || (log && argc - optind != 1)) {
		bisect_usage(stderr);
		return EXIT_USAGE;
	}
	if (optind < argc && parse_id(argv[optind], &id))
		return EXIT_USAGE;
	conn = cli_connect(log ? "bisect log" : "bisect status");
	if (!conn)
		return 1;
	if (id && bisect_get(conn, id, &b, &err)) {
		fprintf(stderr, "rtlab bisect: %s\n", err.msg);
		goto out;
	}
	if (!id && db_bisect_list(conn, &b, &err)) {
		fprintf(stderr, "rtlab bisect: %s\n", err.msg);
		goto out;
	}
	if (as_json)
		cli_print_json(b);
	else if (!id)
		json_array_foreach(b, i, e)
			printf("%-5" JSON_INTEGER_FORMAT
			       " %-9s %-12s %-16s %s\n",
			       json_integer_value(json_object_get(e, "id")),
			       cli_jstr(e, "state"), cli_jstr(e, "board"),
			       cli_jstr(e, "testcase"), cli_jstr(e, "result"));
	else if (log)
		bisect_print_log(stdout, b);
	else
		bisect_print_status(stdout, b);
	ret = 0;
out:
	json_decref(b);
	db_disconnect(conn);
	return ret;
}

static int reset_cmd(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	PGconn *conn;
	int64_t id;
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		bisect_usage(stdout);
		return 0;
	}
	if (argc != 2 || parse_id(argv[1], &id)) {
		bisect_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("bisect reset");
	if (!conn)
		return 1;
	ret = bisect_reset(conn, id, &err);
	if (ret)
		fprintf(stderr, "rtlab bisect reset: %s\n", err.msg);
	else
		printf("bisection %" PRId64 ": reset\n", id);
	db_disconnect(conn);
	return ret ? 1 : 0;
}

int cmd_bisect(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		bisect_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "start"))
		return start_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return show_cmd(argc - 1, argv + 1, false);
	if (!strcmp(argv[1], "log"))
		return show_cmd(argc - 1, argv + 1, true);
	if (!strcmp(argv[1], "reset"))
		return reset_cmd(argc - 1, argv + 1);
	fprintf(stderr, "rtlab bisect: unknown subcommand '%s'\n", argv[1]);
	bisect_usage(stderr);
	return EXIT_USAGE;
}
