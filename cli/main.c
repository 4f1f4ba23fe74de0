// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab: the lab's command-line front end.  Parses nothing but the
 * subcommand name and dispatches, in the spirit of trace-cmd and git.
 */

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "envvars.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "db", cmd_db, "start, stop, migrate the embedded PostgreSQL" },
	{ "server", cmd_server, "run the HTTP API server" },
	{ "board", cmd_board, "register boards and their upload tokens" },
	{ "runs", cmd_runs, "list stored runs" },
	{ "show", cmd_show, "show one run's figures per CPU" },
	{ "plot", cmd_plot, "plot a run's latency histogram" },
	{ "analyze", cmd_analyze,
	  "what held the CPU at a trace's worst spike" },
	{ "kernel", cmd_kernel, "list kernels, fetch one into the cache" },
	{ "tree", cmd_tree, "the kernel trees followed, discovered by apt" },
	{ "boot", cmd_boot, "boot a virtual board, run a testcase" },
	{ "report", cmd_report, "write or file a verdict's regression report" },
	{ "export", cmd_export, "export results (KCIDB JSON)" },
	{ "verdicts", cmd_verdicts, "list stored regression verdicts" },
	{ "verdict", cmd_verdict, "show one verdict in full" },
	{ "compare", cmd_compare, "compare two kernels (database or bundles)" },
	{ "baseline", cmd_baseline, "pin, unpin, show series baselines" },
	{ "testcase", cmd_testcase,
	  "the lab's testcases; set their verdict parameters" },
	{ "token", cmd_token, "make, list, revoke tokens of every role" },
	{ "job", cmd_job, "queue jobs (kernel, board, testcase)" },
	{ "farm", cmd_farm, "the nightly matrix: tick, status" },
	{ "build", cmd_build, "build a commit of a git kernel tree" },
	{ "submit", cmd_submit,
	  "submit a kernel (built, or a git ref to build) to a lab server" },
	{ "jobs", cmd_jobs, "list queued, running and finished jobs" },
	{ "worker", cmd_worker, "claim and run queued jobs" },
	{ "bisect", cmd_bisect,
	  "find the kernel that brought a latency regression" },
	{ "calibrate", cmd_calibrate,
	  "measure a board's false-alarm and detection rates" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: rtlab COMMAND [ARGS]\n\n"
		"rtlab, a realtime-Linux latency test and regression lab.\n\n"
		"Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\n'rtlab COMMAND --help' describes a command.\n\n");
	envvars_print(out, ENVVAR_RTLAB);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "rtlab: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
