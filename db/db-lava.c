// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LAVA's notify callback between rtlab's server and the worker following
 * the job: a PostgreSQL NOTIFY on one channel, LAVA's job id as payload.
 * A notification only makes the worker ask lava-server now rather than at
 * its next poll, so nothing is stored and a forged one costs one request.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "db.h"
#include "db-lava.h"

int db_lava_notify(PGconn *conn, long lava_job_id, struct rtlab_err *err)
{
	char id[32];
	const char *p[2] = { DB_LAVA_CHANNEL, id };

	snprintf(id, sizeof(id), "%ld", lava_job_id);
	return db_exec(conn, err, "SELECT pg_notify($1, $2)", 2, p);
}

int db_lava_listen(PGconn *conn, struct rtlab_err *err)
{
	return db_exec(conn, err, "LISTEN " DB_LAVA_CHANNEL, 0, NULL);
}

int db_lava_wait(PGconn *conn, long lava_job_id, unsigned int timeout_ms,
		 bool *notified, struct rtlab_err *err)
{
	double end = clock_mono_s() + timeout_ms / 1000.0, left;
	struct pollfd pfd = { .fd = PQsocket(conn), .events = POLLIN };
	PGnotify *n;
	char id[32];

	*notified = false;
	snprintf(id, sizeof(id), "%ld", lava_job_id);
	if (pfd.fd < 0)
		return rtlab_err_seterr(err, EIO, "LISTEN: no connection");
	for (;;) {
		if (!PQconsumeInput(conn))
			return rtlab_err_seterr(err, EIO, "LISTEN: %s",
						PQerrorMessage(conn));
		while ((n = PQnotifies(conn))) {
			if (n->extra && !strcmp(n->extra, id))
				*notified = true;
			PQfreemem(n);
		}
		left = end - clock_mono_s();
		if (*notified || left <= 0)
			return 0;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return rtlab_err_seterr(err, errno, "LISTEN: poll: %s",
						strerror(errno));
	}
}
