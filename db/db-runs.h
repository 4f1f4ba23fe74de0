/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_RUNS_H
#define RTLAB_DB_RUNS_H

/*
 * The runs domain of the database: storing an ingested run (kernel,
 * testcase, run row, histograms, artifacts in one transaction) and the
 * queries the API and the CLI answer from.  Query results come back as
 * jansson values or plain structs; PGresult stays in db-runs.c.
 *
 * Errors: -ENOENT (no such run / artifact), -EINVAL (PostgreSQL rejected a
 * value from the bundle, e.g. a malformed timestamp), -EIO (database or
 * connection failure), -ENOMEM; @err says which.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"
#include "hist.h"

struct bundle;
struct manifest;
struct run_series;

/* What ingest hands over to be stored; nothing here is owned. */
struct run_record {
	const struct manifest *manifest;
	int board_id;  /* < 0: look up manifest->board */
	size_t nhists; /* 0 for runs that are not complete */
	const struct hist *hists;
	const struct bundle *bundle; /* every file but manifest.json is
					 * stored as an artifact */
	/* The lab's definition of the testcase (JSON text), which the
	 * testcases row takes; NULL: the lab has none, the row is kept. */
	const char *lab_definition;
	const char *flags; /* runs.flags (JSON text), NULL: {} */
	/* runs.results: a pass/fail tool's result (rt_summary_to_json()),
	 * NULL for a tool with histograms */
	const json_t *results;
	/* > 0: this board takes the run's environment as the one it is
	 * healthy in when it has none yet (services/health.h), in the
	 * run's transaction. */
	int environment_board_id;
	/* Not NULL: gets the stored run's series (db_run_series()), read
	 * in the run's transaction; board_id 0 when not read (a
	 * duplicate). */
	struct run_series *series;
};

/**
 * db_run_store() - store @rec in one transaction: upsert kernel and
 * testcase (the testcase from @rec->lab_definition, never the manifest),
 * insert the run (idempotent by uuid), one histograms row per thread
 * (non-empty buckets only, derived figures, overflowed quantiles NULL)
 * and one artifacts row per bundle file, with the sha256 the manifest
 * lists for it (checked by manifest_verify_files() before) or, for a file
 * it lists none for, computed here.
 * @run_id: the new run's id, or the existing one's when *@duplicate.
 * @duplicate: set when this board already stored a run with this uuid;
 *	then nothing is written.
 * Return: 0, or a negative errno with @err set: -EXDEV when another board
 * stored a run with this uuid; -EINVAL when the manifest's job_id is no
 * job, -EACCES when it is another board's job.  On failure nothing is
 * written (the transaction is rolled back).
 */
int db_run_store(PGconn *conn, const struct run_record *rec, int64_t *run_id,
		 bool *duplicate, struct rtlab_err *err) __must_check;

/**
 * db_run_resolve() - a run reference to its id: a number is a run id,
 * else (or when no run has that id) a uuid or a uuid prefix of at least 4
 * characters that only one run's uuid starts with.
 * Return: 0, -ENOENT with @err "run 'REF' not found", -EIO.
 */
int db_run_resolve(PGconn *conn, const char *ref, int64_t *run_id,
		   struct rtlab_err *err) __must_check;

struct run_filter {
	const char *board;    /* board name, NULL: any */
	const char *kernel;   /* kernel release, NULL: any */
	const char *testcase; /* testcase name, NULL: any */
	const char *status;   /* run status, NULL: any */
	unsigned int limit;   /* 0: 50 */
	int64_t before;	      /* runs with a smaller id only (the next
			       * page after that id); 0: from the newest */
};

/**
 * db_runs_list() - runs matching @f, newest first: a JSON array of
 * {id, uuid, board, kernel, testcase, status, clock, max_us, samples,
 * created_at}.  Return: 0 with *@out set (caller json_decref()s), or a
 * negative errno.
 */
int db_runs_list(PGconn *conn, const struct run_filter *f, json_t **out,
		 struct rtlab_err *err) __must_check;

