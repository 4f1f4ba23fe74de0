// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bundle ingest: unpack an uploaded result bundle, check its manifest
 * against the uploader's board, verify every listed file, read the
 * histograms from cyclictest.json and/or cyclictest.hist (they must agree
 * when both are there) and hand the lot to db_run_store(), which writes it
 * in one transaction.  Nothing reaches the database before all checks pass.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bundle-hists.h"
#include "bundle.h"
#include "cyclictest.h"
#include "../db/db-runs.h"
#include "ingest.h"
#include "manifest.h"
#include "verdict.h"

int ingest_bundle(PGconn *conn, const void *data, size_t size, int board_id,
		  const char *board, struct ingest_result *res,
		  struct rtlab_err *err)
{
	struct ct_result ct = { 0 };
	const struct ct_result *use = NULL;
	const struct bundle_file *mf;
	struct manifest m = { 0 };
	struct run_record rec = { 0 };
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
		ret = bundle_hists_read(b, m.hist_range_us, &ct, err);
		if (ret) {
			ret = ret == -ENOMEM ? ret : -EINVAL;
			goto out;
		}
		use = &ct;
	}

	rec.manifest = &m;
	rec.board_id = board_id;
	rec.nhists = use ? use->nthreads : 0;
	rec.hists = use ? use->threads : NULL;
	rec.bundle = b;
	ret = db_run_store(conn, &rec, &res->run_id, &res->duplicate, err);
	if (!ret && !res->duplicate) {
		res->nhists = rec.nhists;
		/* The run's kernel against its series' baseline; logs its
		 * own failures and never fails the upload. */
		verdict_after_ingest(conn, res->run_id);
	}
out:
	ct_result_cleanup(&ct);
	manifest_cleanup(&m);
	bundle_free(b);
	return ret;
}
