// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for ct_hist_parse(), the reader of cyclictest's -h/-H
 * text.  A result that parses is read back bucket by bucket (a wrong
 * bucket count shows as an out-of-bounds read) and its counts must add up
 * to the samples.
 */

#include <stdint.h>
#include <stdlib.h>

#include "cyclictest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct ct_result res;
	unsigned int t;
	uint32_t i;

	if (!ct_hist_parse((const char *)data, size, &res, &err)) {
		for (t = 0; t < res.nthreads; t++) {
			const struct hist *h = &res.threads[t];
			uint64_t sum = h->overflows;

			for (i = 0; i < h->nbuckets; i++)
				sum += h->counts[i];
			if (sum != h->samples)
				abort();
		}
	}
	ct_result_cleanup(&res);
	ct_result_cleanup(&res);
	return 0;
}
