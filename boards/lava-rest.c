// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A lava-server's REST API (v0.2) for the lava board kind: submit a job
 * definition, follow the job, fetch its log.
 */

#include <errno.h>

#include "lava.h"

int lava_server_run(const char *board, const struct lava_conf *c,
		    const char *job_path, const char *log_path, long *job_id,
		    bool *ran, struct rtlab_err *err)
{
	(void)c;
	(void)job_path;
	(void)log_path;
	*job_id = 0;
	*ran = false;
	return rtlab_err_seterr(err, ENOSYS, "board %s: not yet", board);
}
