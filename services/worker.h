/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_WORKER_H
#define RTLAB_WORKER_H

/*
 * The worker: claims jobs from the queue (db/db-jobs.h), runs each on
 * its board and hands the result bundle to the server.
 *
 * A local board's job runs `rtlab-agent run --out` on this host; a qemu
 * board's job calls board_run() (boards/board.h), in a child process so a
 * stop request can interrupt it.  The bundle goes either to the server's
 * API (POST /api/v1/runs with the board's token; libcurl), or, without a
 * server, straight into the database through ingest_bundle().  The job is
 * then done (run complete) or failed (any other run status, the run's
 * error noted; its console log is in the run).  Without a bundle, or when
 * the upload failed, the job goes back to the queue until it has used its
 * attempts.  While a job runs, a thread renews its lease every third of
 * the lease; a worker that dies stops renewing, and the job is claimed
 * again once the lease has run out.
 */

#include <stdbool.h>
#include "error.h"

#define WORKER_DEFAULT_LEASE_S 30
#define WORKER_DEFAULT_POLL_S 2

enum worker_mode {
	WORKER_MODE_LOOP,  /* wait for jobs until stopped */
	WORKER_MODE_ONCE,  /* at most one job, then return */
	WORKER_MODE_DRAIN, /* until no job is claimable */
};

struct worker_opts {
	const char *name;     /* in jobs.worker; NULL: HOSTNAME:PID */
	const char *board;    /* only this board; NULL: any local/qemu */
	const char *server;   /* http://HOST:PORT (or the full
				 * .../api/v1/runs URL); NULL: ingest into
				 * the database directly */
	const char *token;    /* the board's upload token (with server) */
	unsigned int lease_s; /* 0: WORKER_DEFAULT_LEASE_S */
	unsigned int poll_s;  /* idle wait in loop mode; 0: default */
	enum worker_mode mode;
	bool keep; /* keep every job's work directory */
};

struct worker_stats {
	unsigned int done;     /* jobs done (run complete) */
	unsigned int failed;   /* jobs failed (run not complete, or given
				 * up) */
	unsigned int requeued; /* jobs given back to the queue */
	bool abandoned;	       /* stopped while running a job */
};

/**
 * worker_stop() - ask worker_run() to stop: an idle worker returns, a
 * running job is abandoned (its child stopped, the job queued again
 * without counting the attempt).  Async-signal-safe: call it from a
 * SIGINT/SIGTERM handler.
 */
void worker_stop(void);

/**
 * worker_run() - claim and run jobs as @o says.  Prints a line per job
 * (claimed, done/failed/requeued) and, on a terminal, a progress line.
 * @stats: may be NULL; else filled.
 * Return: 0 when it stopped as asked (mode, or worker_stop()); a negative
 * errno with @err set when it could not go on (database unreachable, bad
 * options).  Jobs that fail are counted, not errors.
 */
int worker_run(const struct worker_opts *o, struct worker_stats *stats,
	       struct rtlab_err *err) __must_check;

#endif
