// SPDX-License-Identifier: GPL-2.0-or-later
/* What the rtlab commands share: option values, connecting, printing. */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "../db/db-runs.h"
#include "../db/db.h"
#include "commands.h"
#include "common.h"
#include "parse.h"

int opt_uint(const char *cmd, const char *opt, const char *s, unsigned int min,
	     unsigned int max, unsigned int *out)
{
	if (!parse_uint(s, min, max, out))
		return 0;
	fprintf(stderr,
		"rtlab %s: %s '%s': expected a whole number from %u "
		"to %u\n",
		cmd, opt, s, min, max);
	return -EINVAL;
}

int cli_opts_json_arg(int argc, char **argv, void (*usage)(FILE *out),
		      bool *as_json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*as_json = false;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			*as_json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return -1;
}

PGconn *cli_connect(const char *cmd)
{
	struct rtlab_err err = { "" };
	PGconn *conn = db_connect(&err);

	if (!conn)
		fprintf(stderr, "rtlab %s: %s\n", cmd, err.msg);
	return conn;
}

int cli_run_resolve(PGconn *conn, const char *cmd, const char *ref, int64_t *id)
{
	struct rtlab_err err = { "" };

	if (db_run_resolve(conn, ref, id, &err)) {
		fprintf(stderr, "rtlab %s: %s\n", cmd, err.msg);
		return -1;
	}
	return 0;
}

void cli_print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
}

const char *cli_jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

void cli_jint(char *buf, size_t n, json_t *o, const char *key,
	      json_int_t overflow_at)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, n, "%.0f", json_real_value(v));
	else if (overflow_at > 0)
		snprintf(buf, n, ">=%" JSON_INTEGER_FORMAT, overflow_at);
	else
		snprintf(buf, n, "-");
}
