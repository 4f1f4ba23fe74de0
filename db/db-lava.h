/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_LAVA_H
#define RTLAB_DB_LAVA_H

/*
 * LAVA's notify callback, passed from rtlab's server to the worker that
 * follows the job: the server sends a PostgreSQL notification on channel
 * "rtlab_lava" whose payload is LAVA's job id; the worker listens on it
 * and asks lava-server at once instead of at its next poll.  Nothing is
 * stored: a notification nobody listens for is lost, and polling stays
 * the fallback.  See docs/lava.md.
 */

#include <stdbool.h>
#include <libpq-fe.h>

#include "error.h"

#define DB_LAVA_CHANNEL "rtlab_lava"

/**
 * db_lava_notify() - tell whoever follows LAVA job @lava_job_id that
 * lava-server says it finished.
 * Return: 0, or -EIO with @err holding PostgreSQL's message.
 */
int db_lava_notify(PGconn *conn, long lava_job_id,
		   struct rtlab_err *err) __must_check;

/**
 * db_lava_listen() - start listening on DB_LAVA_CHANNEL on @conn (before
 * submitting the job, so that no notification is missed).
 * Return: 0, or -EIO with @err set.
 */
int db_lava_listen(PGconn *conn, struct rtlab_err *err) __must_check;

/**
 * db_lava_wait() - wait up to @timeout_ms for a notification about LAVA
 * job @lava_job_id on a connection that listens (others are dropped).
 * @notified: set when one came.
 * Return: 0 (notified or timed out), or -EIO with @err set when the
 * connection broke.
 */
int db_lava_wait(PGconn *conn, long lava_job_id, unsigned int timeout_ms,
		 bool *notified, struct rtlab_err *err) __must_check;

#endif
