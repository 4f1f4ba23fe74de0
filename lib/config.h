/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CONFIG_H
#define RTLAB_CONFIG_H

/*
 * Where rtlab keeps its state and finds its shipped data, and the optional
 * lab configuration file.
 *
 * The configuration file is $RTLAB_CONFIG, else /etc/rtlab/rtlab.conf when
 * it exists, else STATE_DIR/rtlab.conf (a missing default file is fine).  It holds `key = value` lines; `#` starts
 * a comment line, blank lines are ignored, values may be double-quoted:
 *
 *   db = host=db.lab.example dbname=rtlab user=rtlab   # libpq conninfo
 *   listen = 127.0.0.1:8470                           # server address
 *   max_upload_mb = 64                                # largest bundle
 *   reads = public                 # or token: every read needs a token
 *   bugzilla_url = https://bugzilla.example.org       # where reports go
 *   bugzilla_product = Linux                          # bug fields of
 *   bugzilla_component = Realtime                     # filed reports
 *   bugzilla_version = unspecified
 *   bugzilla_api_key = ...                  # or RTLAB_BUGZILLA_API_KEY
 *   bugzilla_max_attachment_kb = 1000       # when the server does not say
 *   public_url = https://rtlab.example.org  # the server as people reach it
 *   farm_schedule = /etc/rtlab/farm.yaml    # rtlab farm tick's matrix
 *   smtp_url = smtp://127.0.0.1:25          # relay for notifications
 *   mail_from = rtlab@lab.example.org       # their From:
 *
 * The environment wins over the file (RTLAB_DB over `db`, RTLAB_READS
 * over `reads`, RTLAB_BUGZILLA_API_KEY over `bugzilla_api_key`).
 */

#include <stdbool.h>
#include "error.h"

#define RTLAB_DEFAULT_LISTEN "127.0.0.1:8470"
#define RTLAB_DEFAULT_MAX_UPLOAD_MB 64
#define RTLAB_DEFAULT_BZ_PRODUCT "Linux"
#define RTLAB_DEFAULT_BZ_COMPONENT "Realtime"
#define RTLAB_DEFAULT_BZ_VERSION "unspecified"
#define RTLAB_DEFAULT_BZ_MAX_ATTACHMENT_KB 1000 /* a stock Bugzilla's */

/**
 * rtlab_state_dir() - the directory of rtlab's mutable state (the embedded
 * PostgreSQL lives in its pg/): $RTLAB_STATE_DIR; else /var/lib/rtlab when
 * running as root or as the `rtlab` system user the services run as; else
 * $XDG_STATE_HOME/rtlab or ~/.local/state/rtlab.
 * Computed afresh on each call; nothing is created.
 * Return: a per-thread static buffer, valid until the next call; never NULL
 * (falls back to "/tmp/rtlab-UID" when even $HOME is unknown).
 */
const char *rtlab_state_dir(void);

/**
 * rtlab_cache_dir() - where fetched kernels and built initramfs archives
 * are kept: $RTLAB_CACHE_DIR, else STATE_DIR/cache.  A cache can be shared
 * by several state directories (the tests do).
 * Return: malloc'd path, caller frees; NULL on -ENOMEM.
 */
char *rtlab_cache_dir(void);

/**
 * rtlab_data_dir() - the directory of shipped data (schema/, testcases/,
 * boards/, kernels/): $RTLAB_DATADIR; else the source tree the running
 * binary was built in (the parent of the executable's directory, or its
 * grandparent for build/tests/ binaries, when it contains schema/); else
 * the installed tree around it (PREFIX/bin/rtlab reads PREFIX/share/rtlab);
 * else the compiled-in RTLAB_DATADIR.
 * Return: malloc'd path, caller frees; NULL on -ENOMEM.
 */
char *rtlab_data_dir(void);

