// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab export: the lab's results in other systems' formats.  Today KCIDB
 * (KernelCI's common reporting schema v5.3), checked against the schema's
 * rules before it is written.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/kcidb.h"
#include "../db/db-reports.h"
#include "../db/db.h"
#include "commands.h"
#include "common.h"

static void export_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab export kcidb [--since ISO-DATE] [-o FILE] "
		"[--origin NAME]\n\n"
		"Export kernels, runs and regressions as KCIDB v5.3 JSON: a "
		"checkout and a build\n"
		"per kernel, a test per run (its max latency in seconds), an "
		"issue per\n"
		"REGRESSION verdict and an incident per candidate run of it.\n\n"
		"  --since ISO-DATE  only runs and verdicts created since "
		"then (e.g. 2026-12-01)\n"
		"  -o, --output FILE write there instead of standard output\n"
		"  --origin NAME     the KCIDB origin, prefix of every id "
		"(default %s)\n",
		KCIDB_DEFAULT_ORIGIN);
}

static int export_kcidb(const char *since, const char *file, const char *origin)
{
	struct rtlab_err err = { "" };
	json_t *data = NULL, *doc = NULL;
	PGconn *conn;
	FILE *f = NULL;
	int status = 1;

	conn = cli_connect("export");
	if (!conn)
		return 1;
	if (db_kcidb_get(conn, since, &data, &err)) {
		fprintf(stderr, "rtlab export: %s\n", err.msg);
		goto out;
	}
	doc = kcidb_build(data, origin, &err);
	if (!doc) {
		fprintf(stderr, "rtlab export: %s\n", err.msg);
		goto out;
	}
	if (kcidb_validate(doc, origin, &err)) {
		fprintf(stderr,
			"rtlab export: the export breaks a KCIDB rule, "
			"not written: %s\n",
			err.msg);
		goto out;
	}
	f = file ? fopen(file, "w") : stdout;
	if (!f) {
		fprintf(stderr, "rtlab export: %s: cannot write: %s\n", file,
			strerror(errno));
		goto out;
	}
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	    fputc('\n', f) == EOF || (file && fclose(f))) {
		fprintf(stderr, "rtlab export: %s: write failed\n",
			file ? file : "standard output");
		f = NULL;
		goto out;
	}
	f = NULL;
	fprintf(stderr,
		"rtlab export: KCIDB %d.%d, origin %s: %zu checkouts, "
		"%zu builds, %zu tests, %zu issues, %zu incidents%s%s\n",
		KCIDB_MAJOR, KCIDB_MINOR, origin,
		json_array_size(json_object_get(doc, "checkouts")),
		json_array_size(json_object_get(doc, "builds")),
		json_array_size(json_object_get(doc, "tests")),
		json_array_size(json_object_get(doc, "issues")),
		json_array_size(json_object_get(doc, "incidents")),
		file ? " -> " : "", file ? file : "");
	status = 0;
out:
	if (f && f != stdout)
		fclose(f);
	json_decref(doc);
	json_decref(data);
	db_disconnect(conn);
	return status;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "origin", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *since = NULL, *file = NULL, *origin = KCIDB_DEFAULT_ORIGIN;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			since = optarg;
			break;
		case 'o':
			file = optarg;
			break;
		case 'O':
			origin = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		default:
			export_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc || strcmp(argv[optind], "kcidb")) {
		fprintf(stderr, "rtlab export: expected a format: kcidb%s%s\n",
			optind < argc ? ", got " : "",
			optind < argc ? argv[optind] : "");
		export_usage(stderr);
		return EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "rtlab export: unexpected argument '%s'\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (!*origin || strspn(origin, "abcdefghijklmnopqrstuvwxyz"
				       "0123456789_") != strlen(origin)) {
		fprintf(stderr,
			"rtlab export: --origin '%s': expected "
			"lower-case letters, digits and '_'\n",
			origin);
		return EXIT_USAGE;
	}
	return export_kcidb(since, file, origin);
}
