// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `rtlab-agent flush`: upload the bundles a run spooled because the
 * server could not take them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "upload.h"

static void flush_usage(FILE *f)
{
	fprintf(f,
		"usage: rtlab-agent flush [--spool DIR] [--force] --upload URL --token TOKEN\n"
		"\n"
		"Upload every bundle spooled in DIR that is due; delete each once the server\n"
		"stored it; move one the server refuses (4xx) to DIR/" UPLOAD_QUARANTINE
		"/ with the\n"
		"server's answer beside it (NAME" UPLOAD_REPLY_SUFFIX
		"); after no answer or a 5xx, record\n"
		"the next attempt (%d s, doubling, at most %d s) in NAME.bundle" UPLOAD_RETRY_SUFFIX
		"\n"
		"and go on with the next bundle.\n"
		"\n"
		"  --spool DIR     spool directory (default $RTLAB_SPOOL or %s)\n"
		"  --force         retry every bundle now, whatever its next attempt time\n"
		"  --upload URL    e.g. http://127.0.0.1:8080/api/v1/runs\n"
		"  --token TOKEN   the board's token (default $RTLAB_TOKEN)\n"
		"\n"
		"Exit status: 0 all stored (or nothing to do), 1 some left or quarantined,\n"
		"2 usage error.\n",
		UPLOAD_BACKOFF_FIRST_S, UPLOAD_BACKOFF_MAX_S,
		UPLOAD_DEFAULT_SPOOL);
}

int cmd_flush(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "spool", required_argument, NULL, 's' },
		{ "upload", required_argument, NULL, 'u' },
		{ "token", required_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spool = NULL, *url = NULL, *token = getenv("RTLAB_TOKEN");
	struct rtlab_err err = { "" };
	unsigned int left = 0;
	bool force = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			spool = optarg;
			break;
		case 'u':
			url = optarg;
			break;
		case 't':
			token = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			flush_usage(stdout);
			return AGENT_EXIT_OK;
		default:
			flush_usage(stderr);
			return AGENT_EXIT_USAGE;
		}
	}
	if (optind < argc || !url || !token || !*token) {
		fprintf(stderr, "rtlab-agent flush: %s\n",
			optind < argc ? "unexpected argument" :
			!url	      ? "--upload URL is required" :
			       "--token TOKEN (or $RTLAB_TOKEN) is required");
		flush_usage(stderr);
		return AGENT_EXIT_USAGE;
	}
	if (!upload_url_valid(url)) {
		fprintf(stderr,
			"rtlab-agent flush: --upload %s: expected an http:// or https:// URL\n",
			url);
		return AGENT_EXIT_USAGE;
	}
	spool = upload_spool_dir(spool);
	ret = upload_flush(url, token, spool, force ? 0 : time(NULL), &left,
			   &err);
	if (ret) {
		fprintf(stderr,
			"rtlab-agent flush: %u bundle(s) still in %s%s\n", left,
			spool,
			ret == -EBADMSG || ret == -EAGAIN ?
				"" :
				"; the last error above");
		return AGENT_EXIT_FAILURE;
	}
	printf("rtlab-agent flush: nothing left in %s\n", spool);
	return AGENT_EXIT_OK;
}
