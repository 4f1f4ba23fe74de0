/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_FTRACE_H
#define RTLAB_AGENT_FTRACE_H

/*
 * ftrace for a run.  Every function takes the tracefs root as a parameter
 * (/sys/kernel/tracing on a board, a copied directory in tests), and every
 * file it changes goes through the knob list so the run restores it.
 * Today it validates the testcase's trace section against the tracefs
 * (events exist, buffer size accepted) and sizes the ring buffer; starting
 * the capture and saving trace.dat plug in here.
 */

#include "knob.h"
#include "testcase.h"

#define FTRACE_DEFAULT_ROOT	"/sys/kernel/tracing"
#define FTRACE_DEBUGFS_ROOT	"/sys/kernel/debug/tracing"

/**
 * ftrace_find_root() - @opt when given, else the first of the default
 * mount points that holds a tracefs.
 * Return: the root (static or @opt), or NULL with @err saying where it
 * looked.
 */
const char *ftrace_find_root(const char *opt, struct rtlab_err *err);

/**
 * ftrace_check() - every event of @t exists under @root/events, and the
 * files a capture needs are there.
 * Return: 0 or -ENOENT with @err naming the first missing event or file.
 */
int ftrace_check(const char *root, const struct tc_trace *t,
		 struct rtlab_err *err) __must_check;

/**
 * ftrace_prepare() - ftrace_check(), then set @root/buffer_size_kb to
 * @t->buffer_kb through @knobs (restored by knob_restore_all()).
 * Return: 0 or a negative errno with @err set.
 */
int ftrace_prepare(const char *root, const struct tc_trace *t,
		   struct knob_list *knobs, struct rtlab_err *err)
	__must_check;

#endif
