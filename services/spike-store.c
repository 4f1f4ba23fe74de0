// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The spike analysis of a stored run: its trace.dat is read from the
 * database, analyzed by reports/spike.c and, by `rtlab analyze --store`
 * and reports, the result stored beside the run as spike.txt and
 * spike.json, so later readers need not analyze it again.  The HTTP API
 * only reads: it answers the stored result or analyzes without storing.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "../db/db-runs.h"
#include "../db/db.h"
#include "../reports/spike.h"
#include "spike-store.h"

int spike_store(PGconn *conn, int64_t run_id, const char *text,
		const char *json, struct rtlab_err *err)
{
	int ret;

	ret = db_begin(conn, err);
	if (ret)
		return ret;
	ret = db_artifact_put_text(conn, run_id, SPIKE_ARTIFACT_TEXT, "text/plain; charset=utf-8", text, err) ?:
		      db_artifact_put_text(conn, run_id, SPIKE_ARTIFACT_JSON, "application/json", json, err) ?:
		      db_commit(conn, err);
	if (ret) {
		db_rollback(conn);
		rtlab_err_prefix(err,
				 "storing the spike analysis of run %" PRId64,
				 run_id);
	}
	return ret;
}

int spike_run_analyze(PGconn *conn, int64_t run_id, int cpu,
		      struct spike_result *res, struct rtlab_err *err)
{
	struct artifact a = { 0 };
	char path[] = "/tmp/rtlab-spike.XXXXXX";
	json_t *run = NULL;
	const char *release;
	FILE *f = NULL;
	bool made = false;
	int fd = -1, ret;

	memset(res, 0, sizeof(*res));
	ret = db_run_get(conn, run_id, &run, err);
	if (ret)
		goto out;
	ret = db_artifact_get(conn, run_id, "trace.dat", &a, err);
	if (ret == -ENOENT) {
		rtlab_err_seterr(err, ENOENT,
				 "run %" PRId64 " has no trace "
				 "(no trace.dat in its bundle: its testcase "
				 "has no trace: section, or tracing was "
				 "unavailable on the board)",
				 run_id);
		goto out;
	}
	if (ret)
		goto out;
	fd = mkstemp(path);
	made = fd >= 0;
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		ret = rtlab_err_seterr(err, errno, "%s: %s", path,
				       strerror(errno));
		goto out;
	}
	fd = -1;
	if (fwrite(a.data, 1, a.size, f) != a.size || fclose(f)) {
		f = NULL;
		ret = rtlab_err_seterr(err, EIO,
				       "%s: cannot write the "
				       "trace: %s",
				       path, strerror(errno));
		goto out;
	}
	f = NULL;
	ret = spike_analyze_cpu(path, cpu, res, err);
	snprintf(res->file, sizeof(res->file), "run %" PRId64 " trace.dat",
		 run_id);
	if (ret) {
		/* Name the run's trace, not the temporary copy. */
		if (err && !strncmp(err->msg, path, strlen(path))) {
			char rest[RTLAB_ERR_LEN - 64];

			snprintf(rest, sizeof(rest), "%.*s",
				 (int)sizeof(rest) - 1,
				 err->msg + strlen(path));
			snprintf(err->msg, sizeof(err->msg),
				 "run %" PRId64 " trace.dat%s", run_id, rest);
		}
		goto out;
	}
	release = json_string_value(json_object_get(json_object_get(run,
								    "kernel"),
						    "release"));
	ret = spike_check_release(res, release, err);
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(path);
	artifact_cleanup(&a);
	json_decref(run);
	return ret;
}

int spike_run_get(PGconn *conn, int64_t run_id, bool json, bool store,
		  struct artifact *a, struct rtlab_err *err)
{
	const char *name = json ? SPIKE_ARTIFACT_JSON : SPIKE_ARTIFACT_TEXT;
	struct spike_result res = { 0 };
	char *text = NULL, *js = NULL;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = db_artifact_get(conn, run_id, name, a, err);
	if (ret != -ENOENT)
		return ret;
	ret = spike_run_analyze(conn, run_id, -1, &res, err);
	if (ret)
		goto out;
	text = spike_result_text(&res);
	js = spike_result_json(&res);
	if (!text || !js) {
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto out;
	}
	if (store) {
		ret = spike_store(conn, run_id, text, js, err) ?:
			      db_artifact_get(conn, run_id, name, a, err);
		goto out;
	}
	a->name = strdup(name);
	a->content_type =
		strdup(json ? "application/json" : "text/plain; charset=utf-8");
	a->data = json ? js : text;
	a->size = strlen(a->data);
	if (json)
		js = NULL;
	else
		text = NULL;
	if (!a->name || !a->content_type) {
		artifact_cleanup(a);
		ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
out:
	free(text);
	free(js);
	spike_result_cleanup(&res);
	return ret;
}
