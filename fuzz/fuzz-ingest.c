// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for ingest_bundle(), everything between the bytes of
 * an upload and the database: unpacking, the manifest, the checksums of
 * the listed files, both histogram readers and their cross-check.  The
 * database is stubbed (fuzz/stub-db.c): what would be stored is read back
 * there instead, so a run the checks let through with an inconsistent
 * histogram shows up as a crash.
 */

#include <stdint.h>
#include <stdlib.h>

#include "ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct ingest_result res;

	/* Local ingest: the manifest's board is trusted. */
	(void)ingest_bundle(NULL, data, size, -1, NULL, &res, &err);
	return 0;
}
