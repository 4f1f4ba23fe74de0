// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab kernel: list the kernel definitions, fetch one into the cache
 * (see kernels/README.md), build a developer's module against one.
 * rtlab build: build a commit of a git tree into the cache.
 */

#include <dirent.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/kernel.h"
#include "../kernels/module.h"
#include "../kernels/tree.h"
#include "commands.h"

static void kernel_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab kernel list\n"
		"       rtlab kernel fetch [--cache DIR] NAME|FILE.yaml\n"
		"       rtlab kernel module [--cache DIR] NAME|FILE.yaml SRC_DIR "
		"MODULE\n\n"
		"list   the definitions under kernels/ and whether each is "
		"cached\n"
		"fetch  download, unpack and verify a kernel (once; later "
		"calls reuse the\n"
		"       cache under $RTLAB_STATE_DIR/cache/kernels) and print "
		"its identity\n"
		"module build MODULE.ko from the Kbuild sources in SRC_DIR "
		"against the kernel's\n"
		"       headers (fetched once), check its vermagic, print "
		"the .ko's path: what a\n"
		"       testcase's extras.modules can name "
		"(testcases/README.md)\n");
}

static void print_ident(const struct kernel_ident *id)
{
	printf("kernel:   %s%s%s\n", id->name, id->tree ? "  tree " : "",
	       id->tree ? id->tree : "");
	if (id->package)
		printf("package:  %s %s%s\n", id->package, id->package_version,
		       id->fetched_now ? "  (downloaded now)" : "  (cached)");
	if (id->commit)
		printf("commit:   %s%s\n", id->commit,
		       id->fetched_now ? "  (built now)" : "  (cached)");
	printf("release:  %s\n", id->release);
	printf("version:  %s\n", id->version ? id->version : "?");
	printf("realtime: %s\n", id->realtime > 0 ?
					 "yes (CONFIG_PREEMPT_RT=y)" :
				 id->realtime == 0 ? "no" :
						     "unknown");
	printf("config:   %s\n",
	       id->config_sha256[0] ? id->config_sha256 : "(none)");
	printf("image:    %s\n", id->image_path);
	if (id->modules_dir)
		printf("modules:  %s\n", id->modules_dir);
	if (id->build_log)
		printf("log:      %s\n", id->build_log);
}

static int kernel_fetch_cmd(const char *name, const char *cache)
{
	struct rtlab_err err = { "" };
	struct kernel_ident id;
	struct kernel_def *k;
	int ret;

	k = kernel_def_find(name, &err);
	if (!k) {
		fprintf(stderr, "rtlab kernel: %s\n", err.msg);
		return 1;
	}
	ret = kernel_fetch(k, cache, &id, &err);
	kernel_def_free(k);
	if (ret) {
		fprintf(stderr, "rtlab kernel fetch: %s\n", err.msg);
		return 1;
	}
	print_ident(&id);
	kernel_ident_cleanup(&id);
	return 0;
}

