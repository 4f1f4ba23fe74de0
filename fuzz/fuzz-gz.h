/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_FUZZ_GZ_H
#define RTLAB_FUZZ_GZ_H

/*
 * The gzip layer of the harnesses whose inputs are bundles (gzip'd tars):
 * their mutators gunzip an input, mutate the tar inside and gzip it again.
 * The zlib streams are set up once and reset per input, as allocating them
 * per mutation costs more than the reader being fuzzed.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#define TAR_BLOCK 512

static z_stream fuzz_inf, fuzz_def;
static int fuzz_zlib_ready;

/* 1 once both streams are ready, 0 when zlib could not set them up. */
static inline int fuzz_zlib_init(void)
{
	if (!fuzz_zlib_ready &&
	    inflateInit2(&fuzz_inf, 16 + MAX_WBITS) == Z_OK &&
	    deflateInit2(&fuzz_def, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) == Z_OK)
		fuzz_zlib_ready = 1;
	return fuzz_zlib_ready;
}

/* gunzip @size bytes of @data into @out: the length, 0 when it does not
 * gunzip into @cap bytes. */
static inline size_t fuzz_gunzip(const uint8_t *data, size_t size,
				 unsigned char *out, size_t cap)
{
	inflateReset(&fuzz_inf);
	fuzz_inf.next_in = (unsigned char *)data;
	fuzz_inf.avail_in = (uInt)size;
	fuzz_inf.next_out = out;
	fuzz_inf.avail_out = (uInt)cap;
	if (inflate(&fuzz_inf, Z_FINISH) != Z_STREAM_END)
		return 0;
	return fuzz_inf.total_out;
}

/* gzip @len bytes of @in into @out: the length, 0 when over @cap. */
static inline size_t fuzz_gzip(const unsigned char *in, size_t len,
			       uint8_t *out, size_t cap)
{
	deflateReset(&fuzz_def);
	fuzz_def.next_in = (unsigned char *)in;
	fuzz_def.avail_in = (uInt)len;
	fuzz_def.next_out = out;
	fuzz_def.avail_out = (uInt)cap;
	if (deflate(&fuzz_def, Z_FINISH) != Z_STREAM_END)
		return 0;
	return fuzz_def.total_out;
}

/* Write the checksum of ustar header block @h. */
static inline void fuzz_tar_checksum(unsigned char *h)
{
	unsigned int sum = 0;
	size_t i;

	memset(h + 148, ' ', 8);
	for (i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

#endif
