// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The string builder every text writer of rtlab uses: appends after a
 * failed allocation do nothing, and the writer checks once at the end.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* Room for @n more bytes and the NUL; false (and failed) when none. */
static bool strbuf_grow(struct strbuf *s, size_t n)
{
	size_t cap;
	char *nb;

	if (s->failed)
		return false;
	if (s->cap - s->len > n)
		return true;
	if (n >= (size_t)-1 / 4 - s->len) {
		s->failed = true;
		return false;
	}
	cap = s->cap ? s->cap : 1024;
	while (cap - s->len <= n)
		cap *= 2;
	nb = realloc(s->buf, cap);
	if (!nb) {
		s->failed = true;
		return false;
	}
	s->buf = nb;
	s->cap = cap;
	return true;
}

void strbuf_add(struct strbuf *s, const void *data, size_t n)
{
	if (!strbuf_grow(s, n))
		return;
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

void strbuf_vaddf(struct strbuf *s, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (s->failed)
		return;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		s->failed = true;
		return;
	}
	if (!strbuf_grow(s, n))
		return;
	vsnprintf(s->buf + s->len, n + 1, fmt, ap);
	s->len += n;
}

void strbuf_addf(struct strbuf *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(s, fmt, ap);
	va_end(ap);
}

char *strbuf_take(struct strbuf *s)
{
	char *text = s->buf;

	if (s->failed) {
		free(text);
		text = NULL;
	} else if (!text) {
		text = strdup("");
	}
	s->buf = NULL;
	s->len = s->cap = 0;
	s->failed = false;
	return text;
}

void strbuf_cleanup(struct strbuf *s)
{
	if (!s)
		return;
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
	s->failed = false;
}
