// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `rtlab-agent flush`: upload the bundles a run spooled because the
 * server could not take them.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "upload.h"

static void flush_usage(FILE *f)
{
	fprintf(f,
"usage: rtlab-agent flush [--spool DIR] --upload URL --token TOKEN\n"
"\n"
"Upload every bundle spooled in DIR; delete each once the server stored it,\n"
"move one the server rejects to DIR/rejected/.\n"
"\n"
"  --spool DIR     spool directory (default $RTLAB_SPOOL or %s)\n"
"  --upload URL    e.g. http://127.0.0.1:8080/api/v1/runs\n"
"  --token TOKEN   the board's token (default $RTLAB_TOKEN)\n"
"\n"
"Exit status: 0 all stored (or nothing to do), 1 some left or rejected,\n"
"2 usage error.\n", UPLOAD_DEFAULT_SPOOL);
}

int cmd_flush(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "spool", required_argument, NULL, 's' },
		{ "upload", required_argument, NULL, 'u' },
		{ "token", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spool = NULL, *url = NULL, *token = getenv("RTLAB_TOKEN");
	struct rtlab_err err = { "" };
	unsigned int left = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': spool = optarg; break;
		case 'u': url = optarg; break;
		case 't': token = optarg; break;
		case 'h': flush_usage(stdout); return AGENT_EXIT_OK;
		default: flush_usage(stderr); return AGENT_EXIT_USAGE;
		}
	}
	if (optind < argc || !url || !token || !*token) {
		fprintf(stderr, "rtlab-agent flush: %s\n",
			optind < argc ? "unexpected argument" :
			!url ? "--upload URL is required" :
			"--token TOKEN (or $RTLAB_TOKEN) is required");
		flush_usage(stderr);
		return AGENT_EXIT_USAGE;
	}
	if (!upload_url_valid(url)) {
		fprintf(stderr, "rtlab-agent flush: --upload %s: expected an http:// or https:// URL\n",
			url);
		return AGENT_EXIT_USAGE;
	}
	spool = upload_spool_dir(spool);
	ret = upload_flush(url, token, spool, &left, &err);
	if (ret) {
		fprintf(stderr, "rtlab-agent flush: %u bundle(s) still in %s\n",
			left, spool);
		return AGENT_EXIT_FAILURE;
	}
	printf("rtlab-agent flush: nothing left in %s\n", spool);
	return AGENT_EXIT_OK;
}
