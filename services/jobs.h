/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_JOBS_H
#define RTLAB_JOBS_H

/*
 * Queueing jobs: everything a job names is checked before anything is
 * queued, so a worker never claims a job that cannot run.
 *
 *   board     a registered board (rtlab board add).  A local board runs
 *             the host's kernel; a qemu board boots a virtual board whose
 *             definition (boards/NAME.yaml) is named by the "board" key of
 *             the registered definition JSON, else by the board's name.
 *   kernel    "host" on a local board; on a qemu board a kernel definition
 *             name or path (kernels/NAME.yaml), which must parse.
 *   testcase  a name (testcases/NAME.yaml) or a path; it must parse
 *             (lib/testcase.c, the agent's own parser; on a local board
 *             its tools must be on PATH too).
 *
 * One job is one run: --repeat N queues N jobs, so the runs of a repeat
 * spread over workers and each can be retried on its own.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "error.h"

#define JOBS_MAX_REPEAT 1000
#define JOBS_MAX_DURATION_S 604800

/*
 * A developer's extras for the job's runs (testcases/README.md, "Extras"),
 * from the command line: the testcase is queued as a copy with an extras:
 * block holding them (absolute paths), written once per content under
 * STATE_DIR/jobs/testcases/.
 */
struct job_extras {
	const char *const *modules; /* "PATH [PARAM=VALUE ...]", as insmod */
	size_t nmodules;
	const char *const *files; /* "SRC:DEST", DEST absolute */
	size_t nfiles;
	const char *const *setup; /* shell commands */
	size_t nsetup;
	const char *const *teardown;
	size_t nteardown;
};

struct job_spec {
	const char *kernel;	 /* definition name or path, or "host" */
	const char *board;	 /* registered board name */
	const char *testcase;	 /* name or path */
	unsigned int repeat;	 /* jobs to queue, 1..JOBS_MAX_REPEAT */
	unsigned int duration_s; /* 0: the testcase's duration_s */
	unsigned int priority;	 /* 0: JOB_PRIORITY_DEFAULT (db/db-jobs.h) */
	const char *origin;	 /* "farm", "submission", NULL: by hand */
	const char *tree;	 /* the farm's tree of the kernel, or NULL */
	int64_t submission_id;	 /* 0: none */
	bool no_transaction;	 /* the caller holds a transaction */
	int64_t bisect_id;	 /* a bisection's job (services/bisect.h) */
	int bisect_pos;		 /* ... at this position of its range */
	bool health;		 /* a health job (services/health.h) */
	const struct job_extras *extras; /* NULL: the testcase's own only */
};

/**
 * jobs_testcase_path() - a testcase argument to its file: a name (no '/',
 * no .yaml) means rtlab_data_path("testcases/NAME.yaml"); anything else is
 * a path, made absolute.  Return: malloc'd path, caller frees; NULL with
 * @err set when the file does not exist.
 */
char *jobs_testcase_path(const char *testcase, struct rtlab_err *err);

/**
 * jobs_add() - check @spec and queue spec->repeat jobs in one transaction.
 * @ids: gets a malloc'd array of the new job ids (caller frees), @nids its
 * length.
 * Return: 0; -EINVAL (bad spec), -ENOENT (unknown board, kernel or
 * testcase), -EIO; @err names the option, file or field.  On failure
 * nothing is queued.
 */
int jobs_add(PGconn *conn, const struct job_spec *spec, int64_t **ids,
	     size_t *nids, struct rtlab_err *err) __must_check;

#endif
