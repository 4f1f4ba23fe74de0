/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_JOBS_H
#define RTLAB_DB_JOBS_H

/*
 * The job queue in PostgreSQL.  A job is one run of a testcase with a
 * kernel on a board.  Its life:
 *
 *   queued --claim--> running --done/failed--> done | failed
 *                        |  \--requeue (no bundle, abandoned)--> queued
 *                        \--lease expired: claimable again by any worker;
 *                           after max_attempts claims: failed
 *
 * A failed job says why (failure): "run" when its run was stored but is
 * not complete (the kernel's or the agent's fault), "infrastructure" when
 * its attempts ran out without a run (every requeue that is not an
 * abandonment counts one infra_errors, and so does a lease that expired).
 *
 * Workers claim with UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP
 * LOCKED LIMIT 1), so two workers never get the same job, and hold it by a
 * lease they renew; a worker that dies stops renewing and the job goes
 * back to whoever claims next.  Errors: -EIO (database), -ENOMEM, -EINVAL
 * (PostgreSQL refused a value); @err says which.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

#define JOB_MAX_ATTEMPTS 3

/*
 * Priorities (0..100, higher claimed first): board health checks, then
 * bisection steps, then
 * developer submissions, then jobs queued by hand, then nightly breadth.
 * A worker takes the most urgent job its board can run, so a board is
 * never idle while any job for it waits.
 */
#define JOB_PRIORITY_HEALTH 100
#define JOB_PRIORITY_BISECT 90
#define JOB_PRIORITY_SUBMISSION 70
#define JOB_PRIORITY_DEFAULT 50
#define JOB_PRIORITY_NIGHTLY 10

/* What `rtlab job add` queues; nothing here is owned. */
struct db_job_new {
	int board_id;
	const char *kernel;	   /* definition name, path, or "host" */
	const char *testcase;	   /* the testcase's name */
	const char *testcase_file; /* its YAML, absolute path */
	unsigned int duration_s;   /* measurement seconds, > 0 */
	unsigned int max_attempts; /* 0: JOB_MAX_ATTEMPTS */
	unsigned int priority;	   /* 0: JOB_PRIORITY_DEFAULT */
	const char *origin;	   /* "farm", "submission" or NULL */
	const char *tree;	   /* the farm's tree, or NULL */
	int64_t submission_id;	   /* 0: none */
	int64_t bisect_id;	   /* the bisection it measures for, or 0 */
	int bisect_pos;		   /* ... at this position of its range */
	bool health;		   /* a health job (services/health.h) */
};

/* A job as read back; every string is malloc'd, NULL when the column is. */
struct db_job {
	int64_t id;
	char *state; /* queued, running, done, failed */
	int board_id;
	char *board;		/* board name */
	char *board_kind;	/* local, qemu, ssh, lava */
	char *board_definition; /* the board's definition, JSON text */
	char *kernel;
	char *testcase;
	char *testcase_file;
	unsigned int duration_s;
	int attempts;
	int max_attempts;
	char *worker;
	char *phase;
	long lease_left_s; /* seconds left on the lease; < 0 expired;
				 * meaningless when !has_lease */
	bool has_lease;
	char *error;
	char *run_uuid;	  /* the run the job made (done or failed) */
	char *run_ids;	  /* ids of every run linked to the job, "3,7" */
	char *created_at; /* ISO 8601 UTC */
	char *finished_at;
	int infra_errors; /* attempts that ended without a run */
	char *failure;	  /* failed jobs: "run" (the run is not complete) or
			   * "infrastructure" (no run: out of attempts) */
	bool health;	  /* a health job: judged against the board's
			   * calibration (services/health.h) */
};

/** db_job_cleanup() - free the strings of @job; safe twice, NULL is fine. */
void db_job_cleanup(struct db_job *job);

/** db_job_list_free() - free what db_job_list() returned; NULL is fine. */
void db_job_list_free(struct db_job *jobs, size_t count);

/**
 * db_job_create() - queue one job (and register its testcase by name if
 * it is new).  Call inside db_begin()/db_commit() to queue several at
 * once or none.
 * Return: 0 with *@id set, or a negative errno with @err set.
 */
