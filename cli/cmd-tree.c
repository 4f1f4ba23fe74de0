// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab tree: the kernel trees the lab follows (kernels/trees/), what apt
 * offers of each now, and what was recorded (see kernels/README.md).
 */

#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-trees.h"
#include "../db/db.h"
#include "../kernels/tree.h"
#include "commands.h"
#include "common.h"

static void tree_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab tree list\n"
		"       rtlab tree discover [--dry-run] NAME...|--all\n"
		"       rtlab tree show [--json] NAME\n\n"
		"list      the tree definitions under kernels/trees/\n"
		"discover  ask apt (or the tree's git repository) which "
		"kernels each tree\n"
		"          holds now, in the tree's order,\n"
		"          and record them; prints each kernel, 'new' for "
		"those not seen\n"
		"          before (--dry-run: record nothing)\n"
		"show      the kernels recorded for a tree, oldest first\n\n"
		"Apt's package lists are read as apt is configured "
		"(APT_CONFIG to point\n"
		"it elsewhere); run 'apt-get update' to see new kernels.  A "
		"git tree is\n"
		"fetched into the lab's mirror; its kernels are the newest "
		"'follow' commits\n"
		"of its branch, named TREE@COMMIT and built by 'rtlab "
		"build'.\n");
}

/* The names of the definitions under kernels/trees/, sorted. */
static int tree_names(char ***out, size_t *n)
{
	struct dirent **ents = NULL;
	char *dir = tree_defs_dir();
	int k, i;

	*out = NULL;
	*n = 0;
	if (!dir) {
		fprintf(stderr, "rtlab tree: no kernels/trees/ directory "
				"(set RTLAB_DATADIR)\n");
		return 1;
	}
	k = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < k; i++) {
		size_t l = strlen(ents[i]->d_name);
		char **bigger;

		if (l > 5 && !strcmp(ents[i]->d_name + l - 5, ".yaml") &&
		    (bigger = realloc(*out, (*n + 1) * sizeof(**out)))) {
			*out = bigger;
			bigger[(*n)++] = strndup(ents[i]->d_name, l - 5);
		}
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return 0;
}

static void names_free(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

static int tree_list_cmd(void)
{
	char **names, *src;
	size_t n, i;
	int bad = 0;

	if (tree_names(&names, &n))
		return 1;
	printf("%-18s %-14s %s\n", "NAME", "KIND", "SOURCE");
	for (i = 0; i < n; i++) {
		struct rtlab_err err = { "" };
		struct tree_def *t = tree_def_find(names[i], &err);

		if (!t) {
			fprintf(stderr, "rtlab tree list: %s\n", err.msg);
			bad = 1;
			continue;
		}
		src = tree_source(t);
		printf("%-18s %-14s %s\n", t->name, tree_kind_name(t),
		       src ? src : "?");
		free(src);
		tree_def_free(t);
	}
	names_free(names, n);
	return bad;
}

static int discover_one(PGconn *conn, const char *name, bool dry_run)
{
	struct rtlab_err err = { "" };
	struct tree_kernel *k = NULL;
	const char **pk = NULL, **ver = NULL;
	json_t *known = NULL, *row;
	struct tree_def *t;
	unsigned int nnew = 0;
	size_t n = 0, i, j;
	char *src;
	int ret = 1;

	t = tree_def_find(name, &err);
	if (!t) {
		fprintf(stderr, "rtlab tree discover: %s\n", err.msg);
		return 1;
	}
	if (tree_discover(t, &k, &n, &err)) {
		fprintf(stderr, "rtlab tree discover: %s\n", err.msg);
		goto out;
	}
	if (conn && db_tree_kernels(conn, t->name, &known, &err)) {
		fprintf(stderr, "rtlab tree discover: %s\n", err.msg);
		goto out;
	}
	src = tree_source(t);
	printf("tree %s: %zu kernel%s (%s)\n", t->name, n, n == 1 ? "" : "s",
	       src ? src : "?");
	free(src);
	for (i = 0; i < n; i++) {
		bool seen = false;

		json_array_foreach(known, j, row)
			if (!strcmp(cli_jstr(row, "package"), k[i].package) &&
			    !strcmp(cli_jstr(row, "version"), k[i].version))
				seen = true;
		printf("  %3zu  %-40s %-16s%s\n", i, k[i].package, k[i].version,
		       seen ? "" : "  new");
	}
	if (dry_run) {
		ret = 0;
		goto out;
	}
	pk = calloc(n + 1, sizeof(*pk));
	ver = calloc(n + 1, sizeof(*ver));
	if (!pk || !ver) {
		fprintf(stderr, "rtlab tree discover: out of memory\n");
		goto out;
	}
	for (i = 0; i < n; i++) {
		pk[i] = k[i].package;
		ver[i] = k[i].version;
	}
	if (db_tree_record(conn, t->name, pk, ver, n, &nnew, &err)) {
		fprintf(stderr, "rtlab tree discover: %s\n", err.msg);
		goto out;
	}
	printf("tree %s: %u new, recorded\n", t->name, nnew);
	ret = 0;
out:
	free(pk);
	free(ver);
	json_decref(known);
	tree_kernels_free(k, n);
	tree_def_free(t);
	return ret;
}

static int tree_show_cmd(PGconn *conn, const char *name, bool json)
{
	struct rtlab_err err = { "" };
	json_t *known = NULL, *row;
	size_t i;

	if (db_tree_kernels(conn, name, &known, &err)) {
		fprintf(stderr, "rtlab tree show: %s\n", err.msg);
		return 1;
	}
	if (json) {
		cli_print_json(known);
		json_decref(known);
		return 0;
	}
	if (!json_array_size(known))
		printf("tree %s: nothing recorded (rtlab tree discover %s)\n",
		       name, name);
	json_array_foreach(known, i, row)
		printf("  %3zu  %-40s %-16s discovered %.19s\n", i,
		       cli_jstr(row, "package"), cli_jstr(row, "version"),
		       cli_jstr(row, "discovered_at"));
	json_decref(known);
	return 0;
}

int cmd_tree(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool all = false, dry_run = false, json = false;
	const char *verb;
	PGconn *conn = NULL;
	char **names = NULL;
	size_t n = 0, i;
	int c, ret = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		tree_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	verb = argv[1];
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			tree_usage(stdout);
			return 0;
		default:
			tree_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(verb, "list") && optind == argc && !all && !dry_run &&
	    !json)
		return tree_list_cmd();
	if (!strcmp(verb, "show") && optind + 1 == argc && !all && !dry_run) {
		conn = cli_connect("tree show");
		if (!conn)
			return 1;
		ret = tree_show_cmd(conn, argv[optind], json);
		db_disconnect(conn);
		return ret;
	}
	if (strcmp(verb, "discover") || json || (all == (optind < argc))) {
		tree_usage(stderr);
		return EXIT_USAGE;
	}
	if (!dry_run && !(conn = cli_connect("tree discover")))
		return 1;
	if (all && tree_names(&names, &n))
		ret = 1;
	for (i = 0; !ret && i < (all ? n : (size_t)(argc - optind)); i++)
		ret = discover_one(conn, all ? names[i] : argv[optind + i],
				   dry_run);
	names_free(names, n);
	db_disconnect(conn);
	return ret;
}
