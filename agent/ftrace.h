/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_FTRACE_H
#define RTLAB_AGENT_FTRACE_H

/*
 * ftrace for a run, in the top-level tracefs buffer (cyclictest's
 * breaktrace stops only that one).  Every function takes the tracefs root
 * as a parameter (/sys/kernel/tracing on a board, a copied directory in
 * tests), and every file it changes goes through the knob list so the run
 * restores it.  The sequence of a run:
 *
 *   ftrace_prepare()   tracing off, nop tracer, no other event, buffer
 *                      sized, the testcase's events enabled
 *   ftrace_start()     buffer cleared, tracing on -- before the loads
 *   ... cyclictest -b BREAK_US --tracemark: a spike turns tracing off ...
 *   ftrace_stop()      tracing off; says whether someone else did it first
 *   ftrace_extract()   `trace-cmd extract -o trace.dat` (libtracecmd's
 *                      writer is private, so the tool writes the file)
 *   knob_restore_all() every saved file back
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "knob.h"
#include "testcase.h"

#define FTRACE_DEFAULT_ROOT "/sys/kernel/tracing"
#define FTRACE_DEBUGFS_ROOT "/sys/kernel/debug/tracing"
/* What cyclictest writes to trace_marker when -b is exceeded. */
#define FTRACE_SPIKE_MARK "hit latency threshold ("

/**
 * ftrace_find_root() - @opt when given, else the first of the default
 * mount points that holds a tracefs.
 * Return: the root (static or @opt), or NULL with @err saying where it
 * looked.
 */
const char *ftrace_find_root(const char *opt, struct rtlab_err *err);

/**
 * ftrace_event_exists() - @event ("subsystem:event", '*' allowed in the
 * event part) names at least one event under @root/events.
 */
bool ftrace_event_exists(const char *root, const char *event);

/**
 * ftrace_check() - every event of @t->events exists under @root/events
 * (@t->optional_events may be missing), and the files a capture needs are
 * there.
 * Return: 0 or -ENOENT with @err naming the first missing event or file.
 */
int ftrace_check(const char *root, const struct tc_trace *t,
		 struct rtlab_err *err) __must_check;

/**
 * ftrace_prepare() - ftrace_check(), then through @knobs (restored by
 * knob_restore_all()): tracing_on 0, current_tracer nop, set_event emptied
 * (no event but ours), options/overwrite 1 (keep the newest events, those
 * before a spike), buffer_size_kb @t->buffer_kb, and the enable file of
 * every event of @t->events and of the optional events that exist.
 * Return: 0 or a negative errno with @err set.
 */
int ftrace_prepare(const char *root, const struct tc_trace *t,
		   struct knob_list *knobs, struct rtlab_err *err) __must_check;

/**
 * ftrace_start() - clear the top-level buffer and turn tracing on (a knob:
 * restored to its saved value).
 * Return: 0 or a negative errno with @err naming the file.
 */
int ftrace_start(const char *root, struct knob_list *knobs,
		 struct rtlab_err *err) __must_check;

/**
 * ftrace_stop() - turn tracing off.
 * @was_on: set to whether tracing was still on (false: something else
 * stopped it, e.g. cyclictest at a spike past its -b threshold).
 * Return: 0 or a negative errno with @err naming the file.
 */
int ftrace_stop(const char *root, struct knob_list *knobs, bool *was_on,
		struct rtlab_err *err) __must_check;

/**
 * ftrace_extract() - run `trace-cmd extract -o @name` in @dir, its output
 * going to @dir/@name.log.  trace-cmd reads the mounted tracefs, so @root
 * must be that one.  When *@stop becomes non-zero trace-cmd is
 * interrupted.
 * Return: 0 when @dir/@name was written; -EXDEV when @root is not the
 * mounted tracefs, -ENOENT when trace-cmd is not on PATH, -EINTR when
 * stopped, another negative errno; @err says which.
 */
int ftrace_extract(const char *root, const char *dir, const char *name,
		   volatile sig_atomic_t *stop,
		   struct rtlab_err *err) __must_check;

/**
 * ftrace_find_spike() - the last "hit latency threshold (X > Y)" mark in
 * @data (a trace.dat: print events hold their text verbatim, and an event
 * never straddles a page).
 * Return: true with @lat_us = X and @threshold_us = Y when found.
 */
bool ftrace_find_spike(const void *data, size_t len, unsigned long long *lat_us,
		       unsigned long long *threshold_us);

#endif
