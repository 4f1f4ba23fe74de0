/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_ARGV_H
#define RTLAB_AGENT_ARGV_H

/*
 * A growing, NULL-terminated argument vector for execvp(), with a sticky
 * failure flag: add to it freely and check argv_failed() once at the end.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

struct argv {
	char **v; /* NULL-terminated once anything was added */
	size_t n, cap;
	bool failed; /* an allocation failed somewhere */
};

/** argv_init() - empty vector; release with argv_cleanup(). */
void argv_init(struct argv *a);

/** argv_cleanup() - free every string and the vector; safe twice. */
void argv_cleanup(struct argv *a);

/** argv_add() - append a copy of @s (sets the failure flag on ENOMEM). */
void argv_add(struct argv *a, const char *s);

/** argv_addf() - append a printf-formatted string. */
void argv_addf(struct argv *a, const char *fmt, ...) __printf(2, 3);

/** argv_failed() - true when an earlier add failed (or nothing was added). */
bool argv_failed(const struct argv *a);

/**
 * argv_join() - the vector as one shell-quoted command line, e.g.
 * "stress-ng --cpu 2 --timeout '1 s'" (what a maintainer pastes to
 * reproduce).  Return: malloc'd string, caller frees; NULL on ENOMEM.
 */
char *argv_join(const struct argv *a);

#endif
