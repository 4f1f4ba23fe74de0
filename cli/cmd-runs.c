// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab runs / show / plot: the stored runs as tables and pictures, read
 * straight from PostgreSQL through db/db-runs.c (no server needed).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/plot.h"
#include "cmd-plots.h"
#include "../db/db-runs.h"
#include "../db/db.h"
#include "manifest.h"
#include "commands.h"

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

/* An integer field, "-" when null (e.g. a quantile among overflows is
 * printed as ">=RANGE"). */
static void jint(char *buf, size_t n, json_t *o, const char *key,
		 json_int_t overflow_at)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, n, "%.0f", json_real_value(v));
	else if (overflow_at > 0)
		snprintf(buf, n, ">=%" JSON_INTEGER_FORMAT, overflow_at);
	else
		snprintf(buf, n, "-");
}

static PGconn *connect_or_say(const char *cmd)
{
	struct rtlab_err err = { "" };
	PGconn *conn = db_connect(&err);

	if (!conn)
		fprintf(stderr, "rtlab %s: %s\n", cmd, err.msg);
	return conn;
}

static void runs_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab runs [--board B] [--kernel RELEASE] [--testcase T]\n"
		"                  [--status S] [--limit N] [--json]\n\n"
		"List stored runs, newest first (default limit 50).\n");
}

int cmd_runs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "testcase", required_argument, NULL, 't' },
		{ "status", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_filter f = { 0 };
	struct rtlab_err err = { "" };
	enum run_status st;
	bool as_json = false;
	json_t *runs = NULL, *r;
	PGconn *conn;
	size_t i;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "b:k:t:s:n:jh", opts, NULL)) !=
	       -1) {
		char *end;

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
				fprintf(stderr, "rtlab runs: --status '%s': "
					"expected complete, agent_error, "
					"boot_failed, panic or hang\n", optarg);
				return EXIT_USAGE;
			}
			f.status = optarg;
			break;
		case 'n':
			f.limit = strtoul(optarg, &end, 10);
			if (!*optarg || *end || f.limit < 1 ||
			    f.limit > 100000) {
				fprintf(stderr, "rtlab runs: --limit '%s': "
					"expected a number from 1 to 100000\n",
					optarg);
				return EXIT_USAGE;
			}
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
	conn = connect_or_say("runs");
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

		jint(id, sizeof(id), r, "id", 0);
		jint(max, sizeof(max), r, "max_us", 0);
		printf("%-6s %-8.8s %-12s %-24s %-18s %-11s %7s  %s\n", id,
		       jstr(r, "uuid"), jstr(r, "board"), jstr(r, "kernel"),
		       jstr(r, "testcase"), jstr(r, "status"), max,
		       jstr(r, "created_at"));
	}
	if (!json_array_size(runs))
		printf("(no runs)\n");
	ret = 0;
out:
	json_decref(runs);
	db_disconnect(conn);
	return ret;
}

static void print_scalars(const char *indent, json_t *obj)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		char *text;

		if (json_is_string(v)) {
			printf("%s%-18s %s\n", indent, key,
			       json_string_value(v));
			continue;
		}
		text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (text)
			printf("%s%-18s %s\n", indent, key, text);
		free(text);
	}
}

static void show_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab show RUN [--json]\n\n"
		"One run's identity, environment and figures per CPU.  RUN is a\n"
		"run id, a uuid or a uuid prefix (as 'rtlab runs' prints it).\n");
}

