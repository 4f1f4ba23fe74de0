// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab-agent: runs on a lab board.  Dispatches to its subcommands:
 * run (measure a testcase and hand over a bundle), flush (retry spooled
 * bundles), check (validate a testcase and the tools it needs) and inject
 * (a known latency, for calibrating the lab).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "envvars.h"
#include "inject.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "run a testcase and write or upload its bundle" },
	{ "flush", cmd_flush, "retry uploading spooled bundles" },
	{ "check", cmd_check, "validate a testcase and the tools it needs" },
	{ "inject", cmd_inject, "inject a known latency (calibration)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: rtlab-agent COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f,
		"\n`rtlab-agent COMMAND --help` describes a command's options.\n\n");
	envvars_print(f, ENVVAR_AGENT);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return AGENT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return AGENT_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "rtlab-agent: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return AGENT_EXIT_USAGE;
}
