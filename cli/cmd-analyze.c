// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab analyze: the spike analysis of a run's trace.dat (or of a
 * trace.dat file), printed as text or JSON, and stored with the run on
 * request (reports/spike.c does the work).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../services/spike-store.h"
#include "../db/db-runs.h"
#include "../db/db.h"
#include "commands.h"

static void analyze_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab analyze RUN|TRACE.DAT [--json] [--cpu N] [--store]\n"
		"\n"
		"What held the CPU at the worst latency of a run (its stored trace.dat) or\n"
		"of a trace.dat file: cyclictest's tracemark (\"hit latency threshold\"),\n"
		"else the worst wakeup-to-run of a measuring thread; then the timer IRQ's\n"
		"delay, IRQ handlers, softirqs and tasks that ran between the timer's\n"
		"expiry and the mark, like `rtla timerlat --auto`.\n"
		"\n"
		"  RUN            a stored run's id or uuid (an existing file is read as a\n"
		"                 trace.dat instead)\n"
		"  -j, --json     print the analysis as JSON\n"
		"  -c, --cpu N    only a spike on CPU N\n"
		"  -s, --store    store the analysis with the run (spike.txt, spike.json)\n"
		"\n"
		"Exit status: 0 analyzed, 1 no trace, damaged trace, no spike, another\n"
		"kernel's trace, database error; 2 usage.\n");
}

static int print_result(const struct spike_result *res, bool json,
			char **text_out, char **json_out)
{
	char *text = spike_result_text(res), *js = spike_result_json(res);

	if (!text || !js) {
		fprintf(stderr, "rtlab analyze: out of memory\n");
		free(text);
		free(js);
		return 1;
	}
	fputs(json ? js : text, stdout);
	if (json)
		fputc('\n', stdout);
	*text_out = text;
	*json_out = js;
	return 0;
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "store", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	struct spike_result res = { 0 };
	char *text = NULL, *js = NULL, *end;
	bool json = false, store = false;
	PGconn *conn = NULL;
	const char *ref;
	struct stat st;
	int64_t id;
	long cpu = -1;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "jc:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'c':
			errno = 0;
			cpu = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || cpu < 0 ||
			    cpu > 4095) {
				fprintf(stderr,
					"rtlab analyze: --cpu '%s': "
					"expected a CPU number 0..4095\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			store = true;
			break;
		case 'h':
			analyze_usage(stdout);
			return 0;
		default:
			analyze_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		analyze_usage(stderr);
		return EXIT_USAGE;
	}
	ref = argv[optind];

	if (!stat(ref, &st)) {
		if (store) {
			fprintf(stderr,
				"rtlab analyze: --store needs a stored "
				"run, not a file (%s)\n",
				ref);
			return EXIT_USAGE;
		}
		if (spike_analyze_cpu(ref, (int)cpu, &res, &err)) {
			fprintf(stderr, "rtlab analyze: %s\n", err.msg);
			goto out;
		}
		rc = print_result(&res, json, &text, &js);
		goto out;
	}

	conn = db_connect(&err);
	if (!conn) {
		fprintf(stderr,
			"rtlab analyze: %s is not a file; as a run: "
			"%s\n",
			ref, err.msg);
		goto out;
	}
	if (db_run_resolve(conn, ref, &id, &err)) {
		fprintf(stderr, "rtlab analyze: %s (and no such file)\n",
			err.msg);
		goto out;
	}
	if (spike_run_analyze(conn, id, (int)cpu, &res, &err)) {
		fprintf(stderr, "rtlab analyze: %s\n", err.msg);
		goto out;
	}
	rc = print_result(&res, json, &text, &js);
	if (rc || !store)
		goto out;
	if (spike_store(conn, id, text, js, &err)) {
		fprintf(stderr, "rtlab analyze: %s\n", err.msg);
		rc = 1;
		goto out;
	}
	fprintf(stderr,
		"rtlab analyze: stored as run %" PRId64
		" artifacts %s and %s\n",
		id, SPIKE_ARTIFACT_TEXT, SPIKE_ARTIFACT_JSON);
out:
	free(text);
	free(js);
	spike_result_cleanup(&res);
	db_disconnect(conn);
	return rc;
}
