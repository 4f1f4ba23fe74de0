/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CLI_COMMON_H
#define RTLAB_CLI_COMMON_H

/*
 * What the commands of cli/ (one command per cmd-NAME.c) share: option
 * values checked by one rule with errors worded one way, connecting to the
 * database, resolving a RUN argument, printing JSON fields.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/**
 * opt_uint() - option @opt's value @s as a whole number from @min to @max.
 * On error prints "rtlab CMD: OPT 'S': expected a whole number from MIN
 * to MAX" to stderr.
 * Return: 0 with *@out set, or -EINVAL.
 */
int opt_uint(const char *cmd, const char *opt, const char *s, unsigned int min,
	     unsigned int max, unsigned int *out) __must_check;

/**
 * cli_opts_json_arg() - read "[--json] [--help] ARG", the options of a
 * command that shows one thing (show RUN, verdict ID).  @usage prints the
 * command's usage on the stream it is given.
 * Return: -1 to go on, with *@as_json set and ARG at argv[optind]; else the
 * exit status (0 after --help, EXIT_USAGE on a usage error).
 */
int cli_opts_json_arg(int argc, char **argv, void (*usage)(FILE *out),
		      bool *as_json);

/** cli_connect() - db_connect(), printing "rtlab CMD: why" on failure.
 *  Return: the connection (caller db_disconnect()s) or NULL. */
PGconn *cli_connect(const char *cmd);

/** cli_run_resolve() - the id of run @ref (id or uuid), printing
 *  "rtlab CMD: why" on failure.  Return: 0 or -1. */
int cli_run_resolve(PGconn *conn, const char *cmd, const char *ref,
		    int64_t *id);

/** cli_print_json() - @j indented, in its key order, on stdout. */
void cli_print_json(json_t *j);

/** cli_jstr() - string field @key of @o, "-" when absent. */
const char *cli_jstr(json_t *o, const char *key);

/**
 * cli_jint() - integer field @key of @o as text in @buf: a real is
 * rounded; null is ">=@overflow_at" when @overflow_at > 0 (a quantile
 * among the overflows), else "-".
 */
void cli_jint(char *buf, size_t n, json_t *o, const char *key,
	      json_int_t overflow_at);

#endif
