/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_UPLOAD_H
#define RTLAB_AGENT_UPLOAD_H

/*
 * Handing a bundle to the server: POST it (libcurl) with a bearer token.
 * 2xx means stored (uploads are idempotent by run id, so "already stored"
 * is success too); 4xx means rejected, and the bundle is kept under
 * SPOOL/rejected/ for inspection; a connection failure or 5xx spools it
 * under SPOOL/ for `rtlab-agent flush`.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

#define UPLOAD_CONTENT_TYPE	"application/x-rtlab-bundle"
#define UPLOAD_DEFAULT_SPOOL	"/var/spool/rtlab-agent"
#define UPLOAD_BUNDLE_SUFFIX	".bundle"

enum upload_result {
	UPLOAD_STORED,
	UPLOAD_REJECTED,
	UPLOAD_RETRY,		/* no answer, or a server error: try later */
};

/**
 * upload_post() - POST @size bytes at @data to @url.
 * @result: what became of it; @err says why when not UPLOAD_STORED (for a
 * rejection: the HTTP status and the server's JSON error message).
 * Return: 0 once @result is set, or -ENOMEM / -EINVAL (bad URL).
 */
int upload_post(const char *url, const char *token, const void *data,
		size_t size, enum upload_result *result,
		struct rtlab_err *err) __must_check;

/** upload_url_valid() - true for an http:// or https:// URL. */
bool upload_url_valid(const char *url);

/** upload_spool_dir() - @opt, else $RTLAB_SPOOL, else the default. */
const char *upload_spool_dir(const char *opt);

/**
 * upload_spool() - store a bundle as DIR/NAME.bundle (DIR created if
 * needed), atomically.  @path: set to the file's path, malloc'd, caller
 * frees; may be NULL.  Return: 0 or a negative errno with @err set.
 */
int upload_spool(const char *dir, const char *name, const void *data,
		 size_t size, char **path, struct rtlab_err *err)
	__must_check;

/**
 * upload_deliver() - upload_post(), then spool or keep as rejected.
 * Prints one line saying what happened (stored, spooled at PATH, or
 * rejected and kept at PATH with the server's message).
 * Return: 0 when stored or spooled, -EBADMSG when rejected, another
 * negative errno when it could not even be spooled; @err set.
 */
int upload_deliver(const char *url, const char *token, const char *spool,
		   const char *name, const void *data, size_t size,
		   struct rtlab_err *err) __must_check;

/**
 * upload_flush() - retry every DIR/\*.bundle; delete each once stored,
 * move a rejected one to DIR/rejected/.  Stops at the first bundle that
 * must wait (server unreachable).  Prints a line per bundle.
 * @left: how many bundles are still spooled afterwards.
 * Return: 0 when every spooled bundle was stored, -EAGAIN when some must
 * wait, -EBADMSG when some were rejected, or another negative errno.
 */
int upload_flush(const char *url, const char *token, const char *spool,
		 unsigned int *left, struct rtlab_err *err) __must_check;

#endif
