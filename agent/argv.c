// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Argument vectors for the commands the agent starts, and their
 * shell-quoted form for manifest.commands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"

void argv_init(struct argv *a)
{
	memset(a, 0, sizeof(*a));
}

void argv_cleanup(struct argv *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static void argv_push(struct argv *a, char *s)
{
	char **v;

	if (!s) {
		a->failed = true;
		return;
	}
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;

		v = realloc(a->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			a->failed = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void argv_add(struct argv *a, const char *s)
{
	argv_push(a, s ? strdup(s) : NULL);
}

void argv_addf(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	argv_push(a, s);
}

bool argv_failed(const struct argv *a)
{
	return a->failed || !a->n;
}

/* Characters that never need quoting in a POSIX shell word. */
static bool shell_safe(const char *s)
{
	if (!*s)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789-_./=:,+@%") == strlen(s);
}

char *argv_join(const struct argv *a)
{
	size_t i, len = 1;
	char *out, *p;

	for (i = 0; i < a->n; i++)
		len += 4 * strlen(a->v[i]) + 3;
	out = malloc(len);
	if (!out)
		return NULL;
	p = out;
	for (i = 0; i < a->n; i++) {
		const char *s = a->v[i];

		if (i)
			*p++ = ' ';
		if (shell_safe(s)) {
			p = stpcpy(p, s);
			continue;
		}
		*p++ = '\'';
		for (; *s; s++) {
			if (*s == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}
