// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab jobs: list queued, running and finished jobs.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
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
		"usage: rtlab jobs [--state queued|running|done|failed] [--board B]\n"
		"                  [--limit N] [--before ID] [--json]\n\n"
		"List jobs, newest first, 100 unless --limit says otherwise (--before ID\n"
		"continues after the last id of a page; GET /api/v1/jobs answers the\n"
		"same): state, attempts, worker and its lease, the\n"
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
		{ "board", required_argument, NULL, 'b' },
		{ "limit", required_argument, NULL, 'l' },
		{ "before", required_argument, NULL, 'B' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	/* a year of a farm holds a million jobs: a page, not all */
	struct db_job_filter f = { .limit = 100 };
	struct db_job *jobs = NULL;
	unsigned int before = 0;
	bool as_json = false;
	size_t n = 0, i;
	json_t *list;
	PGconn *conn;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:b:l:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			f.state = optarg;
			if (!db_job_state_valid(f.state)) {
				fprintf(stderr,
					"rtlab jobs: --state '%s': "
					"expected queued, running, done or "
					"failed\n",
					f.state);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			f.board = optarg;
			break;
		case 'l':
			if (opt_uint("jobs", "--limit", optarg, 1, 1000000,
				     &f.limit))
				return EXIT_USAGE;
			break;
		case 'B':
			if (opt_uint("jobs", "--before", optarg, 1, UINT_MAX,
				     &before))
				return EXIT_USAGE;
			f.before = before;
			break;
		case 'j':
			as_json = true;
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
	ret = db_job_list(conn, &f, &jobs, &n, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab jobs: %s\n",
			err.msg[0] ? err.msg : strerror(-ret));
		return 1;
	}
	if (as_json) {
		list = db_jobs_json(jobs, n);
		db_job_list_free(jobs, n);
		if (!list || json_dumpf(list, stdout, JSON_INDENT(2))) {
			json_decref(list);
			fprintf(stderr, "rtlab jobs: out of memory\n");
			return 1;
		}
		json_decref(list);
		putchar('\n');
		return 0;
	}
	if (!n)
		fprintf(stderr,
			"no jobs%s%s%s%s: queue some with 'rtlab job add'\n",
			f.state ? " in state " : "", f.state ? f.state : "",
			f.board ? " on board " : "", f.board ? f.board : "");
	else
		printf("%-6s %-12s %-5s %-12s %-16s %-18s %-10s %s\n", "ID",
		       "STATE", "TRIES", "BOARD", "KERNEL", "TESTCASE", "PHASE",
		       "WORKER");
	for (i = 0; i < n; i++)
		job_print(&jobs[i]);
	db_job_list_free(jobs, n);
	return 0;
}
