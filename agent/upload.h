/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_UPLOAD_H
#define RTLAB_AGENT_UPLOAD_H

/*
 * Handing a bundle to the server: POST it (libcurl) with a bearer token.
 * 2xx means stored (uploads are idempotent by run id, so "already stored"
 * is success too); any other 4xx but 408 and 429 means the server refuses
 * this bundle, and it is moved aside into SPOOL/quarantine/ with the
 * server's answer beside it (NAME.reply), so it never blocks the others;
 * a connection failure, 5xx, 408 or 429 spools it under SPOOL/ for
 * `rtlab-agent flush`, which retries it with an exponential backoff whose
 * next attempt time is recorded beside it (NAME.bundle.retry).
 */

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "error.h"

#define UPLOAD_CONTENT_TYPE "application/x-rtlab-bundle"
#define UPLOAD_DEFAULT_SPOOL "/var/spool/rtlab-agent"
#define UPLOAD_BUNDLE_SUFFIX ".bundle"
#define UPLOAD_QUARANTINE "quarantine" /* under the spool */
#define UPLOAD_REPLY_SUFFIX ".reply"   /* the server's answer */
#define UPLOAD_RETRY_SUFFIX ".retry"   /* after NAME.bundle */

/* Backoff between attempts of one bundle: 30 s, doubling, at most 1 h. */
#define UPLOAD_BACKOFF_FIRST_S 30
#define UPLOAD_BACKOFF_MAX_S 3600

enum upload_result {
	UPLOAD_STORED,
	UPLOAD_REJECTED,
	UPLOAD_RETRY, /* no answer, or a server error: try later */
};

/* The server's answer, kept with a quarantined bundle. */
struct upload_answer {
	long http_code;	 /* 0 when there was no answer */
	char body[4096]; /* its start, NUL-terminated */
};

/**
 * upload_post() - POST @size bytes at @data to @url.
 * @result: what became of it; @err says why when not UPLOAD_STORED (for a
 * rejection: the HTTP status and the server's JSON error message).
 * @answer: filled with the HTTP status and body when not NULL.
 * Return: 0 once @result is set, or -ENOMEM / -EINVAL (bad URL).
 */
int upload_post(const char *url, const char *token, const void *data,
		size_t size, enum upload_result *result,
		struct upload_answer *answer,
		struct rtlab_err *err) __must_check;

/** upload_backoff_s() - seconds to wait after the @attempts'th failed
 *  attempt (1, 2, ...): UPLOAD_BACKOFF_FIRST_S doubling, at most
 *  UPLOAD_BACKOFF_MAX_S. */
unsigned int upload_backoff_s(unsigned int attempts);

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
		 size_t size, char **path, struct rtlab_err *err) __must_check;

/**
 * upload_deliver() - upload_post(), then spool or quarantine.
 * Prints one line saying what happened (stored, spooled at PATH, or
 * rejected and kept at PATH with the server's message).  A spooled
 * bundle is due at the next flush.
 * Return: 0 when stored or spooled, -EBADMSG when rejected, another
 * negative errno when it could not even be spooled; @err set.
 */
int upload_deliver(const char *url, const char *token, const char *spool,
		   const char *name, const void *data, size_t size,
		   struct rtlab_err *err) __must_check;

/**
 * upload_flush() - retry every DIR/\*.bundle that is due at @now; delete
 * each once stored, quarantine a refused one with the server's answer.
 * One that must wait (no answer, 5xx) gets its attempt count and next
 * attempt time (@now + upload_backoff_s()) recorded in NAME.bundle.retry,
 * and flush goes on with the next bundle.  Prints a line per bundle.
 * @now: the current time, time(NULL); 0 makes every bundle due.
 * @left: how many bundles are still spooled afterwards.
 * Return: 0 when every spooled bundle was stored, -EAGAIN when some must
 * wait, -EBADMSG when some were quarantined (and none wait), or another
 * negative errno.
 */
int upload_flush(const char *url, const char *token, const char *spool,
		 time_t now, unsigned int *left,
		 struct rtlab_err *err) __must_check;

#endif
