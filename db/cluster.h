/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CLUSTER_H
#define RTLAB_CLUSTER_H

/*
 * The embedded PostgreSQL cluster under STATE_DIR/pg:
 *
 *   pg/data   the cluster (initdb --auth=trust -U postgres -E UTF8 --locale=C)
 *   pg/run    its unix socket; no TCP unless started with a port
 *   pg/log    the server's log
 *   pg/port   the port it was last started with (socket name .s.PGSQL.N)
 *
 * PostgreSQL refuses to run as root, so as root the cluster belongs to and
 * runs as the `postgres` system user.  RTLAB_DB (or `db` in the
 * configuration file) points rtlab at another server instead; that one is
 * not ours to start or stop.
 */

#include <stdbool.h>
#include "error.h"

#define CLUSTER_DEFAULT_PORT 5432
#define CLUSTER_DBNAME "rtlab"
#define CLUSTER_USER "postgres"

enum db_origin {
	DB_ORIGIN_EMBEDDED, /* the cluster under the state directory */
	DB_ORIGIN_ENV,	    /* $RTLAB_DB */
	DB_ORIGIN_CONFIG,   /* `db` in the configuration file */
};

struct cluster {
	char *state_dir;
	char *pg_dir;	 /* STATE_DIR/pg */
	char *data_dir;	 /* STATE_DIR/pg/data */
	char *run_dir;	 /* STATE_DIR/pg/run, the socket directory */
	char *log_path;	 /* STATE_DIR/pg/log */
	char *port_path; /* STATE_DIR/pg/port */
	int port;	 /* last started port, CLUSTER_DEFAULT_PORT */
};

/**
 * cluster_init() - the paths of the embedded cluster under
 * rtlab_state_dir() (nothing is created).  Return: 0 or -ENOMEM.
 * Caller releases with cluster_cleanup().
 */
int cluster_init(struct cluster *c) __must_check;

/** cluster_cleanup() - free the paths; safe twice and on a zeroed struct. */
void cluster_cleanup(struct cluster *c);

/**
 * cluster_pg_bindir() - the PostgreSQL server binaries: $RTLAB_PG_BINDIR,
 * else /usr/lib/postgresql/15/bin, else the highest
 * /usr/lib/postgresql/N/bin.  Return: malloc'd path (caller frees), or NULL
 * with @err saying what to install.
 */
char *cluster_pg_bindir(struct rtlab_err *err);

/**
 * cluster_conninfo() - the conninfo of the embedded cluster's database:
 * "host=STATE_DIR/pg/run port=N dbname=rtlab user=postgres".
 * Return: malloc'd string, caller frees; NULL on -ENOMEM.
 */
char *cluster_conninfo(const struct cluster *c, const char *dbname);

/**
 * cluster_conninfo_resolve() - the conninfo every command uses: $RTLAB_DB,
 * else `db` from the configuration file, else the embedded cluster's.
 * @origin: set to where it came from (may be NULL).
 * Return: malloc'd string, caller frees; NULL with @err set when the
 * configuration file is unreadable, or on -ENOMEM.
 */
char *cluster_conninfo_resolve(enum db_origin *origin, struct rtlab_err *err);

/**
 * cluster_conninfo_redact() - @conninfo without its password, as
 * "key=value ..." for messages; an unparsable one is quoted as it is.
 */
void cluster_conninfo_redact(const char *conninfo, char *out, size_t size);

/**
 * cluster_running() - whether the cluster's postmaster is alive (from
 * postmaster.pid).  Return: its pid (> 0), 0 when not running.
 */
int cluster_running(const struct cluster *c);

/**
 * cluster_start() - create the cluster the first time (initdb), write its
 * settings (unix socket only, or also 127.0.0.1:@tcp_port when @tcp_port
 * > 0), start it (pg_ctl -w) and create database rtlab if absent.  Already
 * running is success (@was_running set, settings left alone).  As root the
 * work runs as the `postgres` user, who must be able to reach the state
 * directory; if not, @err names the directory in the way.
 * Return: 0 or a negative errno with @err set.
 */
int cluster_start(struct cluster *c, int tcp_port, bool *was_running,
		  struct rtlab_err *err) __must_check;

/**
 * cluster_stop() - pg_ctl stop -m fast.  Not running is success.
 * Return: 0 or a negative errno with @err set.
 */
int cluster_stop(struct cluster *c, struct rtlab_err *err) __must_check;

#endif
