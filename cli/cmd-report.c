// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab report: write the Bugzilla-ready report of a REGRESSION verdict
 * into a directory, or file it to a Bugzilla 5 over its REST API (once per
 * verdict, recorded in the reports table).
 */

#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/bugzilla.h"
#include "../reports/report.h"
#include "../services/filing.h"
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
		"a verdict is filed once, a regression gets one bug: a later "
		"verdict of the\n"
		"same board, testcase, tree and kernels is added to it as a "
		"comment.  Filing a\n"
		"verdict again adds the attachments that failed.  Attachments "
		"fit the server's\n"
		"limit (a trace becomes the window around its spike, the full "
		"one linked at\n"
		"public_url).  Only REGRESSION verdicts are "
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
		"Realtime, unspecified);\n"
		"the attachment limit from the server, else "
		"bugzilla_max_attachment_kb (1000).\n");
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
	char lab[512];
	struct report_fields f = { cfg->bugzilla_product,
				   cfg->bugzilla_component,
				   cfg->bugzilla_version,
				   (size_t)cfg->bugzilla_max_attachment_kb *
					   1024,
				   filing_lab_url(cfg, lab, sizeof(lab)) };
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
	if (!files || db_report_record(conn, id, 0, NULL, NULL, files, &err)) {
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

static void say(void *arg, const char *fmt, ...)
{
	va_list ap;

	(void)arg;
	printf("rtlab report file: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int file_report(PGconn *conn, int64_t id, const char *url_opt,
		       bool dry_run, bool force, const struct rtlab_config *cfg)
{
	const char *env_key = getenv("RTLAB_BUGZILLA_API_KEY");
	const char *url = url_opt ? url_opt : cfg->bugzilla_url;
	const char *key = env_key && *env_key ? env_key : cfg->bugzilla_api_key;
	struct filing_opts o = { url, key, dry_run, force, cfg, say, NULL };
	struct rtlab_err err = { "" };
	struct filing_result res;
	int ret;

	if (!url) {
		fprintf(stderr,
			"rtlab report file: no Bugzilla to file to: "
			"give --bugzilla URL or set bugzilla_url in %s\n",
			cfg->path ? cfg->path : "the configuration file");
		return EXIT_USAGE;
	}
	if (!dry_run && !key) {
		fprintf(stderr,
			"rtlab report file: no Bugzilla API key: set "
			"RTLAB_BUGZILLA_API_KEY or bugzilla_api_key in %s\n",
			cfg->path ? cfg->path : "the configuration file");
		return EXIT_USAGE;
	}
	ret = filing_file(conn, id, &o, &res, &err);
	fflush(stdout);
	if (ret && ret != -EAGAIN) {
		fprintf(stderr, "rtlab report file: %s\n", err.msg);
		return ret == -EINVAL && !res.bug_id ? EXIT_USAGE : 1;
	}
	switch (res.outcome) {
	case FILING_DRY_RUN:
		break;
	case FILING_NEW_BUG:
		printf("rtlab report file: verdict %" PRId64
		       " filed as bug %" PRId64 ": %s (%zu of %zu "
		       "attachments)\n",
		       id, res.bug_id, res.bug_url, res.attached, res.natt);
		break;
	case FILING_COMMENTED:
		printf("rtlab report file: verdict %" PRId64
		       " added to bug %" PRId64 " as a comment: %s (%zu of "
		       "%zu attachments)\n",
		       id, res.bug_id, res.bug_url, res.attached, res.natt);
		break;
	case FILING_COMPLETED:
		printf("rtlab report file: verdict %" PRId64 " (bug %" PRId64
		       ", %s): %zu of %zu missing "
		       "attachments added\n",
		       id, res.bug_id, res.bug_url, res.attached, res.natt);
		break;
	}
	if (ret == -EAGAIN)
		fprintf(stderr,
			"rtlab report file: %s; `rtlab report file %" PRId64
			"` adds what is missing\n",
			err.msg, id);
	return ret ? 1 : 0;
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
