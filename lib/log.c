// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Log lines on stderr with the program name and a level, each written with
 * one stdio call so the server's threads do not interleave them, and
 * clearing any progress line first.
 */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

static char log_prog[64] = "rtlab";
static enum log_level log_level = LOG_LEVEL_INFO;
static bool log_timestamps;
static bool log_progress_shown;
static FILE *log_stream;

static const char *const level_names[] = {
	[LOG_LEVEL_ERROR] = "error",
	[LOG_LEVEL_WARN] = "warning",
	[LOG_LEVEL_INFO] = "info",
	[LOG_LEVEL_DEBUG] = "debug",
};

void log_set_prog(const char *prog)
{
	snprintf(log_prog, sizeof(log_prog), "%s", prog ? prog : "rtlab");
}

void log_set_level(enum log_level level)
{
	log_level = level;
}

void log_set_timestamps(bool on)
{
	log_timestamps = on;
}

void log_set_stream(FILE *f)
{
	log_stream = f;
}

void log_progress_line(bool shown)
{
	log_progress_shown = shown;
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	FILE *out = log_stream ? log_stream : stderr;
	char line[2048], stamp[32] = "";
	size_t n = 0;
	struct tm tm;
	time_t now;
	int r;

	if (level > log_level || (unsigned int)level > LOG_LEVEL_DEBUG)
		return;
	if (log_timestamps) {
		now = time(NULL);
		if (gmtime_r(&now, &tm))
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ ",
				 &tm);
	}
	r = snprintf(line, sizeof(line),
		     "%s%s%s: %s: ", log_progress_shown ? "\r\033[K" : "",
		     stamp, log_prog, level_names[level]);
	if (r > 0)
		n = (size_t)r < sizeof(line) ? (size_t)r : sizeof(line) - 1;
	r = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (r > 0)
		n += (size_t)r < sizeof(line) - n ? (size_t)r :
						    sizeof(line) - n - 1;
	/* a truncated line still ends with its newline */
	if (n >= sizeof(line) - 1)
		n = sizeof(line) - 2;
	if (!n || line[n - 1] != '\n')
		line[n++] = '\n';
	line[n] = '\0';
	fputs(line, out);
	fflush(out);
	log_progress_shown = false;
}

#define LOG_FN(name, level)               \
	void name(const char *fmt, ...)   \
	{                                 \
		va_list ap;               \
		va_start(ap, fmt);        \
		log_vmsg(level, fmt, ap); \
		va_end(ap);               \
	}

LOG_FN(log_error, LOG_LEVEL_ERROR)
LOG_FN(log_warn, LOG_LEVEL_WARN)
LOG_FN(log_info, LOG_LEVEL_INFO)
LOG_FN(log_debug, LOG_LEVEL_DEBUG)
