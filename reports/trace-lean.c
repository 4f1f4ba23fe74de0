// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening a trace.dat for the spike analysis without parsing what it
 * does not read.  libtracecmd's tracecmd_open() hands every section of the
 * file's headers to libtraceevent: the format of every event the kernel
 * had (~1,500), its kallsyms (~100,000 lines through sscanf) and its printk
 * formats; on a 1 MB trace that is ~85 % of the analysis.  libtracecmd
 * 3.1 has no option to skip them, and the reading of the headers is not
 * in its public API, so the three libtraceevent entry points it calls are
 * wrapped here: while this thread opens a trace through trace_lean_open()
 * they keep only the event systems the analysis decodes and skip the
 * symbol tables; at any other time (trace-window.c, other threads) they
 * are the library's own.  The wrappers win because the executable's
 * definitions come first in the dynamic linker's lookup.
 */

#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "trace-lean.h"

static __thread bool lean;

/* The systems whose events reports/spike.c decodes. */
static bool wanted(const char *sys)
{
	static const char *const systems[] = { "sched", "irq", "irq_vectors",
					       "ftrace" };
	size_t i;

	for (i = 0; sys && i < sizeof(systems) / sizeof(systems[0]); i++)
		if (!strcmp(sys, systems[i]))
			return true;
	return false;
}

enum tep_errno tep_parse_event(struct tep_handle *tep, const char *buf,
			       unsigned long size, const char *sys)
{
	static enum tep_errno (*real)(struct tep_handle *, const char *,
				      unsigned long, const char *);

	if (lean && !wanted(sys))
		return 0;
	if (!real)
		real = dlsym(RTLD_NEXT, "tep_parse_event");
	return real ? real(tep, buf, size, sys) : TEP_ERRNO__MEM_ALLOC_FAILED;
}

int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	static int (*real)(struct tep_handle *, const char *);

	if (lean)
		return 0;
	if (!real)
		real = dlsym(RTLD_NEXT, "tep_parse_kallsyms");
	return real ? real(tep, kallsyms) : -1;
}

int tep_parse_printk_formats(struct tep_handle *tep, const char *buf)
{
	static int (*real)(struct tep_handle *, const char *);

	if (lean)
		return 0;
	if (!real)
		real = dlsym(RTLD_NEXT, "tep_parse_printk_formats");
	return real ? real(tep, buf) : -1;
}

struct tracecmd_input *trace_lean_open(const char *path)
{
	struct tracecmd_input *h;

	lean = true;
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	lean = false;
	return h;
}

int trace_lean_iterate(struct tracecmd_input *h,
		       int (*cb)(struct tracecmd_input *h,
				 struct tep_record *rec, int cpu, void *data),
		       void *data)
{
	int ncpus = tep_get_cpus(tracecmd_get_tep(h));
	struct tep_record **next;
	int cpu, first, ret = 0;

	if (ncpus < 1)
		ncpus = 1;
	next = calloc(ncpus, sizeof(*next));
	if (!next)
		return -1;
	/* One record held per CPU: each CPU's reader keeps its own page. */
	for (cpu = 0; cpu < ncpus; cpu++)
		next[cpu] = tracecmd_read_cpu_first(h, cpu);
	for (;;) {
		first = -1;
		for (cpu = 0; cpu < ncpus; cpu++)
			if (next[cpu] &&
			    (first < 0 || next[cpu]->ts < next[first]->ts))
				first = cpu;
		if (first < 0)
			break;
		ret = cb(h, next[first], first, data);
		tracecmd_free_record(next[first]);
		next[first] = NULL;
		if (ret < 0)
			break;
		next[first] = tracecmd_read_data(h, first);
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		tracecmd_free_record(next[cpu]);
	free(next);
	return ret < 0 ? ret : 0;
}
