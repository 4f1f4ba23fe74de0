// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab plot: a stored run's latency histogram as PNG or SVG; plot
 * compare, plot trend and plot longterm, the series plots a maintainer
 * reads beside a verdict: a baseline kernel's pooled histogram over a
 * candidate's, max / p99.9 across the kernels of a tree, and every
 * kernel's pooled histogram stacked along the tree.  The drawing is the
 * one the server's pages show.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-runs.h"
#include "../db/db.h"
#include "../reports/plot.h"
#include "../services/reporting.h"
#include "commands.h"
#include "common.h"
#include "manifest.h"

static void compare_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab plot compare --board B --testcase T "
		"--baseline K1\n"
		"                          --candidate K2 [--clock C] "
		"-o FILE.png|FILE.svg\n\n"
		"Draw the baseline kernel's latency histogram over the "
		"candidate's, each\n"
		"kernel's complete runs on the board and testcase pooled "
		"(log-scale counts,\n"
		"1 us buckets, both maxima marked).  K1 and K2 are kernel ids "
		"or releases;\n"
		"the clock defaults to the candidate's only one.\n");
}

static void trend_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab plot trend --board B --testcase T [--tree TREE]\n"
		"                        [--clock C] -o FILE.png|FILE.svg\n\n"
		"Draw max and p99.9 across the kernels of a tree (in order of "
		"first run) on\n"
		"one board and testcase: each complete run as a point, the "
		"medians per\n"
		"kernel as lines.  Tree and clock default to those of the "
		"latest run.\n");
}

static void longterm_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab plot longterm --board B --testcase T "
		"[--tree TREE]\n"
		"                           [--clock C] [--kernels N] "
		"-o FILE.png|FILE.svg\n\n"
		"Draw the long-term view of a tree on one board and testcase "
		"(OSADL's latency\n"
		"plot over time, flat): a row per kernel, oldest at the "
		"bottom, each with all\n"
		"its complete runs pooled; every 1 us bucket a mark at its "
		"latency coloured by\n"
		"the fraction of the kernel's samples it holds, each "
		"kernel's maximum marked.\n"
		"The newest N kernels (default %d, at most %d).  Tree and "
		"clock default to\n"
		"those of the latest run.\n",
		REPORTING_LONGTERM_DEFAULT, REPORTING_LONGTERM_MAX);
}

static int write_file(const char *cmd, const char *path, const void *data,
		      size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		fprintf(stderr, "rtlab plot %s: %s: %s\n", cmd, path,
			strerror(errno));
		return -errno;
	}
	if (fwrite(data, 1, size, f) != size) {
		fprintf(stderr, "rtlab plot %s: %s: write failed\n", cmd, path);
		fclose(f);
		return -EIO;
	}
	if (fclose(f)) {
		fprintf(stderr, "rtlab plot %s: %s: %s\n", cmd, path,
			strerror(errno));
		return -EIO;
	}
	return 0;
}

enum plot_mode { MODE_COMPARE, MODE_TREND, MODE_LONGTERM };

/* Options of the series modes; which are required differs. */
struct plot_opts {
	const char *board, *testcase, *baseline, *candidate, *tree, *clock;
	const char *out;
	unsigned int kernels;
	enum plot_format fmt;
};

static int parse(int argc, char **argv, enum plot_mode mode,
		 struct plot_opts *o)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "candidate", required_argument, NULL, 'C' },
		{ "tree", required_argument, NULL, 'T' },
		{ "clock", required_argument, NULL, 'k' },
		{ "kernels", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	void (*usage)(FILE *) = mode == MODE_COMPARE ? compare_usage :
				mode == MODE_TREND   ? trend_usage :
						       longterm_usage;
	bool compare = mode == MODE_COMPARE;
	const char *missing = NULL;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->kernels = REPORTING_LONGTERM_DEFAULT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->board = optarg;
			break;
		case 't':
			o->testcase = optarg;
			break;
		case 'B':
			o->baseline = optarg;
			break;
		case 'C':
			o->candidate = optarg;
			break;
		case 'T':
			o->tree = optarg;
			break;
		case 'k':
			o->clock = optarg;
			break;
		case 'n':
			errno = 0;
			o->kernels = (unsigned int)strtoul(optarg, &end, 10);
			if (mode != MODE_LONGTERM || errno || *end ||
			    o->kernels < 1 ||
			    o->kernels > REPORTING_LONGTERM_MAX) {
				if (mode != MODE_LONGTERM)
					fprintf(stderr,
						"rtlab plot %s: --kernels "
						"belongs to 'rtlab plot "
						"longterm'\n",
						argv[0]);
				else
					fprintf(stderr,
						"rtlab plot %s: --kernels "
						"'%s': expected a number from "
						"1 to %d\n",
						argv[0], optarg,
						REPORTING_LONGTERM_MAX);
				return -EINVAL;
			}
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rtlab plot %s: unexpected argument '%s'\n",
			argv[0], argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	if (compare && (o->tree)) {
		fprintf(stderr, "rtlab plot compare: --tree belongs to "
				"'rtlab plot trend'\n");
		return -EINVAL;
	}
	if (!compare && (o->baseline || o->candidate)) {
		fprintf(stderr,
			"rtlab plot %s: --baseline and --candidate "
			"belong to 'rtlab plot compare'\n",
			argv[0]);
		return -EINVAL;
	}
	if (!o->board)
		missing = "--board";
	else if (!o->testcase)
		missing = "--testcase";
	else if (compare && !o->baseline)
		missing = "--baseline";
	else if (compare && !o->candidate)
		missing = "--candidate";
	else if (!o->out)
		missing = "-o FILE";
	if (missing) {
		fprintf(stderr, "rtlab plot %s: missing %s\n", argv[0],
			missing);
		usage(stderr);
		return -EINVAL;
	}
	if (plot_format_parse(o->out, &o->fmt)) {
		fprintf(stderr,
			"rtlab plot %s: -o '%s': expected a file name "
			"ending in .png or .svg\n",
			argv[0], o->out);
		return -EINVAL;
	}
	return 0;
}

