// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab report: write the Bugzilla-ready report of a REGRESSION verdict
 * into a directory, or file it to a Bugzilla 5 over its REST API (once per
 * verdict, recorded in the reports table).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/bugzilla.h"
#include "../reports/report.h"
#include "../services/reporting.h"
#include "config.h"
#include "../db/db-reports.h"
#include "../db/db.h"
#include "commands.h"
#include "common.h"

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab report VERDICT_ID [-o DIR] [--force]\n"
		"       rtlab report file VERDICT_ID [--bugzilla URL] "
		"[--dry-run] [--force]\n\n"
		"Write the regression report of a verdict: report.txt, "
		"report.html, bug.json\n"
		"(the body of Bugzilla's POST /rest/bug) and attachments/"
		"NN-NAME.json, into DIR\n"
		"(default STATE_DIR/reports/verdict-ID).  'file' sends it to "
		"a Bugzilla 5\n"
		"(--bugzilla, else bugzilla_url of the lab configuration) and "
		"records the bug;\n"
		"a verdict is filed once.  Only REGRESSION verdicts are "
		"reported unless --force.\n\n"
		"  -o, --output DIR   where to write the report\n"
		"  --force            report a verdict that is not a "
		"REGRESSION\n"
		"  --bugzilla URL     Bugzilla base URL (http:// or https://)\n"
		"  --dry-run          ask the server which fields it offers, "
		"print what would be\n"
		"                     filed, file nothing\n\n"
		"The API key comes from RTLAB_BUGZILLA_API_KEY or "
		"bugzilla_api_key in the\n"
		"configuration file; product, component and version from "
		"bugzilla_product,\n"
		"bugzilla_component and bugzilla_version (default Linux, "
		"Realtime, unspecified).\n");
}

static int parse_id(const char *s, int64_t *id)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v <= 0)
		return -EINVAL;
	*id = v;
	return 0;
}

/* The list of attachment file names, for the reports table. */
static json_t *files_json(const struct report *r, const char *dir)
{
	json_t *files = json_pack("{s:s?, s:s, s:[]}", "dir", dir, "summary",
				  r->summary, "attachments");
	size_t i;

	for (i = 0; files && i < r->natt; i++)
		json_array_append_new(json_object_get(files, "attachments"),
				      json_string(r->att[i].file_name));
	return files;
}

static int write_report(PGconn *conn, int64_t id, const char *dir_opt,
			bool force, const struct rtlab_config *cfg)
{
	struct report_fields f = { cfg->bugzilla_product,
				   cfg->bugzilla_component,
				   cfg->bugzilla_version };
	struct rtlab_err err = { "" };
	struct report r;
	char *dir = NULL, *files = NULL;
	json_t *fj = NULL;
	int ret, status = 1;

	ret = reporting_build(conn, id, force, &f, &r, &err);
	if (ret) {
		fprintf(stderr, "rtlab report: %s\n", err.msg);
		goto out;
	}
	if (dir_opt)
		dir = strdup(dir_opt);
	else if (asprintf(&dir, "%s/reports/verdict-%" PRId64,
			  rtlab_state_dir(), id) < 0)
		dir = NULL;
	if (!dir) {
		fprintf(stderr, "rtlab report: out of memory\n");
		goto out;
	}
	ret = report_write(&r, dir, &err);
	if (ret) {
		fprintf(stderr, "rtlab report: %s\n", err.msg);
		goto out;
	}
	fj = files_json(&r, dir);
	files = fj ? json_dumps(fj, JSON_COMPACT) : NULL;
	if (!files || db_report_record(conn, id, 0, NULL, files, &err)) {
		fprintf(stderr,
			"rtlab report: report written to %s, but not "
			"recorded: %s\n",
			dir, files ? err.msg : "out of memory");
		goto out;
	}
	printf("rtlab report: verdict %" PRId64 " (%s) written to %s: "
	       "report.txt, report.html, bug.json, %zu attachments\n",
	       id, json_string_value(json_object_get(r.ctx, "verdict")), dir,
	       r.natt);
	status = 0;
out:
	json_decref(fj);
	free(files);
	free(dir);
	report_cleanup(&r);
	return status;
}

