/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_STRBUF_H
#define RTLAB_STRBUF_H

/*
 * A growing string with a sticky failure flag (pgbouncer's PktBuf): once
 * an allocation fails, appends do nothing and the builder checks @failed
 * once at the end.  Report text, HTML pages, gnuplot scripts and spike
 * analyses are all written through it.  buf is NUL-terminated whenever it
 * is not NULL.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct strbuf {
	char *buf; /* owned; NULL until the first append */
	size_t len, cap;
	bool failed; /* an append failed: text incomplete */
};

/** strbuf_add() - append @n bytes of @data. */
void strbuf_add(struct strbuf *s, const void *data, size_t n);

/** strbuf_addf() - append printf(@fmt, ...). */
void strbuf_addf(struct strbuf *s, const char *fmt, ...) __printf(2, 3);

/** strbuf_vaddf() - append vprintf(@fmt, @ap); @ap is consumed. */
void strbuf_vaddf(struct strbuf *s, const char *fmt, va_list ap);

/**
 * strbuf_take() - the text, handed over: "" when nothing was appended,
 * NULL when an append failed (or on -ENOMEM).  @s is left empty.
 * Return: malloc'd, caller frees.
 */
char *strbuf_take(struct strbuf *s);

/** strbuf_cleanup() - free the text and clear @s; safe twice. */
void strbuf_cleanup(struct strbuf *s);

#endif
