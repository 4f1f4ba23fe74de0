// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for rtlab_config_parse(), the reader of the lab's
 * `key = value` configuration file.  The reader takes a C string, as
 * rtlab_config_load() hands it the file's text; a file with a NUL byte is
 * read up to it, so the input is cut there too.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtlab_err err = { "" };
	struct rtlab_config cfg;
	char *text;

	text = strndup((const char *)data, size);
	if (!text)
		return 0;
	if (rtlab_config_init(&cfg)) {
		free(text);
		return 0;
	}
	if (!rtlab_config_parse(&cfg, text, "fuzz.conf", &err)) {
		if (!cfg.listen || !cfg.max_upload_mb ||
		    cfg.max_upload_mb > 65536)
			abort();
	}
	rtlab_config_cleanup(&cfg);
	rtlab_config_cleanup(&cfg);
	free(text);
	return 0;
}