static int plot_mode(int argc, char **argv, enum plot_mode mode)
{
	struct rtlab_err err = { "" };
	struct plot_opts o;
	void *img = NULL;
	size_t size = 0;
	PGconn *conn;
	int ret;

	ret = parse(argc, argv, mode, &o);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	conn = db_connect(&err);
	if (!conn) {
		fprintf(stderr, "rtlab plot %s: %s\n", argv[0], err.msg);
		return 1;
	}
	if (mode == MODE_COMPARE) {
		struct reporting_compare_query q = {
			o.board, o.testcase, o.baseline, o.candidate, o.clock,
		};

		ret = reporting_plot_compare(conn, &q, o.fmt, &img, &size,
					     &err);
	} else {
		struct reporting_trend_query q = {
			o.board,
			o.testcase,
			o.tree,
			o.clock,
		};

		ret = mode == MODE_TREND ?
			      reporting_plot_trend(conn, &q, o.fmt, &img, &size,
						   &err) :
			      reporting_plot_longterm(conn, &q, o.kernels,
						      o.fmt, &img, &size, &err);
	}
	if (ret)
		fprintf(stderr, "rtlab plot %s: %s\n", argv[0], err.msg);
	else
		ret = write_file(argv[0], o.out, img, size);
	if (!ret)
		printf("%s: %s plot of %s / %s, %zu bytes\n", o.out, argv[0],
		       o.board, o.testcase, size);
	free(img);
	db_disconnect(conn);
	return ret ? 1 : 0;
}

static void plot_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab plot RUN -o FILE.png|FILE.svg\n"
		"       rtlab plot compare --board B --testcase T "
		"--baseline K1 --candidate K2 -o F\n"
		"       rtlab plot trend --board B --testcase T [--tree TREE] "
		"-o F\n"
		"       rtlab plot longterm --board B --testcase T [--tree TREE] "
		"[--kernels N] -o F\n\n"
		"Draw a run's per-CPU latency histogram (log-scale counts, "
		"1 us\nbuckets, maxima marked) with gnuplot; 'compare', "
		"'trend' and 'longterm' draw\na series (see 'rtlab plot "
		"compare --help').\n");
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	struct run_hists rh = { 0 };
	const char *out_path = NULL;
	enum plot_format fmt;
	void *img = NULL;
	size_t size = 0;
	PGconn *conn;
	int64_t id;
	FILE *f;
	int c, ret = 1;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return plot_mode(argc - 1, argv + 1, MODE_COMPARE);
	if (argc > 1 && !strcmp(argv[1], "trend"))
		return plot_mode(argc - 1, argv + 1, MODE_TREND);
	if (argc > 1 && !strcmp(argv[1], "longterm"))
		return plot_mode(argc - 1, argv + 1, MODE_LONGTERM);
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			plot_usage(stdout);
			return 0;
		default:
			plot_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !out_path) {
		plot_usage(stderr);
		return EXIT_USAGE;
	}
	if (plot_format_parse(out_path, &fmt)) {
		fprintf(stderr,
			"rtlab plot: -o '%s': expected a file name "
			"ending in .png or .svg\n",
			out_path);
		return EXIT_USAGE;
	}
	conn = cli_connect("plot");
	if (!conn)
		return 1;
	if (cli_run_resolve(conn, "plot", argv[optind], &id))
		goto out;
	if (db_run_hists_load(conn, id, &rh, &err) ||
	    plot_stored_run(&rh, fmt, &img, &size, &err)) {
		fprintf(stderr, "rtlab plot: %s\n", err.msg);
		goto out;
	}
	f = fopen(out_path, "wb");
	if (!f) {
		fprintf(stderr, "rtlab plot: %s: %s\n", out_path,
			strerror(errno));
		goto out;
	}
	if (fwrite(img, 1, size, f) != size) {
		fprintf(stderr, "rtlab plot: %s: write failed\n", out_path);
		fclose(f);
		goto out;
	}
	if (fclose(f)) {
		fprintf(stderr, "rtlab plot: %s: %s\n", out_path,
			strerror(errno));
		goto out;
	}
	printf("%s: run %" PRId64 ", %zu CPUs, %zu bytes\n", out_path, id,
	       rh.nhists, size);
	ret = 0;
out:
	free(img);
	run_hists_cleanup(&rh);
	db_disconnect(conn);
	return ret;
}
