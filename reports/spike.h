/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_REPORTS_SPIKE_H
#define RTLAB_REPORTS_SPIKE_H

/*
 * Spike analysis of a run's trace.dat, in the spirit of
 * `rtla timerlat --auto`: find the worst latency (cyclictest's tracemark,
 * else rtlab-agent's mark of the worst wakeup its snapshot kept, else the
 * worst wakeup-to-run of a measuring thread) and account for the
 * time on its CPU between the timer's expiry and the mark: the timer
 * interrupt's delay, IRQ handlers, softirqs, the tasks that ran instead,
 * what was running when the timer fired, and silent stretches without any
 * event (preemption or interrupts off).  The file is read through
 * libtracecmd and libtraceevent.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define SPIKE_COMM_LEN 32
#define SPIKE_NAME_LEN 48

enum spike_source {
	SPIKE_SOURCE_TRACEMARK, /* "hit latency threshold (X > Y)" */
	SPIKE_SOURCE_WAKEUP,	/* worst sched_wakeup -> sched_switch-in */
	SPIKE_SOURCE_SNAPSHOT,	/* "rtlab worst wakeup (X us, pid P, ...)":
				 * P's last switch-in, X after the expiry */
};

enum spike_kind {
	SPIKE_KIND_TIMER,   /* local_timer_entry/exit (hard interrupt) */
	SPIKE_KIND_IRQ,	    /* irq_handler_entry/exit */
	SPIKE_KIND_SOFTIRQ, /* softirq_entry/exit */
	SPIKE_KIND_THREAD,  /* a task on the CPU (its own time only) */
};

/*
 * One contribution to the window.  For IRQs and softirqs, one occurrence;
 * for threads, one task (all its stints in the window summed).
 */
struct spike_item {
	enum spike_kind kind;
	int id;			   /* IRQ number, softirq vector, or pid */
	char name[SPIKE_NAME_LEN]; /* IRQ name, vector name, or comm */
	int pid;		   /* task it ran in (threads: itself) */
	char comm[SPIKE_COMM_LEN];
	int prio;	    /* kernel prio (0..99 RT, 100..139 normal) */
	uint64_t start_ns;  /* first entry (may precede the window) */
	uint64_t window_ns; /* time inside the window, nested IRQs and
				 * softirqs excluded */
	uint64_t total_ns;  /* whole occurrence, entry to exit (threads:
				 * the stint that overlaps the window's end
				 * or the longest one), 0 when not closed */
};

struct spike_task {
	int pid;
	char comm[SPIKE_COMM_LEN];
	int prio;
};

struct spike_result {
	char file[256];
	char uname[256];   /* "Linux RELEASE VERSION MACHINE", or "" */
	char release[128]; /* second word of uname, or "" */
	uint64_t nevents;  /* events read in the first pass */

	enum spike_source source;
	int cpu;
	struct spike_task thread; /* the measuring thread */
	uint64_t lat_us;	  /* X of the mark, or the wakeup-to-run */
	uint64_t threshold_us;	  /* Y of the mark, 0 without one */

	/* Trace timestamps, ns.  window = [expiry_ns, end_ns]. */
	uint64_t expiry_ns; /* mark - X, or the timer interrupt's entry
				 * when that is earlier; the wakeup without a
				 * mark */
	uint64_t timer_ns;  /* entry of the timer interrupt that woke the
				 * thread, 0 if not traced */
	uint64_t wakeup_ns; /* sched_wakeup of the thread, 0 if none */
	uint64_t run_ns;    /* its sched_switch-in */
	uint64_t end_ns;    /* the mark, or run_ns without one */

	struct spike_task at_expiry; /* running when the timer fired */
	bool has_at_expiry;
	struct spike_task blocking; /* switched out for the thread */
	bool has_blocking;
	uint64_t blocking_window_ns; /* its time inside the window */
	uint64_t blocking_stint_ns;  /* its switch-in to switch-out */

	uint64_t irq_delay_ns; /* expiry to the timer IRQ's entry */
	uint64_t timer_irq_ns; /* that interrupt's duration */
	uint64_t wakeup_to_run_ns;
	uint64_t irq_ns, softirq_ns, thread_ns, self_ns;
	/* self_ns: the measuring thread between switch-in and the mark */

	/* The longest stretch without any event that reaches into the
	 * window (whole, from the event before it to the one after). */
	uint64_t silent_start_ns, silent_ns;
	struct spike_task silent_task; /* running across it */

	size_t nitems;
	struct spike_item *items; /* by window_ns, largest first */
};

/**
 * spike_analyze_file() - analyze trace.dat @path into @res.
 * Return: 0; -ENOENT when @path cannot be opened; -EINVAL when it is not
 * a readable trace.dat (truncated, damaged) or holds no spike to analyze
 * (no tracemark and no cyclictest wakeup); -ENOMEM.  @err names the file
 * and what was wrong.  Release @res with spike_result_cleanup() either way.
 */
int spike_analyze_file(const char *path, struct spike_result *res,
		       struct rtlab_err *err) __must_check;

/**
 * spike_analyze_cpu() - as spike_analyze_file(), but when @cpu >= 0 only
 * a spike on that CPU counts (its tracemark, else its worst wakeup).
 */
int spike_analyze_cpu(const char *path, int cpu, struct spike_result *res,
		      struct rtlab_err *err) __must_check;

/** spike_result_cleanup() - free what an analysis filled; safe twice. */
void spike_result_cleanup(struct spike_result *res);

/**
 * spike_check_release() - whether the trace was recorded on kernel
 * @release (a run's kernel release).  A trace without a uname passes.
 * Return: 0, or -EXDEV with @err naming both releases.
 */
int spike_check_release(const struct spike_result *res, const char *release,
			struct rtlab_err *err) __must_check;

/**
 * spike_result_text() - the rtla-style summary ("## CPU 0 hit stop
 * tracing, analyzing it ##" ...).
 * Return: malloc'd text, caller frees; NULL on -ENOMEM.
 */
char *spike_result_text(const struct spike_result *res);

/**
 * spike_result_json() - the analysis as a JSON document (see
 * docs/spike-analysis.md).
 * Return: malloc'd text, caller frees; NULL on -ENOMEM.
 */
char *spike_result_json(const struct spike_result *res);

/** spike_softirq_name() - "NET_RX" for vector 3; "?" when out of range. */
const char *spike_softirq_name(int vec);

#define SPIKE_ARTIFACT_TEXT "spike.txt"
#define SPIKE_ARTIFACT_JSON "spike.json"

#endif
