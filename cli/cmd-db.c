// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab db: start, stop and inspect the embedded PostgreSQL, apply the
 * schema migrations, and open psql on whichever database rtlab uses.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../db/cluster.h"
#include "config.h"
#include "../db/db.h"
#include "commands.h"
#include "common.h"

static void db_usage(FILE *out)
{
	fprintf(out,
		"usage: rtlab db start [--tcp PORT]\n"
		"       rtlab db stop | status | migrate | conninfo\n"
		"       rtlab db psql [PSQL-ARGS...]\n\n"
		"start     create (first time) and start the embedded PostgreSQL under\n"
		"          STATE_DIR/pg on a unix socket, create database rtlab, migrate.\n"
		"          --tcp PORT also listens on 127.0.0.1:PORT (trust auth: any\n"
		"          local user gets in).  Already running is fine.\n"
		"stop      stop the embedded PostgreSQL (fast shutdown)\n"
		"status    where the database is, whether it runs, schema version,\n"
		"          how many boards and runs it holds\n"
		"migrate   apply the schema/NNN_name.sql files not applied yet\n"
		"conninfo  print the libpq connection string rtlab uses\n"
		"psql      run psql on that database\n\n"
		"Environment: RTLAB_DB (use that database; start/stop then refuse),\n"
		"RTLAB_STATE_DIR (default /var/lib/rtlab as root or the rtlab\n"
		"user, else ~/.local/state/rtlab), RTLAB_PG_BINDIR (PostgreSQL's\n"
		"programs), RTLAB_CONFIG (configuration file, default\n"
		"/etc/rtlab/rtlab.conf if it exists, else STATE_DIR/rtlab.conf).\n");
}

static const char *origin_name(enum db_origin o)
{
	switch (o) {
	case DB_ORIGIN_ENV:
		return "RTLAB_DB";
	case DB_ORIGIN_CONFIG:
		return "the configuration file's 'db'";
	default:
		return "the embedded cluster";
	}
}

/* start/stop manage only the embedded cluster. */
static int refuse_external(const char *verb)
{
	struct rtlab_err err = { "" };
	enum db_origin origin;
	char *ci;

	ci = cluster_conninfo_resolve(&origin, &err);
	if (!ci) {
		fprintf(stderr, "rtlab db %s: %s\n", verb,
			err.msg[0] ? err.msg : "out of memory");
		return 1;
	}
	free(ci);
	if (origin == DB_ORIGIN_EMBEDDED)
		return 0;
	fprintf(stderr,
		"rtlab db %s: the database comes from %s, which rtlab does not manage; "
		"start or stop that server yourself ('rtlab db migrate' and "
		"'rtlab db status' work on it), or unset it to use the "
		"embedded PostgreSQL\n",
		verb, origin_name(origin));
	return 1;
}

static int do_migrate(PGconn *conn, const char *verb)
{
	struct rtlab_err err = { "" };
	int64_t version = 0;
	char *schema;
	int n;

	schema = rtlab_data_path("schema");
	if (!schema) {
		fprintf(stderr, "rtlab db %s: out of memory\n", verb);
		return 1;
	}
	n = db_migrate(conn, schema, &err);
	if (n < 0) {
		fprintf(stderr, "rtlab db %s: %s\n", verb, err.msg);
		free(schema);
		return 1;
	}
	if (db_query_int64(conn, &err,
			   "SELECT max(version) FROM schema_version", 0, NULL,
			   &version))
		version = 0;
	printf("schema: applied %d migration%s from %s; version %" PRId64 "\n",
	       n, n == 1 ? "" : "s", schema, version);
	free(schema);
	return 0;
}

