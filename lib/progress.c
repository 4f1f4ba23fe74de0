// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal progress line: elapsed and remaining time and the current
 * phase, redrawn in place, and nothing at all when stderr is not a
 * terminal.  It tells log.c when a partial line is showing, so a log line
 * clears it first.
 */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "progress.h"

void progress_init(struct progress *p, const char *what, double total_s)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->total_s = total_s;
	p->out = stderr;
	p->tty = isatty(STDERR_FILENO) == 1;
	p->last_s = -1;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

double progress_elapsed_s(const struct progress *p)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - p->start.tv_sec) +
	       (double)(now.tv_nsec - p->start.tv_nsec) / 1e9;
}

/* 7s, 2m05s, 1h02m */
static void fmt_duration(char *buf, size_t len, long s)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, len, "%lds", s);
	else if (s < 3600)
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, len, "%ldh%02ldm", s / 3600, s % 3600 / 60);
}

static void progress_draw(struct progress *p, long el)
{
	char e[32], r[32];

	fmt_duration(e, sizeof(e), el);
	fprintf(p->out, "\r%s%s[%s] elapsed %s", p->what ? p->what : "",
		p->what ? " " : "", p->phase[0] ? p->phase : "running", e);
	if (p->total_s > 0) {
		fmt_duration(r, sizeof(r), (long)(p->total_s + 0.5) - el);
		fprintf(p->out, " / remaining %s", r);
	}
	fputs("\033[K", p->out);
	fflush(p->out);
	p->shown = true;
	p->last_s = el;
	log_progress_line(true);
}

void progress_phase(struct progress *p, const char *phase)
{
	snprintf(p->phase, sizeof(p->phase), "%s", phase ? phase : "");
	if (p->tty)
		progress_draw(p, (long)progress_elapsed_s(p));
}

void progress_update(struct progress *p)
{
	long el;

	if (!p->tty)
		return;
	el = (long)progress_elapsed_s(p);
	if (el != p->last_s)
		progress_draw(p, el);
}

void progress_done(struct progress *p)
{
	if (p->tty && p->shown) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
		log_progress_line(false);
	}
	p->shown = false;
}
