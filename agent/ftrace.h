/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_FTRACE_H
#define RTLAB_AGENT_FTRACE_H

/*
 * ftrace for a run, in the top-level tracefs buffer.  Every function takes the tracefs root
 * as a parameter (/sys/kernel/tracing on a board, a copied directory in
 * tests), and every file it changes goes through the knob list so the run
 * restores it.  The sequence of a run:
 *
 *   ftrace_prepare()   tracing off, nop tracer, no other event, buffer
 *                      sized, the testcase's events enabled
 *   ftrace_snapshot_arm()  hist triggers: each new maximum of the
 *                      measuring threads' wakeup latency swaps the buffer
 *                      into the snapshot
 *   ftrace_start()     buffer cleared, tracing on -- before the loads
 *   ... cyclictest runs its whole duration ...
 *   ftrace_stop()      tracing off; says whether someone else did it first
 *   ftrace_snapshot_disarm()   the maximum read, triggers removed
 *   ftrace_snapshot_restore()  the kept trace back to the top level
 *   ftrace_stats_read()        its entries and lost events
 *   ftrace_extract()   `trace-cmd extract -o trace.dat` (libtracecmd's
 *                      writer is private, so the tool writes the file)
 *   ftrace_snapshot_free()     the snapshot buffer freed
 *   knob_restore_all() every saved file back
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "knob.h"
#include "testcase.h"

#define FTRACE_DEFAULT_ROOT "/sys/kernel/tracing"
#define FTRACE_DEBUGFS_ROOT "/sys/kernel/debug/tracing"

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
 * stopped it during the run).
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

/*
 * The trace of the worst wakeup latency of cyclictest's measuring threads,
 * kept by a hist trigger's onmax().snapshot() while the measurement runs
 * its full length.
 */
struct snap_variant;

struct ftrace_snapshot {
	const struct snap_variant *variant; /* the latency measured */
	unsigned int narmed;   /* its triggers in place (to remove) */
	char triggers[3][320]; /* as written */
	bool free_after; /* the snapshot buffer was not allocated before */
	bool taken;	 /* a maximum swapped the buffer into the snapshot */
	bool swapped;	 /* ... and it was swapped back to the top level */
	unsigned long long lat_us;	     /* that maximum, in µs */
	bool negative;			     /* ... was below 0: no latency */
	long pid;			     /* its thread, -1 when not read */
	char fallback_reason[RTLAB_ERR_LEN]; /* why the preferred latency was not
				    * measured, "" when it was */
};

/** ftrace_snapshot_supported() - @root has the snapshot file and the
 *  trigger files of sched:sched_switch and of timer:hrtimer_start (with
 *  the "mono" trace clock) or sched:sched_waking. */
bool ftrace_snapshot_supported(const char *root);

/**
 * ftrace_snapshot_arm() - add the hist triggers: the sched_switch-in of a
 * "cyclictest" thread at SCHED_FIFO @rt_prio (cyclictest -p; its main
 * thread is left out) computes its latency and
 * onmax(latency).snapshot() swaps the buffer into the snapshot at each new
 * maximum.  The latency runs from its timer's expiry (hrtimer_start's
 * expires, trace_clock set to mono through @knobs) or, when that cannot be
 * armed, from its sched_waking (@s->fallback_reason says why).  The
 * trigger files are appended to, never truncated (that would remove the
 * board's own triggers).
 * @s: cleared, then records what to undo with ftrace_snapshot_disarm().
 * Return: 0; -EOPNOTSUPP when the kernel lacks snapshot or hist triggers;
 * another negative errno with @err quoting the kernel's error_log.
 */
int ftrace_snapshot_arm(const char *root, unsigned int rt_prio,
			struct ftrace_snapshot *s, struct knob_list *knobs,
			struct rtlab_err *err) __must_check;

/** ftrace_snapshot_latency() - "expiry_to_switch" or "waking_to_switch"
 *  for an armed @s, else NULL. */
const char *ftrace_snapshot_latency(const struct ftrace_snapshot *s);

/**
 * ftrace_snapshot_disarm() - read the maximum from sched_switch's hist
 * file into @s (taken, lat_us, pid), then remove both triggers.  Safe to
 * call again and on a partly armed @s.
 * Return: 0 or the first negative errno, @err (may be NULL) naming it.
 */
int ftrace_snapshot_disarm(const char *root, struct ftrace_snapshot *s,
			   struct rtlab_err *err);

/**
 * ftrace_snapshot_parse() - the "Snapshot taken" details of a hist file:
 * "triggering value { onmax($rtlab_lat_ns) }: NS" (or $rtlab_lat, in µs)
 * and "next_pid: PID".
 * Return: 0 with @s->taken, lat_us, pid set; -ENOENT when no snapshot was
 * taken (@s->taken false).
 */
int ftrace_snapshot_parse(const char *hist, struct ftrace_snapshot *s);

/**
 * ftrace_snapshot_restore() - with the triggers removed and tracing off,
 * swap the kept trace back into the top-level buffer (write 1 to
 * snapshot), so trace-cmd extracts it and the per-CPU stats describe it.
 * Nothing to do when no snapshot was taken.
 * Return: 0 or a negative errno with @err set.
 */
int ftrace_snapshot_restore(const char *root, struct ftrace_snapshot *s,
			    struct rtlab_err *err) __must_check;

/* The mark that tells the spike analysis which wakeup the trace kept. */
#define FTRACE_SNAPSHOT_MARK "rtlab worst wakeup ("

/**
 * ftrace_snapshot_mark() - after ftrace_snapshot_restore(), append
 * "rtlab worst wakeup (LAT us, pid PID, LATENCY)" to the kept trace
 * through trace_marker (tracing on for that write only), so the spike
 * analysis knows the thread and the latency the trace was kept for.
 * Nothing to do when no snapshot was swapped back.
 * Return: 0 or a negative errno with @err set.
 */
int ftrace_snapshot_mark(const char *root, const struct ftrace_snapshot *s,
			 struct rtlab_err *err) __must_check;

/**
 * ftrace_snapshot_free() - free the snapshot buffer (write 0 to snapshot)
 * when ftrace_snapshot_arm() found it unallocated.  Once only.
 * Return: 0 or a negative errno with @err set.
 */
int ftrace_snapshot_free(const char *root, struct ftrace_snapshot *s,
			 struct rtlab_err *err) __must_check;

/* The top-level buffer's per-CPU stats, summed over CPUs. */
struct ftrace_stats {
	unsigned int ncpus;
	unsigned long long entries;	   /* events in the buffer */
	unsigned long long overrun;	   /* overwritten (overwrite mode) */
	unsigned long long commit_overrun; /* lost while being written */
	unsigned long long dropped;	   /* dropped (no overwrite mode) */
};

/** ftrace_stats_parse() - add the counters of one per_cpu/cpuN/stats
 *  text to @st. */
void ftrace_stats_parse(const char *text, struct ftrace_stats *st);

/**
 * ftrace_stats_read() - @root/per_cpu/cpu0/stats, cpu1 ... summed.
 * Return: 0, or -ENOENT when there is no per_cpu/cpu0/stats.
 */
int ftrace_stats_read(const char *root, struct ftrace_stats *st) __must_check;

#endif