/* Drop the custom fields or values the server does not offer. */
static int adapt_fields(const struct bz_client *bz, json_t *bug,
			struct rtlab_err *err)
{
	const char *key;
	json_t *v, *keys = json_array();
	size_t i;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	json_object_foreach(bug, key, v)
		if (!strncmp(key, "cf_", 3))
			json_array_append_new(keys, json_string(key));
	json_array_foreach(keys, i, v) {
		const char *name = json_string_value(v);
		json_t *field = NULL;
		char note[256];

		ret = bz_field_get(bz, name, &field, err);
		if (ret && ret != -ENOENT)
			break;
		ret = 0;
		if (bz_bug_adapt(bug, name, field, note, sizeof(note)))
			printf("rtlab report file: %s\n", note);
		json_decref(field);
	}
	json_decref(keys);
	return ret;
}

static int file_report(PGconn *conn, int64_t id, const char *url_opt,
		       bool dry_run, bool force, const struct rtlab_config *cfg)
{
	struct report_fields f = { cfg->bugzilla_product,
				   cfg->bugzilla_component,
				   cfg->bugzilla_version };
	const char *env_key = getenv("RTLAB_BUGZILLA_API_KEY");
	const char *url = url_opt ? url_opt : cfg->bugzilla_url;
	const char *key = env_key && *env_key ? env_key : cfg->bugzilla_api_key;
	struct rtlab_err err = { "" };
	struct bz_client bz = { 0 };
	struct report r = { 0 };
	char *version = NULL, *bug_url = NULL, *files = NULL;
	int64_t bug_id = 0, att_id;
	json_t *fj = NULL;
	size_t i, failed = 0;
	int ret, status = 1;

	ret = db_report_filed(conn, id, &bug_id, &bug_url, &err);
	if (!ret) {
		fprintf(stderr,
			"rtlab report file: verdict %" PRId64
			" is already filed as bug %" PRId64 " (%s)\n",
			id, bug_id, bug_url);
		goto out;
	}
	if (ret != -ENOENT) {
		fprintf(stderr, "rtlab report file: %s\n", err.msg);
		goto out;
	}
	if (!url) {
		fprintf(stderr,
			"rtlab report file: no Bugzilla to file to: "
			"give --bugzilla URL or set bugzilla_url in %s\n",
			cfg->path ? cfg->path : "the configuration file");
		status = EXIT_USAGE;
		goto out;
	}
	if (!dry_run && !key) {
		fprintf(stderr,
			"rtlab report file: no Bugzilla API key: set "
			"RTLAB_BUGZILLA_API_KEY or bugzilla_api_key in %s\n",
			cfg->path ? cfg->path : "the configuration file");
		status = EXIT_USAGE;
		goto out;
	}
	if (bz_client_init(&bz, url, key, &err)) {
		fprintf(stderr, "rtlab report file: %s\n", err.msg);
		status = EXIT_USAGE;
		goto out;
	}
	ret = reporting_build(conn, id, force, &f, &r, &err);
	if (ret) {
		fprintf(stderr, "rtlab report file: %s\n", err.msg);
		goto out;
	}
	ret = bz_version(&bz, &version, &err);
	if (!ret)
		ret = adapt_fields(&bz, r.bug, &err);
	if (ret) {
		fprintf(stderr, "rtlab report file: %s\n", err.msg);
		goto out;
	}
	if (dry_run) {
		json_t *shown = json_deep_copy(r.bug);

		printf("rtlab report file: dry run against Bugzilla %s at %s; "
		       "nothing filed.\nPOST /rest/bug:\n",
		       version, bz.url);
		if (shown)
			json_object_set_new(shown, "description",
					    json_sprintf("(report.txt, %zu bytes)",
							 strlen(r.text)));
		json_dumpf(shown, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(shown);
		printf("\n");
		for (i = 0; i < r.natt; i++)
			printf("POST /rest/bug/ID/attachment: %s (%s, %zu "
			       "bytes)\n",
			       r.att[i].file_name, r.att[i].content_type,
			       r.att[i].size);
		status = 0;
		goto out;
	}
	ret = bz_bug_create(&bz, r.bug, &bug_id, &err);
	if (ret) {
		fprintf(stderr,
			"rtlab report file: %s; nothing recorded as "
			"filed\n",
			err.msg);
		goto out;
	}
	bug_url = bz_bug_url(&bz, bug_id);
	fj = files_json(&r, NULL);
	if (fj)
		json_object_set_new(fj, "bugzilla_version",
				    json_string(version));
	files = fj ? json_dumps(fj, JSON_COMPACT) : NULL;
	/* Record the bug before the attachments, so a failure among them
	 * cannot lead to filing the verdict twice. */
	if (!bug_url || !files ||
	    db_report_record(conn, id, bug_id, bug_url, files, &err)) {
		fprintf(stderr,
			"rtlab report file: filed as bug %" PRId64
			" but not recorded: %s\n",
			bug_id, bug_url && files ? err.msg : "out of memory");
		goto out;
	}
	for (i = 0; i < r.natt; i++) {
		json_t *att = report_attachment_json(&r.att[i], bug_id);

		if (!att) {
			strcpy(err.msg, "out of memory");
			ret = -ENOMEM;
		} else {
			ret = bz_attachment_add(&bz, bug_id, att, &att_id,
						&err);
		}
		json_decref(att);
		if (ret) {
			fprintf(stderr,
				"rtlab report file: bug %" PRId64
				": attachment %s: %s\n",
				bug_id, r.att[i].file_name, err.msg);
			failed++;
		}
	}
	printf("rtlab report file: verdict %" PRId64 " filed as bug %" PRId64
	       ": %s (%zu of %zu attachments)\n",
	       id, bug_id, bug_url, r.natt - failed, r.natt);
	status = failed ? 1 : 0;
out:
	json_decref(fj);
	free(files);
	free(version);
	free(bug_url);
	report_cleanup(&r);
	bz_client_cleanup(&bz);
	return status;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "bugzilla", required_argument, NULL, 'b' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *url = NULL;
	bool force = false, dry_run = false, filing;
	struct rtlab_config cfg = { 0 };
	struct rtlab_err err = { "" };
	PGconn *conn = NULL;
	int64_t id;
	int c, status = 1;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'b':
			url = optarg;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			report_usage(stderr);
			return EXIT_USAGE;
		}
	}
	filing = optind < argc && !strcmp(argv[optind], "file");
	if (filing)
		optind++;
	if (optind >= argc) {
		fprintf(stderr, "rtlab report: expected a verdict id\n");
		report_usage(stderr);
		return EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "rtlab report: unexpected argument '%s'\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (parse_id(argv[optind], &id)) {
		fprintf(stderr,
			"rtlab report: verdict id '%s': expected a "
			"positive number (see rtlab verdicts)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (filing && dir) {
		fprintf(stderr, "rtlab report file: -o is for writing a "
				"report, not for filing one\n");
		return EXIT_USAGE;
	}
	if (!filing && (url || dry_run)) {
		fprintf(stderr, "rtlab report: --bugzilla and --dry-run go "
				"with 'rtlab report file'\n");
		return EXIT_USAGE;
	}
	if (rtlab_config_load(&cfg, &err)) {
		fprintf(stderr, "rtlab report: %s\n", err.msg);
		goto out;
	}
	conn = cli_connect("report");
	if (!conn)
		goto out;
	if (filing)
		status = file_report(conn, id, url, dry_run, force, &cfg);
	else
		status = write_report(conn, id, dir, force, &cfg);
out:
	db_disconnect(conn);
	rtlab_config_cleanup(&cfg);
	return status;
}
