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

char *jobs_board_def_name(const char *board, const char *definition_json,
			  struct rtlab_err *err)
{
	json_error_t jerr;
	json_t *root, *v;
	char *name = NULL;

	root = json_loads(definition_json ? definition_json : "{}", 0, &jerr);
	if (!root || !json_is_object(root)) {
		rtlab_err_set(err,
			      "board '%s': definition: expected a JSON "
			      "object",
			      board);
		goto out;
	}
	v = json_object_get(root, "board");
	if (v && !json_is_string(v)) {
		rtlab_err_set(err,
			      "board '%s': definition field 'board': "
			      "expected the name or path of a board "
			      "definition (boards/NAME.yaml)",
			      board);
		goto out;
	}
	name = strdup(v ? json_string_value(v) : board);
	if (!name)
		rtlab_err_seterr(err, ENOMEM, "out of memory");
out:
	json_decref(root);
	return name;
}

/*
 * Parse and check the testcase with the parser the board's agent uses
 * (lib/testcase.c).  @need_tools: its tools must be on this host too (a
 * local board).  @name, @duration_s: the testcase's.
 */
static int testcase_check(const char *testcase, const char *file,
			  bool need_tools, char **name,
			  unsigned int *duration_s, struct rtlab_err *err)
{
	struct rtlab_err terr = { "" };
	const char **tools = NULL;
	struct testcase tc;
	size_t i;
	int ret;

	*name = NULL;
	ret = testcase_load(file, &tc, &terr);
	if (ret) {
		ret = rtlab_err_set(err, "--testcase %s: %s", testcase,
				    terr.msg);
		goto out;
	}
	if (need_tools) {
		tools = testcase_tools(&tc);
		if (!tools) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; tools[i]; i++) {
			char *path = path_which(tools[i]);

			free(path);
			if (!path) {
				ret = rtlab_err_seterr(
					err, ENOENT,
					"--testcase %s: this host cannot run "
					"it: tool %s: MISSING (not on PATH)",
					testcase, tools[i]);
				goto out;
			}
		}
	}
	*duration_s = tc.duration_s;
	*name = strdup(tc.name);
	ret = *name ? 0 : rtlab_err_seterr(err, ENOMEM, "out of memory");
out:
	free(tools);
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

/* Check the kernel against the board; *@stored gets what the job keeps. */
static int kernel_check(const char *kernel, const char *board, const char *kind,
			const char *definition, char **stored,
			struct rtlab_err *err)
{
	struct kernel_def *k;
	struct board_def *bd;
	char *defname;

	*stored = NULL;
	if (!strcmp(kind, "local")) {
		if (strcmp(kernel, JOBS_KERNEL_HOST))
			return rtlab_err_set(
				err,
				"--kernel %s: board '%s' is "
				"a local board, which runs the "
				"host's kernel: expected --kernel " JOBS_KERNEL_HOST,
				kernel, board);
		*stored = strdup(kernel);
		return *stored ? 0 : -ENOMEM;
	}
	if (strcmp(kind, "qemu"))
		return rtlab_err_set(err,
				     "--board %s: a board of kind '%s' "
				     "has no worker yet (local and qemu "
				     "boards do)",
				     board, kind);
	if (!strcmp(kernel, JOBS_KERNEL_HOST))
		return rtlab_err_set(err,
				     "--kernel host: board '%s' is a "
				     "virtual board: expected a kernel "
				     "definition (kernels/NAME.yaml)",
				     board);
	defname = jobs_board_def_name(board, definition, err);
	if (!defname)
		return -EINVAL;
	bd = board_def_find(defname, err);
	if (!bd) {
		rtlab_err_prefix(err,
				 "--board %s: board definition '%s' "
				 "(the \"board\" field of the registered "
				 "definition, else the board's name)",
				 board, defname);
		free(defname);
		return -EINVAL;
	}
	board_def_free(bd);
	free(defname);
	k = kernel_def_find(kernel, err);
	if (!k) {
		rtlab_err_prefix(err, "--kernel %s", kernel);
		return -EINVAL;
	}
	*stored = is_path(kernel) ? realpath(k->path, NULL) : strdup(kernel);
	kernel_def_free(k);
	return *stored ? 0 : -ENOMEM;
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
	ret = kernel_check(spec->kernel, spec->board, kind, definition, &kernel,
			   err);
	if (ret)
		goto out;
	file = jobs_testcase_path(spec->testcase, err);
	if (!file) {
		ret = -ENOENT;
		goto out;
	}
	ret = testcase_check(spec->testcase, file, !strcmp(kind, "local"),
			     &name, &dur, err);
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
	ret = db_begin(conn, err);
	if (ret)
		goto out;
	for (i = 0; i < spec->repeat; i++) {
		ret = db_job_create(conn, &nj, &out[i], err);
		if (ret) {
			db_rollback(conn);
			goto out;
		}
	}
	ret = db_commit(conn, err);
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
