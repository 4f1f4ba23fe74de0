// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab verdict: one stored verdict in full.
 */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-boards.h"
#include "../db/db-verdicts.h"
#include "../db/db.h"
#include "../services/verdict.h"
#include "commands.h"
#include "regress.h"
#include "common.h"

static void verdict_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab verdict ID [--json]\n\n"
		"One stored verdict in full: the two sides and their runs, then\n"
		"every metric (baseline -> candidate, effect and interval, test,\n"
		"p-value, reason).\n");
}

int cmd_verdict(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	bool as_json;
	json_t *v = NULL;
	PGconn *conn;
	long long id;
	char *end;
	int c, ret = 1;

	c = cli_opts_json_arg(argc, argv, verdict_usage, &as_json);
	if (c >= 0)
		return c;
	id = strtoll(argv[optind], &end, 10);
	if (!*argv[optind] || *end || id < 1) {
		fprintf(stderr,
			"rtlab verdict: '%s': expected a verdict id "
			"(a number, as 'rtlab verdicts' lists)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	conn = cli_connect("verdict");
	if (!conn)
		return 1;
	if (db_verdict_get(conn, id, &v, &err)) {
		fprintf(stderr, "rtlab verdict: %s\n", err.msg);
		goto out;
	}
	if (as_json)
		cli_print_json(v);
	else
		verdict_print(stdout, v);
	ret = 0;
out:
	json_decref(v);
	db_disconnect(conn);
	return ret;
}
