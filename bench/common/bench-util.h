/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BENCH_UTIL_H
#define RTLAB_BENCH_UTIL_H

#include <libpq-fe.h>

#include "clock.h"

/* bench_now_ms() - the monotonic clock, in milliseconds. */
static inline double bench_now_ms(void)
{
	return clock_mono_s() * 1e3;
}

/**
 * bench_exec() - run @sql on @c, which must succeed (a command, or a query
 * whose rows are not wanted); on failure print the error and the statement
 * (its first 300 characters) after @prog.
 * Return: 0, or -EIO.
 */
int bench_exec(PGconn *c, const char *prog, const char *sql);

/* bench_sort() - sort the @n figures at @v ascending. */
void bench_sort(double *v, int n);

/**
 * bench_median() - the median of the @n figures at @v, which it sorts in
 * place (ascending), so the caller can read other quantiles from @v after.
 */
double bench_median(double *v, int n);

#endif
