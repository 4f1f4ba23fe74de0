/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BENCH_BUNDLE_H
#define RTLAB_BENCH_BUNDLE_H

#include <stddef.h>

/* CPUs (measuring threads) of a benchmark run. */
#define BENCH_BUNDLE_CPUS 2
/* Non-empty 1 us buckets per CPU. */
#define BENCH_BUNDLE_BUCKETS 1000

/**
 * bench_cyclictest_json() - a cyclictest --json document of
 * BENCH_BUNDLE_CPUS threads with ~1,000 non-empty buckets each.
 * Return: malloc'd text (caller frees), NULL when out of memory.
 */
char *bench_cyclictest_json(void);

/**
 * bench_bundle_make() - a complete bundle of board @board and testcase
 * @testcase around @ct_json, under a fresh run id written to @run_id.
 * Return: 0 with @data (malloc'd, caller frees) and @size, or -errno
 * after saying why on stderr.
 */
int bench_bundle_make(const char *board, const char *testcase,
		      const char *ct_json, char run_id[37], void **data,
		      size_t *size);

#endif
