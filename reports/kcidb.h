/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_KCIDB_H
#define RTLAB_KCIDB_H

/*
 * The KCIDB (KernelCI common reporting database) export, I/O schema v5.3:
 * a checkout and a build per kernel, a test per run (path
 * "rtlab.cyclictest.idle" from testcase "cyclictest-idle", the run's
 * maximum latency as its number in seconds), an issue per REGRESSION
 * verdict and an incident per candidate run of it.  Every id starts with
 * the origin and a colon ("rtlab:run-UUID").  Run status maps to test
 * status: complete PASS (FAIL when the run is a candidate of a
 * regression), panic and hang FAIL, agent_error ERROR, boot_failed MISS.
 */

#include <jansson.h>

#include "error.h"

#define KCIDB_DEFAULT_ORIGIN "rtlab"
#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

/**
 * kcidb_build() - the KCIDB document of @data (the JSON of db_kcidb_get())
 * with ids prefixed by @origin.
 * Return: new reference (caller json_decref()s), or NULL with @err set:
 * -EINVAL for an origin that is not [a-z0-9_]+, -ENOMEM.
 */
json_t *kcidb_build(const json_t *data, const char *origin,
		    struct rtlab_err *err);

/**
 * kcidb_validate() - the rules of v5.3 the export relies on: version
 * {major 5, minor <= 3}; only the five object lists; each object's
 * required fields; ids and origins of @origin; references (build ->
 * checkout, test -> build, incident -> issue/test/build) that resolve
 * within the document; dot-separated test paths; known statuses; numbers
 * with a numeric value; no null anywhere.
 * Return: 0, or -EINVAL with @err naming the list, index and field.
 */
int kcidb_validate(const json_t *doc, const char *origin,
		   struct rtlab_err *err) __must_check;

/** kcidb_test_path() - "rtlab.cyclictest.idle" for "cyclictest-idle":
 *  the testcase name's '-'-separated words, lower case, [a-z0-9_] only.
 *  Return: malloc'd, caller frees; NULL on -ENOMEM. */
char *kcidb_test_path(const char *testcase);

#endif
