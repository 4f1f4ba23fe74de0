// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab jobs: list queued, running and finished jobs.
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

static void jobs_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab jobs [--state queued|running|done|failed] [--limit N]\n\n"
		"List jobs, newest first, 100 unless --limit says otherwise: state, attempts, worker and its lease, the\n"
		"runs the job made (ids, and the uuid of the one that finished it), the\n"
		"attempts that ended without a run (infrastructure errors: QEMU crashed\n"
		"or killed, the host never ran it, the upload failed, the worker died)\n"
		"and the last error.  A running job whose lease shows 'expired' lost its\n"
		"worker and is claimed by the next one.  A failed job shows as\n"
		"infra-failed when it ran out of attempts on infrastructure errors\n"
		"(--state failed lists both kinds).\n");
}

static void job_print(const struct db_job *j)
{
	const char *state = j->state;
	char lease[32];

	if (!j->has_lease)
		snprintf(lease, sizeof(lease), "-");
	else if (j->lease_left_s < 0)
		snprintf(lease, sizeof(lease), "expired");
	else
		snprintf(lease, sizeof(lease), "%lds", j->lease_left_s);
	/* a job that never got a run is not the kernel's failure */
	if (j->failure && !strcmp(j->failure, "infrastructure"))
		state = "infra-failed";
	printf("%-6" PRId64 " %-12s %d/%d  %-12s %-16s %-18s %-10s %s\n", j->id,
	       state, j->attempts, j->max_attempts, j->board, j->kernel,
	       j->testcase, j->phase ? j->phase : "-",
	       j->worker ? j->worker : "-");
	printf("       lease %s  runs %s  run_uuid %s  infra errors %d  "
	       "created %s%s%s\n",
	       lease, j->run_ids ? j->run_ids : "-",
	       j->run_uuid ? j->run_uuid : "-", j->infra_errors, j->created_at,
	       j->finished_at ? "  finished " : "",
	       j->finished_at ? j->finished_at : "");
	if (j->health)
		printf("       a board health check (docs/farm.md)\n");
	if (j->error)
		printf("       error: %s\n", j->error);
}

int cmd_jobs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	struct db_job *jobs = NULL;
	const char *state = NULL;
	/* a year of a farm holds a million jobs: a page, not all */
	unsigned int limit = 100;
	size_t n = 0, i;
	PGconn *conn;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:l:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			state = optarg;
			if (!db_job_state_valid(state)) {
				fprintf(stderr,
					"rtlab jobs: --state '%s': "
					"expected queued, running, done or "
					"failed\n",
					state);
				return EXIT_USAGE;
			}
			break;
		case 'l':
			if (opt_uint("jobs", "--limit", optarg, 1, 1000000,
				     &limit))
				return EXIT_USAGE;
			break;
		case 'h':
			jobs_usage(stdout);
			return 0;
		default:
			jobs_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		jobs_usage(stderr);
		return EXIT_USAGE;
	}
	conn = cli_connect("jobs");
	if (!conn)
		return 1;
	ret = db_job_list(conn, state, limit, &jobs, &n, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab jobs: %s\n",
			err.msg[0] ? err.msg : strerror(-ret));
		return 1;
	}
	if (!n)
		fprintf(stderr,
			"no jobs%s%s: queue some with 'rtlab job add'\n",
			state ? " in state " : "", state ? state : "");
	else
		printf("%-6s %-12s %-5s %-12s %-16s %-18s %-10s %s\n", "ID",
		       "STATE", "TRIES", "BOARD", "KERNEL", "TESTCASE", "PHASE",
		       "WORKER");
	for (i = 0; i < n; i++)
		job_print(&jobs[i]);
	db_job_list_free(jobs, n);
	return 0;
}
