// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for testcase_parse(), the agent's reader of testcase
 * YAML.  A testcase that parses is also turned into the manifest's JSON
 * and into its tool list, as the agent does before a run.
 */

#include <stdint.h>
#include <stdlib.h>

#include "testcase.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct testcase tc;
	const char **tools;
	json_t *j;

	if (!testcase_parse("fuzz.yaml", (const char *)data, size, &tc, &err)) {
		j = testcase_to_json(&tc);
		if (!j)
			abort();
		json_decref(j);
		tools = testcase_tools(&tc);
		if (!tools || !tools[0])
			abort(); /* at least the measuring tool */
		free(tools);
	}
	testcase_cleanup(&tc);
	testcase_cleanup(&tc);
	return 0;
}
