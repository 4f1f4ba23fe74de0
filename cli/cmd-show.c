// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab show: one stored run's figures per CPU.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/plot.h"
#include "../db/db-health.h"
#include "../db/db-runs.h"
#include "../db/db.h"
#include "manifest.h"
#include "testcase.h"
#include "commands.h"
#include "common.h"

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

int cmd_show(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	char *flags;
	json_t *run = NULL, *k, *cpus, *cpu, *arts, *a, *cmds, *cmd, *res;
	bool as_json;
	PGconn *conn;
	int64_t id;
	size_t i;
	int c, ret = 1;

	c = cli_opts_json_arg(argc, argv, show_usage, &as_json);
	if (c >= 0)
		return c;
	conn = cli_connect("show");
	if (!conn)
		return 1;
	if (cli_run_resolve(conn, "show", argv[optind], &id))
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
	printf("run        %" PRId64 "  %s\n", id, cli_jstr(run, "uuid"));
	printf("board      %s\n", cli_jstr(run, "board"));
	printf("kernel     %s  %s%s\n", cli_jstr(k, "release"),
	       cli_jstr(k, "version"),
	       json_is_true(json_object_get(k, "realtime")) ?
		       "  (realtime)" :
	       json_is_false(json_object_get(k, "realtime")) ?
		       "  (not realtime)" :
		       "");
	printf("testcase   %s\n",
	       cli_jstr(json_object_get(run, "testcase"), "name"));
	printf("status     %s%s%s\n", cli_jstr(run, "status"),
	       json_is_string(json_object_get(run, "error")) ? ": " : "",
	       json_is_string(json_object_get(run, "error")) ?
		       cli_jstr(run, "error") :
		       "");
	flags = testcase_flags_text(json_object_get(run, "flags"));
	if (flags)
		printf("flagged    %s\n", flags);
	free(flags);
	if (json_is_string(json_object_get(json_object_get(run, "flags"),
					   DB_RUN_FLAG_OUT_OF_SERVICE)))
		printf("flagged    board out of service: %s; compared with nothing\n",
		       cli_jstr(json_object_get(run, "flags"),
				DB_RUN_FLAG_OUT_OF_SERVICE));
	printf("clock      %s\n", cli_jstr(run, "clock"));
	printf("started    %s\nfinished   %s\nstored     %s\n",
	       cli_jstr(run, "started_at"), cli_jstr(run, "finished_at"),
	       cli_jstr(run, "created_at"));
	printf("\nenvironment\n");
	print_scalars("  ", json_object_get(run, "environment"));
	cmds = json_object_get(run, "commands");
	if (json_array_size(cmds)) {
		printf("\ncommands\n");
		json_array_foreach(cmds, i, cmd)
			printf("  %s\n", json_is_string(cmd) ?
						 json_string_value(cmd) :
						 "?");
	}

	cpus = json_object_get(run, "cpus");
	printf("\n%-4s %-4s %12s %6s %8s %6s %6s %7s %7s %10s\n", "CPU", "THR",
	       "SAMPLES", "MIN", "AVG", "P50", "P99", "P99.9", "MAX",
	       "OVERFLOWS");
	json_array_foreach(cpus, i, cpu) {
		json_int_t range =
			json_integer_value(json_object_get(cpu, "range_us"));
		char cpun[16], thr[16], samples[24], min[16], p50[24], p99[24],
			p999[24], max[16], ovf[24], avg[24];
		json_t *av = json_object_get(cpu, "avg_us");

		cli_jint(cpun, sizeof(cpun), cpu, "cpu", 0);
		cli_jint(thr, sizeof(thr), cpu, "thread", 0);
		cli_jint(samples, sizeof(samples), cpu, "samples", 0);
		cli_jint(min, sizeof(min), cpu, "min_us", 0);
		cli_jint(p50, sizeof(p50), cpu, "p50_us", range);
		cli_jint(p99, sizeof(p99), cpu, "p99_us", range);
		cli_jint(p999, sizeof(p999), cpu, "p999_us", range);
		cli_jint(max, sizeof(max), cpu, "max_us", 0);
		cli_jint(ovf, sizeof(ovf), cpu, "overflows", 0);
		if (json_is_number(av))
			snprintf(avg, sizeof(avg), "%.2f",
				 json_number_value(av));
		else
			snprintf(avg, sizeof(avg), "-");
		printf("%-4s %-4s %12s %6s %8s %6s %6s %7s %7s %10s", cpun, thr,
		       samples, min, avg, p50, p99, p999, max, ovf);
		/* timerlat's two per CPU, osnoise's: say which */
		if (strcmp(cli_jstr(cpu, "metric"), "latency"))
			printf("  %s", cli_jstr(cpu, "metric"));
		printf("\n");
	}
	res = json_object_get(run, "results");
	if (json_is_object(res)) {
		printf("(no histograms: %s keeps none)\n\nresult     %s "
		       "(return code %lld",
		       cli_jstr(run, "tool"),
		       json_is_true(json_object_get(res, "passed")) ? "passed" :
								      "FAILED",
		       json_integer_value(json_object_get(res, "return_code")));
		if (json_object_get(res, "inversions"))
			printf(", %lld inversions",
			       json_integer_value(json_object_get(res,
								  "inversions")));
		printf(")\n");
		json_array_foreach(json_object_get(res, "threads"), i, cpu) {
			char cn[16], cyc[24], mn[16], mx[16];

			cli_jint(cn, sizeof(cn), cpu, "cpu", 0);
			cli_jint(cyc, sizeof(cyc), cpu, "cycles", 0);
			cli_jint(mn, sizeof(mn), cpu, "min_us", 0);
			cli_jint(mx, sizeof(mx), cpu, "max_us", 0);
			printf("  thread %zu cpu %s: %s cycles, min %s us, "
			       "max %s us\n",
			       i, cn, cyc, mn, mx);
		}
	} else if (!json_array_size(cpus)) {
		printf("(no histograms: the run did not complete)\n");
	}

	arts = json_object_get(run, "artifacts");
	if (json_array_size(arts)) {
		printf("\nartifacts\n");
		json_array_foreach(arts, i, a) {
			char size[24];

			cli_jint(size, sizeof(size), a, "size", 0);
			printf("  %-24s %10s  %s\n", cli_jstr(a, "name"), size,
			       cli_jstr(a, "content_type"));
		}
	}
	ret = 0;
out:
	json_decref(run);
	db_disconnect(conn);
	return ret;
}
