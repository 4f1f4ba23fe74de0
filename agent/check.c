// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `rtlab-agent check`: validate a testcase file and this board's means to
 * run it (tools on PATH, tracefs events), and say what is missing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include "cmd.h"
#include "ftrace.h"
#include "proc.h"
#include "testcase.h"
#include "extras-check.h"

static void check_usage(FILE *f)
{
	fprintf(f,
		"usage: rtlab-agent check --testcase FILE [--tracefs DIR] [--tools]\n"
		"\n"
		"Parse the testcase, then look for every tool it needs on PATH and, when it\n"
		"has a trace section, for its events in the tracefs.  Prints what is there\n"
		"and what is missing.\n"
		"\n"
		"  --testcase FILE  testcase YAML (see testcases/README.md)\n"
		"  --tracefs DIR    tracefs root (default %s, then %s)\n"
		"  --tools          only list the tools the testcase needs, one a line\n"

		"\n"
		"Exit status: 0 ready, 1 invalid or something missing, 2 usage error.\n",
		FTRACE_DEFAULT_ROOT, FTRACE_DEBUGFS_ROOT);
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "testcase", required_argument, NULL, 'c' },
		{ "tracefs", required_argument, NULL, 'T' },
		{ "tools", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *tracefs = NULL, *root;
	char *tcmd;
	struct rtlab_err err = { "" };
	struct testcase tc;
	const char **tools = NULL;
	int c, missing = 0, list_tools = 0;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			file = optarg;
			break;
		case 'T':
			tracefs = optarg;
			break;
		case 't':
			list_tools = 1;
			break;
		case 'h':
			check_usage(stdout);
			return AGENT_EXIT_OK;
		default:
			check_usage(stderr);
			return AGENT_EXIT_USAGE;
		}
	}
	if (optind < argc || !file) {
		fprintf(stderr, "rtlab-agent check: %s\n",
			file ? "unexpected argument" :
			       "--testcase FILE is required");
		check_usage(stderr);
		return AGENT_EXIT_USAGE;
	}
	if (testcase_load(file, &tc, &err)) {
		fprintf(stderr, "rtlab-agent check: %s\n", err.msg);
		testcase_cleanup(&tc);
		return AGENT_EXIT_FAILURE;
	}
	tools = testcase_tools(&tc);
	if (list_tools) {
		/* For a board driver: what the board must carry. */
		for (i = 0; tools && tools[i]; i++)
			printf("%s\n", tools[i]);
		free(tools);
		testcase_cleanup(&tc);
		return AGENT_EXIT_OK;
	}
	printf("testcase %s (%s): valid, %u s, %zu load(s)\n", tc.name, file,
	       tc.duration_s, tc.nloads);
	for (i = 0; tools && tools[i]; i++) {
		char *path = path_which(tools[i]);

		if (path)
			printf("tool %s: %s\n", tools[i], path);
		else
			printf("tool %s: MISSING (not on PATH)\n", tools[i]);
		missing += !path;
		free(path);
	}
	if (!tools) {
		fprintf(stderr, "rtlab-agent check: out of memory\n");
		missing++;
	}
	if (tc.trace.enabled) {
		root = ftrace_find_root(tracefs, &err);
		if (root && !ftrace_check(root, &tc.trace, &err)) {
			printf("trace: tracefs %s has all %zu event(s)\n", root,
			       tc.trace.nevents);
		} else if (!root && !tracefs) {
			/* The run measures without ftrace then: say so. */
			printf("trace: %s; the run will measure without ftrace\n",
			       err.msg);
		} else {
			printf("trace: MISSING: %s\n", err.msg);
			missing++;
		}
		for (i = 0; root && i < tc.trace.noptional_events; i++)
			if (!ftrace_event_exists(root,
						 tc.trace.optional_events[i]))
				printf("trace: optional event %s is not in this kernel (traced without it)\n",
				       tc.trace.optional_events[i]);
		tcmd = path_which("trace-cmd");
		if (tcmd)
			printf("trace: trace-cmd %s writes trace.dat\n", tcmd);
		else
			printf("trace: trace-cmd is not on PATH; the run will measure without ftrace\n");
		free(tcmd);
	}
	if (testcase_has_extras(&tc)) {
		struct utsname u;

		/* Relative to the testcase file: what a run by hand loads. */
		uname(&u);
		if (extras_check(&tc, u.release, &err)) {
			printf("extras: MISSING: %s\n", err.msg);
			missing++;
		} else {
			printf("extras: %zu module(s) for %s, %zu file(s) "
			       "readable\n",
			       tc.extras.nmodules, u.release, tc.extras.nfiles);
		}
	}
	free(tools);
	testcase_cleanup(&tc);
	if (missing) {
		printf("%d thing(s) missing\n", missing);
		return AGENT_EXIT_FAILURE;
	}
	printf("ready\n");
	return AGENT_EXIT_OK;
}
