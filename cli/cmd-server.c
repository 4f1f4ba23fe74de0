// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab server: run the HTTP API (server/http.c, server/api.c) until
 * SIGINT or SIGTERM.  Options override the lab configuration file's
 * listen and max_upload_mb, and set the server's limits (docs/api.md).
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "../db/db-runs.h"
#include "../db/db.h"
#include "../server/api.h"
#include "../server/http.h"
#include "commands.h"
#include "common.h"

static void server_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab server [--listen HOST:PORT] [--max-upload-mb N]\n"
		"                    [--threads N] [--max-connections N]\n"
		"                    [--max-connections-per-ip N]\n"
		"                    [--request-timeout S] [--ingest-threads N]\n"
		"                    [--ingest-queue N] [--slow-threads N]\n"
		"                    [--slow-queue N] [--quiet]\n\n"
		"Serve the rtlab HTTP API (docs/api.md) until SIGINT/SIGTERM.\n"
		"  --listen HOST:PORT  address to bind (default: the configuration\n"
		"                      file's 'listen', else " RTLAB_DEFAULT_LISTEN
		");\n"
		"                      port 0 picks a free port, printed at start\n"
		"  --max-upload-mb N   largest bundle accepted (default: 'max_upload_mb',\n"
		"                      else %d); larger uploads get 413\n"
		"  --threads N         worker threads, each with its own database\n"
		"                      connection (default 4)\n"
		"  --max-connections N open connections in total (default %d)\n"
		"  --max-connections-per-ip N\n"
		"                      open connections per client address\n"
		"                      (default %d; 0: no per-address cap)\n"
		"  --request-timeout S seconds a connection gets to deliver a\n"
		"                      whole request, headers and body\n"
		"                      (default %d)\n"
		"  --ingest-threads N  threads that check and store uploads, off\n"
		"                      the connection threads (default %d)\n"
		"  --ingest-queue N    uploads that may wait for them; beyond,\n"
		"                      503 with Retry-After (default %d)\n"
		"  --slow-threads N    threads for plots, comparisons and spike\n"
		"                      analyses (default %d)\n"
		"  --slow-queue N      slow requests that may wait for them;\n"
		"                      beyond, 503 with Retry-After (default %d)\n"
		"  --quiet             no request log on stderr\n\n"
		"Reads are public unless 'reads = token' in the configuration\n"
		"file or RTLAB_READS=token: then every read but /healthz needs\n"
		"a token of any role (docs/security.md).\n",
		RTLAB_DEFAULT_MAX_UPLOAD_MB, HTTP_DEFAULT_MAX_CONNECTIONS,
		HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP,
		HTTP_DEFAULT_REQUEST_TIMEOUT_S, HTTP_DEFAULT_INGEST_THREADS,
		HTTP_DEFAULT_INGEST_QUEUE, HTTP_DEFAULT_SLOW_THREADS,
		HTTP_DEFAULT_SLOW_QUEUE);
}

