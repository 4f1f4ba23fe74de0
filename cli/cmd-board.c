// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab board: register lab boards, rotate their upload tokens, list them
 * as the farm sees them, check their health, take them out of service and
 * put them back.
 * A token is printed once, when made; the database keeps only its hash.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../boards/board.h"
#include "../db/db-boards.h"
#include "../db/db-health.h"
#include "../db/db.h"
#include "../services/health.h"
#include "../services/jobs.h"
#include "commands.h"
#include "common.h"

static void board_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab board add NAME [--kind local|qemu|ssh|lava] [--definition FILE.json] [--quiet]\n"
		"       rtlab board token NAME [--quiet]\n"
		"       rtlab board list [--json]\n"
		"       rtlab board health NAME [--duration S] [--quiet]\n"
		"       rtlab board health --due [--max-age HOURS]\n"
		"       rtlab board disable NAME --reason TEXT\n"
		"       rtlab board enable NAME\n\n"
		"add      register a board and print its upload token (once)\n"
		"token    give a board a new upload token; the old one stops working\n"
		"list     the boards as the farm sees them: kind, state (idle, busy,\n"
		"         offline, unhealthy) and why, the job it runs, its last\n"
		"         health check\n"
		"health   queue a health job: the kernel and testcase of the board's\n"
		"         calibration (rtlab calibrate) for a short run (default %u s),\n"
		"         claimed before the board's other jobs, which wait for it; a\n"
		"         board that fails it is taken out of service (unhealthy).\n"
		"         --due queues one for every calibrated board in service not\n"
		"         checked for --max-age hours (default %u; rtlab farm tick\n"
		"         does this too)\n"
		"disable  take a board out of service (offline): workers claim none\n"
		"         of its jobs, and its runs are compared with nothing\n"
		"enable   put an offline or unhealthy board back in service; the\n"
		"         environment it runs in now becomes the one later runs are\n"
		"         checked against.  Runs stored while it was out stay out of\n"
		"         every comparison\n"
		"--quiet prints the token (or the job id) alone, for scripts.\n",
		HEALTH_DURATION_S, HEALTH_MAX_AGE_H);
}

static void print_token(const char *name, const char *token, bool quiet)
{
	if (quiet) {
		printf("%s\n", token);
		return;
	}
	printf("upload token for board '%s' (shown only this once: keep it,\n"
	       "e.g. in the agent's --token; 'rtlab board token %s' makes a new one):\n"
	       "%s\n",
	       name, name, token);
}

/* The --definition file as compact JSON text (malloc'd), or NULL with @err
 * naming the file, line and column. */
static char *read_definition(const char *path, struct rtlab_err *err)
{
	json_error_t jerr;
	json_t *root;
	char *text;

	root = json_load_file(path, 0, &jerr);
	if (!root) {
		rtlab_err_set(err, "%s line %d column %d: %s", path, jerr.line,
			      jerr.column, jerr.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		rtlab_err_set(err, "%s: expected a JSON object", path);
		return NULL;
	}
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!text)
		rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	return text;
}

static int board_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "definition", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kind = "local", *defpath = NULL, *name;
	struct rtlab_err err = { "" };
	char token[65], *def = NULL;
	PGconn *conn = NULL;
	bool quiet = false;
	int opt, id, ret = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "k:d:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			kind = optarg;
			break;
		case 'd':
			defpath = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			board_usage(stdout);
			return 0;
		default:
			board_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		board_usage(stderr);
		return EXIT_USAGE;
	}
	name = argv[optind];
	if (!board_kind_find(kind)) {
		fprintf(stderr,
			"rtlab board add: --kind '%s': expected local, qemu, ssh or lava\n",
			kind);
		return EXIT_USAGE;
	}
	if (!board_kind_has_driver(board_kind_find(kind)))
		fprintf(stderr,
			"rtlab board add: note: board kind %s has no driver in this build: its jobs cannot run yet\n",
			kind);
	if (defpath) {
		def = read_definition(defpath, &err);
		if (!def) {
			fprintf(stderr, "rtlab board add: --definition %s\n",
				err.msg);
			return 1;
		}
	}
	conn = cli_connect("board add");
	if (!conn)
		goto out;
	id = db_board_create(conn, name, kind, def, token, &err);
	if (id < 0) {
		fprintf(stderr, "rtlab board add: %s\n", err.msg);
		goto out;
	}
	if (!quiet)
		printf("board '%s' registered (id %d, kind %s)\n", name, id,
		       kind);
	print_token(name, token, quiet);
	ret = 0;
out:
	db_disconnect(conn);
	free(def);
	return ret;
}

static int board_token(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	bool quiet = false;
	char token[65];
	PGconn *conn;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			quiet = true;
			break;
		case 'h':
			board_usage(stdout);
			return 0;
		default:
			board_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		board_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("board token");
	if (!conn)
		return 1;
	ret = db_board_rotate_token(conn, argv[optind], token, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab board token: %s\n", err.msg);
		return 1;
	}
	print_token(argv[optind], token, quiet);
	return 0;
}

/* The job a board runs, for the list: "#12 cyclictest-idle (running)". */
static void job_text(json_t *job, char *buf, size_t size)
{
	const char *phase = json_string_value(json_object_get(job, "phase"));

	if (!job || json_is_null(job)) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(buf, size, "#%" JSON_INTEGER_FORMAT " %s%s%s%s",
		 json_integer_value(json_object_get(job, "id")),
		 !strcmp(json_string_value(json_object_get(job, "kind")),
			 "health") ?
			 "health " :
			 "",
		 json_string_value(json_object_get(job, "testcase")),
		 phase ? " " : "", phase ? phase : "");
}