int db_job_create(PGconn *conn, const struct db_job_new *job, int64_t *id,
		  struct rtlab_err *err) __must_check;

/**
 * db_job_expire() - fail the jobs whose lease ran out on their last
 * allowed attempt (their workers died max_attempts times).
 * @count: may be NULL; else how many were failed.
 * Return: 0 or a negative errno with @err set.
 */
int db_job_expire(PGconn *conn, unsigned int *count,
		  struct rtlab_err *err) __must_check;

/**
 * db_job_claim() - take the most urgent (priority, then oldest) job that
 * is queued, or running with an
 * expired lease, and has attempts left; on a board named @board (NULL:
 * any board) of one of the @kinds (NULL-terminated: the kinds this build
 * has a driver for, board_kind_names()) that is in service (state ready);
 * while a board has a health job queued or running, only that is
 * claimable on it.  The job becomes running, owned by @worker,
 * leased for @lease_s seconds, its attempts counted up.
 * @job: filled on success; release with db_job_cleanup().
 * Return: 0 when a job was claimed; -ENOENT when none is claimable; another
 * negative errno with @err set.
 */
int db_job_claim(PGconn *conn, const char *worker, const char *board,
		 const char *const *kinds, unsigned int lease_s,
		 struct db_job *job, struct rtlab_err *err) __must_check;

/**
 * db_job_renew() - extend the lease of job @id held by @worker to @lease_s
 * seconds from now, and record its @phase (NULL: keep).
 * Return: 0; -ESTALE when @worker no longer holds the job (the lease
 * expired and another worker claimed it, or it finished); -EIO.
 */
int db_job_renew(PGconn *conn, int64_t id, const char *worker,
		 unsigned int lease_s, const char *phase,
		 struct rtlab_err *err) __must_check;

/**
 * db_job_finish() - the job produced run @run_uuid (already stored): mark
 * it done, or failed with @error when the run is not complete, link the
 * run to the job (runs.job_id) and take the job's kernel id from the run,
 * in one transaction.
 * Return: 0; -ESTALE when @worker no longer holds the job (nothing is
 * written); -EIO.
 */
int db_job_finish(PGconn *conn, int64_t id, const char *worker,
		  const char *run_uuid, bool failed, const char *error,
		  struct rtlab_err *err) __must_check;

/**
 * db_job_requeue() - give the job back without a run (an infrastructure
 * error: infra_errors counted): queued again with @error noted, or failed
 * with failure "infrastructure" when it has used all its attempts.
 * @abandoned: the worker was stopped, not the job's fault: the attempt is
 *	not counted and the job is always queued again.
 * @failed_out: may be NULL; else set when the job was failed for good.
 * Return: 0; -ESTALE when @worker no longer holds the job; -EIO.
 */
int db_job_requeue(PGconn *conn, int64_t id, const char *worker,
		   const char *error, bool abandoned, bool *failed_out,
		   struct rtlab_err *err) __must_check;

/* Which jobs db_job_list() gives; zero/NULL fields do not filter. */
struct db_job_filter {
	const char *state;  /* queued, running, done or failed */
	const char *board;  /* a board's name */
	int64_t before;	    /* keyset page: only ids below this one */
	unsigned int limit; /* at most this many; 0 for all */
};

/**
 * db_job_list() - jobs, newest first, as @f says.
 * Return: 0 with *@jobs (caller frees with db_job_list_free()) and *@count;
 * -EINVAL for an unknown state; -EIO, -ENOMEM.
 */
int db_job_list(PGconn *conn, const struct db_job_filter *f,
		struct db_job **jobs, size_t *count,
		struct rtlab_err *err) __must_check;

/**
 * db_jobs_json() - @jobs as the API and `rtlab jobs --json` give them: an
 * array of {id, state (infra-failed for a job that never got a run),
 * board, kernel, testcase, kind, attempts, max_attempts, infra_errors,
 * worker, phase, lease_left_s, error, run_uuid, runs (ids), created_at,
 * finished_at}.
 * Return: a new reference, or NULL when out of memory.
 */
json_t *db_jobs_json(const struct db_job *jobs, size_t count);

/** db_job_state_valid() - queued, running, done or failed. */
bool db_job_state_valid(const char *state);

#endif