/**
 * db_run_get() - one run as a JSON object: identity, kernel, testcase,
 * status, clock, environment, commands, timestamps, "cpus" (figures per
 * measuring thread) and "artifacts" (name, content_type, size, sha256).
 * Return: 0 with *@out set (caller json_decref()s), -ENOENT, -EIO.
 */
int db_run_get(PGconn *conn, int64_t run_id, json_t **out,
	       struct rtlab_err *err) __must_check;

/**
 * db_run_histograms() - the run's histograms as a JSON array, one object
 * per thread: thread, cpu, range_us, samples, overflows, min_us, avg_us,
 * max_us, bucket_us[], counts[] (non-empty buckets).
 * Return: 0 with *@out set (caller json_decref()s), -ENOENT, -EIO.
 */
int db_run_histograms(PGconn *conn, int64_t run_id, json_t **out,
		      struct rtlab_err *err) __must_check;

/**
 * db_run_hists_load() - fill @rh from the database.
 * Return: 0, -ENOENT, -EIO, -ENOMEM.  Caller releases @rh with
 * run_hists_cleanup() (lib/hist.h) on success and failure.
 */
int db_run_hists_load(PGconn *conn, int64_t run_id, struct run_hists *rh,
		      struct rtlab_err *err) __must_check;

struct artifact {
	char *name;
	char *content_type;
	void *data;
	size_t size;
};

/**
 * db_artifact_get() - artifact @name of run @run_id.
 * Return: 0, -ENOENT with @err "run N has no artifact 'NAME'", -EIO,
 * -ENOMEM.  Caller releases @a with artifact_cleanup().
 */
int db_artifact_get(PGconn *conn, int64_t run_id, const char *name,
		    struct artifact *a, struct rtlab_err *err) __must_check;

/**
 * db_artifact_put_text() - store @text as artifact @name (@content_type)
 * of run @run_id, replacing an earlier one of that name.
 * Return: 0, or -EIO with @err holding PostgreSQL's message.
 */
int db_artifact_put_text(PGconn *conn, int64_t run_id, const char *name,
			 const char *content_type, const char *text,
			 struct rtlab_err *err) __must_check;

/* What db_artifact_stat() tells of an artifact, without its bytes. */
struct artifact_info {
	char *content_type; /* malloc'd */
	char sha256[65];    /* hex; names this version of the bytes */
	uint64_t size;
};

/**
 * db_artifact_stat() - content type, size and sha256 of artifact @name of
 * run @run_id, without reading its data.
 * Return: 0, -ENOENT with @err "run N has no artifact 'NAME'", -EIO,
 * -ENOMEM.  Caller frees @info->content_type (artifact_info_cleanup()).
 */
int db_artifact_stat(PGconn *conn, int64_t run_id, const char *name,
		     struct artifact_info *info,
		     struct rtlab_err *err) __must_check;

/**
 * db_artifact_read() - up to @len bytes of artifact @name of run @run_id
 * from byte @off into @buf, so a large artifact can be sent in pieces.
 * @sha256: the version db_artifact_stat() saw; a replaced artifact reads
 * as gone.  *@got: bytes read (0 at the end).
 * Return: 0, -ENOENT when the artifact is gone or was replaced, -EIO.
 */
int db_artifact_read(PGconn *conn, int64_t run_id, const char *name,
		     const char *sha256, uint64_t off, void *buf, size_t len,
		     size_t *got, struct rtlab_err *err) __must_check;

/** artifact_info_cleanup() - free @info's fields; safe twice. */
void artifact_info_cleanup(struct artifact_info *info);

/** artifact_cleanup() - free an artifact's fields; safe twice. */
void artifact_cleanup(struct artifact *a);

/** db_ping() - SELECT 1.  Return: 0 or -EIO with @err set. */
int db_ping(PGconn *conn, struct rtlab_err *err) __must_check;

/** db_runs_schema_check() - whether the tables this module uses exist.
 *  Return: 0, -ENOENT with @err saying to run `rtlab db migrate`, -EIO. */
int db_runs_schema_check(PGconn *conn, struct rtlab_err *err) __must_check;

/** artifact_content_type() - a MIME type from a bundle file's name. */
const char *artifact_content_type(const char *name);

#endif