static int board_list(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	json_t *boards = NULL, *b, *h;
	bool as_json = false;
	char job[160], health[96];
	PGconn *conn;
	size_t i;
	int ret;

	if (argc > 2) {
		board_usage(stderr);
		return EXIT_USAGE;
	}
	if (argc == 2) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			board_usage(stdout);
			return 0;
		}
		if (strcmp(argv[1], "--json")) {
			board_usage(stderr);
			return EXIT_USAGE;
		}
		as_json = true;
	}
	conn = cli_connect("board list");
	if (!conn)
		return 1;
	ret = db_board_farm(conn, &boards, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab board list: %s\n",
			err.msg[0] ? err.msg : strerror(-ret));
		return 1;
	}
	if (as_json) {
		json_dumpf(boards, stdout, JSON_INDENT(2));
		printf("\n");
		goto out;
	}
	if (!json_array_size(boards)) {
		fprintf(stderr,
			"no boards yet: register one with 'rtlab board add NAME'\n");
		goto out;
	}
	printf("%-20s %-6s %-9s %-8s %-32s %s\n", "NAME", "KIND", "STATE",
	       "TOKEN", "JOB", "LAST HEALTH CHECK");
	json_array_foreach(boards, i, b) {
		h = json_object_get(b, "health");
		job_text(json_object_get(b, "job"), job, sizeof(job));
		if (json_is_object(h))
			snprintf(health, sizeof(health),
				 "%s %s (job %" JSON_INTEGER_FORMAT ")",
				 json_string_value(json_object_get(h,
								   "result")),
				 json_string_value(json_object_get(h, "at")),
				 json_integer_value(json_object_get(h,
								    "job_id")));
		else
			snprintf(health, sizeof(health), "never");
		printf("%-20s %-6s %-9s %-8s %-32s %s\n",
		       json_string_value(json_object_get(b, "name")),
		       json_string_value(json_object_get(b, "kind")),
		       json_string_value(json_object_get(b, "state")),
		       json_is_true(json_object_get(b, "has_token")) ?
			       "token" :
			       "no-token",
		       job, health);
		if (json_string_value(json_object_get(b, "state_reason")))
			printf("    out of service: %s\n",
			       json_string_value(json_object_get(b,
								 "state_reason")));
		if (json_is_object(h) &&
		    json_string_value(json_object_get(h, "reason")))
			printf("    last health check: %s\n",
			       json_string_value(json_object_get(h, "reason")));
	}
out:
	json_decref(boards);
	return 0;
}

static int board_health(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "due", no_argument, NULL, 'D' },
		{ "max-age", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int duration_s = 0, max_age_h = HEALTH_MAX_AGE_H, n = 0;
	struct rtlab_err err = { "" };
	bool due = false, quiet = false, bad = false;
	PGconn *conn;
	int64_t id;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:m:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			bad |= opt_uint("board health", "--duration", optarg, 1,
					JOBS_MAX_DURATION_S, &duration_s) != 0;
			break;
		case 'D':
			due = true;
			break;
		case 'm':
			bad |= opt_uint("board health", "--max-age", optarg, 0,
					100000, &max_age_h) != 0;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			board_usage(stdout);
			return 0;
		default:
			board_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (bad)
		return EXIT_USAGE;
	if (due ? optind != argc : optind != argc - 1) {
		board_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("board health");
	if (!conn)
		return 1;
	if (due)
		ret = health_queue_due(conn, max_age_h, quiet ? NULL : stdout,
				       &n, &err);
	else
		ret = health_queue(conn, argv[optind], duration_s, &id, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab board health: %s\n", err.msg);
		return 1;
	}
	if (due && !quiet)
		printf("%u health job(s) queued\n", n);
	else if (!due && quiet)
		printf("%" PRId64 "\n", id);
	else if (!due)
		printf("board %s: health job %" PRId64
		       " queued; its other jobs wait for it\n",
		       argv[optind], id);
	return 0;
}

/* enable and disable */
static int board_state(int argc, char **argv, bool enable)
{
	static const struct option opts[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = enable ? "board enable" : "board disable";
	struct rtlab_err err = { "" };
	const char *reason = NULL;
	PGconn *conn;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, enable ? "h" : "r:h", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'r':
			reason = optarg;
			break;
		case 'h':
			board_usage(stdout);
			return 0;
		default:
			board_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		board_usage(stderr);
		return EXIT_USAGE;
	}
	if (!enable && (!reason || !*reason)) {
		fprintf(stderr,
			"rtlab board disable: --reason: say why the board leaves service (shown in 'rtlab board list')\n");
		return EXIT_USAGE;
	}
	conn = cli_connect(cmd);
	if (!conn)
		return 1;
	ret = db_board_state_set(conn, argv[optind],
				 enable ? BOARD_STATE_READY :
					  BOARD_STATE_OFFLINE,
				 reason, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab %s: %s\n", cmd, err.msg);
		return 1;
	}
	printf("board %s: %s\n", argv[optind],
	       enable ? "back in service" : "out of service (offline)");
	return 0;
}

int cmd_board(int argc, char **argv)
{
	const char *sub;

	if (argc < 2) {
		board_usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") ||
	    !strcmp(sub, "help")) {
		board_usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "add"))
		return board_add(argc - 1, argv + 1);
	if (!strcmp(sub, "token"))
		return board_token(argc - 1, argv + 1);
	if (!strcmp(sub, "list"))
		return board_list(argc - 1, argv + 1);
	if (!strcmp(sub, "health"))
		return board_health(argc - 1, argv + 1);
	if (!strcmp(sub, "enable"))
		return board_state(argc - 1, argv + 1, true);
	if (!strcmp(sub, "disable"))
		return board_state(argc - 1, argv + 1, false);
	fprintf(stderr, "rtlab board: unknown command '%s'\n", sub);
	board_usage(stderr);
	return EXIT_USAGE;
}
