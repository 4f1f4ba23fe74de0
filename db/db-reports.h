/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_REPORTS_H
#define RTLAB_DB_REPORTS_H

/*
 * The reports domain of the database: everything a regression report says
 * about one verdict (the verdict, its board, testcase, both kernels and
 * every run on each side), the reports table (generated and filed
 * reports; a verdict is filed once), and what the KCIDB export reads.
 * Answers come back as jansson values built by PostgreSQL; PGresult stays
 * in db-reports.c.
 *
 * Errors: -ENOENT (no such verdict), -EEXIST (already filed), -EIO
 * (database failure), -ENOMEM; @err says which.
 */

#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"

/**
 * db_report_verdict_get() - verdict @verdict_id with its context:
 * {id, verdict, details (the stored regress_result_json), created_at,
 *  board {name, kind, definition}, testcase {name, definition},
 *  baseline / candidate {id, name, tree, release, version, commit,
 *  config_sha256, realtime}, baseline_runs / candidate_runs [{id, uuid,
 *  status, error, clock, machine, environment, commands, testcase (the
 *  manifest's testcase object), started_at, finished_at, samples, max_us,
 *  max_cpu, artifacts [{name, content_type, size, sha256}]}]} with runs in
 * id order.
 * Return: 0 with *@out set (caller json_decref()s), -ENOENT with @err
 * "verdict N not found", -EIO.
 */
int db_report_verdict_get(PGconn *conn, int64_t verdict_id, json_t **out,
			  struct rtlab_err *err) __must_check;

/**
 * db_report_filed() - whether verdict @verdict_id was filed.
 * @bug_id, @bug_url: the bug's id and URL when it was (*@bug_url malloc'd,
 *	caller frees; may be NULL when the caller does not want it).
 * Return: 0 when filed, -ENOENT when not, -EIO.
 */
int db_report_filed(PGconn *conn, int64_t verdict_id, int64_t *bug_id,
		    char **bug_url, struct rtlab_err *err) __must_check;

/**
 * db_report_record() - remember a report of @verdict_id: a reports row
 * with @files_json (what was written or sent, a JSON object) and the tag
 * of its @regression (may be NULL); with @bug_id > 0 also the bug id,
 * @bug_url and the filing time.
 * Return: 0; -EEXIST with @err "verdict N is already filed as bug M" when
 * another filing won the race (the unique index); -EIO.
 */
int db_report_record(PGconn *conn, int64_t verdict_id, int64_t bug_id,
		     const char *bug_url, const char *regression,
		     const char *files_json,
		     struct rtlab_err *err) __must_check;

/**
 * db_report_files_get() - the files JSON of the filed report of
 * @verdict_id.  Return: 0 with *@files (caller json_decref()s), -ENOENT
 * when it was not filed, -EIO.
 */
int db_report_files_get(PGconn *conn, int64_t verdict_id, json_t **files,
			struct rtlab_err *err) __must_check;

/** db_report_files_set() - replace the files JSON of the filed report of
 *  @verdict_id (e.g. attachments added later).  Return: 0 or -EIO. */
int db_report_files_set(PGconn *conn, int64_t verdict_id,
			const char *files_json,
			struct rtlab_err *err) __must_check;

/**
 * db_report_regression_bug() - the first bug filed for regression tag
 * @regression (report_regression_tag()).
 * Return: 0 with *@bug_id and *@bug_url (malloc'd, caller frees),
 * -ENOENT when none was filed, -EIO.
 */
int db_report_regression_bug(PGconn *conn, const char *regression,
			     int64_t *bug_id, char **bug_url,
			     struct rtlab_err *err) __must_check;

/**
 * db_kcidb_get() - what the KCIDB export needs, for runs and verdicts
 * created at or after @since (ISO 8601 date or time; NULL: everything):
 * {kernels [{id, name, tree, release, version, commit, config_sha256,
 *  realtime, created_at}], runs [{id, uuid, kernel_id, board, testcase,
 *  status, error, clock, machine, started_at, finished_at, created_at,
 *  max_us, samples}], regressions [{id, board, testcase,
 *  baseline_kernel_id, candidate_kernel_id, candidate_runs [ids],
 *  details, created_at, bug_url}]}; kernels are those the runs or
 * regressions name, runs include the candidate runs of the regressions.
 * Return: 0 with *@out set (caller json_decref()s); -EINVAL with @err
 * naming @since when PostgreSQL cannot read it as a time; -EIO.
 */
int db_kcidb_get(PGconn *conn, const char *since, json_t **out,
		 struct rtlab_err *err) __must_check;

#endif
