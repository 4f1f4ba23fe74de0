// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab job add, rtlab jobs, rtlab worker: queue jobs, list them, and run
 * the worker that claims and runs them (services/jobs.h, services/worker.h).
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
#include "opt.h"
#include "log.h"

/* -- rtlab job add ---------------------------------------------------------- */

static void job_usage(FILE *out)
{
	fprintf(out,
"usage: rtlab job add --kernel K --board B --testcase T [--repeat N]\n"
"                     [--duration S] [--quiet]\n\n"
"Queue N jobs (default 1), each one run of testcase T with kernel K on\n"
"board B, after checking all three.  Prints the new job ids.\n\n"
"  -k, --kernel K     'host' on a local board (the kernel it runs); a\n"
"                     kernel definition name (kernels/K.yaml) or path on\n"
"                     a qemu board\n"
"  -b, --board B      a registered board (rtlab board list)\n"
"  -t, --testcase T   a testcase name (testcases/T.yaml) or path\n"
"  -n, --repeat N     queue N jobs (1 to %u); each is one boot and run\n"
"  -d, --duration S   measure S seconds instead of the testcase's\n"
"  -q, --quiet        print the ids alone, one a line\n\n"
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct job_spec spec = { .repeat = 1 };
	struct rtlab_err err = { "" };
	int64_t *ids = NULL;
	PGconn *conn = NULL;
	bool quiet = false;
	size_t n = 0, i;
	int opt, ret = 1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "k:b:t:n:d:qh", opts, NULL)) !=
	       -1) {
		switch (opt) {
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
				     JOBS_MAX_REPEAT, &spec.repeat))
				return EXIT_USAGE;
			break;
		case 'd':
			if (opt_uint("job add", "--duration", optarg, 1,
				     JOBS_MAX_DURATION_S, &spec.duration_s))
				return EXIT_USAGE;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			job_usage(stdout);
			return 0;
		default:
			job_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || !spec.kernel || !spec.board || !spec.testcase) {
		fprintf(stderr, "rtlab job add: %s\n", optind != argc ?
			"unexpected argument" :
			"--kernel, --board and --testcase are required");
		job_usage(stderr);
		return EXIT_USAGE;
	}
	conn = db_connect(&err);
	if (!conn) {
		fprintf(stderr, "rtlab job add: %s\n", err.msg);
		return 1;
	}
	if (jobs_add(conn, &spec, &ids, &n, &err)) {
		fprintf(stderr, "rtlab job add: %s; nothing queued\n",
			err.msg);
		goto out;
	}
	if (!quiet)
		printf("queued %zu job(s): %s on %s, kernel %s\n", n,
		       spec.testcase, spec.board, spec.kernel);
	for (i = 0; i < n; i++)
		printf("%" PRId64 "\n", ids[i]);
	ret = 0;
out:
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
	fprintf(stderr, "rtlab job: unknown command '%s' (expected add; "
		"'rtlab jobs' lists jobs)\n", argv[1]);
	job_usage(stderr);
	return EXIT_USAGE;
}

/* -- rtlab jobs ------------------------------------------------------------- */

static void jobs_usage(FILE *out)
{
	fprintf(out,
"usage: rtlab jobs [--state queued|running|done|failed] [--limit N]\n\n"
"List jobs, newest first: state, attempts, worker and its lease, the\n"
"runs the job made (ids, and the uuid of the one that finished it) and\n"
"the last error.  A running job whose lease shows 'expired' lost its\n"
"worker and is claimed by the next one.\n");
}

