// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for ingest_bundle(), everything between the bytes of
 * an upload and the database: unpacking, the manifest, the checksums of
 * the listed files, both histogram readers and their cross-check.  The
 * database is stubbed (fuzz/stub-db.c): what would be stored is read back
 * there instead, so a run the checks let through with an inconsistent
 * histogram shows up as a crash.
 *
 * Inputs are bundles, but a byte flipped in gzip data rarely decodes to
 * anything, and one flipped inside a file fails its checksum.  So the
 * harness brings its own mutator: it unpacks the bundle, mutates one of
 * its files with libFuzzer's mutator, usually rewrites the manifest's
 * "files" to match (as the agent does) and packs it again.  Now and then,
 * and for inputs that are not bundles, it mutates the raw bytes instead.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bundle.h"
#include "ingest.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct ingest_result res;

	/* Local ingest: the manifest's board is trusted. */
	(void)ingest_bundle(NULL, data, size, -1, NULL, &res, &err);
	return 0;
}

/* Point manifest.json's "files" at the bundle's files as they are now. */
static void refresh_files(struct bundle *b)
{
	const struct bundle_file *mf = bundle_get(b, BUNDLE_MANIFEST);
	json_t *root, *files;
	char *text;

	if (!mf)
		return;
	root = json_loadb((const char *)mf->data, mf->size, 0, NULL);
	text = manifest_files_json(b);
	files = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	if (json_is_object(root) && files &&
	    !json_object_set_new(root, "files", files)) {
		files = NULL;
		text = json_dumps(root, JSON_INDENT(1));
		if (text && bundle_add(b, BUNDLE_MANIFEST, text, strlen(text)))
			;	/* keep the manifest as it was */
		free(text);
	}
	json_decref(files);
	json_decref(root);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	struct rtlab_err err = { "" };
	struct bundle *b = NULL;
	unsigned char *buf = NULL;
	char *name = NULL;
	void *out = NULL;
	size_t n = 0, cap, outsize = 0;
	const struct bundle_file *f;

	if (seed % 8 == 0 ||
	    !(b = bundle_read_mem(data, size, &err)) || !b->nfiles)
		goto raw;
	f = &b->files[(seed / 8) % b->nfiles];
	cap = f->size + 512;
	buf = malloc(cap);
	name = strdup(f->name);
	if (!buf || !name)
		goto raw;
	memcpy(buf, f->data, f->size);
	n = LLVMFuzzerMutate(buf, f->size, cap);
	if (bundle_add(b, name, buf, n))
		goto raw;
	if ((seed / 256) % 4)
		refresh_files(b);
	if (bundle_write_mem(b, &out, &outsize, &err) || outsize > max_size)
		goto raw;
	memcpy(data, out, outsize);
	n = outsize;
	goto out;
raw:
	n = LLVMFuzzerMutate(data, size, max_size);
out:
	free(out);
	free(name);
	free(buf);
	bundle_free(b);
	return n;
}
