// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab farm: the nightly matrix (docs/farm.md).  `tick` discovers the
 * trees' new kernels and queues the runs each still needs; `status`
 * shows the night per tree and board.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-farm.h"
#include "../db/db.h"
#include "../services/farm.h"
#include "commands.h"
#include "common.h"

static void farm_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab farm tick [--schedule FILE] [--no-discover] "
		"[--dry-run] [--no-notify]\n"
		"       rtlab farm status [--hours N] [--json]\n\n"
		"tick    for every entry of the schedule (trees x boards x "
		"testcases): ask apt\n"
		"        for the tree's new kernels, queue the runs its newest "
		"kernels still\n"
		"        need (the first look of the verdict plan; more only "
		"when a verdict\n"
		"        is INCONCLUSIVE and asks for them), settle the "
		"submissions whose\n"
		"        runs ended, and tell people about regressions and "
		"finished\n"
		"        submissions; for entries with 'bisect: true', start a "
		"bisection\n"
		"        of each regression with untested kernels of the tree "
		"between its\n"
		"        two kernels.  Nothing done or queued is queued "
		"again.\n"
		"status  jobs queued, running, done and failed per tree "
		"(or submission) and\n"
		"        board, in the last N hours (default 24) and all that "
		"still waits;\n"
		"        the latest verdict of each farm kernel\n\n"
		"  -s, --schedule FILE  the matrix (default: farm_schedule of "
		"the configuration)\n"
		"      --no-discover    use the kernels recorded, ask apt "
		"nothing\n"
		"  -n, --dry-run        print what would be queued; change "
		"nothing\n"
		"      --no-notify      send no mail and call no webhook\n"
		"      --hours N        status: the window, 1 to 8760 hours\n"
		"      --json           status: as JSON\n\n"
		"Exit status: 0 done, 1 a cell or the database failed, 2 "
		"usage.\n");
}

static int farm_tick_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "schedule", required_argument, NULL, 's' },
		{ "no-discover", no_argument, NULL, 'D' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "no-notify", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct farm_tick_opts o = { .discover = true };
	struct farm_schedule s = { 0 };
	struct farm_tick_result r;
	struct rtlab_config cfg;
	struct rtlab_err err = { "" };
	const char *path = NULL;
	PGconn *conn = NULL;
	int opt, ret = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:nh", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'D':
			o.discover = false;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'N':
			o.no_notify = true;
			break;
		case 'h':
			farm_usage(stdout);
			return 0;
		default:
			farm_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rtlab farm tick: unexpected argument '%s'\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (rtlab_config_load(&cfg, &err)) {
		fprintf(stderr, "rtlab farm tick: %s\n", err.msg);
		return 1;
	}
	if (!path)
		path = cfg.farm_schedule;
	if (!path) {
		fprintf(stderr, "rtlab farm tick: no schedule: give "
				"--schedule FILE or set farm_schedule in the "
				"configuration\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (farm_schedule_load(path, &s, &err)) {
		fprintf(stderr, "rtlab farm tick: %s\n", err.msg);
		goto out;
	}
	conn = cli_connect("farm tick");
	if (!conn)
		goto out;
	if (farm_tick(conn, &cfg, &s, &o, stdout, &r, &err)) {
		fprintf(stderr, "rtlab farm tick: %s\n", err.msg);
		goto out;
	}
	printf("tick: %u new kernels, %u cells, %u jobs %s, %u submissions "
	       "settled, %u messages, %u errors, %u bisections %s\n",
	       r.new_kernels, r.cells, r.queued,
	       o.dry_run ? "to queue" : "queued", r.settled, r.told, r.errors,
	       r.bisections, o.dry_run ? "to start" : "started");
	ret = r.errors ? 1 : 0;
out:
	db_disconnect(conn);
	farm_schedule_cleanup(&s);
	rtlab_config_cleanup(&cfg);
	return ret;
}

static int farm_status_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hours", required_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	unsigned int hours = 24;
	json_t *st = NULL, *x;
	bool as_json = false;
	PGconn *conn;
	size_t i;
	int opt, ret = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			if (opt_uint("farm status", "--hours", optarg, 1, 8760,
				     &hours))
				return EXIT_USAGE;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			farm_usage(stdout);
			return 0;
		default:
			farm_usage(stderr);
			return EXIT_USAGE;
		}
	}
	conn = cli_connect("farm status");
	if (!conn)
		return 1;
	if (db_farm_status(conn, hours, &st, &err)) {
		fprintf(stderr, "rtlab farm status: %s\n", err.msg);
		goto out;
	}
	if (as_json) {
		json_dumpf(st, stdout, JSON_INDENT(2));
		putchar('\n');
		ret = 0;
		goto out;
	}
	printf("%-24s %-16s %7s %7s %7s %7s\n", "TREE", "BOARD", "QUEUED",
	       "RUNNING", "DONE", "FAILED");
	json_array_foreach(json_object_get(st, "cells"), i, x)
		printf("%-24s %-16s %7lld %7lld %7lld %7lld\n",
		       cli_jstr(x, "tree"), cli_jstr(x, "board"),
		       json_integer_value(json_object_get(x, "queued")),
		       json_integer_value(json_object_get(x, "running")),
		       json_integer_value(json_object_get(x, "done")),
		       json_integer_value(json_object_get(x, "failed")));
	if (json_array_size(json_object_get(st, "verdicts")))
		printf("\n%-16s %-40s %-14s %-22s %s\n", "TREE", "KERNEL",
		       "BOARD", "TESTCASE", "VERDICT");
	json_array_foreach(json_object_get(st, "verdicts"), i, x)
		printf("%-16s %-40s %-14s %-22s %s (%lld)\n",
		       cli_jstr(x, "tree"), cli_jstr(x, "kernel"),
		       cli_jstr(x, "board"), cli_jstr(x, "testcase"),
		       cli_jstr(x, "verdict"),
		       json_integer_value(json_object_get(x, "id")));
	ret = 0;
out:
	json_decref(st);
	db_disconnect(conn);
	return ret;
}

int cmd_farm(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		farm_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "tick"))
		return farm_tick_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return farm_status_cmd(argc - 1, argv + 1);
	fprintf(stderr, "rtlab farm: unknown subcommand '%s' (tick, status)\n",
		argv[1]);
	return EXIT_USAGE;
}