static int kernel_module_cmd(const char *name, const char *cache,
			     const char *src, const char *module)
{
	struct rtlab_err err = { "" };
	struct kernel_ident id;
	struct kernel_def *k;
	char *ko = NULL;
	int ret;

	if (!*module ||
	    strspn(module, "abcdefghijklmnopqrstuvwxyz"
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
		    strlen(module)) {
		fprintf(stderr,
			"rtlab kernel module: '%s': expected a module name "
			"(letters, digits, '_', '-'), as in obj-m := NAME.o\n",
			module);
		return EXIT_USAGE;
	}
	k = kernel_def_find(name, &err);
	if (!k) {
		fprintf(stderr, "rtlab kernel module: %s\n", err.msg);
		return 1;
	}
	ret = kernel_fetch(k, cache, &id, &err);
	kernel_def_free(k);
	if (ret) {
		fprintf(stderr, "rtlab kernel module: %s\n", err.msg);
		return 1;
	}
	ret = module_build(&id, src, module, cache, &ko, &err);
	if (ret)
		fprintf(stderr, "rtlab kernel module: %s\n", err.msg);
	else
		printf("%s\n", ko);
	free(ko);
	kernel_ident_cleanup(&id);
	return ret ? 1 : 0;
}

static int kernel_list_cmd(const char *cache)
{
	struct dirent **ents = NULL;
	char *dir = kernel_defs_dir();
	int n, i, bad = 0;

	if (!dir) {
		fprintf(stderr, "rtlab kernel list: no kernels/ directory "
				"(set RTLAB_DATADIR)\n");
		return 1;
	}
	n = scandir(dir, &ents, NULL, alphasort);
	printf("%-14s %-6s %-32s %s\n", "NAME", "KIND", "SOURCE", "CACHED");
	for (i = 0; i < n; i++) {
		struct rtlab_err err = { "" };
		struct kernel_ident id;
		struct kernel_def *k;
		size_t l = strlen(ents[i]->d_name);
		char *path;

		if (l < 6 || strcmp(ents[i]->d_name + l - 5, ".yaml"))
			goto next;
		if (asprintf(&path, "%s/%s", dir, ents[i]->d_name) < 0)
			goto next;
		k = kernel_def_load(path, &err);
		free(path);
		if (!k) {
			fprintf(stderr, "rtlab kernel list: %s\n", err.msg);
			bad = 1;
			goto next;
		}
		printf("%-14s %-6s %-32s ", k->name,
		       k->kind == KERNEL_KIND_DEBIAN ? "debian" :
		       k->kind == KERNEL_KIND_BUILD  ? "build" :
						       "local",
		       k->kind == KERNEL_KIND_DEBIAN ? k->package :
		       k->kind == KERNEL_KIND_BUILD  ? k->tree :
						       k->image);
		if (!kernel_cached(k, cache, &id, &err)) {
			printf("%s (%s)\n", id.release,
			       id.realtime > 0 ? "PREEMPT_RT" : "not RT");
			kernel_ident_cleanup(&id);
		} else {
			printf("no\n");
		}
		kernel_def_free(k);
next:
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return bad;
}

int cmd_kernel(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cache = NULL, *verb;
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		kernel_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	verb = argv[1];
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cache = optarg;
			break;
		case 'h':
			kernel_usage(stdout);
			return 0;
		default:
			kernel_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(verb, "list") && optind == argc)
		return kernel_list_cmd(cache);
	if (!strcmp(verb, "fetch") && optind + 1 == argc)
		return kernel_fetch_cmd(argv[optind], cache);
	if (!strcmp(verb, "module") && optind + 3 == argc)
		return kernel_module_cmd(argv[optind], cache, argv[optind + 1],
					 argv[optind + 2]);
	kernel_usage(stderr);
	return EXIT_USAGE;
}

static void build_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab build [--cache DIR] [--retry] TREE[@REF]\n\n"
		"Build a commit of a git tree (kernels/trees/TREE.yaml, kind "
		"git) the way a\n"
		"job would: REF is a commit, branch or tag (default: the "
		"tree's branch).\n"
		"The source is checked out into the tree's worktree, "
		"configured from the\n"
		"tree's base target and fragments and built with ccache in "
		"the tree's build\n"
		"directory (incremental); the kernel goes into the cache as "
		"TREE@COMMIT,\n"
		"which jobs, submissions and bisections boot.  A build that "
		"is cached is not\n"
		"built again; one that failed fails again at once with its "
		"reason and log,\n"
		"unless --retry.  Prints the kernel's identity.\n\n"
		"  --cache DIR  the kernel cache (default "
		"$RTLAB_STATE_DIR/cache/kernels)\n"
		"  --retry      forget an earlier failed build of this commit "
		"and build again\n");
}

int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "retry", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	struct kernel_ident id;
	struct kernel_def *k;
	const char *cache = NULL;
	bool retry = false;
	char *name = NULL;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cache = optarg;
			break;
		case 'r':
			retry = true;
			break;
		case 'h':
			build_usage(stdout);
			return 0;
		default:
			build_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		build_usage(stderr);
		return EXIT_USAGE;
	}
	if (strchr(argv[optind], '@')) {
		name = strdup(argv[optind]);
	} else {
		struct tree_def *t = tree_def_find(argv[optind], &err);

		if (!t) {
			fprintf(stderr, "rtlab build: %s\n", err.msg);
			return 1;
		}
		if (asprintf(&name, "%s@%s", t->name,
			     t->branch ? t->branch : "") < 0)
			name = NULL;
		tree_def_free(t);
	}
	k = name ? kernel_def_find(name, &err) : NULL;
	free(name);
	if (!k) {
		fprintf(stderr, "rtlab build: %s\n", err.msg);
		return 1;
	}
	if (k->kind != KERNEL_KIND_BUILD) {
		fprintf(stderr,
			"rtlab build: %s is not a commit of a git tree\n",
			k->name);
		kernel_def_free(k);
		return 1;
	}
	ret = retry ? kernel_build_forget(k, cache, &err) : 0;
	if (!ret)
		ret = kernel_fetch(k, cache, &id, &err);
	kernel_def_free(k);
	if (ret) {
		fprintf(stderr, "rtlab build: %s\n", err.msg);
		return 1;
	}
	print_ident(&id);
	kernel_ident_cleanup(&id);
	return 0;
}
