/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_RUN_LIMITS_H
#define RTLAB_RUN_LIMITS_H

/*
 * What one run may hold, as policy in one place.  Bundles come from boards
 * over the network, so every reader checks these before it allocates or
 * stores anything sized by its input, and refuses with a message naming
 * the limit and the value found.  The same figures bound what the agent
 * writes, so a bundle an agent makes is one the server takes.
 *
 * docs/api.md ("Limits") documents each of them; change both together.
 */

/* Histogram range: buckets of 1 µs from 0 to this, exclusive (cyclictest
 * -h).  100 ms covers any latency worth a histogram; beyond it a sample
 * counts as an overflow and still sets the true maximum. */
#define RTLAB_MAX_HIST_RANGE_US 100000U

/* Measuring threads (one per CPU) in one run. */
#define RTLAB_MAX_THREADS 1024U

/* Histogram cells of one run: threads × range.  8 Mi cells = 64 MiB of
 * 64-bit counters, the most one run's histograms may take in memory. */
#define RTLAB_MAX_HIST_CELLS (8U << 20)

/* Samples of one run, every thread and overflow included: a year at a
 * 100 µs interval on 1024 CPUs is 3.2·10^14.  Sums over thousands of runs
 * then still fit a signed 64-bit integer. */
#define RTLAB_MAX_RUN_SAMPLES 1000000000000000ULL /* 10^15 */

/* Names that identify things and are indexed by the database: board,
 * testcase, kernel release, kernel name and tree, clock (bytes). */
#define RTLAB_MAX_NAME_LEN 128U

/* The kernel's version string (uname -v) and other descriptive text. */
#define RTLAB_MAX_TEXT_LEN 1024U

/* A run's error message (manifest.json "error"). */
#define RTLAB_MAX_ERROR_LEN 4096U

/* JSON documents the server parses whole (jansson takes several times
 * their size in memory): manifest.json, and cyclictest.json, whose
 * histograms list non-empty buckets only (some 20 bytes each). */
#define RTLAB_MAX_MANIFEST_BYTES (1UL << 20)
#define RTLAB_MAX_CT_JSON_BYTES (32UL << 20)

/* One member of a bundle (an artifact such as trace.dat), uncompressed. */
#define RTLAB_MAX_ARTIFACT_BYTES (64UL << 20)

/* All members of a bundle together, uncompressed. */
#define RTLAB_MAX_BUNDLE_BYTES (128UL << 20)

/* Members of a bundle, and the length of a member's name. */
#define RTLAB_MAX_BUNDLE_FILES 256U
#define RTLAB_MAX_FILE_NAME_LEN 200U

#endif
