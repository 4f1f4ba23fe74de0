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

#include "bundle.h"
#include "cyclictest.h"
#include "../db/db-runs.h"
#include "ingest.h"
#include "manifest.h"
#include "verdict.h"

#define CT_JSON "cyclictest.json"
#define CT_HIST "cyclictest.hist"

/* The two records of one measurement must tell the same story. */
static int cross_check(const struct ct_result *js, const struct ct_result *hs,
		       struct rtlab_err *err)
{
	unsigned int t;
	uint32_t i;

	if (js->nthreads != hs->nthreads)
		return rtlab_err_set(err, CT_HIST " disagrees with " CT_JSON
				     ": %u threads vs %u", hs->nthreads,
				     js->nthreads);
	for (t = 0; t < js->nthreads; t++) {
		const struct hist *a = &js->threads[t], *b = &hs->threads[t];
		uint32_t n = a->nbuckets > b->nbuckets ? a->nbuckets :
							 b->nbuckets;

		for (i = 0; i < n; i++) {
			uint64_t ca = i < a->nbuckets ? a->counts[i] : 0;
			uint64_t cb = i < b->nbuckets ? b->counts[i] : 0;

			if (ca != cb)
				return rtlab_err_set(
					err, CT_HIST " disagrees with " CT_JSON
					": thread %u, bucket %u us: %llu "
					"samples vs %llu", t, i,
					(unsigned long long)cb,
					(unsigned long long)ca);
		}
		if (a->overflows != b->overflows)
			return rtlab_err_set(err, CT_HIST " disagrees with "
					     CT_JSON ": thread %u: %llu "
					     "overflows vs %llu", t,
					     (unsigned long long)b->overflows,
					     (unsigned long long)a->overflows);
		if (a->samples != b->samples)
			return rtlab_err_set(err, CT_HIST " disagrees with "
					     CT_JSON ": thread %u: %llu "
					     "samples vs %llu", t,
					     (unsigned long long)b->samples,
					     (unsigned long long)a->samples);
	}
	return 0;
}

/* Fill @js (and @hs) from the bundle; on return the histograms to store
 * are in *@use.  Only complete runs carry a measurement. */
static int read_hists(const struct bundle *b, const struct manifest *m,
		      struct ct_result *js, struct ct_result *hs,
		      const struct ct_result **use, struct rtlab_err *err)
{
	const struct bundle_file *fj = bundle_get(b, CT_JSON);
	const struct bundle_file *fh = bundle_get(b, CT_HIST);
	uint32_t range_us = m->hist_range_us;
	const struct ct_result *r;
	unsigned int t;
	int ret;

	*use = NULL;
	if (!fj && !fh)
		return rtlab_err_set(err, "bundle: a complete run needs "
				     CT_JSON " or " CT_HIST
				     ", found neither");
	if (fh) {
		/* The readers name their file in their messages. */
		ret = ct_hist_parse((const char *)fh->data, fh->size, hs, err);
		if (ret)
			return ret;
		if (!range_us && hs->nthreads)
			range_us = hs->threads[0].nbuckets;
	}
	if (fj) {
		if (!range_us)
			return rtlab_err_set(err, "manifest.json: missing field "
					     "'testcase.hist_range_us' (needed "
					     "to read " CT_JSON ")");
		ret = ct_json_parse((const char *)fj->data, fj->size, range_us,
				    js, err);
		if (ret)
			return ret;
	}
	if (fj && fh) {
		ret = cross_check(js, hs, err);
		if (ret)
			return ret;
	}
	r = fj ? js : hs;
	if (!r->nthreads)
		return rtlab_err_set(err, "%s: no measuring threads",
				     fj ? CT_JSON : CT_HIST);
	for (t = 0; t < r->nthreads; t++) {
		ret = hist_check(&r->threads[t], err);
		if (ret) {
			rtlab_err_prefix(err, "%s: thread %u",
					 fj ? CT_JSON : CT_HIST, t);
			return ret;
		}
		/* The -h text does not say where a thread ran. */
		if (!fj && r->threads[t].cpu < 0)
			r->threads[t].cpu = r->threads[t].thread;
	}
	*use = r;
	return 0;
}

int ingest_bundle(PGconn *conn, const void *data, size_t size, int board_id,
		  const char *board, struct ingest_result *res,
		  struct rtlab_err *err)
{
	struct ct_result js = { 0 }, hs = { 0 };
	const struct ct_result *use = NULL;
	const struct bundle_file *mf;
	struct manifest m = { 0 };
	struct run_record rec = { 0 };
	struct bundle *b;
	int ret;

	memset(res, 0, sizeof(*res));
	b = bundle_read_mem(data, size, err);
	if (!b)
		return -EINVAL;
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
		ret = read_hists(b, &m, &js, &hs, &use, err);
		if (ret) {
			ret = ret == -ENOMEM ? ret : -EINVAL;
			goto out;
		}
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
	ct_result_cleanup(&js);
	ct_result_cleanup(&hs);
	manifest_cleanup(&m);
	bundle_free(b);
	return ret;
}
