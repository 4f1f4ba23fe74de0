// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for ct_json_parse(), the reader of cyclictest's
 * --json file as uploaded in a bundle.  The JSON does not carry the -h
 * range, so the harness reads every input twice: with the range the
 * fixtures were made with room to spare (1000 us) and with no range at
 * all (every sample an overflow).  A result that parses must be a sane
 * one: every bucket is read back so a wrong bucket count shows as an
 * out-of-bounds read, and the counts must add up to the samples.
 */

#include <stdint.h>
#include <stdlib.h>

#include "cyclictest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_result(const struct ct_result *res)
{
	unsigned int t;
	uint32_t i;

	for (t = 0; t < res->nthreads; t++) {
		const struct hist *h = &res->threads[t];
		uint64_t sum = h->overflows;

		for (i = 0; i < h->nbuckets; i++)
			sum += h->counts[i];
		if (sum != h->samples)
			abort(); /* an accepted histogram that lies */
	}
}

static void parse(const uint8_t *data, size_t size, uint32_t range_us)
{
	struct rtlab_err err = { "" };
	struct ct_result res;

	if (!ct_json_parse((const char *)data, size, range_us, &res, &err))
		check_result(&res);
	ct_result_cleanup(&res);
	ct_result_cleanup(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse(data, size, 1000);
	parse(data, size, 0);
	return 0;
}
