/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_LAB_H
#define RTLAB_LAB_H

/*
 * What the lab's maintainers decide, in one place for `rtlab baseline`,
 * `rtlab testcase` and the maintainer endpoints of the HTTP API: a
 * series' pinned baseline, and a testcase's verdict parameters (checked
 * as the verdict engine reads them, so a value it would refuse is never
 * stored).
 */

#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/**
 * lab_baseline_set() - pin kernel @kernel (id or release) as the baseline
 * of (@board, @testcase, @tree); @tree NULL: the kernel's own tree.
 * Return: 0 with *@out {board, testcase, tree, kernel, kernel_id,
 * kernel_tree, complete_runs} (caller json_decref()s); -ENOENT for an
 * unknown board, testcase or kernel; -EINVAL, -EIO.  @err says which.
 */
int lab_baseline_set(PGconn *conn, const char *board, const char *testcase,
		     const char *kernel, const char *tree, json_t **out,
		     struct rtlab_err *err) __must_check;

/**
 * lab_baseline_unset() - remove the pin of (@board, @testcase, @tree).
 * Return: 0; -ENOENT (unknown board or testcase, or nothing pinned), -EIO.
 */
int lab_baseline_unset(PGconn *conn, const char *board, const char *testcase,
		       const char *tree, struct rtlab_err *err) __must_check;

/**
 * lab_testcase_get() - testcase @name as the lab has it: {name, lab,
 * lab_file (the definition of testcases/NAME.yaml, or null), definition
 * (stored), verdict (the parameters verdicts use, defaults filled in),
 * verdict_error (why they are invalid, or null), updated_at, updated_by}.
 * A name with a lab file but no runs yet is answered from the file.
 * Return: 0 with *@out (caller json_decref()s); -ENOENT, -EIO.
 */
int lab_testcase_get(PGconn *conn, const char *name, json_t **out,
		     struct rtlab_err *err) __must_check;

/**
 * lab_testcase_verdict_set() - change the verdict parameters of testcase
 * @name: each key of @changes (floor_us, floor_rel, tail_q, alpha,
 * min_runs) set to its number, or back to the default when null.  The
 * result is checked as the verdict engine reads it before it is stored.
 * @by: who (a token's name, a user) for updated_by.
 * Return: 0 with *@out as lab_testcase_get() gives it; -EINVAL with @err
 * naming the key and value; -EIO.
 */
int lab_testcase_verdict_set(PGconn *conn, const char *name,
			     const json_t *changes, const char *by,
			     json_t **out, struct rtlab_err *err) __must_check;

#endif
