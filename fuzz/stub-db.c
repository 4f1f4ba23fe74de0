// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The database as the ingest harness sees it: db_run_store() checks and
 * reads back the record instead of writing it, no verdict is computed and
 * every board is healthy.
 * Anything a real store would trip over (a histogram whose buckets and
 * samples disagree, a file without data) aborts, which libFuzzer reports.
 */

#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "db-runs.h"
#include "health.h"
#include "hist.h"
#include "manifest.h"
#include "verdict.h"

int db_run_store(PGconn *conn, const struct run_record *rec, int64_t *run_id,
		 bool *duplicate, struct rtlab_err *err)
{
	const struct manifest *m = rec->manifest;
	volatile unsigned char sink = 0;
	size_t t, i;

	if (!m || !m->board || !m->testcase || !m->kernel_release || !m->json)
		abort();
	if (m->status == RUN_STATUS_COMPLETE && !rec->nhists)
		abort();
	for (t = 0; t < rec->nhists; t++) {
		const struct hist *h = &rec->hists[t];
		uint64_t sum = h->overflows;

		for (i = 0; i < h->nbuckets; i++)
			sum += h->counts[i];
		if (sum != h->samples)
			abort();
	}
	for (t = 0; t < rec->bundle->nfiles; t++) {
		const struct bundle_file *f = &rec->bundle->files[t];

		if (f->size && !f->data)
			abort();
		for (i = 0; i < f->size; i++)
			sink ^= f->data[i];
	}
	(void)sink;
	*run_id = 1;
	*duplicate = false;
	return 0;
}

int64_t verdict_after_ingest(PGconn *conn, int64_t run_id,
			     const struct run_series *rs)
{
	return 0;
}

int health_ingest_check(PGconn *conn, const struct manifest *m,
			char **flags_text, struct health_ingest *hi,
			struct rtlab_err *err)
{
	memset(hi, 0, sizeof(*hi));
	return 0;
}

int health_ingest_environment_board(const struct health_ingest *hi,
				    bool complete)
{
	return 0;
}

void health_ingest_stored(PGconn *conn, const struct health_ingest *hi,
			  int64_t run_id)
{
}
