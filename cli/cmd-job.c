// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab job add: queue jobs (services/jobs.h).
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db-jobs.h"
#include "../db/db.h"
#include "../services/jobs.h"
#include "../services/worker.h"
#include "commands.h"
#include "common.h"
#include "log.h"

static void job_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab job add --kernel K --board B --testcase T [--repeat N]\n"
		"                     [--duration S] [--priority P] [--quiet]\n"
		"                     [--module 'PATH [PARAM=VALUE ...]'] [--file SRC:DEST]\n"
		"                     [--setup CMD] [--teardown CMD]\n\n"
		"Queue N jobs (default 1), each one run of testcase T with kernel K on\n"
		"board B, after checking all three.  Prints the new job ids.\n\n"
		"  -k, --kernel K     'host' on a local board (the kernel it runs); a\n"
		"                     kernel definition name (kernels/K.yaml) or path on\n"
		"                     a qemu board\n"
		"  -b, --board B      a registered board (rtlab board list)\n"
		"  -t, --testcase T   a testcase name (testcases/T.yaml) or path\n"
		"  -n, --repeat N     queue N jobs (1 to %u); each is one boot and run\n"
		"  -d, --duration S   measure S seconds instead of the testcase's\n"
		"  -p, --priority P   1 to 100, higher claimed first (default 50;\n"
		"                     submissions 70, bisection 90, nightly 10)\n"
		"  -q, --quiet        print the ids alone, one a line\n"
		"  A developer's code for the board (testcases/README.md, \"Extras\"),\n"
		"  each option repeatable; the job runs a copy of T with them:\n"
		"      --module M     a .ko and its insmod parameters, loaded before\n"
		"                     the measurement, removed after; its vermagic must\n"
		"                     name the kernel K boots\n"
		"      --file SRC:DEST  a file put at DEST on the board\n"
		"      --setup CMD    a shell command run before the measurement\n"
		"      --teardown CMD a shell command run after it\n\n"
		"Exit status: 0 queued, 1 invalid job or database error, 2 usage.\n",
		JOBS_MAX_REPEAT);
}

static int job_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "board", required_argument, NULL, 'b' },
		{ "testcase", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "priority", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "module", required_argument, NULL, 'M' },
		{ "file", required_argument, NULL, 'F' },
		{ "setup", required_argument, NULL, 'S' },
		{ "teardown", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct job_spec spec = { .repeat = 1 };
	struct job_extras extras = { 0 };
	const char **lists[4] = { NULL };
	struct rtlab_err err = { "" };
	int64_t *ids = NULL;
	PGconn *conn = NULL;
	bool quiet = false;
	size_t n = 0, i;
	int opt, ret = 1;

	/* Each option at most once per argument: argc bounds every list. */
	for (i = 0; i < 4; i++) {
		lists[i] = calloc(argc + 1, sizeof(*lists[i]));
		if (!lists[i]) {
			fprintf(stderr, "rtlab job add: out of memory\n");
			goto out;
		}
	}
	extras.modules = lists[0];
	extras.files = lists[1];
	extras.setup = lists[2];
	extras.teardown = lists[3];
	optind = 1;
	while ((opt = getopt_long(argc, argv, "k:b:t:n:d:p:qh", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'M':
			lists[0][extras.nmodules++] = optarg;
			break;
		case 'F':
			lists[1][extras.nfiles++] = optarg;
			break;
		case 'S':
			lists[2][extras.nsetup++] = optarg;
			break;
		case 'T':
			lists[3][extras.nteardown++] = optarg;
			break;
		case 'k':
			spec.kernel = optarg;
			break;
		case 'b':
			spec.board = optarg;
			break;
		case 't':
			spec.testcase = optarg;
			break;
		case 'n':
			if (opt_uint("job add", "--repeat", optarg, 1,
				     JOBS_MAX_REPEAT, &spec.repeat)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'd':
			if (opt_uint("job add", "--duration", optarg, 1,
				     JOBS_MAX_DURATION_S, &spec.duration_s)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'p':
			if (opt_uint("job add", "--priority", optarg, 1, 100,
				     &spec.priority)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			job_usage(stdout);
			ret = 0;
			goto out;
		default:
			job_usage(stderr);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (optind != argc || !spec.kernel || !spec.board || !spec.testcase) {
		fprintf(stderr, "rtlab job add: %s\n",
			optind != argc ?
				"unexpected argument" :
				"--kernel, --board and --testcase are required");
		job_usage(stderr);
		ret = EXIT_USAGE;
		goto out;
	}
	if (extras.nmodules || extras.nfiles || extras.nsetup ||
	    extras.nteardown)
		spec.extras = &extras;
	conn = cli_connect("job add");
	if (!conn)
		goto out;
	if (jobs_add(conn, &spec, &ids, &n, &err)) {
		fprintf(stderr, "rtlab job add: %s; nothing queued\n", err.msg);
		goto out;
	}
	if (!quiet)
		printf("queued %zu job(s): %s on %s, kernel %s%s\n", n,
		       spec.testcase, spec.board, spec.kernel,
		       spec.extras ? ", with the extras given" : "");
	for (i = 0; i < n; i++)
		printf("%" PRId64 "\n", ids[i]);
	ret = 0;
out:
	for (i = 0; i < 4; i++)
		free(lists[i]);
	free(ids);
	db_disconnect(conn);
	return ret;
}

int cmd_job(int argc, char **argv)
{
	if (argc < 2) {
		job_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		job_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "add"))
		return job_add(argc - 1, argv + 1);
	fprintf(stderr,
		"rtlab job: unknown command '%s' (expected add; "
		"'rtlab jobs' lists jobs)\n",
		argv[1]);
	job_usage(stderr);
	return EXIT_USAGE;
}
