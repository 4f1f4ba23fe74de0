/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_ENVVARS_H
#define RTLAB_ENVVARS_H

/*
 * The environment variables rtlab and rtlab-agent read, in one table:
 * `rtlab --help` and `rtlab-agent --help` print it, and the docs check
 * (scripts/check-docs.py) holds README.md's table to it.  A variable read
 * with getenv() anywhere outside tests/ belongs here.
 */

#include <stdio.h>

/* Which program reads a variable (a bit mask). */
#define ENVVAR_RTLAB 0x1u
#define ENVVAR_AGENT 0x2u

struct envvar {
	const char *name;
	/* What it says; Markdown code spans are kept as they are. */
	const char *meaning;
	/* The value without it, or NULL when there is none. */
	const char *dflt;
	unsigned int readers;
};

/** envvars_get() - the table, in the order README.md lists it.
 *  @n: set to the number of entries.
 *  Return: a static array; nobody frees it. */
const struct envvar *envvars_get(size_t *n);

/** envvars_print() - print the variables @readers reads under the heading
 *  "Environment:", one "  NAME  MEANING[; default: DEFAULT]" entry each,
 *  wrapped at 79 columns with continuation lines indented.  Used by
 *  --help; the docs check parses it back. */
void envvars_print(FILE *out, unsigned int readers);

#endif
