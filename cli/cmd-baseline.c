// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab baseline: pin, unpin and show the baselines of the series.
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
#include "../services/lab.h"
#include "../services/verdict.h"
#include "commands.h"
#include "regress.h"
#include "common.h"

static void baseline_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab baseline set --board B --testcase T --kernel K\n"
		"                          [--tree TREE]\n"
		"       rtlab baseline unset --board B --testcase T --tree TREE\n"
		"       rtlab baseline show [--board B] [--testcase T] [--tree TREE]\n"
		"                           [--json]\n\n"
		"A series is (board, testcase, kernel tree).  Each new run of a\n"
		"series is compared with its baseline: the kernel pinned here,\n"
		"else the tree's kernel that ran before it (by first run) with\n"
		"complete runs.  K is a kernel id or release; --tree defaults\n"
		"to K's tree.  'show' lists every series with its pinned\n"
		"baseline, its latest kernel and that kernel's default\n"
		"baseline.\n");
}

static int baseline_show(PGconn *conn, const char *board, const char *testcase,
			 const char *tree, bool as_json)
{
	struct rtlab_err err = { "" };
	json_t *list = NULL, *s;
	size_t i;

	if (db_baselines_list(conn, board, testcase, tree, &list, &err)) {
		fprintf(stderr, "rtlab baseline show: %s\n", err.msg);
		return 1;
	}
	if (as_json) {
		cli_print_json(list);
		json_decref(list);
		return 0;
	}
	printf("%-12s %-18s %-10s %-24s %-8s %s\n", "BOARD", "TESTCASE", "TREE",
	       "BASELINE", "SOURCE", "LATEST KERNEL");
	json_array_foreach(list, i, s) {
		json_t *pin = json_object_get(s, "pinned");
		json_t *dfl = json_object_get(s, "default");
		json_t *use = json_is_object(pin) ? pin : dfl;

		printf("%-12s %-18s %-10s %-24s %-8s %s\n",
		       cli_jstr(s, "board"), cli_jstr(s, "testcase"),
		       *cli_jstr(s, "tree") ? cli_jstr(s, "tree") : "''",
		       json_is_object(use) ? cli_jstr(use, "release") :
					     "(none)",
		       json_is_object(pin) ? "pinned" :
		       json_is_object(dfl) ? "default" :
					     "-",
		       cli_jstr(json_object_get(s, "latest"), "release"));
	}
	if (!json_array_size(list))
		printf("(no series)\n");
	json_decref(list);
	return 0;
}

int cmd_baseline(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "tree", required_argument, NULL, 'T' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *board = NULL, *testcase = NULL, *tree = NULL,
		   *kernel = NULL, *verb;
	struct rtlab_err err = { "" };
	const char *ktree;
	int c, ret = 1;
	bool as_json = false;
	json_t *pin = NULL;
	PGconn *conn;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		baseline_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	verb = argv[1];
	if (strcmp(verb, "set") && strcmp(verb, "unset") &&
	    strcmp(verb, "show")) {
		fprintf(stderr,
			"rtlab baseline: unknown action '%s' "
			"(expected set, unset or show)\n",
			verb);
		return EXIT_USAGE;
	}
	while ((c = getopt_long(argc - 1, argv + 1, "b:t:T:k:jh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			board = optarg;
			break;
		case 't':
			testcase = optarg;
			break;
		case 'T':
			tree = optarg;
			break;
		case 'k':
			kernel = optarg;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			baseline_usage(stdout);
			return 0;
		default:
			baseline_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "rtlab baseline: unexpected argument '%s'\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	if (!strcmp(verb, "show")) {
		if (kernel) {
			fprintf(stderr, "rtlab baseline show: --kernel is "
					"for 'set'\n");
			return EXIT_USAGE;
		}
		conn = cli_connect("baseline");
		if (!conn)
			return 1;
		ret = baseline_show(conn, board, testcase, tree, as_json);
		db_disconnect(conn);
		return ret;
	}
	if (!board || !testcase || (!strcmp(verb, "set") && !kernel) ||
	    (!strcmp(verb, "unset") && !tree)) {
		fprintf(stderr,
			"rtlab baseline %s: --board, --testcase and "
			"%s are needed\n",
			verb, !strcmp(verb, "set") ? "--kernel" : "--tree");
		return EXIT_USAGE;
	}
	if (!strcmp(verb, "unset") && kernel) {
		fprintf(stderr, "rtlab baseline unset: --kernel is for "
				"'set'\n");
		return EXIT_USAGE;
	}
	conn = cli_connect("baseline");
	if (!conn)
		return 1;
	if (!strcmp(verb, "unset")) {
		if (lab_baseline_unset(conn, board, testcase, tree, &err))
			goto fail;
		printf("baseline of %s / %s / tree '%s' unpinned: the default "
		       "applies again\n",
		       board, testcase, tree);
		ret = 0;
		goto out;
	}
	if (lab_baseline_set(conn, board, testcase, kernel, tree, &pin, &err))
		goto fail;
	ktree = cli_jstr(pin, "kernel_tree");
	tree = cli_jstr(pin, "tree");
	printf("baseline of %s / %s / tree '%s': kernel %lld (%s)\n", board,
	       testcase, tree,
	       (long long)json_integer_value(json_object_get(pin, "kernel_id")),
	       kernel);
	if (strcmp(tree, ktree))
		fprintf(stderr,
			"rtlab baseline set: note: kernel %s is of "
			"tree '%s', not '%s'\n",
			kernel, ktree, tree);
	if (!json_integer_value(json_object_get(pin, "complete_runs")))
		fprintf(stderr,
			"rtlab baseline set: warning: kernel %s has no "
			"complete runs on %s / %s yet; verdicts against it "
			"stay INCONCLUSIVE until it has\n",
			kernel, board, testcase);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "rtlab baseline %s: %s\n", verb, err.msg);
out:
	json_decref(pin);
	db_disconnect(conn);
	return ret;
}
