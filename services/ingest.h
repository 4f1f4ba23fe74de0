/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_INGEST_H
#define RTLAB_INGEST_H

/*
 * Bundle ingest: everything between the bytes of an uploaded result bundle
 * and its rows in PostgreSQL.  The bundle, its manifest, the files'
 * checksums and the histograms are all checked before anything is written,
 * and the write is one transaction.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "error.h"

struct ingest_result {
	int64_t run_id;
	char uuid[37];
	bool duplicate;	     /* already stored, nothing written */
	char status[16];     /* run status name */
	unsigned int nhists; /* histograms stored */
};

/**
 * ingest_bundle() - validate and store one serialized bundle.
 * @board_id: the uploader's board (from its token); the manifest must name
 *	the same board.  < 0: trust the manifest's board (local ingest).
 * @board: that board's name (ignored when @board_id < 0).
 * Return: 0 with @res filled (new or duplicate run);
 *	-EINVAL: bad bundle (truncated, not a tar, manifest field missing,
 *	checksum mismatch, garbled or inconsistent histograms);
 *	-EACCES: the manifest names another board than the token's, or a
 *	job queued for another board;
 *	-EXDEV: another board already stored a run with this uuid;
 *	-EIO: the database failed; -ENOMEM.
 *	@err names what was wrong.  On failure nothing is stored.
 */
int ingest_bundle(PGconn *conn, const void *data, size_t size, int board_id,
		  const char *board, struct ingest_result *res,
		  struct rtlab_err *err) __must_check;

#endif
