/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_WATCHDOG_H
#define RTLAB_WATCHDOG_H

/*
 * A board's watchdog, and what became of a boot.
 *
 * The boot and hang timeouts of a virtual board count the time QEMU could
 * run, not wall time: a sample's wall interval minus the time QEMU was
 * stopped (SIGSTOP, a debugger: state T in /proc/PID/stat) or waited on a
 * run queue for a CPU it did not get (the largest growth of run_delay in
 * /proc/PID/task/TID/schedstat over its threads).  A host too busy to run
 * QEMU therefore never makes a slow boot a hang, while a guest that idles
 * or spins without reaching its next marker still times out.  A wall-clock
 * limit far above the timeouts (WATCHDOG_WALL_FACTOR) ends a board that
 * never gets the CPU; that is the host's failure, not the kernel's.
 *
 * board_end_classify() is the table that tells a kernel fault (a run with
 * status boot_failed, panic or hang) from an infrastructure error (no run:
 * the job is tried again).  See boards/README.md.
 */

#include <stdbool.h>
#include <sys/types.h>
#include "error.h"

/* The outer wall-clock limit: this many times the watchdog's timeouts. */
#define WATCHDOG_WALL_FACTOR 10
#define WATCHDOG_MAX_TASKS 64

/* The fields of /proc/PID/stat the watchdog reads. */
struct proc_stat {
	char state; /* R, S, D, T, t, Z, ... */
	unsigned long long utime_ticks, stime_ticks;
};

/**
 * proc_stat_parse() - parse the text of /proc/PID/stat (the command name in
 * parentheses may hold spaces and parentheses: the fields start after the
 * last ')').
 * Return: 0, or -EINVAL when the text is not such a line.
 */
int proc_stat_parse(const char *text, struct proc_stat *ps) __must_check;

/**
 * schedstat_parse() - parse /proc/PID/task/TID/schedstat: nanoseconds on a
 * CPU, nanoseconds waiting on a run queue, time slices.
 * Return: 0, or -EINVAL.
 */
int schedstat_parse(const char *text, unsigned long long *run_ns,
		    unsigned long long *wait_ns) __must_check;

struct watchdog_task {
	pid_t tid;
	unsigned long long wait_ns;
};

/* Caller-owned; watchdog_init() then watchdog_sample() every poll. */
struct watchdog {
	pid_t pid;
	double last_s;	   /* wall time of the last sample */
	double wall_s;	   /* wall time since watchdog_init() */
	double runnable_s; /* of it, time QEMU could run: what timeouts count */
	double stopped_s;  /* stopped (state T or t) */
	double starved_s;  /* waiting for a CPU */
	double cpu_s;	   /* CPU QEMU consumed (utime + stime) */
	bool schedstat;	   /* run_delay is readable on this host */
	struct watchdog_task tasks[WATCHDOG_MAX_TASKS];
	size_t ntasks;
};

/**
 * watchdog_step() - the pure part of a sample: @dt_s of wall time of which
 * QEMU was stopped (@stopped) or waited @wait_s for a CPU.
 * Return: the time QEMU could run, 0 to @dt_s.
 */
double watchdog_step(double dt_s, bool stopped, double wait_s);

/** watchdog_init() - start watching process @pid at wall time @now_s. */
void watchdog_init(struct watchdog *w, pid_t pid, double now_s);

/**
 * watchdog_sample() - read /proc for @w->pid and account the wall time
 * since the last sample.  A process that is gone counts as runnable (its
 * end is seen by waitpid()).
 */
void watchdog_sample(struct watchdog *w, double now_s);

/* How the watch of a boot ended. */
enum board_watch {
	BOARD_WATCH_EXITED,	      /* QEMU ended by itself */
	BOARD_WATCH_PANIC,	      /* "Kernel panic" on the console */
	BOARD_WATCH_BOOT_TIMEOUT,     /* no agent start within the boot time */
	BOARD_WATCH_HANG,	      /* no bundle within the hang time */
	BOARD_WATCH_POWEROFF_TIMEOUT, /* bundle in, QEMU did not stop */
	BOARD_WATCH_STARVED,	      /* past the outer wall-clock limit */
};

/* What the driver knows when the watch is over. */
struct board_end {
	enum board_watch watch;
	bool qemu_signalled; /* EXITED: QEMU died of a signal (not ours) */
	int qemu_exit;	     /* EXITED: its exit status, else 0 */
	bool agent_started;  /* RTLAB-AGENT-START seen */
	bool panic_seen;     /* "Kernel panic" on the console */
	bool bundle_ok;	     /* a whole, checked bundle came over */
	bool channel_broken; /* the host's end of the channel failed */
};

/* What the run is: a bundle the board sent, a kernel fault, or no run. */
enum board_result {
	BOARD_RESULT_BUNDLE,	   /* the agent's bundle */
	BOARD_RESULT_BOOT_PANIC,   /* boot_failed: panic before the agent */
	BOARD_RESULT_PANIC,	   /* panic while measuring */
	BOARD_RESULT_BOOT_TIMEOUT, /* boot_failed */
	BOARD_RESULT_BOOT_EXIT,	   /* boot_failed: the guest stopped */
	BOARD_RESULT_HANG,	   /* hang */
	BOARD_RESULT_AGENT_ERROR,  /* bundle missing, cut or damaged */
	/* infrastructure errors: no run is stored, the job is retried */
	BOARD_RESULT_INFRA_QEMU_FAILED, /* QEMU exited with an error */
	BOARD_RESULT_INFRA_QEMU_KILLED, /* QEMU died of a signal */
	BOARD_RESULT_INFRA_STARVED,	/* the host never ran QEMU enough */
	BOARD_RESULT_INFRA_CHANNEL,	/* the host's end of the channel */
};

/** board_end_classify() - the table of boards/README.md, "Faults". */
enum board_result board_end_classify(const struct board_end *e);

/** board_result_is_infra() - no run: the job is tried again. */
bool board_result_is_infra(enum board_result r);

/** board_result_name() - "bundle", "panic", "infra_qemu_killed", ... */
const char *board_result_name(enum board_result r);

#endif
