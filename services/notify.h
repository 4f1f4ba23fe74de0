/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_NOTIFY_H
#define RTLAB_NOTIFY_H

/*
 * Telling people: an email through the configured SMTP relay (smtp_url,
 * libcurl) and/or a webhook (a JSON POST), once per subject (a regression
 * of a series, a finished submission).  What was told is recorded
 * (db_notification_put()); a subject whose state has not changed is not
 * told again, and a changed one is told as a reply (In-Reply-To and
 * References name the earlier messages), so a regression is one thread,
 * never a storm.
 */

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "config.h"
#include "error.h"

struct notify_to {
	const char *const *emails; /* NULL-terminated, may be NULL */
	const char *webhook;	   /* http(s) URL, may be NULL */
};

struct notify_msg {
	const char *subject_key; /* what it is about: "regression:...", ... */
	const char *state;	 /* told again only when this changes */
	const char *title;	 /* the mail's Subject */
	const char *text;	 /* the mail's body */
	json_t *data; /* the webhook's "data" (borrowed), may be NULL */
};

/**
 * notify_send() - tell @to about @m unless its state was told already.
 * @sent: set when a message went out (may be NULL).
 * Return: 0 (also when nothing was due, or @to is empty); a negative
 * errno with @err naming the relay or webhook that refused, and nothing
 * recorded, so the next call tries again.
 */
int notify_send(PGconn *conn, const struct rtlab_config *cfg,
		const struct notify_to *to, const struct notify_msg *m,
		bool *sent, struct rtlab_err *err) __must_check;

#endif
