// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading the clocks: monotonic seconds for whoever times something, UTC
 * ISO 8601 text for whoever records when it happened.  One spelling of the
 * timestamp format, so every record of a run reads the same.
 */

#include <stdlib.h>
#include <string.h>

#include "clock.h"

double clock_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void clock_iso_utc(char buf[CLOCK_ISO_SIZE], time_t t)
{
	struct tm tm;

	buf[0] = '\0';
	if (gmtime_r(&t, &tm))
		strftime(buf, CLOCK_ISO_SIZE, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *clock_iso_now(void)
{
	char buf[CLOCK_ISO_SIZE];

	clock_iso_utc(buf, time(NULL));
	return strdup(buf);
}