int cmd_server(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "max-upload-mb", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "max-connections", required_argument, NULL, 'C' },
		{ "max-connections-per-ip", required_argument, NULL, 'P' },
		{ "request-timeout", required_argument, NULL, 'T' },
		{ "ingest-threads", required_argument, NULL, 'I' },
		{ "ingest-queue", required_argument, NULL, 'J' },
		{ "slow-threads", required_argument, NULL, 'S' },
		{ "slow-queue", required_argument, NULL, 'Q' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_config cfg = { 0 };
	struct http_config hc = { 0 };
	struct rtlab_err err = { "" };
	const char *listen = NULL;
	unsigned int max_mb = 0, threads = 4;
	unsigned int max_conn = HTTP_DEFAULT_MAX_CONNECTIONS;
	unsigned int per_ip = HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP;
	unsigned int timeout_s = HTTP_DEFAULT_REQUEST_TIMEOUT_S;
	unsigned int ingest_threads = HTTP_DEFAULT_INGEST_THREADS;
	unsigned int ingest_queue = HTTP_DEFAULT_INGEST_QUEUE;
	unsigned int slow_threads = HTTP_DEFAULT_SLOW_THREADS;
	unsigned int slow_queue = HTTP_DEFAULT_SLOW_QUEUE;
	bool quiet = false;
	const char *env_reads;
	char *schema;
	PGconn *conn;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "l:m:t:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen = optarg;
			break;
		case 'm':
			if (opt_uint("server", "--max-upload-mb", optarg, 1,
				     65536, &max_mb))
				return EXIT_USAGE;
			break;
		case 't':
			if (opt_uint("server", "--threads", optarg, 1, 256,
				     &threads))
				return EXIT_USAGE;
			break;
		case 'C':
			if (opt_uint("server", "--max-connections", optarg, 1,
				     100000, &max_conn))
				return EXIT_USAGE;
			break;
		case 'P':
			if (opt_uint("server", "--max-connections-per-ip",
				     optarg, 0, 100000, &per_ip))
				return EXIT_USAGE;
			break;
		case 'T':
			if (opt_uint("server", "--request-timeout", optarg, 1,
				     86400, &timeout_s))
				return EXIT_USAGE;
			break;
		case 'I':
			if (opt_uint("server", "--ingest-threads", optarg, 1,
				     256, &ingest_threads))
				return EXIT_USAGE;
			break;
		case 'J':
			if (opt_uint("server", "--ingest-queue", optarg, 0,
				     10000, &ingest_queue))
				return EXIT_USAGE;
			break;
		case 'S':
			if (opt_uint("server", "--slow-threads", optarg, 1, 64,
				     &slow_threads))
				return EXIT_USAGE;
			break;
		case 'Q':
			if (opt_uint("server", "--slow-queue", optarg, 0, 10000,
				     &slow_queue))
				return EXIT_USAGE;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			server_usage(stdout);
			return 0;
		default:
			server_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rtlab server: unexpected argument '%s'\n",
			argv[optind]);
		server_usage(stderr);
		return EXIT_USAGE;
	}
	if (rtlab_config_load(&cfg, &err)) {
		fprintf(stderr, "rtlab server: %s\n", err.msg);
		goto out;
	}

	/* Fail at start, not on the first request, when the database is
	 * not there. */
	conn = cli_connect("server");
	if (!conn)
		goto out;
	schema = rtlab_data_path("schema");
	if (!schema || db_schema_ready(conn, schema, &err) ||
	    db_runs_schema_check(conn, &err)) {
		fprintf(stderr, "rtlab server: %s\n",
			schema ? err.msg : "out of memory");
		db_disconnect(conn);
		free(schema);
		goto out;
	}
	free(schema);
	db_disconnect(conn);

	hc.listen = listen ? listen : cfg.listen;
	hc.max_upload_mb = max_mb ? max_mb : cfg.max_upload_mb;
	hc.threads = threads;
	hc.max_connections = max_conn;
	hc.max_connections_per_ip = per_ip;
	hc.request_timeout_s = timeout_s;
	hc.ingest_threads = ingest_threads;
	hc.ingest_queue = ingest_queue;
	hc.slow_threads = slow_threads;
	hc.slow_queue = slow_queue;
	hc.quiet = quiet;
	hc.reads_need_token = cfg.reads_need_token;
	env_reads = getenv("RTLAB_READS");
	if (env_reads && *env_reads &&
	    rtlab_config_reads_parse(env_reads, &hc.reads_need_token)) {
		fprintf(stderr,
			"rtlab server: RTLAB_READS '%s': expected public or "
			"token\n",
			env_reads);
		goto out;
	}
	hc.handlers = server_routes;
	hc.nhandlers = server_nroutes;
	if (http_serve(&hc, &err)) {
		fprintf(stderr, "rtlab server: %s\n", err.msg);
		goto out;
	}
	ret = 0;
out:
	rtlab_config_cleanup(&cfg);
	return ret;
}