/* Resolve the RUN argument; prints the error itself. */
static int resolve(PGconn *conn, const char *cmd, const char *ref,
		   int64_t *id)
{
	struct rtlab_err err = { "" };

	if (db_run_resolve(conn, ref, id, &err)) {
		fprintf(stderr, "rtlab %s: %s\n", cmd, err.msg);
		return -1;
	}
	return 0;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	json_t *run = NULL, *k, *cpus, *cpu, *arts, *a, *cmds, *cmd;
	bool as_json = false;
	PGconn *conn;
	int64_t id;
	size_t i;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			as_json = true;
			break;
		case 'h':
			show_usage(stdout);
			return 0;
		default:
			show_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		show_usage(stderr);
		return EXIT_USAGE;
	}
	conn = connect_or_say("show");
	if (!conn)
		return 1;
	if (resolve(conn, "show", argv[optind], &id))
		goto out;
	if (db_run_get(conn, id, &run, &err)) {
		fprintf(stderr, "rtlab show: %s\n", err.msg);
		goto out;
	}
	if (as_json) {
		json_dumpf(run, stdout, JSON_INDENT(2));
		putchar('\n');
		ret = 0;
		goto out;
	}
	k = json_object_get(run, "kernel");
	printf("run        %" PRId64 "  %s\n", id, jstr(run, "uuid"));
	printf("board      %s\n", jstr(run, "board"));
	printf("kernel     %s  %s%s\n", jstr(k, "release"),
	       jstr(k, "version"),
	       json_is_true(json_object_get(k, "realtime")) ? "  (realtime)" :
	       json_is_false(json_object_get(k, "realtime")) ?
							  "  (not realtime)" :
							  "");
	printf("testcase   %s\n", jstr(json_object_get(run, "testcase"),
					"name"));
	printf("status     %s%s%s\n", jstr(run, "status"),
	       json_is_string(json_object_get(run, "error")) ? ": " : "",
	       json_is_string(json_object_get(run, "error")) ?
		       jstr(run, "error") : "");
	printf("clock      %s\n", jstr(run, "clock"));
	printf("started    %s\nfinished   %s\nstored     %s\n",
	       jstr(run, "started_at"), jstr(run, "finished_at"),
	       jstr(run, "created_at"));
	printf("\nenvironment\n");
	print_scalars("  ", json_object_get(run, "environment"));
	cmds = json_object_get(run, "commands");
	if (json_array_size(cmds)) {
		printf("\ncommands\n");
		json_array_foreach(cmds, i, cmd)
			printf("  %s\n", json_is_string(cmd) ?
						 json_string_value(cmd) : "?");
	}

	cpus = json_object_get(run, "cpus");
	printf("\n%-4s %-4s %12s %6s %8s %6s %6s %7s %7s %10s\n", "CPU",
	       "THR", "SAMPLES", "MIN", "AVG", "P50", "P99", "P99.9", "MAX",
	       "OVERFLOWS");
	json_array_foreach(cpus, i, cpu) {
		json_int_t range = json_integer_value(
			json_object_get(cpu, "range_us"));
		char cpun[16], thr[16], samples[24], min[16], p50[24],
			p99[24], p999[24], max[16], ovf[24], avg[24];
		json_t *av = json_object_get(cpu, "avg_us");

		jint(cpun, sizeof(cpun), cpu, "cpu", 0);
		jint(thr, sizeof(thr), cpu, "thread", 0);
		jint(samples, sizeof(samples), cpu, "samples", 0);
		jint(min, sizeof(min), cpu, "min_us", 0);
		jint(p50, sizeof(p50), cpu, "p50_us", range);
		jint(p99, sizeof(p99), cpu, "p99_us", range);
		jint(p999, sizeof(p999), cpu, "p999_us", range);
		jint(max, sizeof(max), cpu, "max_us", 0);
		jint(ovf, sizeof(ovf), cpu, "overflows", 0);
		if (json_is_number(av))
			snprintf(avg, sizeof(avg), "%.2f",
				 json_number_value(av));
		else
			snprintf(avg, sizeof(avg), "-");
		printf("%-4s %-4s %12s %6s %8s %6s %6s %7s %7s %10s\n", cpun,
		       thr, samples, min, avg, p50, p99, p999, max, ovf);
	}
	if (!json_array_size(cpus))
		printf("(no histograms: the run did not complete)\n");

	arts = json_object_get(run, "artifacts");
	if (json_array_size(arts)) {
		printf("\nartifacts\n");
		json_array_foreach(arts, i, a) {
			char size[24];

			jint(size, sizeof(size), a, "size", 0);
			printf("  %-24s %10s  %s\n", jstr(a, "name"), size,
			       jstr(a, "content_type"));
		}
	}
	ret = 0;
out:
	json_decref(run);
	db_disconnect(conn);
	return ret;
}

static void plot_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab plot RUN -o FILE.png|FILE.svg\n"
		"       rtlab plot compare --board B --testcase T "
		"--baseline K1 --candidate K2 -o F\n"
		"       rtlab plot trend --board B --testcase T [--tree TREE] "
		"-o F\n\n"
		"Draw a run's per-CPU latency histogram (log-scale counts, "
		"1 us\nbuckets, maxima marked) with gnuplot; 'compare' and "
		"'trend' draw a series\n(see 'rtlab plot compare --help').\n");
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	struct run_hists rh = { 0 };
	const char *out_path = NULL;
	enum plot_format fmt;
	void *img = NULL;
	size_t size = 0;
	PGconn *conn;
	int64_t id;
	FILE *f;
	int c, ret = 1;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return cmd_plot_compare(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "trend"))
		return cmd_plot_trend(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			plot_usage(stdout);
			return 0;
		default:
			plot_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !out_path) {
		plot_usage(stderr);
		return EXIT_USAGE;
	}
	if (plot_format_parse(out_path, &fmt)) {
		fprintf(stderr, "rtlab plot: -o '%s': expected a file name "
			"ending in .png or .svg\n", out_path);
		return EXIT_USAGE;
	}
	conn = connect_or_say("plot");
	if (!conn)
		return 1;
	if (resolve(conn, "plot", argv[optind], &id))
		goto out;
	if (db_run_hists_load(conn, id, &rh, &err) ||
	    plot_stored_run(&rh, fmt, &img, &size, &err)) {
		fprintf(stderr, "rtlab plot: %s\n", err.msg);
		goto out;
	}
	f = fopen(out_path, "wb");
	if (!f) {
		fprintf(stderr, "rtlab plot: %s: %s\n", out_path,
			strerror(errno));
		goto out;
	}
	if (fwrite(img, 1, size, f) != size) {
		fprintf(stderr, "rtlab plot: %s: write failed\n", out_path);
		fclose(f);
		goto out;
	}
	if (fclose(f)) {
		fprintf(stderr, "rtlab plot: %s: %s\n", out_path,
			strerror(errno));
		goto out;
	}
	printf("%s: run %" PRId64 ", %zu CPUs, %zu bytes\n", out_path, id,
	       rh.nhists, size);
	ret = 0;
out:
	free(img);
	run_hists_cleanup(&rh);
	db_disconnect(conn);
	return ret;
}
