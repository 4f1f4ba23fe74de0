/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_LAVA_H
#define RTLAB_LAVA_H

/*
 * The lava board kind's parts (boards/lava.c, boards/lava-rest.c): its
 * settings, the job definition rtlab renders, the job log it reads back,
 * the outcome table, and the REST client of a lava-server.  The kind
 * itself is board_kind_lava (board.h).  See docs/lava.md.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

#define LAVA_POLL_S 3	      /* between polls of a job */
#define LAVA_POLL_NOTIFY_S 60 /* ... when LAVA's callback wakes the worker */
#define LAVA_NOTIFY_PATH "/api/v1/lava/notify"

/* A lava board's registered definition (JSON). */
struct lava_conf {
	char *mode;	    /* "dispatcher" or "server" */
	bool server;	    /* mode server */
	char *device;	    /* dispatcher: device configuration (YAML) */
	char *device_type;  /* the job's device_type, default "qemu" */
	char *lava_run;	    /* dispatcher: the lava-run binary */
	char *url;	    /* server: base URL of lava-server */
	char *token;	    /* server: a LAVA user's API token */
	char *upload_url;   /* rtlab's server as the board reaches it, or
			    * NULL: the bundle comes back in LAVA's log */
	char *notify_url;   /* server: rtlab's server as lava-server
			    * reaches it, for LAVA's notify callback */
	char *notify_token; /* ... the callback's token: the description
			     * of a LAVA token holding an rtlab token */
	unsigned int boot_timeout_s; /* deploy done to the shell prompt */
	unsigned int hang_margin_s;  /* test shell: margin + duration x */
	unsigned int slowdown;	     /* ... slowdown */
	unsigned int interval_us;    /* cyclictest -i for every testcase */
};

/**
 * lava_conf_parse() - a lava board's definition JSON (may be NULL):
 * unknown fields, a mode without what it needs (dispatcher: device;
 * server: url and token) are errors naming @board and the field.
 * Return: 0 (release with lava_conf_cleanup()) or -EINVAL with @err set.
 */
int lava_conf_parse(const char *board, const char *definition_json,
		    struct lava_conf *c, struct rtlab_err *err) __must_check;

/** lava_conf_cleanup() - free what lava_conf_parse() filled; safe twice. */
void lava_conf_cleanup(struct lava_conf *c);

struct lava_job_params {
	const char *device_type;
	const char *job_name;
	const char *kernel_path;  /* bzImage, a local file */
	const char *ramdisk_path; /* one gzip'd newc archive, a local file */
	const char *cmdline;	  /* the kernel command line */
	unsigned int boot_timeout_s;
	unsigned int test_timeout_s;
	const char *notify_url;	  /* LAVA's callback when the job finishes:
				   * rtlab's endpoint; NULL: none */
	const char *notify_token; /* ... its token (a LAVA token's
				   * description, or the token itself) */
};

/**
 * lava_job_render() - the LAVA job definition: deploy to tmpfs (the
 * kernel, the ramdisk with LAVA's overlay), boot with qemu to the prompt
 * of boards/lava-init.sh, a test shell running the agent.  JSON text,
 * which LAVA reads as YAML.
 * Return: malloc'd text (caller frees), NULL when out of memory.
 */
char *lava_job_render(const struct lava_job_params *p);

/* What rtlab reads from a LAVA job log (one mapping per line). */
struct lava_log {
	char *console; /* the target's lines, "\n"-joined */
	size_t console_len;
	char *result;	  /* the job's result ("pass", "fail"), or NULL */
	char *error_type; /* "Infrastructure", "Job", "Test", ... or NULL */
	char *error_msg;  /* or NULL */
	bool boot_failed; /* a LAVA boot action failed */
};

/**
 * lava_log_parse() - read a job log as lava-run writes it and lava-server
 * serves it ("- {dt, lvl, msg}" per line).  Lines that are not entries
 * are skipped.  Return: 0 (release with lava_log_cleanup()) or -ENOMEM.
 */
int lava_log_parse(const char *text, size_t len, struct lava_log *l);

/** lava_log_cleanup() - safe twice. */
void lava_log_cleanup(struct lava_log *l);

/**
 * lava_bundle_extract() - the bundle the board printed in base64 between
 * RTLAB-B64-BEGIN and RTLAB-B64-END, its size and sha256 checked.
 * Return: 0 with *@data (caller frees) and *@size; -ENOENT when there is
 * no bundle, -EBADMSG when it is cut short or damaged, with @err set.
 */
int lava_bundle_extract(const char *console, unsigned char **data, size_t *size,
			struct rtlab_err *err) __must_check;

enum lava_outcome {
	LAVA_OUTCOME_UPLOADED,	  /* the board uploaded its bundle itself */
	LAVA_OUTCOME_BUNDLE,	  /* the board printed a bundle */
	LAVA_OUTCOME_PANIC,	  /* a panic once the agent started */
	LAVA_OUTCOME_BOOT_FAILED, /* never reached the agent */
	LAVA_OUTCOME_HANG,	  /* the agent started and never ended */
	LAVA_OUTCOME_AGENT_ERROR, /* it ended without a bundle */
	LAVA_OUTCOME_INFRA,	  /* LAVA's failure: no run, retried */
};

/**
 * lava_outcome_classify() - the table of docs/lava.md: what became of a
 * LAVA job, from its log; @job_ran: LAVA ran it to an end (else no run).
 */
enum lava_outcome lava_outcome_classify(const struct lava_log *l, bool job_ran);

/**
 * lava_server_run() - submit the job definition at @job_path to the
 * lava-server of @c (POST /api/v0.2/jobs/, token auth), follow it until it
 * ends, and write its log to @log_path.  A job not finished after
 * @limit_s (waiting for a device included) is canceled.  @job_id gets LAVA's id; @ran is
 * set when the job ran to an end (Complete or Incomplete).  With the
 * board's notify_url, the job definition at @job_path asks for LAVA's
 * notify callback: the wait between polls grows to LAVA_POLL_NOTIFY_S and
 * a callback (db/db-lava.h) ends it at once; @notified is set when one
 * did.
 * Return: 0, or a negative errno with @err set, starting "infrastructure
 * error" when the server failed (down, an HTTP error), naming the token,
 * the device type or LAVA's complaint when the job was refused.
 */
int lava_server_run(const char *board, const struct lava_conf *c,
		    const char *job_path, const char *log_path,
		    unsigned int limit_s, long *job_id, bool *ran,
		    bool *notified, struct rtlab_err *err) __must_check;

#endif
