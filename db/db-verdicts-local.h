/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_VERDICTS_LOCAL_H
#define RTLAB_DB_VERDICTS_LOCAL_H

/*
 * What the storing pipeline of db-runs.c asks of db-verdicts.c: the
 * series of the run it has just inserted, read inside the same
 * transaction, so that the verdict after an upload costs no round trip of
 * its own.  Private to db/.
 */

#include <libpq-fe.h>

#include "db-pipeline.h"
#include "db-verdicts.h"

/* db_run_series()'s query of the run the pipeline inserted last (the
 * runs sequence's currval); no parameters. */
extern const struct db_stmt db_run_series_stored_stmt;

/**
 * db_run_series_read() - fill @rs from an answer of db_run_series()'s
 * query.  Return: 0, or -ENOENT when the answer has no row.
 */
int db_run_series_read(const PGresult *res, struct run_series *rs);

#endif
