/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CHECK_H
#define RTLAB_CHECK_H

/*
 * Minimal check macros for unit tests: each check prints "ok - NAME" or
 * "not ok - NAME" (what tests/run.sh counts); check_exit() returns the exit
 * status.
 */

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		int ok_ = !!(cond);                                         \
		printf(ok_ ? "ok - " : "not ok - ");                        \
		if (!ok_)                                                   \
			check_failures++;                                   \
		printf(__VA_ARGS__);                                        \
		if (!ok_)                                                   \
			printf("  [%s:%d: %s]", __FILE__, __LINE__, #cond); \
		printf("\n");                                               \
	} while (0)

#define CHECK_INT(got, want, name)                                         \
	do {                                                               \
		long long g_ = (long long)(got), w_ = (long long)(want);   \
		CHECK(g_ == w_, "%s (got %lld, want %lld)", name, g_, w_); \
	} while (0)

#define CHECK_STR(got, want, name)                             \
	do {                                                   \
		const char *g_ = (got), *w_ = (want);          \
		CHECK(g_ &&w_ && !strcmp(g_, w_),              \
		      "%s (got \"%s\", want \"%s\")", name,    \
		      g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

static inline int check_exit(void)
{
	fflush(stdout);
	return check_failures ? 1 : 0;
}

#endif
