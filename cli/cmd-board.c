// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab board: register lab boards, rotate their upload tokens, list them.
 * A token is printed once, when made; the database keeps only its hash.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../boards/board.h"
#include "../db/db-boards.h"
#include "../db/db.h"
#include "commands.h"
#include "common.h"

static void board_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab board add NAME [--kind local|qemu|ssh|lava] [--definition FILE.json] [--quiet]\n"
		"       rtlab board token NAME [--quiet]\n"
		"       rtlab board list\n\n"
		"add    register a board and print its upload token (once)\n"
		"token  give a board a new upload token; the old one stops working\n"
		"list   the registered boards\n"
		"--quiet prints the token alone, for scripts.\n");
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

static int board_list(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	struct db_board *b = NULL;
	size_t n = 0, i;
	PGconn *conn;
	int ret;

	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			board_usage(stdout);
			return 0;
		}
		board_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("board list");
	if (!conn)
		return 1;
	ret = db_board_list(conn, &b, &n, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab board list: %s\n",
			err.msg[0] ? err.msg : strerror(-ret));
		return 1;
	}
	if (!n)
		fprintf(stderr,
			"no boards yet: register one with 'rtlab board add NAME'\n");
	for (i = 0; i < n; i++)
		printf("%-20s %-6s id %-4d %-9s since %s\n", b[i].name,
		       b[i].kind, b[i].id,
		       b[i].has_token ? "token" : "no-token", b[i].created_at);
	db_board_list_free(b, n);
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
	fprintf(stderr, "rtlab board: unknown command '%s'\n", sub);
	board_usage(stderr);
	return EXIT_USAGE;
}
