/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_INJECTLOG_H
#define RTLAB_INJECTLOG_H

/*
 * What a run's latency injectors really did, read back from its kernel
 * log: the agent's injector writes "rtlab-agent inject: stop mode=M
 * seed=S injections=N" when it ends, and rtlab's module itself writes
 * "rtlab_inject: stopped after N injections (seed=S)" when it is removed.
 * A module that is not rtlab's (same name, other code) writes no such
 * line, so its injections are not taken for rtlab's seed and period.
 */

#include <stddef.h>
#include <jansson.h>

/**
 * injectlog_parse() - the injectors of the kernel log @text (@len bytes)
 * that belong to the run whose manifest "commands" are @commands (a JSON
 * array of command lines; an injector is kept when some "... inject ...
 * --seed S" line has its seed, so earlier runs' lines in the same ring
 * buffer are left out; NULL keeps every injector), in order: [{"mode": "preempt", "seed": "8889175521175423529",
 * "injections": 45, "module_injections": 45}, ...].  The seed is a
 * string (it is a 64-bit unsigned number); "injections" is null when the
 * injector could not count; "module_injections" is what rtlab's module
 * reported for that seed, null when it reported nothing (user mode has
 * no module and no such key).  A mode "tick" injector also gets what the
 * module's start line said: "probe" (the function of the tick it stalled
 * in), "tick_every" (mean ticks between spins) and "hz" (null when the
 * module did not say).
 * Return: a new JSON array (empty when no injector ran), NULL on ENOMEM.
 */
json_t *injectlog_parse(const char *text, size_t len, json_t *commands);

#endif
