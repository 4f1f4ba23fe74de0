// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for rtla_hist_parse(), the reader of rtla timerlat
 * and osnoise hist text (the first byte picks the tool).  A result that
 * parses is read back bucket by bucket and its counts must add up to the
 * samples.
 */

#include <stdint.h>
#include <stdlib.h>

#include "rtla.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct ct_result res;
	enum rt_tool tool;
	unsigned int t;
	uint32_t i;

	if (!size)
		return 0;
	tool = data[0] & 1 ? RT_TOOL_OSNOISE : RT_TOOL_TIMERLAT;
	if (!rtla_hist_parse(tool, (const char *)data + 1, size - 1, 0, &res,
			     &err)) {
		for (t = 0; t < res.nthreads; t++) {
			const struct hist *h = &res.threads[t];
			uint64_t sum = h->overflows;

			for (i = 0; i < h->nbuckets; i++)
				sum += h->counts[i];
			if (sum != h->samples || !h->metric[0])
				abort();
		}
	}
	ct_result_cleanup(&res);
	ct_result_cleanup(&res);
	return 0;
}
