// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab runs: the stored runs as a table, read straight from PostgreSQL
 * through db/db-runs.c (no server needed).
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/plot.h"
#include "../db/db-runs.h"
#include "../db/db.h"
#include "manifest.h"
#include "commands.h"
#include "common.h"

static void runs_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab runs [--board B] [--kernel RELEASE] [--testcase T]\n"
		"                  [--status S] [--limit N] [--before ID] [--json]\n\n"
		"List stored runs, newest first (default limit 50); --before ID\n"
		"starts the page after run ID (the last id of the previous page).\n");
}

int cmd_runs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "testcase", required_argument, NULL, 't' },
		{ "status", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "before", required_argument, NULL, 'B' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_filter f = { 0 };
	struct rtlab_err err = { "" };
	enum run_status st;
	unsigned int before = 0;
	bool as_json = false;
	json_t *runs = NULL, *r;
	PGconn *conn;
	size_t i;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "b:k:t:s:n:jh", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'b':
			f.board = optarg;
			break;
		case 'k':
			f.kernel = optarg;
			break;
		case 't':
			f.testcase = optarg;
			break;
		case 's':
			if (run_status_parse(optarg, &st)) {
				fprintf(stderr,
					"rtlab runs: --status '%s': "
					"expected complete, agent_error, "
					"boot_failed, panic or hang\n",
					optarg);
				return EXIT_USAGE;
			}
			f.status = optarg;
			break;
		case 'n':
			if (opt_uint("runs", "--limit", optarg, 1, 100000,
				     &f.limit))
				return EXIT_USAGE;
			break;
		case 'B':
			if (opt_uint("runs", "--before", optarg, 1, UINT_MAX,
				     &before))
				return EXIT_USAGE;
			f.before = before;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			runs_usage(stdout);
			return 0;
		default:
			runs_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rtlab runs: unexpected argument '%s'\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	conn = cli_connect("runs");
	if (!conn)
		return 1;
	if (db_runs_list(conn, &f, &runs, &err)) {
		fprintf(stderr, "rtlab runs: %s\n", err.msg);
		goto out;
	}
	if (as_json) {
		json_dumpf(runs, stdout, JSON_INDENT(2));
		putchar('\n');
		ret = 0;
		goto out;
	}
	printf("%-6s %-8s %-12s %-24s %-18s %-11s %7s  %s\n", "ID", "UUID",
	       "BOARD", "KERNEL", "TESTCASE", "STATUS", "MAX_US", "CREATED");
	json_array_foreach(runs, i, r) {
		char id[24], max[24];

		cli_jint(id, sizeof(id), r, "id", 0);
		cli_jint(max, sizeof(max), r, "max_us", 0);
		printf("%-6s %-8.8s %-12s %-24s %-18s %-11s %7s  %s\n", id,
		       cli_jstr(r, "uuid"), cli_jstr(r, "board"),
		       cli_jstr(r, "kernel"), cli_jstr(r, "testcase"),
		       cli_jstr(r, "status"), max, cli_jstr(r, "created_at"));
	}
	if (!json_array_size(runs))
		printf("(no runs)\n");
	ret = 0;
out:
	json_decref(runs);
	db_disconnect(conn);
	return ret;
}