static int db_start(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tcp", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	bool was_running = false;
	struct cluster c;
	PGconn *conn;
	int opt, port = 0, ret;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			port = (int)strtol(optarg, &end, 10);
			if (*end || port < 1 || port > 65535) {
				fprintf(stderr,
					"rtlab db start: --tcp '%s': expected a port from 1 to 65535\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			db_usage(stdout);
			return 0;
		default:
			db_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		db_usage(stderr);
		return EXIT_USAGE;
	}
	if (refuse_external("start"))
		return 1;
	if (cluster_init(&c)) {
		fprintf(stderr, "rtlab db start: out of memory\n");
		return 1;
	}
	ret = cluster_start(&c, port, &was_running, &err);
	if (ret) {
		fprintf(stderr, "rtlab db start: %s\n", err.msg);
		cluster_cleanup(&c);
		return 1;
	}
	if (was_running)
		printf("embedded PostgreSQL already running (pid %d), socket in %s, port %d%s\n",
		       cluster_running(&c), c.run_dir, c.port,
		       port && port != c.port ?
			       " (--tcp ignored: stop it first)" :
			       "");
	else if (port)
		printf("embedded PostgreSQL started: socket in %s and 127.0.0.1 port %d, log %s\n",
		       c.run_dir, c.port, c.log_path);
	else
		printf("embedded PostgreSQL started: socket in %s, port %d, log %s\n",
		       c.run_dir, c.port, c.log_path);
	cluster_cleanup(&c);
	conn = cli_connect("db start");
	if (!conn)
		return 1;
	ret = do_migrate(conn, "start");
	db_disconnect(conn);
	return ret;
}

static int db_stop(void)
{
	struct rtlab_err err = { "" };
	struct cluster c;
	int pid;

	if (refuse_external("stop"))
		return 1;
	if (cluster_init(&c)) {
		fprintf(stderr, "rtlab db stop: out of memory\n");
		return 1;
	}
	pid = cluster_running(&c);
	if (!pid) {
		printf("embedded PostgreSQL is not running (%s)\n", c.data_dir);
		cluster_cleanup(&c);
		return 0;
	}
	if (cluster_stop(&c, &err)) {
		fprintf(stderr, "rtlab db stop: %s\n", err.msg);
		cluster_cleanup(&c);
		return 1;
	}
	printf("embedded PostgreSQL stopped (was pid %d)\n", pid);
	cluster_cleanup(&c);
	return 0;
}

static void print_count(PGconn *conn, const char *label, const char *sql)
{
	struct rtlab_err err = { "" };
	int64_t n = 0;

	if (db_query_int64(conn, &err, sql, 0, NULL, &n))
		printf("%-10s ? (%s)\n", label,
		       err.msg[0] ? err.msg : "no answer");
	else
		printf("%-10s %" PRId64 "\n", label, n);
}

static int db_status(void)
{
	struct rtlab_err err = { "" };
	enum db_origin origin;
	int64_t version = 0;
	struct cluster c;
	PGconn *conn;
	char *ci;
	int pid, ret;

	ci = cluster_conninfo_resolve(&origin, &err);
	if (!ci) {
		fprintf(stderr, "rtlab db status: %s\n", err.msg);
		return 1;
	}
	if (cluster_init(&c)) {
		free(ci);
		fprintf(stderr, "rtlab db status: out of memory\n");
		return 1;
	}
	printf("%-10s %s\n", "state dir:", c.state_dir);
	{
		char where[512];

		cluster_conninfo_redact(ci, where, sizeof(where));
		printf("%-10s %s: %s\n", "database:", origin_name(origin),
		       where);
	}
	if (origin == DB_ORIGIN_EMBEDDED) {
		pid = cluster_running(&c);
		if (pid)
			printf("%-10s running (pid %d)\n", "server:", pid);
		else
			printf("%-10s not running (start it with 'rtlab db start')\n",
			       "server:");
		printf("%-10s %s/.s.PGSQL.%d\n", "socket:", c.run_dir, c.port);
		printf("%-10s %s\n", "data dir:", c.data_dir);
		printf("%-10s %s\n", "log:", c.log_path);
	}
	cluster_cleanup(&c);
	free(ci);

	conn = db_connect(&err);
	if (!conn) {
		printf("%-10s unreachable: %s\n", "schema:", err.msg);
		return 1;
	}
	ret = db_query_int64(conn, &err,
			     "SELECT max(version) FROM schema_version", 0, NULL,
			     &version);
	if (ret == 0)
		printf("%-10s version %" PRId64 "\n", "schema:", version);
	else
		printf("%-10s none (run 'rtlab db migrate')\n", "schema:");
	if (ret == 0) {
		print_count(conn, "boards:", "SELECT count(*) FROM boards");
		print_count(conn, "runs:", "SELECT count(*) FROM runs");
	}
	db_disconnect(conn);
	return 0;
}

static int db_migrate_cmd(void)
{
	PGconn *conn;
	int ret;

	conn = cli_connect("db migrate");
	if (!conn)
		return 1;
	ret = do_migrate(conn, "migrate");
	db_disconnect(conn);
	return ret;
}

static int db_psql(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	char *ci, *bindir, prog[4096], **args;
	int i;

	ci = cluster_conninfo_resolve(NULL, &err);
	if (!ci) {
		fprintf(stderr, "rtlab db psql: %s\n",
			err.msg[0] ? err.msg : "out of memory");
		return 1;
	}
	args = calloc((size_t)argc + 4, sizeof(*args));
	if (!args) {
		free(ci);
		fprintf(stderr, "rtlab db psql: out of memory\n");
		return 1;
	}
	/* Prefer the psql matching the server binaries; else $PATH's. */
	bindir = cluster_pg_bindir(NULL);
	snprintf(prog, sizeof(prog), "%s/psql", bindir ? bindir : "");
	free(bindir);
	if (access(prog, X_OK))
		snprintf(prog, sizeof(prog), "psql");
	args[0] = prog;
	args[1] = "-d";
	args[2] = ci;
	for (i = 1; i < argc; i++)
		args[i + 2] = argv[i];
	execvp(prog, args);
	fprintf(stderr, "rtlab db psql: cannot run %s: %s\n", prog,
		strerror(errno));
	free(args);
	free(ci);
	return 1;
}

static int db_print_conninfo(void)
{
	struct rtlab_err err = { "" };
	char *ci = cluster_conninfo_resolve(NULL, &err);

	if (!ci) {
		fprintf(stderr, "rtlab db conninfo: %s\n",
			err.msg[0] ? err.msg : "out of memory");
		return 1;
	}
	printf("%s\n", ci);
	free(ci);
	return 0;
}

int cmd_db(int argc, char **argv)
{
	const char *sub;

	if (argc < 2) {
		db_usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") ||
	    !strcmp(sub, "help")) {
		db_usage(stdout);
		return 0;
	}
	if (!strcmp(sub, "start"))
		return db_start(argc - 1, argv + 1);
	if (!strcmp(sub, "psql"))
		return db_psql(argc - 1, argv + 1);
	if (argc > 2) {
		if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
			db_usage(stdout);
			return 0;
		}
		fprintf(stderr, "rtlab db %s: unexpected argument '%s'\n", sub,
			argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "stop"))
		return db_stop();
	if (!strcmp(sub, "status"))
		return db_status();
	if (!strcmp(sub, "migrate"))
		return db_migrate_cmd();
	if (!strcmp(sub, "conninfo"))
		return db_print_conninfo();
	fprintf(stderr, "rtlab db: unknown command '%s'\n", sub);
	db_usage(stderr);
	return EXIT_USAGE;
}
