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
#include "manifest.h"
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

/* @s as a YAML scalar: JSON's double-quoted string is one.  Sticky @bad. */
static void yaml_quoted(FILE *f, const char *s, bool *bad)
{
	json_t *j = json_string(s);
	char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	if (!q)
		*bad = true;
	else
		fputs(q, f);
	free(q);
	json_decref(j);
}

/* @path made absolute (it must exist): the copy is read elsewhere. */
static char *extra_abs(const char *opt, const char *path, struct rtlab_err *err)
{
	char *abs = realpath(path, NULL);

	if (!abs)
		rtlab_err_seterr(err, errno, "%s %s: %s", opt, path,
				 strerror(errno));
	return abs;
}

/* The extras block for @x, appended to @f. */
static int extras_yaml(FILE *f, const struct job_extras *x,
		       struct rtlab_err *err)
{
	bool bad = false;
	char *abs, *copy;
	size_t i;

	fputs("\nextras:\n", f);
	if (x->nmodules)
		fputs("  modules:\n", f);
	for (i = 0; i < x->nmodules; i++) {
		const char *sp = strchr(x->modules[i], ' ');

		copy = sp ? strndup(x->modules[i], sp - x->modules[i]) :
			    strdup(x->modules[i]);
		abs = copy ? extra_abs("--module", copy, err) : NULL;
		free(copy);
		if (!abs)
			return -ENOENT;
		fputs("    - path: ", f);
		yaml_quoted(f, abs, &bad);
		free(abs);
		while (sp && *sp == ' ')
			sp++;
		if (sp && *sp) {
			fputs("\n      params: ", f);
			yaml_quoted(f, sp, &bad);
		}
		fputs("\n", f);
	}
	if (x->nfiles)
		fputs("  files:\n", f);
	for (i = 0; i < x->nfiles; i++) {
		const char *colon = strrchr(x->files[i], ':');

		if (!colon || colon == x->files[i] || colon[1] != '/')
			return rtlab_err_set(err,
					     "--file %s: expected SRC:DEST, "
					     "DEST an absolute path on the "
					     "board",
					     x->files[i]);
		copy = strndup(x->files[i], colon - x->files[i]);
		abs = copy ? extra_abs("--file", copy, err) : NULL;
		free(copy);
		if (!abs)
			return -ENOENT;
		fputs("    - src: ", f);
		yaml_quoted(f, abs, &bad);
		fputs("\n      dest: ", f);
		yaml_quoted(f, colon + 1, &bad);
		fputs("\n", f);
		free(abs);
	}
	if (x->nsetup)
		fputs("  setup:\n", f);
	for (i = 0; i < x->nsetup; i++) {
		fputs("    - ", f);
		yaml_quoted(f, x->setup[i], &bad);
		fputs("\n", f);
	}
	if (x->nteardown)
		fputs("  teardown:\n", f);
	for (i = 0; i < x->nteardown; i++) {
		fputs("    - ", f);
		yaml_quoted(f, x->teardown[i], &bad);
		fputs("\n", f);
	}
	return bad ? rtlab_err_seterr(err, ENOMEM, "out of memory") : 0;
}

/*
 * @text (a testcase's YAML) with its top-level "name:" line replaced by
 * "name: @name", into @f.  Return: 0, or -ENOENT when there is no such
 * line (a flow-style document).
 */
static int renamed_text(FILE *f, const char *text, size_t len, const char *name)
{
	const char *line = text, *end = text + len, *nl;
	bool done = false;

	for (; line < end; line = nl) {
		nl = memchr(line, '\n', end - line);
		nl = nl ? nl + 1 : end;
		if (!done && (size_t)(nl - line) >= 5 &&
		    !strncmp(line, "name:", 5)) {
			fprintf(f, "name: %s\n", name);
			done = true;
			continue;
		}
		fwrite(line, 1, nl - line, f);
	}
	if (len && text[len - 1] != '\n')
		fputs("\n", f);
	return done ? 0 : -ENOENT;
}

