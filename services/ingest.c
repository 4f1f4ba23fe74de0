// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bundle ingest: unpack an uploaded result bundle, check its manifest
 * against the uploader's board, verify every listed file, read the
 * histograms from cyclictest.json and/or cyclictest.hist (they must agree
 * when both are there), compare the testcase the board ran with the lab's
 * definition (the lab's stays the lab's; a difference flags the run) and
 * check the board's health (services/health.h: a board out of service or
 * a drifted environment flags the run, which then gets no verdict) and
 * hand the lot to db_run_store(), which writes it in one transaction.
 * Nothing reaches the database before all checks pass.  The manifest is
 * parsed once (struct manifest keeps the document for the testcase and
 * health checks), and what follows the store -- the board's environment,
 * the run's series for its verdict -- rides in the store's pipeline.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle-hists.h"
#include "bundle.h"
#include "cyclictest.h"
#include "../db/db-runs.h"
#include "../db/db-verdicts.h"
#include "health.h"
#include "ingest.h"
#include "log.h"
#include "manifest.h"
#include "testcase.h"
#include "verdict.h"

/*
 * The lab's definition of the run's testcase (JSON text into *@lab_text,
 * NULL when the lab has none) and what the lab notes about the run
 * (runs.flags, JSON text into *@flags_text): a testcase the lab does not
 * define, or the fields where the manifest's definition differs from the
 * lab's.  The manifest never decides the lab's definition.
 * Return: 0 or -ENOMEM.
 */
static int testcase_flags(const struct manifest *m, char **lab_text,
			  char **flags_text)
{
	struct rtlab_err lerr = { "" };
	json_t *ran, *lab = NULL, *diff = NULL, *flags;
	int ret = -ENOMEM;

	*lab_text = *flags_text = NULL;
	ran = json_object_get(json_object_get(m->doc, "testcase"),
			      "definition");
	flags = json_object();
	if (!flags)
		goto out;
	ret = testcase_lab_load(m->testcase, &lab, &lerr);
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		if (ret != -ENOENT)
			log_error("board %s, run %s: testcase %s: %s", m->board,
				  m->run_id, m->testcase, lerr.msg);
		if (json_object_set_new(flags, "testcase_not_in_lab",
					json_string(lerr.msg)))
			goto nomem;
		/* Verdict parameters are never the board's to give. */
		diff = json_array();
		if (!diff ||
		    (json_object_get(ran, "verdict") &&
		     json_array_append_new(diff, json_string("verdict"))))
			goto nomem;
	} else {
		*lab_text = json_dumps(lab, JSON_COMPACT | JSON_SORT_KEYS);
		diff = testcase_json_diff(lab, ran);
		if (!*lab_text || !diff)
			goto nomem;
	}
	if (json_array_size(diff) &&
	    json_object_set(flags, "testcase_mismatch", diff))
		goto nomem;
	*flags_text = json_dumps(flags, JSON_COMPACT);
	ret = *flags_text ? 0 : -ENOMEM;
	goto out;
nomem:
	ret = -ENOMEM;
out:
	if (ret) {
		free(*lab_text);
		*lab_text = NULL;
	}
	json_decref(diff);
	json_decref(lab);
	json_decref(flags);
	return ret;
}

int ingest_bundle(PGconn *conn, const void *data, size_t size, int board_id,
		  const char *board, struct ingest_result *res,
		  struct rtlab_err *err)
{
	struct ct_result ct = { 0 };
	const struct ct_result *use = NULL;
	const struct bundle_file *mf;
	struct manifest m = { 0 };
	struct run_record rec = { 0 };
	char *lab_text = NULL, *flags_text = NULL;
	json_t *results = NULL;
	struct health_ingest hi = { 0 };
	struct run_series rs;
	struct bundle *b;
	int ret;

	memset(res, 0, sizeof(*res));
	b = bundle_read_mem(data, size, err);
	if (!b) /* EFBIG (a limit: 413), ENOMEM or EINVAL */
		return errno == EFBIG || errno == ENOMEM ? -errno : -EINVAL;
	mf = bundle_get(b, BUNDLE_MANIFEST);
	if (!mf) {
		ret = rtlab_err_set(err, "bundle: no " BUNDLE_MANIFEST);
		goto out;
	}
	ret = manifest_parse((const char *)mf->data, mf->size, &m, err);
	if (ret) {
		ret = -EINVAL;
		goto out;
	}
	snprintf(res->uuid, sizeof(res->uuid), "%s", m.run_id);
	snprintf(res->status, sizeof(res->status), "%s",
		 run_status_name(m.status));
	if (board_id >= 0 && strcmp(m.board, board)) {
		ret = rtlab_err_seterr(err, EACCES,
				       "manifest.json: board '%s' does not "
				       "match the upload token's board '%s'",
				       m.board, board);
		goto out;
	}
	ret = manifest_verify_files(&m, b, err);
	if (ret) {
		ret = -EINVAL;
		goto out;
	}
	if (m.status == RUN_STATUS_COMPLETE) {
		ret = bundle_tool_hists_read(b, m.tool, m.hist_range_us, &ct,
					     err);
		if (!ret)
			ret = bundle_summary_read(b, m.tool, &results, err);
		if (ret) {
			ret = ret == -ENOMEM ? ret : -EINVAL;
			goto out;
		}
		use = &ct;
	}

	ret = testcase_flags(&m, &lab_text, &flags_text);
	if (ret) {
		rtlab_err_seterr(err, -ret, "out of memory");
		goto out;
	}
	ret = health_ingest_check(conn, &m, &flags_text, &hi, err);
	if (ret)
		goto out;
	rec.lab_definition = lab_text;
	rec.flags = flags_text;
	rec.manifest = &m;
	rec.board_id = board_id;
	rec.nhists = use ? use->nthreads : 0;
	rec.hists = use ? use->threads : NULL;
	rec.bundle = b;
	rec.results = results;
	/* Both in the store's transaction: no round trip of their own. */
	rec.environment_board_id =
		health_ingest_environment_board(&hi,
						m.status ==
							RUN_STATUS_COMPLETE);
	rec.series = &rs;
	ret = db_run_store(conn, &rec, &res->run_id, &res->duplicate, err);
	if (!ret && !res->duplicate) {
		res->nhists = rec.nhists;
		health_ingest_stored(conn, &hi, res->run_id);
		/* The run's kernel against its series' baseline; logs its
		 * own failures and never fails the upload.  A run of a board
		 * out of service is compared with nothing. */
		if (hi.out_of_service)
			log_warn("run %" PRId64 ": no verdict: %s", res->run_id,
				 hi.reason);
		else
			verdict_after_ingest(conn, res->run_id, &rs);
	}
out:
	free(lab_text);
	free(flags_text);
	json_decref(results);
	ct_result_cleanup(&ct);
	manifest_cleanup(&m);
	bundle_free(b);
	return ret;
}
