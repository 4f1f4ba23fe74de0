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
 * harness brings its own mutator: it unpacks the tar, mutates one of its
 * files with libFuzzer's mutator, usually rewrites the manifest's "files"
 * to match (as the agent does) and packs it again.  Now and then,
 * and for inputs that are not bundles, it mutates the raw bytes instead.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bundle.h"
#include "ingest.h"
#include "manifest.h"
#include "fuzz-gz.h"

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

/*
 * The mutator works on the tar itself, with zlib streams set up once:
 * unpacking and packing through libarchive for every mutation would cost
 * several times the ingest it feeds.  It handles the plain ustar members
 * the agent and fuzz/seeds.sh write; anything else is mutated raw.
 */
#define MAX_TAR (64 * 1024)
#define MAX_MEMBERS 64

static unsigned char tar_in[MAX_TAR], tar_out[MAX_TAR], mutated[MAX_TAR / 4];
static char names[MAX_MEMBERS][101];
static struct bundle_file files[MAX_MEMBERS];

static size_t octal(const unsigned char *p, size_t n)
{
	size_t v = 0;

	for (; n && *p == ' '; p++, n--)
		;
	for (; n && *p >= '0' && *p <= '7'; p++, n--)
		v = v * 8 + (size_t)(*p - '0');
	return v;
}

/* The members of the gzip'd tar @data into files[]: how many, 0 when it
 * is not a gzip'd tar of plain ustar files. */
static size_t untar(const uint8_t *data, size_t size)
{
	size_t len, off = 0, n = 0, fsize;

	len = fuzz_gunzip(data, size, tar_in, sizeof(tar_in));
	while (off + TAR_BLOCK <= len && tar_in[off]) {
		const unsigned char *h = tar_in + off;

		if (n == MAX_MEMBERS || memcmp(h + 257, "ustar", 5) ||
		    (h[156] != '0' && h[156] != '\0'))
			return 0;
		fsize = octal(h + 124, 12);
		if (fsize > len - off - TAR_BLOCK)
			return 0;
		memcpy(names[n], h, 100);
		names[n][100] = '\0';
		files[n].name = names[n];
		files[n].data = (unsigned char *)h + TAR_BLOCK;
		files[n].size = fsize;
		n++;
		off += TAR_BLOCK +
		       (fsize + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	}
	return n;
}

/* files[] as a gzip'd ustar into @out: its length, 0 when over @cap. */
static size_t tar_gzip(size_t n, uint8_t *out, size_t cap)
{
	size_t i, len = 0, pad;

	for (i = 0; i < n; i++) {
		unsigned char *h = tar_out + len;

		pad = (files[i].size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
		if (len + TAR_BLOCK + pad + 2 * TAR_BLOCK > sizeof(tar_out))
			return 0;
		memset(h, 0, TAR_BLOCK);
		memcpy(h, files[i].name, strlen(files[i].name));
		memcpy(h + 100, "0000644", 7);
		memcpy(h + 108, "0000000", 7);
		memcpy(h + 116, "0000000", 7);
		snprintf((char *)h + 124, 12, "%011zo", files[i].size);
		memcpy(h + 136, "00000000000", 11);
		h[156] = '0';
		memcpy(h + 257,
		       "ustar\0"
		       "00",
		       8);
		fuzz_tar_checksum(h);
		len += TAR_BLOCK;
		memcpy(tar_out + len, files[i].data, files[i].size);
		memset(tar_out + len + files[i].size, 0, pad - files[i].size);
		len += pad;
	}
	memset(tar_out + len, 0, 2 * TAR_BLOCK);
	len += 2 * TAR_BLOCK;
	return fuzz_gzip(tar_out, len, out, cap);
}

/* Point manifest.json's "files" at the files as they are now; the new
 * text is malloc'd into *@text (caller frees). */
static void refresh_files(size_t n, char **text)
{
	struct bundle b = { .nfiles = n, .files = files };
	json_t *root, *list;
	char *s;
	size_t i;

	for (i = 0; i < n && strcmp(files[i].name, BUNDLE_MANIFEST); i++)
		;
	if (i == n)
		return;
	root = json_loadb((const char *)files[i].data, files[i].size, 0, NULL);
	s = manifest_files_json(&b);
	list = s ? json_loads(s, 0, NULL) : NULL;
	free(s);
	if (json_is_object(root) && list &&
	    !json_object_set_new(root, "files", list)) {
		list = NULL;
		*text = json_dumps(root, JSON_INDENT(1));
		if (*text) {
			files[i].data = (unsigned char *)*text;
			files[i].size = strlen(*text);
		}
	}
	json_decref(list);
	json_decref(root);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	char *manifest = NULL;
	struct bundle_file *f;
	size_t n, len, cap;

	if (seed % 8 == 0 || !fuzz_zlib_init() || !(n = untar(data, size)))
		return LLVMFuzzerMutate(data, size, max_size);
	f = &files[(seed / 8) % n];
	if (f->size > sizeof(mutated) - TAR_BLOCK)
		return LLVMFuzzerMutate(data, size, max_size);
	memcpy(mutated, f->data, f->size);
	cap = f->size + TAR_BLOCK;
	f->size = LLVMFuzzerMutate(mutated, f->size, cap);
	f->data = mutated;
	if ((seed / 256) % 4)
		refresh_files(n, &manifest);
	len = tar_gzip(n, data, max_size);
	free(manifest);
	return len ? len : LLVMFuzzerMutate(data, size, max_size);
}
