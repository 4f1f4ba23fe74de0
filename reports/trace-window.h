/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_TRACE_WINDOW_H
#define RTLAB_TRACE_WINDOW_H

/*
 * A trace.dat too large for a bug tracker, reduced to what a maintainer
 * needs: the stretch of time around its worst spike (from a margin before
 * the timer's expiry to a little after the spike), still a trace.dat that
 * `trace-cmd report` and KernelShark open.  trace-cmd's own writer cuts
 * and rewrites it (`trace-cmd split`, `trace-cmd convert` to version 7 with
 * zstd sections); when even that is too large, the version 6 file is
 * compressed with xz.  The margin shrinks until the result fits, and the
 * spike analysis of the result is compared with the full trace's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct trace_window {
	void *data; /* the reduced trace.dat (xz-compressed when @xz) */
	size_t size;
	bool xz;
	int cpu;	   /* the spike's CPU */
	uint64_t start_ns; /* the window kept, trace timestamps */
	uint64_t end_ns;
	uint64_t margin_ns; /* kept before the timer's expiry */
	uint64_t spike_us;  /* the spike's latency */
	bool same_analysis; /* its spike analysis equals the full trace's */
};

/**
 * trace_window_reduce() - cut the trace.dat @trace (@size bytes) to the
 * window around its worst spike, no larger than @max_bytes.
 * Return: 0 with @w filled (caller releases with trace_window_cleanup());
 * -EINVAL when the trace has no spike to centre on or is not readable;
 * -EFBIG when even the smallest window does not fit; -ENOENT when
 * trace-cmd or xz is missing; -ENOMEM.  @err says which, with sizes.
 */
int trace_window_reduce(const void *trace, size_t size, size_t max_bytes,
			struct trace_window *w,
			struct rtlab_err *err) __must_check;

/** trace_window_cleanup() - free @w's data; safe twice. */
void trace_window_cleanup(struct trace_window *w);

#endif
