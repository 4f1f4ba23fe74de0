/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_SERVICES_BISECT_H
#define RTLAB_SERVICES_BISECT_H

/*
 * Bisection of a latency regression on one board and testcase, over an
 * ordered range of kernels, driven by jobs (docs/bisect.md):
 *
 *   ends      the good and the bad kernel are measured again on the board
 *             until the verdict engine says REGRESSION (bisect), or says
 *             the "bad" one does not reproduce, or that the two are
 *             reversed (stop, nothing more is queued);
 *   stepping  the kernel bisect_next() picks is measured until
 *             bisect_step_decide() settles it against both ends, more runs
 *             of all three queued look by look of the testcase's plan; a
 *             step that does not boot (or cannot be queued on the
 *             board), or is not settled at the plan's last look, is
 *             skipped;
 *   done      the culprit, or the smallest range skipped steps allow;
 *   failed    why it stopped; reset: stopped by a person.
 *
 * Every job of a bisection has priority JOB_PRIORITY_BISECT (db/db-jobs.h).
 * The worker
 * calls bisect_after_job() when a job ends, which queues what comes next:
 * a worker draining the board's queue runs the bisection to its end.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/*
 * The range: "the kernel at position i".  A series of built kernels (a
 * tree's Debian packages, or a list) is the first kind; the first-parent
 * commits between two commits of a git tree, built on demand, the second:
 * kernel() names what a job boots, describe() what the report says of it,
 * and prepare() says whether it can be had (-ENOEXEC: its build failed,
 * @err says why; the step is skipped).  prepare() never builds: the job's
 * worker does (kernel_fetch()), so a build is never run twice at once.
 */
struct bisect_range;
struct bisect_range_ops {
	const char *kind;
	const char *(*kernel)(const struct bisect_range *r, size_t i);
	/* {id, subject, author} as known; NULL on -ENOMEM */
	json_t *(*describe)(const struct bisect_range *r, size_t i);
	int (*prepare)(const struct bisect_range *r, size_t i,
		       struct rtlab_err *err);
};

struct bisect_range {
	const struct bisect_range_ops *ops;
	char **kernels; /* n names, good first, bad last */
	size_t n;
	char *tree;	 /* the tree they come from, or NULL */
	json_t *commits; /* git: n {id, subject, author}; else NULL */
};

/**
 * bisect_range_series() - the series between @good and @bad: when both
 * are PACKAGE=VERSION kernels of one recorded tree (rtlab tree discover),
 * every kernel of that tree from @good to @bad in the tree's order; else
 * @list, a comma-separated ordered list that must start with @good and
 * end with @bad (kernel definitions, paths, PACKAGE=VERSION), when given.
 * Return: 0 with @r filled (bisect_range_cleanup()); -EINVAL when @good
 * comes after @bad in the tree ("reversed"), they are the same kernel
 * without a list (a list names positions: one kernel may fill several),
 * or no tree holds both and no list is given; -ENOENT, -EIO.
 */
int bisect_range_series(PGconn *conn, const char *good, const char *bad,
			const char *list, struct bisect_range *r,
			struct rtlab_err *err) __must_check;

/**
 * bisect_range_git() - the commits between @good and @bad, two kernels
 * TREE@REF of one git tree (kernels/tree.h): @good, then `git rev-list
 * --first-parent --reverse GOOD..BAD` in the tree's mirror (the range git
 * bisect --first-parent walks: a merge is one step), each named
 * TREE@COMMIT (40 hex digits) and described by git ({id, subject,
 * author}) in r->commits.
 * Return: 0 with @r filled (bisect_range_cleanup()); -EINVAL when they
 * are not of one git tree, name the same commit, or @good is not an
 * ancestor of @bad ("reversed"); -ENOENT (no such tree or commit), -EIO
 * (git failed), with @err naming the tree and the refs.
 */
int bisect_range_git(const char *good, const char *bad, struct bisect_range *r,
		     struct rtlab_err *err) __must_check;

/**
 * bisect_range_is_git() - whether @good and @bad name commits of a git tree
 * (TREE@REF), so that bisect_start() takes bisect_range_git().
 */
bool bisect_range_is_git(const char *good, const char *bad);

/** bisect_range_cleanup() - free what bisect_range_*() filled. */
void bisect_range_cleanup(struct bisect_range *r);

struct bisect_spec {
	const char *board, *testcase;
	const char *good, *bad;
	const char *kernels;	 /* the --kernels list, or NULL */
	unsigned int duration_s; /* 0: the testcase's */
	/* A self-check of the lab: kernels from @plant_from on run the
	 * testcase @plant_testcase (same name, with an injector) instead. */
	const char *plant_from;
	const char *plant_testcase;
	int64_t verdict_id; /* the REGRESSION it bisects, or 0 */
};

/**
 * bisect_start() - check @spec, record the bisection and queue the ends'
 * first runs.
 * Return: 0 with *@id; -EINVAL (@err names the option), -ENOENT, -EIO.
 * Nothing is recorded on failure.
 */
int bisect_start(PGconn *conn, const struct bisect_spec *spec, int64_t *id,
		 struct rtlab_err *err) __must_check;

/**
 * bisect_advance() - look at what bisection @id's jobs produced and do
 * the next thing: wait, queue runs, decide a step, finish.  Serialized
 * per bisection by an advisory lock; safe to call any time.
 * Return: 0, or a negative errno with @err set.
 */
int bisect_advance(PGconn *conn, int64_t id,
		   struct rtlab_err *err) __must_check;

/**
 * bisect_after_job() - called by the worker when job @job_id ended (done
 * or failed): advances its bisection, if any.  Logs what it did; never
 * fails its caller.
 */
void bisect_after_job(PGconn *conn, int64_t job_id);

/**
 * bisect_running() - whether a job of an unfinished bisection is running
 * on board @board (NULL: any board): its end may queue the next step, so
 * a worker draining the queue waits for it rather than stop.
 */
bool bisect_running(PGconn *conn, const char *board);

/**
 * bisect_reset() - stop bisection @id: its queued jobs are removed, its
 * state becomes 'reset' with what it had found so far kept.
 * Return: 0; -ENOENT; -EINVAL when it had already ended (@err says how).
 */
int bisect_reset(PGconn *conn, int64_t id, struct rtlab_err *err) __must_check;

/**
 * bisect_get() - bisection @id as db_bisect_get() gives it, plus
 * "culprit_kernel" and "culprit_commit" (describe(): {id, subject,
 * author}) once isolated, and "range_kernels" [lo, hi] names.
 * Return: 0 with *@out (caller json_decref()s); -ENOENT; -EIO.
 */
int bisect_get(PGconn *conn, int64_t id, json_t **out,
	       struct rtlab_err *err) __must_check;

/**
 * bisect_for_report() - when a bisection of verdict @verdict_id ended
 * (done), set "bisect" in the report context @ctx: {id, steps, culprit:
 * {id, subject, author} (absent without one), range: [good, bad]}.
 * Errors are logged; the report goes on without it.
 */
void bisect_for_report(PGconn *conn, int64_t verdict_id, json_t *ctx);

/** bisect_print_status() - @b (bisect_get()) for people: state, range,
 *  culprit or why it stopped, what is being measured. */
void bisect_print_status(FILE *f, json_t *b);

/** bisect_print_log() - every step of @b with its decision and the two
 *  verdicts (verdict, look, reason) that made it. */
void bisect_print_log(FILE *f, json_t *b);

#endif