/**
 * rtlab_data_path() - rtlab_data_dir() joined with @rel, e.g.
 * rtlab_data_path("schema").  The path need not exist.
 * Return: malloc'd path, caller frees; NULL on -ENOMEM.
 */
char *rtlab_data_path(const char *rel);

struct rtlab_config {
	char *path;		    /* file read, NULL when none */
	char *db;		    /* libpq conninfo, NULL: embedded */
	char *listen;		    /* host:port the server binds */
	unsigned int max_upload_mb; /* largest accepted upload */
	bool reads_need_token;	    /* reads = token: no public reads */
	char *bugzilla_url;	    /* base URL, NULL: none configured */
	char *bugzilla_product;	    /* bug fields of filed reports */
	char *bugzilla_component;
	char *bugzilla_version;
	char *bugzilla_api_key;			 /* NULL: none in the file */
	unsigned int bugzilla_max_attachment_kb; /* when the server does
						  * not publish it */
	char *public_url; /* the server's URL for people, NULL: from listen */
	char *farm_schedule; /* the nightly matrix (YAML), NULL: none */
	char *smtp_url;	     /* smtp:// relay for notifications, NULL: none */
	char *mail_from;     /* From: of notifications, NULL: rtlab@HOST */
};

/**
 * rtlab_agent_path() - the rtlab-agent binary to run or to put on a
 * board: $RTLAB_AGENT when set, else the one beside the running binary,
 * else one directory up (where the tests and benchmarks find it), else
 * the first on $PATH.
 * Return: malloc'd path, caller frees; NULL when there is none (or on
 * -ENOMEM).
 */
char *rtlab_agent_path(void);

/**
 * rtlab_config_path() - $RTLAB_CONFIG; else SYSCONFDIR/rtlab/rtlab.conf
 * (/etc/rtlab/rtlab.conf, the installed lab's file) when it exists; else
 * STATE_DIR/rtlab.conf.
 * Return: malloc'd path, caller frees; NULL on -ENOMEM.
 */
char *rtlab_config_path(void);

/**
 * rtlab_config_parse() - fill @cfg from the text of a configuration file.
 * @name: the file's name, for messages.
 * Unset keys keep the defaults rtlab_config_init() put there.
 * Return: 0, or -EINVAL with @err naming the file, line and key ("rtlab.conf
 * line 3: max_upload_mb: expected a whole number of MB from 1 to 65536"),
 * -ENOMEM.
 */
int rtlab_config_parse(struct rtlab_config *cfg, const char *text,
		       const char *name, struct rtlab_err *err) __must_check;

/**
 * rtlab_config_reads_parse() - the value of `reads` (or RTLAB_READS):
 * "public" (reads need no token) or "token" (every read but /healthz
 * needs a token of any role) into *@need_token.
 * Return: 0, or -EINVAL for anything else.
 */
int rtlab_config_reads_parse(const char *val, bool *need_token) __must_check;

/**
 * rtlab_config_init() - the defaults: no db, RTLAB_DEFAULT_LISTEN,
 * RTLAB_DEFAULT_MAX_UPLOAD_MB, no Bugzilla URL or key, and the
 * RTLAB_DEFAULT_BZ_* product, component and version.  Return: 0 or -ENOMEM.
 * Caller releases with rtlab_config_cleanup().
 */
int rtlab_config_init(struct rtlab_config *cfg) __must_check;

/**
 * rtlab_config_load() - defaults, then the configuration file when there is
 * one.  A missing default file is fine; a missing $RTLAB_CONFIG is
 * an error.  Return: 0 or a negative errno with @err naming the file.
 * Caller releases @cfg with rtlab_config_cleanup() on success and failure.
 */
int rtlab_config_load(struct rtlab_config *cfg,
		      struct rtlab_err *err) __must_check;

/** rtlab_config_cleanup() - free what init/parse/load filled; safe twice. */
void rtlab_config_cleanup(struct rtlab_config *cfg);

#endif
