/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_PROC_H
#define RTLAB_AGENT_PROC_H

/*
 * Child processes: find a tool on PATH, run a short command and capture
 * its output, and reap children on the agent's own schedule.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "error.h"
#include "fsutil.h"

/**
 * proc_capture() - run @argv (stdin and stderr on /dev/null), collect at
 * most @max bytes of its stdout and wait for it.
 * @out: malloc'd, NUL-terminated output; caller frees (also on failure)
 * @status: the wait status
 * Return: 0 when it ran (whatever its exit status), or a negative errno
 * with @err naming the command.
 */
int proc_capture(char *const argv[], size_t max, char **out, size_t *len,
		 int *status, struct rtlab_err *err) __must_check;

/** proc_status_str() - "exit status 3", "killed by SIGKILL" into @buf. */
const char *proc_status_str(int status, char *buf, size_t size);

#endif
