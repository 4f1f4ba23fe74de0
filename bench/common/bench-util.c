// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the benchmarks share beyond their bundles: a statement that must
 * succeed, and the median of repeated timings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-util.h"

int bench_exec(PGconn *c, const char *prog, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
		 PQresultStatus(r) == PGRES_TUPLES_OK;

	if (!ok)
		fprintf(stderr, "%s: %s\n  in: %.300s\n", prog,
			PQerrorMessage(c), sql);
	PQclear(r);
	return ok ? 0 : -EIO;
}

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void bench_sort(double *v, int n)
{
	qsort(v, n, sizeof(*v), double_cmp);
}

double bench_median(double *v, int n)
{
	bench_sort(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
