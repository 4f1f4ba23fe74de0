/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_LOG_H
#define RTLAB_LOG_H

/*
 * Log lines on stderr: "PROG: LEVEL: message", one write per line so
 * threads do not interleave.  The message should carry its context
 * (board, kernel, run id, request).  A progress line (progress.h) on the
 * terminal is cleared first so the two do not mix.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include "error.h"

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/** log_set_prog() - program name at the start of each line (copied; at
 *  most 63 characters).  Default "rtlab". */
void log_set_prog(const char *prog);

/** log_set_level() - the most verbose level printed (default INFO). */
void log_set_level(enum log_level level);

/** log_set_timestamps() - prefix lines with a UTC ISO 8601 time, for
 *  long-running servers whose stderr goes to a file. */
void log_set_timestamps(bool on);

/** log_set_stream() - write to @f instead of stderr (tests); NULL resets. */
void log_set_stream(FILE *f);

void log_error(const char *fmt, ...) __printf(1, 2);
void log_warn(const char *fmt, ...) __printf(1, 2);
void log_info(const char *fmt, ...) __printf(1, 2);
void log_debug(const char *fmt, ...) __printf(1, 2);
void log_vmsg(enum log_level level, const char *fmt, va_list ap) __printf(2, 0);

/* For progress.c: a partial progress line is on the terminal now. */
void log_progress_line(bool shown);

#endif
