/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_TRACE_LEAN_H
#define RTLAB_TRACE_LEAN_H

#include <trace-cmd/trace-cmd.h>

/**
 * trace_lean_open() - tracecmd_open() @path (without plugins), parsing of
 * its headers only what the spike analysis reads: the event formats of
 * the sched, irq, irq_vectors and ftrace systems; not the formats of the
 * kernel's other ~1,500 events, nor kallsyms, nor the printk formats.
 * On a 1 MB trace that is most of the time spent (docs/spike-analysis.md).
 * Records of the events left out read as events the handle does not know.
 * Return: the handle (caller closes with tracecmd_close()), NULL when
 * libtracecmd refuses the file.
 */
struct tracecmd_input *trace_lean_open(const char *path);

/**
 * trace_lean_iterate() - call @cb for every record of @h, all CPUs merged
 * in time order (ties to the lower CPU), as tracecmd_iterate_events()
 * does, until @cb returns a negative value.  Unlike libtracecmd 3.1's
 * iterator it does not look up the event of a record that follows lost
 * events (an overwritten ring buffer's first page): that lookup fails for
 * an event trace_lean_open() left out, and the library's iterator then
 * stops at the first record.
 * Return: 0, the negative value @cb returned, or -1 when out of memory.
 */
int trace_lean_iterate(struct tracecmd_input *h,
		       int (*cb)(struct tracecmd_input *h,
				 struct tep_record *rec, int cpu, void *data),
		       void *data);

#endif