/*
 * The testcase at @file with the command line's extras @x: a copy with
 * an extras: block, at STATE_DIR/jobs/testcases/NAME.yaml.  Its name is
 * the testcase's plus "-x" and 8 hex digits of the hash of its content:
 * runs with a developer's code must not join the series of the lab's
 * testcase (its baselines and verdicts), while jobs with the same extras
 * form one series of their own.  A testcase with an extras: block of its
 * own is refused: two sources for one list would leave the developer
 * guessing which ran.
 * @out: malloc'd path (caller frees).
 */
static int extras_testcase(const char *file, const struct job_extras *x,
			   char **out, struct rtlab_err *err)
{
	char *text = NULL, *block = NULL, *buf = NULL, *dir = NULL;
	char *tmp = NULL, *name = NULL, sha[65];
	struct rtlab_err terr = { "" };
	struct testcase tc, copy = { 0 };
	size_t len = 0, blen = 0, klen = 0;
	FILE *f = NULL;
	int ret;

	*out = NULL;
	ret = testcase_load(file, &tc, &terr);
	if (ret)
		ret = rtlab_err_set(err, "%s", terr.msg);
	else if (testcase_has_extras(&tc))
		ret = rtlab_err_set(err,
				    "%s has an extras: block already: add "
				    "--module, --file, --setup and "
				    "--teardown to it instead",
				    file);
	if (!ret)
		ret = file_read_all(file, &text, &len, err);
	if (ret)
		goto out;
	f = open_memstream(&block, &klen);
	if (!f) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = extras_yaml(f, x, err);
	if (fclose(f) && !ret)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	if (ret)
		goto out;
	f = open_memstream(&buf, &blen);
	if (!f) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	fwrite(text, 1, len, f);
	fwrite(block, 1, klen, f);
	fclose(f);
	sha256_hex(buf, blen, sha);
	free(buf);
	buf = NULL;
	if (asprintf(&name, "%.100s-x%.8s", tc.name, sha) < 0) {
		name = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	f = open_memstream(&buf, &blen);
	if (!f) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	fprintf(f, "# %s with the extras of rtlab job add\n", file);
	ret = renamed_text(f, text, len, name);
	fwrite(block, 1, klen, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret == -ENOENT)
		ret = rtlab_err_seterr(err, EINVAL,
				       "%s: no top-level 'name:' line to "
				       "rename the copy with the extras",
				       file);
	else if (ret)
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	if (!ret && (testcase_parse(file, buf, blen, &copy, &terr) ||
		     strcmp(copy.name, name)))
		ret = rtlab_err_set(err,
				    "%s with the extras of the command line "
				    "does not parse: %s",
				    file, terr.msg[0] ? terr.msg : "renamed");
	if (ret)
		goto out;
	if (asprintf(&dir, "%s/jobs/testcases", rtlab_state_dir()) < 0 ||
	    asprintf(out, "%s/%s.yaml", dir, name) < 0 ||
	    asprintf(&tmp, "%s.tmp.%d", *out, (int)getpid()) < 0) {
		dir = tmp = *out = NULL;
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = mkdir_p(dir, 0755, err);
	if (!ret)
		ret = file_write_all(tmp, buf, blen, err);
	if (!ret && rename(tmp, *out) < 0)
		ret = rtlab_err_seterr(err, errno, "%s: %s", *out,
				       strerror(errno));
	if (ret && tmp)
		unlink(tmp);
out:
	if (ret) {
		free(*out);
		*out = NULL;
	}
	testcase_cleanup(&copy);
	testcase_cleanup(&tc);
	free(name);
	free(tmp);
	free(dir);
	free(buf);
	free(block);
	free(text);
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
	if (spec->extras) {
		char *copy = NULL;

		ret = extras_testcase(file, spec->extras, &copy, err);
		if (ret)
			goto out;
		free(file);
		file = copy;
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
	nj.health = spec->health;
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
