/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_FILING_H
#define RTLAB_FILING_H

/*
 * Filing the report of a verdict into a Bugzilla 5, once per regression:
 * the server's limits and field values are asked first, the report is
 * built to fit them, a regression that already has a bug (filed from this
 * database, or found by its whiteboard tag) gets a comment instead of a
 * second bug, and attachments that did not make it are recorded so a
 * later call adds them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <libpq-fe.h>

#include "config.h"
#include "error.h"

struct filing_opts {
	const char *url;     /* Bugzilla base URL */
	const char *api_key; /* NULL: only a dry run */
	bool dry_run;	     /* ask the server, print, file nothing */
	bool force;	     /* a verdict that is not a REGRESSION */
	const struct rtlab_config *cfg;
	/* Each thing worth telling the user, one sentence a call. */
	void (*say)(void *arg, const char *fmt, ...) __printf(2, 3);
	void *arg;
};

enum filing_outcome {
	FILING_DRY_RUN,
	FILING_NEW_BUG,	  /* a bug was filed */
	FILING_COMMENTED, /* the regression's bug got a comment */
	FILING_COMPLETED, /* missing attachments of a filed bug added */
};

struct filing_result {
	enum filing_outcome outcome;
	int64_t bug_id;
	char bug_url[512];
	size_t attached, natt; /* attachments on the bug / of the report */
};

/**
 * filing_file() - file verdict @verdict_id's report as @o says.
 * Return: 0 with @res filled when everything was sent; -EAGAIN with @res
 * filled when the bug was filed (and recorded) but some attachments were
 * not (@err names them; calling again adds them); -EEXIST when the
 * verdict is filed already with nothing missing; -EPERM for a verdict
 * that is not a REGRESSION without @o->force; -EHOSTUNREACH,
 * -EREMOTEIO (Bugzilla's error, nothing recorded as filed), -EIO, -ENOMEM.
 */
int filing_file(PGconn *conn, int64_t verdict_id, const struct filing_opts *o,
		struct filing_result *res, struct rtlab_err *err) __must_check;

/** filing_lab_url() - @cfg's public_url, else "http://" + listen. */
const char *filing_lab_url(const struct rtlab_config *cfg, char *buf,
			   size_t size);

#endif
