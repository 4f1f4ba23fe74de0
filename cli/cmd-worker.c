// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab worker: claim and run queued jobs (services/worker.h).
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
		"      --drain       run jobs until none is claimable (and no\n"
		"                    running bisection job may queue more), then exit\n"
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
	while ((opt = getopt_long(argc, argv, "b:l:s:T:h", opts, NULL)) != -1) {
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