static void job_print(const struct db_job *j)
{
	char lease[32];

	if (!j->has_lease)
		snprintf(lease, sizeof(lease), "-");
	else if (j->lease_left_s < 0)
		snprintf(lease, sizeof(lease), "expired");
	else
		snprintf(lease, sizeof(lease), "%lds", j->lease_left_s);
	printf("%-6" PRId64 " %-8s %d/%d  %-12s %-16s %-18s %-10s %s\n",
	       j->id, j->state, j->attempts, j->max_attempts, j->board,
	       j->kernel, j->testcase,
	       j->phase ? j->phase : "-", j->worker ? j->worker : "-");
	printf("       lease %s  runs %s  run_uuid %s  created %s%s%s\n",
	       lease, j->run_ids ? j->run_ids : "-",
	       j->run_uuid ? j->run_uuid : "-", j->created_at,
	       j->finished_at ? "  finished " : "",
	       j->finished_at ? j->finished_at : "");
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
	unsigned int limit = 0;
	size_t n = 0, i;
	PGconn *conn;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:l:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			state = optarg;
			if (!db_job_state_valid(state)) {
				fprintf(stderr, "rtlab jobs: --state '%s': "
					"expected queued, running, done or "
					"failed\n", state);
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
	conn = db_connect(&err);
	if (!conn) {
		fprintf(stderr, "rtlab jobs: %s\n", err.msg);
		return 1;
	}
	ret = db_job_list(conn, state, limit, &jobs, &n, &err);
	db_disconnect(conn);
	if (ret) {
		fprintf(stderr, "rtlab jobs: %s\n",
			err.msg[0] ? err.msg : strerror(-ret));
		return 1;
	}
	if (!n)
		fprintf(stderr, "no jobs%s%s: queue some with 'rtlab job add'\n",
			state ? " in state " : "", state ? state : "");
	else
		printf("%-6s %-8s %-5s %-12s %-16s %-18s %-10s %s\n", "ID",
		       "STATE", "TRIES", "BOARD", "KERNEL", "TESTCASE", "PHASE",
		       "WORKER");
	for (i = 0; i < n; i++)
		job_print(&jobs[i]);
	db_job_list_free(jobs, n);
	return 0;
}

/* -- rtlab worker ----------------------------------------------------------- */

static void worker_usage(FILE *out)
{
	fprintf(out,
"usage: rtlab worker [--board B] [--once | --drain] [--lease S]\n"
"                    [--server URL [--token TOKEN]] [--name NAME] [--keep]\n\n"
"Claim queued jobs and run them: on a local board through rtlab-agent on\n"
"this host, on a qemu board by booting the virtual board.  Each result\n"
"bundle goes to the server (POST URL/api/v1/runs with the board's token)\n"
"or, without --server, straight into the database.  Jobs whose worker\n"
"died are claimed again once their lease runs out; after %d attempts\n"
"they fail.  SIGINT/SIGTERM abandon the running job (queued again).\n\n"
"  -b, --board B     only jobs on board B (required with --server)\n"
"      --once        run at most one job, then exit\n"
"      --drain       run jobs until none is claimable, then exit\n"
"  -l, --lease S     lease length, renewed every S/3 (default %d)\n"
"      --poll S      idle wait between looks at the queue (default %d)\n"
"  -s, --server URL  the rtlab server, e.g. http://127.0.0.1:8470\n"
"  -T, --token T     board B's upload token (default $RTLAB_TOKEN)\n"
"      --name NAME   worker name in 'rtlab jobs' (default HOST:PID)\n"
"      --keep        keep each job's work directory (bundle, agent.log)\n\n"
"Exit status: 0 stopped as asked, every job run done; 1 a job failed or\n"
"was requeued, or the queue was unreachable; 2 usage; 130/143 stopped by\n"
"SIGINT/SIGTERM.\n",
		JOB_MAX_ATTEMPTS, WORKER_DEFAULT_LEASE_S,
		WORKER_DEFAULT_POLL_S);
}

static volatile sig_atomic_t worker_signal;

static void on_signal(int sig)
{
	worker_signal = sig;
	worker_stop();
}

int cmd_worker(int argc, char **argv)
{
	enum { O_ONCE = 256, O_DRAIN, O_POLL, O_NAME, O_KEEP };
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "once", no_argument, NULL, O_ONCE },
		{ "drain", no_argument, NULL, O_DRAIN },
		{ "lease", required_argument, NULL, 'l' },
		{ "poll", required_argument, NULL, O_POLL },
		{ "server", required_argument, NULL, 's' },
		{ "token", required_argument, NULL, 'T' },
		{ "name", required_argument, NULL, O_NAME },
		{ "keep", no_argument, NULL, O_KEEP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct worker_opts o = { .mode = WORKER_MODE_LOOP };
	struct rtlab_err err = { "" };
	struct worker_stats st;
	struct sigaction sa;
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "b:l:s:T:h", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'b':
			o.board = optarg;
			break;
		case O_ONCE:
			o.mode = WORKER_MODE_ONCE;
			break;
		case O_DRAIN:
			o.mode = WORKER_MODE_DRAIN;
			break;
		case 'l':
			if (opt_uint("worker", "--lease", optarg, 1, 86400,
				     &o.lease_s))
				return EXIT_USAGE;
			break;
		case O_POLL:
			if (opt_uint("worker", "--poll", optarg, 1, 3600,
				     &o.poll_s))
				return EXIT_USAGE;
			break;
		case 's':
			o.server = optarg;
			break;
		case 'T':
			o.token = optarg;
			break;
		case O_NAME:
			o.name = optarg;
			break;
		case O_KEEP:
			o.keep = true;
			break;
		case 'h':
			worker_usage(stdout);
			return 0;
		default:
			worker_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rtlab worker: unexpected argument '%s'\n",
			argv[optind]);
		worker_usage(stderr);
		return EXIT_USAGE;
	}
	if (!o.token)
		o.token = getenv("RTLAB_TOKEN");
	if (o.server && (!o.board || !o.token || !*o.token)) {
		fprintf(stderr, "rtlab worker: --server %s: %s\n", o.server,
			!o.board ? "give the board the token belongs to with "
				   "--board" :
				   "uploads need the board's token (--token "
				   "or $RTLAB_TOKEN)");
		return EXIT_USAGE;
	}
	log_set_prog("rtlab worker");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = worker_run(&o, &st, &err);
	if (ret) {
		fprintf(stderr, "rtlab worker: %s\n", err.msg);
		return 1;
	}
	if (o.mode != WORKER_MODE_LOOP || worker_signal)
		log_info("%u done, %u failed, %u requeued%s", st.done,
			 st.failed, st.requeued,
			 st.abandoned ? ", 1 abandoned (queued again)" : "");
	if (worker_signal)
		return 128 + worker_signal;
	return st.failed || st.requeued ? 1 : 0;
}
