// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Queueing jobs: resolve and check the board, kernel and testcase a job
 * names (the testcase through lib/testcase.c, the same parser the board's
 * agent uses), then queue the repeats in one transaction.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "../boards/board.h"
#include "../kernels/kernel.h"
#include "config.h"
#include "fsutil.h"
#include "../db/db-boards.h"
#include "../db/db-jobs.h"
#include "../db/db.h"
#include "jobs.h"
#include "testcase.h"

static bool is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".yaml"));
}

char *jobs_testcase_path(const char *testcase, struct rtlab_err *err)
{
	char *rel = NULL, *path = NULL, *abs;

	if (!testcase || !*testcase) {
		rtlab_err_set(err, "--testcase: expected a testcase name "
				   "(testcases/NAME.yaml) or a path");
		return NULL;
	}
	if (is_path(testcase)) {
		path = strdup(testcase);
	} else {
		if (asprintf(&rel, "testcases/%s.yaml", testcase) < 0) {
			rtlab_err_seterr(err, ENOMEM, "out of memory");
			return NULL;
		}
		path = rtlab_data_path(rel);
		free(rel);
	}
	if (!path) {
		rtlab_err_seterr(err, ENOMEM, "out of memory");
		return NULL;
	}
	abs = realpath(path, NULL);
	if (!abs)
		rtlab_err_seterr(
			err, ENOENT, "--testcase %s: %s: %s%s", testcase, path,
			strerror(errno),
			is_path(testcase) ?
				"" :
				" (a name means testcases/NAME.yaml in the "
				"data directory; give a path otherwise)");
	free(path);
	return abs;
}

/*
 * Parse the testcase with the parser the board's agent uses
 * (lib/testcase.c); whether it fits the board is the board kind's check.
 * @name, @duration_s: the testcase's.
 */
static int testcase_check(const char *testcase, const char *file, char **name,
			  unsigned int *duration_s, struct rtlab_err *err)
{
	struct rtlab_err terr = { "" };
	struct testcase tc;
	int ret;

	*name = NULL;
	ret = testcase_load(file, &tc, &terr);
	if (ret)
		return rtlab_err_set(err, "--testcase %s: %s", testcase,
				     terr.msg);
	*duration_s = tc.duration_s;
	*name = strdup(tc.name);
	ret = *name ? 0 : rtlab_err_seterr(err, ENOMEM, "out of memory");
	testcase_cleanup(&tc);
	return ret;
}

/* The board row of @name: id, kind and definition (malloc'd). */
static int board_find(PGconn *conn, const char *name, int *id, char **kind,
		      char **definition, struct rtlab_err *err)
{
	struct db_board *b = NULL;
	size_t n = 0, i;
	int ret;

	ret = db_board_list(conn, &b, &n, err);
	if (ret)
		return ret;
	ret = -ENOENT;
	for (i = 0; i < n; i++) {
		if (strcmp(b[i].name, name))
			continue;
		*id = b[i].id;
		*kind = strdup(b[i].kind);
		*definition = strdup(b[i].definition);
		ret = *kind && *definition ? 0 : -ENOMEM;
		break;
	}
	if (ret == -ENOENT)
		rtlab_err_seterr(err, ENOENT,
				 "--board %s: no board of that "
				 "name is registered (see 'rtlab board list')",
				 name);
	db_board_list_free(b, n);
	return ret;
}

int jobs_add(PGconn *conn, const struct job_spec *spec, int64_t **ids,
	     size_t *nids, struct rtlab_err *err)
{
	char *kind = NULL, *definition = NULL, *kernel = NULL;
	char *file = NULL, *name = NULL;
	struct db_job_new nj = { 0 };
	unsigned int dur = 0, i;
	int64_t *out = NULL;
	int board_id, ret;

	*ids = NULL;
	*nids = 0;
	if (!spec->repeat || spec->repeat > JOBS_MAX_REPEAT)
		return rtlab_err_set(err, "--repeat %u: expected 1 to %u jobs",
				     spec->repeat, JOBS_MAX_REPEAT);
	if (spec->duration_s > JOBS_MAX_DURATION_S)
		return rtlab_err_set(err,
				     "--duration %u: expected 1 to %u "
				     "seconds",
				     spec->duration_s, JOBS_MAX_DURATION_S);
	ret = board_find(conn, spec->board, &board_id, &kind, &definition, err);
	if (ret)
		goto out;
	file = jobs_testcase_path(spec->testcase, err);
	if (!file) {
		ret = -ENOENT;
		goto out;
	}
	ret = testcase_check(spec->testcase, file, &name, &dur, err);
	if (ret)
		goto out;
	/* The kernel and the testcase fit the board: its kind says. */
	ret = board_check_job(kind, spec->board, definition, spec->kernel, file,
			      &kernel, err);
	if (ret)
		goto out;
	out = calloc(spec->repeat, sizeof(*out));
	if (!out) {
		ret = -ENOMEM;
		goto out;
	}
	nj.board_id = board_id;
	nj.kernel = kernel;
	nj.testcase = name;
	nj.testcase_file = file;
	nj.duration_s = spec->duration_s ? spec->duration_s : dur;
	nj.max_attempts = JOB_MAX_ATTEMPTS;
	nj.priority = spec->priority;
	nj.origin = spec->origin;
	nj.tree = spec->tree;
	nj.submission_id = spec->submission_id;
	nj.bisect_id = spec->bisect_id;
	nj.bisect_pos = spec->bisect_pos;
	ret = spec->no_transaction ? 0 : db_begin(conn, err);
	if (ret)
		goto out;
	for (i = 0; i < spec->repeat; i++) {
		ret = db_job_create(conn, &nj, &out[i], err);
		if (ret) {
			if (!spec->no_transaction)
				db_rollback(conn);
			goto out;
		}
	}
	ret = spec->no_transaction ? 0 : db_commit(conn, err);
	if (ret)
		goto out;
	*ids = out;
	*nids = spec->repeat;
	out = NULL;
out:
	free(out);
	free(name);
	free(file);
	free(kernel);
	free(definition);
	free(kind);
	return ret;
}
