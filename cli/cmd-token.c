// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab token: make, list and revoke the tokens of every role (board,
 * developer, maintainer, admin).  A token is printed once, when made; the
 * database keeps only its hash.  Talks to the database directly, so it is
 * for whoever runs the lab's server (the HTTP side is /api/v1/tokens).
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-tokens.h"
#include "../db/db.h"
#include "commands.h"
#include "common.h"

static void token_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab token add --role ROLE [--board B] [--quiet] NAME\n"
		"       rtlab token list [--json]\n"
		"       rtlab token revoke NAME|ID\n\n"
		"add     make a token of ROLE called NAME and print it (once)\n"
		"list    every token: id, role, name, board, made, last used,\n"
		"        revoked (never the token itself)\n"
		"revoke  revoke the token with id ID, or every live token NAME\n\n"
		"  --role ROLE  board (uploads its own runs), developer (submits\n"
		"               jobs, reads), maintainer (baselines, verdict\n"
		"               parameters, filing), admin (tokens; and what a\n"
		"               maintainer does)\n"
		"  --board B    the board a board token belongs to (default:\n"
		"               the board called NAME)\n"
		"  --quiet      print the token alone, for scripts\n"
		"  --json       the list as JSON\n");
}

static int token_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "board", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rname = NULL, *board = NULL;
	struct rtlab_err err = { "" };
	char token[TOKEN_LEN + 1];
	bool quiet = false;
	enum role role;
	PGconn *conn;
	int c, id;

	optind = 1;
	while ((c = getopt_long(argc, argv, "r:b:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			rname = optarg;
			break;
		case 'b':
			board = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			token_usage(stdout);
			return 0;
		default:
			token_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!rname || optind != argc - 1) {
		fprintf(stderr, "rtlab token add: --role and one NAME are "
				"needed\n");
		return EXIT_USAGE;
	}
	if (role_parse(rname, &role, &err)) {
		fprintf(stderr, "rtlab token add: --role: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (board && role != ROLE_BOARD) {
		fprintf(stderr, "rtlab token add: --board is for board "
				"tokens\n");
		return EXIT_USAGE;
	}
	conn = cli_connect("token");
	if (!conn)
		return 1;
	if (db_token_create(conn, role, argv[optind], board, token, &id,
			    &err)) {
		fprintf(stderr, "rtlab token add: %s\n", err.msg);
		db_disconnect(conn);
		return 1;
	}
	db_disconnect(conn);
	if (quiet)
		printf("%s\n", token);
	else
		printf("%s token %d '%s' (shown only this once; send it as "
		       "'Authorization: Bearer TOKEN'):\n%s\n",
		       role_name(role), id, argv[optind], token);
	return 0;
}

/* "-" for a null or missing string field. */
static const char *or_dash(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

static int token_list(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	json_t *list = NULL, *t;
	bool json = argc == 2 && !strcmp(argv[1], "--json");
	PGconn *conn;
	size_t i;

	if (argc > 2 || (argc == 2 && !json)) {
		token_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("token");
	if (!conn)
		return 1;
	if (db_token_list(conn, &list, &err)) {
		fprintf(stderr, "rtlab token list: %s\n", err.msg);
		db_disconnect(conn);
		return 1;
	}
	db_disconnect(conn);
	if (json) {
		cli_print_json(list);
		json_decref(list);
		return 0;
	}
	printf("%-5s %-10s %-24s %-16s %-20s %-20s %s\n", "id", "role", "name",
	       "board", "created", "last used", "revoked");
	json_array_foreach(list, i, t)
		printf("%-5lld %-10s %-24s %-16s %-20s %-20s %s\n",
		       (long long)json_integer_value(json_object_get(t, "id")),
		       or_dash(t, "role"), or_dash(t, "name"),
		       or_dash(t, "board"), or_dash(t, "created_at"),
		       or_dash(t, "last_used_at"), or_dash(t, "revoked_at"));
	json_decref(list);
	return 0;
}

static int token_revoke(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	unsigned int n;
	PGconn *conn;
	int ret = 0;

	if (argc != 2 || argv[1][0] == '-') {
		token_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("token");
	if (!conn)
		return 1;
	if (db_token_revoke(conn, argv[1], &n, &err)) {
		fprintf(stderr, "rtlab token revoke: %s\n", err.msg);
		ret = 1;
	} else {
		printf("revoked %u token%s '%s'\n", n, n == 1 ? "" : "s",
		       argv[1]);
	}
	db_disconnect(conn);
	return ret;
}

int cmd_token(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		token_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "add"))
		return token_add(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return token_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "revoke"))
		return token_revoke(argc - 1, argv + 1);
	fprintf(stderr, "rtlab token: unknown subcommand '%s'\n", argv[1]);
	token_usage(stderr);
	return EXIT_USAGE;
}
