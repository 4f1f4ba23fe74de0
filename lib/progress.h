/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_PROGRESS_H
#define RTLAB_PROGRESS_H

/*
 * A one-line progress display for long runs (the agent's measurement, the
 * worker's jobs): "\rWHAT [phase] elapsed 3s / remaining 7s", redrawn in
 * place at most once a second, only when stderr is a terminal; silent
 * otherwise, so logs and CI output stay clean.
 *
 *	struct progress p;
 *	progress_init(&p, "cyclictest-idle", 30);
 *	progress_phase(&p, "loads");
 *	while (running) { ...; progress_update(&p); }
 *	progress_done(&p);
 */

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

struct progress {
	const char *what; /* not copied: must outlive the progress */
	char phase[32];
	double total_s;	       /* expected duration, <= 0 when unknown */
	struct timespec start; /* CLOCK_MONOTONIC */
	bool tty;	       /* draw at all (set from isatty(stderr)) */
	FILE *out;	       /* stderr; tests may point it elsewhere */
	bool shown;	       /* a line is on the terminal now */
	long last_s;	       /* elapsed second last drawn */
};

/** progress_init() - start the clock; draws nothing yet.  @what may be
 *  NULL.  Nothing to free. */
void progress_init(struct progress *p, const char *what, double total_s);

/** progress_phase() - name the current phase (copied) and redraw. */
void progress_phase(struct progress *p, const char *phase);

/** progress_update() - redraw if a new second began; cheap to call often. */
void progress_update(struct progress *p);

/** progress_elapsed_s() - seconds since progress_init(). */
double progress_elapsed_s(const struct progress *p);

/** progress_done() - clear the line; safe to call twice. */
void progress_done(struct progress *p);

#endif
