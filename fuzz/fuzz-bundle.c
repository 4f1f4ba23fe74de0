// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for bundle_read_mem(), which unpacks an uploaded
 * gzip'd tar before anything else looks at it.  A bundle that is accepted
 * must keep the reader's promises: within BUNDLE_MAX_FILES and
 * BUNDLE_MAX_BYTES, a manifest.json, every name one bundle_check_name()
 * allows, no name twice, and every byte of every file readable.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_bundle(const struct bundle *b)
{
	volatile unsigned char sink = 0;
	size_t i, j, total = 0;

	if (b->nfiles > BUNDLE_MAX_FILES || !bundle_get(b, BUNDLE_MANIFEST))
		abort();
	for (i = 0; i < b->nfiles; i++) {
		const struct bundle_file *f = &b->files[i];

		if (bundle_check_name(f->name))
			abort();
		for (j = 0; j < i; j++)
			if (!strcmp(b->files[j].name, f->name))
				abort();
		for (j = 0; j < f->size; j++)
			sink ^= f->data[j];
		total += f->size;
	}
	if (total > BUNDLE_MAX_BYTES)
		abort();
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct bundle *b;

	b = bundle_read_mem(data, size, &err);
	if (b)
		check_bundle(b);
	bundle_free(b);
	return 0;
}
