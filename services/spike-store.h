/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_SERVICES_SPIKE_STORE_H
#define RTLAB_SERVICES_SPIKE_STORE_H

/*
 * Spike analysis of stored runs (the analysis itself is reports/spike.h):
 * fetch a run's trace.dat from the database, analyze it, store the text
 * and JSON results as the run's artifacts.
 */

#include <stdbool.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "error.h"
#include "../reports/spike.h"

/**
 * spike_store() - store @text and @json as the artifacts spike.txt and
 * spike.json of run @run_id, replacing earlier ones.
 * Return: 0, or -EIO with @err holding PostgreSQL's message.
 */
int spike_store(PGconn *conn, int64_t run_id, const char *text,
		const char *json, struct rtlab_err *err) __must_check;

/**
 * spike_run_analyze() - analyze the trace.dat stored with run @run_id
 * (copied to a temporary file), on @cpu (-1: any), and check that it was
 * recorded on the run's kernel.
 * Return: 0; -ENOENT when the run or its trace.dat does not exist (@err
 * says which), -EXDEV for another kernel's trace, -EINVAL for a damaged
 * trace or one without a spike, -EIO, -ENOMEM.  Release @res with
 * spike_result_cleanup() either way.
 */
int spike_run_analyze(PGconn *conn, int64_t run_id, int cpu,
		      struct spike_result *res,
		      struct rtlab_err *err) __must_check;

struct artifact;

/**
 * spike_run_get() - the stored analysis of run @run_id as an artifact
 * (spike.json when @json, else spike.txt); when none is stored yet, the
 * run's trace.dat is analyzed, and with @store both results are stored
 * first, so the next call only reads.  Without @store nothing is written
 * (what a GET of the HTTP API must keep to).
 * Return: 0 with @a filled (caller releases with artifact_cleanup()), or
 * what spike_run_analyze() or spike_store() returned, @err saying why.
 */
int spike_run_get(PGconn *conn, int64_t run_id, bool json, bool store,
		  struct artifact *a, struct rtlab_err *err) __must_check;

#endif
