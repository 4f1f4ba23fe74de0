/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_AGENT_INJECT_H
#define RTLAB_AGENT_INJECT_H

/*
 * `rtlab-agent inject`: a known latency on purpose, so the lab can measure
 * what it catches (docs/calibration.md).  Two ways:
 *
 *   user            a SCHED_FIFO 99 busy-spinner per CPU (any board): it
 *                   delays cyclictest (-p 95) on the same CPU;
 *   preempt, irq    the rtlab_inject kernel module (testcases/inject/),
 *                   loaded at the start and removed at the end.
 *
 * Either way each CPU sleeps period_ms +/- jitter_pct % (a seeded random
 * stream, so a run can be repeated) and spins spin_us.  The exact insmod
 * and rmmod lines, the seed and the injection count go to stdout and the
 * kernel log, where the run's dmesg.txt keeps them.
 */

#include <sched.h>
#include <stdint.h>
#include "error.h"

#define INJECT_MODULE_NAME "rtlab_inject"
#define INJECT_MODULE_FILE "rtlab_inject.ko"
/* Where the virtual board's initramfs puts the module, under
 * /lib/modules/<release>/. */
#define INJECT_MODULE_SUBDIR "extra"

/* A seeded random stream (splitmix64): the same seed, the same sleeps. */
struct inject_rng {
	uint64_t state;
};

/** inject_rng_init() - seed the stream of CPU @cpu from @seed. */
void inject_rng_init(struct inject_rng *r, uint64_t seed, unsigned int cpu);

/**
 * inject_sleep_ns() - the next sleep: uniform in period_ms * (1 +/-
 * jitter_pct / 100), in nanoseconds.
 */
uint64_t inject_sleep_ns(struct inject_rng *r, unsigned int period_ms,
			 unsigned int jitter_pct);

/**
 * inject_parse_cpus() - a cpuset such as "0", "1-3", "0,2-3" into @set.
 * Return: 0 or -EINVAL with @err naming the list and what was expected.
 */
int inject_parse_cpus(const char *list, cpu_set_t *set,
		      struct rtlab_err *err) __must_check;

/**
 * inject_format_cpus() - @set as a cpuset ("0-1,3") into @buf of @size.
 * Return: @buf.
 */
char *inject_format_cpus(const cpu_set_t *set, char *buf, size_t size);

/**
 * cmd_inject() - the `inject` subcommand (see `rtlab-agent inject --help`).
 * Runs until SIGTERM/SIGINT or --duration.  Return: exit status 0, 1
 * (the injector could not start: no SCHED_FIFO, module refused) or 2.
 */
int cmd_inject(int argc, char **argv);

#endif
