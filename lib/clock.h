/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CLOCK_H
#define RTLAB_CLOCK_H

/*
 * The two clocks rtlab reads: the monotonic one for durations and
 * deadlines, and UTC wall time for the timestamps a run, a bundle or a
 * retry records (ISO 8601, as the database and the reports parse them).
 */

#include <time.h>

/* Room for "YYYY-MM-DDTHH:MM:SSZ" and its NUL, with some to spare. */
#define CLOCK_ISO_SIZE 32

/** clock_mono_s() - CLOCK_MONOTONIC in seconds, for durations. */
double clock_mono_s(void);

/** clock_iso_utc() - @t as "YYYY-MM-DDTHH:MM:SSZ" in @buf; "" when the
 *  time cannot be broken down. */
void clock_iso_utc(char buf[CLOCK_ISO_SIZE], time_t t);

/** clock_iso_now() - the present time as clock_iso_utc() writes it.
 *  Return: a string the caller frees, or NULL when out of memory. */
char *clock_iso_now(void);

#endif
