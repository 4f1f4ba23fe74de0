// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for rt_summary_parse(), the reader of the --json of
 * signaltest, pmqtest, cyclicdeadline and pi_stress (the first byte picks
 * the tool).  What parses must serialize (rt_summary_to_json()) with one
 * entry per thread.
 */

#include <stdint.h>
#include <stdlib.h>

#include "rttests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rt_tool tools[] = { RT_TOOL_SIGNALTEST,
					      RT_TOOL_PMQTEST,
					      RT_TOOL_CYCLICDEADLINE,
					      RT_TOOL_PI_STRESS };
	struct rtlab_err err = { "" };
	struct rt_summary s;
	json_t *j;

	if (!size)
		return 0;
	if (!rt_summary_parse(tools[data[0] & 3], (const char *)data + 1,
			      size - 1, &s, &err)) {
		j = rt_summary_to_json(&s);
		if (j && json_array_size(json_object_get(j, "threads")) !=
				 s.nthreads)
			abort();
		json_decref(j);
	}
	rt_summary_cleanup(&s);
	rt_summary_cleanup(&s);
	return 0;
}
