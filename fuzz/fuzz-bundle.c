// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for bundle_read_mem(), which unpacks an uploaded
 * gzip'd tar before anything else looks at it.  A bundle that is accepted
 * must keep the reader's promises: within BUNDLE_MAX_FILES and
 * BUNDLE_MAX_BYTES, a manifest.json, every name one bundle_check_name()
 * allows, no name twice, and every byte of every file readable.
 *
 * Mutating gzip'd bytes mostly breaks the gzip layer, so the harness brings
 * its own mutator for the tar inside: gunzip, mutate, mostly fix the
 * header checksums of the tar blocks, gzip again.  Now and then, and for
 * inputs that do not gunzip, it mutates the raw bytes instead, which keeps
 * the gzip layer itself fuzzed.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "fuzz-gz.h"

#define MUTATE_MAX_TAR (64 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

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

/* The tar being mutated. */
static unsigned char tar[MUTATE_MAX_TAR];

/* Recompute the checksum of every block that looks like a ustar header. */
static void fix_checksums(unsigned char *buf, size_t len)
{
	size_t off;

	for (off = 0; off + TAR_BLOCK <= len; off += TAR_BLOCK) {
		unsigned char *h = buf + off;

		if (memcmp(h + 257, "ustar", 5))
			continue;
		fuzz_tar_checksum(h);
		h[155] = ' ';
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	size_t len, n;

	if (seed % 8 == 0 || !fuzz_zlib_init() ||
	    !(len = fuzz_gunzip(data, size, tar, sizeof(tar))))
		return LLVMFuzzerMutate(data, size, max_size);
	/* Room for a few more blocks, not for the mutator to bloat. */
	n = len + 4 * TAR_BLOCK < sizeof(tar) ? len + 4 * TAR_BLOCK :
						sizeof(tar);
	len = LLVMFuzzerMutate(tar, len, n);
	if ((seed / 8) % 4)
		fix_checksums(tar, len);
	n = fuzz_gzip(tar, len, data, max_size);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
