/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_LOAD_H
#define RTLAB_AGENT_LOAD_H

/*
 * The loads a testcase runs beside the measurement.  Each load is a small
 * supervisor process leading its own process group (SCHED_OTHER) that
 * keeps its command(s) running -- restarting hackbench when it finishes,
 * starting `hackbench -l 200` over and over for process churn -- until the
 * agent stops the whole group.
 */

#include <stddef.h>
#include <sys/types.h>
#include "argv.h"
#include "testcase.h"

#define LOAD_MAX_CMDS 2

struct load_proc {
	pid_t pgid;  /* supervisor pid = process group; 0: stopped */
	char *label; /* "hackbench", "network", ... */
};

struct load_set {
	struct load_proc *v;
	size_t n, cap;
};

/**
 * load_build_cmds() - the command line(s) load @l runs: one for most
 * loads, iperf3 server then client for a network load (the server alone
 * for iperf3-nic: its client runs outside the board).  @duration_s
 * bounds tools that take a time limit, as a safety net should the agent
 * die.  @cmds[0..*ncmds-1] are initialised here; the caller cleans them up
 * with argv_cleanup() (also on failure).  Return: 0 or -ENOMEM.
 */
int load_build_cmds(const struct tc_load *l, unsigned int duration_s,
		    struct argv cmds[LOAD_MAX_CMDS],
		    size_t *ncmds) __must_check;

/** load_set_init() - empty set. */
void load_set_init(struct load_set *s);

/**
 * load_start() - start a supervisor for @ncmds commands in a new process
 * group.  Return: 0 or a negative errno with @err naming the load.
 */
int load_start(struct load_set *s, const char *label, struct argv *cmds,
	       size_t ncmds, struct rtlab_err *err) __must_check;

/**
 * load_stop_all() - SIGTERM every load's process group, wait up to
 * @grace_ms for them to go, SIGKILL what is left, reap, and free the set
 * (so a second call does nothing).  The agent must be a child subreaper
 * (prctl PR_SET_CHILD_SUBREAPER) so orphaned load processes are reaped.
 */
void load_stop_all(struct load_set *s, unsigned int grace_ms);

#endif
