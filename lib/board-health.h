/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_BOARD_HEALTH_H
#define RTLAB_BOARD_HEALTH_H

/*
 * Board health, the pure part: whether a run's environment drifted from
 * the one a board was last known healthy in, the reference figures a
 * calibration keeps, and the verdict of a health run against them.  The
 * database side and the health job are services/health.c; the rules are in
 * docs/farm.md, "Board health".
 */

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "error.h"

/*
 * A health run fails when its p99 or p99.9 (worst measuring thread)
 * exceeds HEALTH_FACTOR times the calibration's plus HEALTH_FLOOR_US: a
 * short run on one boot is noisy, and the check is there to catch a board
 * that is broken (a throttling CPU, an SMI storm, a misconfigured kernel
 * command line), not a kernel that got slightly worse.
 */
#define HEALTH_FACTOR 2
#define HEALTH_FLOOR_US 20

/* The environment fields (manifest.json "environment") a board's health
 * depends on, in the order a drift names them. */
extern const char *const health_env_keys[];

/**
 * health_env_drift() - what changed between @before, the environment a
 * board was last healthy in, and @now, a run's.  Only the fields of
 * health_env_keys that @before records are compared (an older agent
 * recorded fewer).  The kernel command line is compared as a set of
 * parameters, without those naming the image booted (BOOT_IMAGE=,
 * initrd=), which change with every kernel.  @reason gets "clocksource
 * tsc → hpet; isolcpus 1 → (none); cmdline -isolcpus=1 +nohz_full=1"
 * (truncated to @size); "" when nothing changed.
 * Return: true when something changed.
 */
bool health_env_drift(json_t *before, json_t *now, char *reason, size_t size);

/* What a calibration says a healthy board measures; -1: not known. */
struct health_reference {
	long p99_us;
	long p999_us;
};

/**
 * health_reference_json() - the reference figures of a calibration from
 * its A/A comparisons' verdicts (@verdicts, @n of them: the largest p99
 * and p99.9 estimate of either side): {"p99_us": N, "p999_us": N}.
 * Return: a new reference (caller json_decref()s); NULL when no verdict
 * has a figure, or out of memory.
 */
json_t *health_reference_json(json_t *const *verdicts, size_t n);

/**
 * health_reference_get() - @calibration's "reference" into @ref.
 * Return: 0, or -ENOENT when it has none (made before there were
 * reference figures, or none).
 */
int health_reference_get(json_t *calibration,
			 struct health_reference *ref) __must_check;

/* A health run as the judge sees it. */
struct health_run {
	const char *status; /* run_status_name(): "complete", "panic", ... */
	long p99_us;	    /* worst thread; -1: unknown (overflow) */
	long p999_us;
};

/**
 * health_judge() - the verdict of health run @run against @calibration
 * (boards.calibration, may be NULL).  @reason gets one line saying why.
 * Return: true when the board passes.
 */
bool health_judge(const struct health_run *run, json_t *calibration,
		  char *reason, size_t size);

#endif
