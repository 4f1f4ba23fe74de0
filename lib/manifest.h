/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_MANIFEST_H
#define RTLAB_MANIFEST_H

/*
 * manifest.json, the bundle's table of contents and the run's identity.
 * Format version 1 (documented in the README, "Result bundle"):
 *
 * {
 *   "format": "rtlab-bundle", "format_version": 1,
 *   "run_id": "<uuid>",                       required
 *   "board": "local",                         required
 *   "status": "complete"|"agent_error"|"boot_failed"|"panic"|"hang", required
 *   "error": "why it is not complete",        optional
 *   "testcase": { "name": "cyclictest-idle", "duration_s": 5,
 *                 "hist_range_us": 1000, "definition": {...} },  name required
 *   "kernel": { "release": "6.1.0-57-rt-amd64", "version": "#1 SMP PREEMPT_RT ...",
 *               "realtime": true, "config_sha256": "...", "name": "...",
 *               "tree": "..." },               release required
 *   "environment": { "cmdline": ..., "cpu_model": ..., "cpus": 2,
 *                    "isolcpus": ..., "clocksource": ..., "clock": "host",
 *                    "microcode": ...,
 *                    "rt_tests_version": ..., ... },   free-form object
 *   "commands": [ "cyclictest ...", "hackbench ..." ],
 *   "job_id": 42,                             optional, number or digits
 *   "measurement": { "stopped_early": false, ... },  optional object;
 *                  stopped_early true only with a status other than complete
 *   "started_at": "2026-12-03T03:14:08Z", "finished_at": "...",
 *   "files": { "cyclictest.json": { "size": N, "sha256": "hex" }, ... }
 * }
 *
 * Unknown keys are kept (the server stores the whole document as jsonb).
 */

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "error.h"
#include "rttests.h"

#define MANIFEST_FORMAT "rtlab-bundle"
#define MANIFEST_FORMAT_VERSION 1

enum run_status {
	RUN_STATUS_COMPLETE,
	RUN_STATUS_AGENT_ERROR,
	RUN_STATUS_BOOT_FAILED,
	RUN_STATUS_PANIC,
	RUN_STATUS_HANG,
};

/** run_status_name() - "complete", "agent_error", ... */
const char *run_status_name(enum run_status s);

/** run_status_parse() - the inverse.  Return: 0 or -EINVAL. */
int run_status_parse(const char *name, enum run_status *s) __must_check;

struct manifest_file {
	char *name;
	size_t size;
	char sha256[65]; /* lower-case hex, "" when not given */
};

struct manifest {
	char run_id[37]; /* canonical lower-case uuid */
	char *board;
	enum run_status status;
	char *error; /* NULL when none */
	char *testcase;
	unsigned int duration_s;
	unsigned int hist_range_us;
	enum rt_tool tool; /* testcase.tool, cyclictest when not given */
	char *kernel_release;
	char *kernel_version; /* NULL when not given */
	int kernel_realtime;  /* 1, 0, -1 unknown */
	char *kernel_config_sha256;
	char *clock; /* environment.clock, "host" when not given */
	char *started_at, *finished_at; /* ISO 8601, may be NULL */
	long long job_id;		/* the job it was made for, -1: none */
	size_t nfiles;
	struct manifest_file *files;
	char *json; /* the whole document, re-serialized compactly */
	/* The same document as parsed, for readers of the fields kept as
	 * they are (environment, testcase.definition): owned by the
	 * manifest, valid until manifest_cleanup(). */
	json_t *doc;
};

/**
 * manifest_parse() - parse and validate manifest.json.
 * Return: 0, or a negative errno with @err naming the field, e.g.
 * "manifest.json: missing field 'run_id'" or "manifest.json: field
 * 'status': expected one of complete, agent_error, ...".  The limits of
 * run-limits.h apply: the text's size, names (board, testcase.name,
 * kernel.release/name/tree, environment.clock), other strings, error,
 * testcase.hist_range_us, the files listed and their sizes.
 * @m->doc keeps the parsed document, so nobody parses the text again.
 * Caller releases with manifest_cleanup().
 */
int manifest_parse(const char *text, size_t len, struct manifest *m,
		   struct rtlab_err *err) __must_check;

/** manifest_cleanup() - free what manifest_parse() filled; safe twice. */
void manifest_cleanup(struct manifest *m);

struct bundle;

/**
 * manifest_verify_files() - check every file the manifest lists is in @b
 * with the listed size and sha256.  Return: 0 or -EINVAL naming the file.
 */
int manifest_verify_files(const struct manifest *m, const struct bundle *b,
			  struct rtlab_err *err) __must_check;

/**
 * manifest_files_json() - the "files" object for a manifest describing @b:
 * {"NAME": {"size": N, "sha256": "hex"}, ...} for every file but
 * manifest.json itself, compact, keys sorted.  The agent adds its other
 * files to the bundle, then puts this under "files" and adds manifest.json.
 * Return: malloc'd JSON text, caller frees with free(); NULL on -ENOMEM.
 */
char *manifest_files_json(const struct bundle *b);

/** sha256_hex() - @out gets 64 hex digits and a NUL (lower case). */
void sha256_hex(const void *data, size_t size, char out[65]);

#endif
