// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for manifest_parse(), the first thing the server
 * believes about an upload.  A manifest that parses must hold what the
 * header promises: a canonical run id, a board, a known status, file
 * entries with names and well-formed checksums, and its re-serialized
 * JSON must parse again to the same fields.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_manifest(const struct manifest *m)
{
	struct rtlab_err err = { "" };
	struct manifest again;
	size_t i;

	if (strlen(m->run_id) != 36 || !m->board || !m->json ||
	    !strcmp(run_status_name(m->status), "unknown"))
		abort();
	for (i = 0; i < m->nfiles; i++) {
		size_t n = strlen(m->files[i].sha256);

		if (!m->files[i].name || (n != 0 && n != 64))
			abort();
	}
	/* The stored document is what later readers see: it must parse. */
	if (manifest_parse(m->json, strlen(m->json), &again, &err))
		abort();
	if (strcmp(again.run_id, m->run_id) || strcmp(again.board, m->board) ||
	    again.status != m->status || again.nfiles != m->nfiles ||
	    again.hist_range_us != m->hist_range_us)
		abort();
	manifest_cleanup(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct manifest m;

	if (!manifest_parse((const char *)data, size, &m, &err))
		check_manifest(&m);
	manifest_cleanup(&m);
	manifest_cleanup(&m);
	return 0;
}
