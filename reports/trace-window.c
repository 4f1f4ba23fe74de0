// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reducing a trace.dat to the window around its worst spike, so that it
 * fits a bug tracker's attachment limit and still opens in trace-cmd and
 * KernelShark.  The cutting is trace-cmd's own (split, then convert to a
 * compressed version 7 file): rtlab never writes the format itself.  The
 * window starts a margin before the spike's timer expiry so that the task
 * running then, the interrupts and the silent stretch are all inside; the
 * margin shrinks until the file fits, and the spike analysis of the result
 * is checked against the full trace's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsutil.h"
#include "spike.h"
#include "strbuf.h"
#include "trace-window.h"

/* Margins before the expiry, widest first (ns). */
static const uint64_t margins_ns[] = { 50000000, 20000000, 10000000, 5000000,
				       2000000,	 1000000,  500000,   200000 };
#define NMARGIN (sizeof(margins_ns) / sizeof(margins_ns[0]))

void trace_window_cleanup(struct trace_window *w)
{
	if (!w)
		return;
	free(w->data);
	memset(w, 0, sizeof(*w));
}

/* Run a tool in @dir; a failure names it with what it printed. */
static int run(const char *dir, char *const argv[], struct rtlab_err *err)
{
	char *out = NULL;
	int st;

	st = spawn_capture(argv, dir, 1, &out, err);
	if (st > 0)
		st = rtlab_err_seterr(err, EIO, "%s %s: exit status %d: %s",
				      argv[0], argv[1], st, out ? out : "");
	free(out);
	return st;
}

/* The analysis text without its "trace:" line (file name, event count),
 * which differs between a trace and its window by design. */
static char *analysis_of(const char *path, struct spike_result *res,
			 struct rtlab_err *err, int *ret)
{
	struct strbuf s = { 0 };
	char *text, *line, *nl;

	memset(res, 0, sizeof(*res));
	*ret = spike_analyze_file(path, res, err);
	if (*ret)
		return NULL;
	text = spike_result_text(res);
	if (!text) {
		*ret = -ENOMEM;
		return NULL;
	}
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		if (strncmp(line, "  trace: ", 9))
			strbuf_add(&s, line, nl - line + 1);
		if (!nl[1])
			break;
	}
	free(text);
	text = strbuf_take(&s);
	if (!text)
		*ret = -ENOMEM;
	return text;
}

static long long file_size(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/*
 * One window [@start_ns, @end_ns] of full.dat into win7.dat (version 7,
 * zstd) and, when @xz, win6.dat.xz; @end_ns UINT64_MAX keeps the rest of
 * the trace.  Return: 0 or a negative errno.
 */
static int cut(const char *dir, uint64_t start_ns, uint64_t end_ns, bool xz,
	       struct rtlab_err *err)
{
	char start[48], end[48];
	char *split[] = { "trace-cmd", "split", "-i", "full.dat", "-o",
			  "win.dat",   start,	end,  NULL };
	char *conv7[] = { "trace-cmd",	    "convert", "-i",
			  "win.dat.1",	    "-o",      "win7.dat",
			  "--file-version", "7",       "--compression",
			  "zstd",	    NULL };
	char *conv6[] = { "trace-cmd",	    "convert", "-i",
			  "win.dat.1",	    "-o",      "win6.dat",
			  "--file-version", "6",       "--compression",
			  "none",	    NULL };
	char *pack[] = { "xz", "-9", "-T1", "-k", "-f", "win6.dat", NULL };
	char *clean[] = { "rm",	      "-f",	     "win.dat.1", "win7.dat",
			  "win6.dat", "win6.dat.xz", NULL };
	int ret;

	snprintf(start, sizeof(start), "%" PRIu64 ".%09" PRIu64,
		 start_ns / 1000000000, start_ns % 1000000000);
	snprintf(end, sizeof(end), "%" PRIu64 ".%09" PRIu64,
		 end_ns / 1000000000, end_ns % 1000000000);
	if (end_ns == UINT64_MAX)
		split[7] = NULL;
	ret = run(dir, clean, err);
	if (!ret)
		ret = run(dir, split, err);
	if (!ret && file_size(dir, "win.dat.1") < 0)
		ret = rtlab_err_seterr(err, EIO,
				       "trace-cmd split wrote no window "
				       "%s..%s s",
				       start, end);
	if (!ret)
		ret = run(dir, conv7, err);
	if (!ret && xz)
		ret = run(dir, conv6, err);
	if (!ret && xz)
		ret = run(dir, pack, err);
	return ret;
}

int trace_window_reduce(const void *trace, size_t size, size_t max_bytes,
			struct trace_window *w, struct rtlab_err *err)
{
	char tmpl[] = "/tmp/rtlab-window.XXXXXX", *dir, *full = NULL;
	char *ref = NULL, *got = NULL, *path = NULL;
	struct spike_result res = { 0 }, wres = { 0 };
	long long smallest = -1;
	size_t i;
	int ret;

	memset(w, 0, sizeof(*w));
	dir = mkdtemp(tmpl);
	if (!dir)
		return rtlab_err_seterr(err, errno,
					"trace window: cannot create a "
					"temporary directory: %s",
					strerror(errno));
	full = path_join(dir, "full.dat");
	if (!full) {
		ret = -ENOMEM;
		goto out;
	}
	ret = file_write_all(full, trace, size, err);
	if (ret)
		goto out;
	ref = analysis_of(full, &res, err, &ret);
	if (ret)
		goto out;
	w->cpu = res.cpu;
	w->spike_us = res.lat_us;
	for (i = 0; i < NMARGIN; i++) {
		uint64_t m = margins_ns[i],
			 tail = m / 10 > 100000 ? m / 10 : 100000;
		uint64_t start = res.expiry_ns > m ? res.expiry_ns - m : 0;
		uint64_t end = res.end_ns + tail, cut_end = end;
		long long s7, sxz = -1;
		const char *name;

		/* A trace kept by the agent's snapshot stops at the spike;
		 * all that follows is the agent's mark naming the worst
		 * wakeup, written when the run ended: the window keeps it,
		 * or its analysis would look for the spike some other way. */
		if (res.source == SPIKE_SOURCE_SNAPSHOT)
			cut_end = UINT64_MAX;
		ret = cut(dir, start, cut_end, false, err);
		if (ret)
			goto out;
		s7 = file_size(dir, "win7.dat");
		if (s7 < 0 || (size_t)s7 > max_bytes) {
			ret = cut(dir, start, cut_end, true, err);
			if (ret)
				goto out;
			sxz = file_size(dir, "win6.dat.xz");
		}
		if (smallest < 0 || (s7 >= 0 && s7 < smallest))
			smallest = s7;
		if (sxz >= 0 && sxz < smallest)
			smallest = sxz;
		if (s7 >= 0 && (size_t)s7 <= max_bytes)
			name = "win7.dat";
		else if (sxz >= 0 && (size_t)sxz <= max_bytes)
			name = "win6.dat.xz";
		else
			continue;
		w->xz = sxz >= 0 && !strcmp(name, "win6.dat.xz");
		w->start_ns = start;
		w->end_ns = end;
		w->margin_ns = m;
		free(path);
		path = path_join(dir, w->xz ? "win6.dat" : "win7.dat");
		if (!path) {
			ret = -ENOMEM;
			goto out;
		}
		got = analysis_of(path, &wres, err, &ret);
		w->same_analysis = !ret && !strcmp(got, ref);
		spike_result_cleanup(&wres);
		free(path);
		path = path_join(dir, name);
		if (!path) {
			ret = -ENOMEM;
			goto out;
		}
		ret = file_read_all(path, (char **)&w->data, &w->size, err);
		goto out;
	}
	ret = rtlab_err_seterr(err, EFBIG,
			       "trace window: even %" PRIu64
			       " us around the spike is %lld bytes, over the "
			       "limit of %zu bytes",
			       margins_ns[NMARGIN - 1] / 1000, smallest,
			       max_bytes);
out:
	if (ret)
		trace_window_cleanup(w);
	spike_result_cleanup(&res);
	free(ref);
	free(got);
	free(path);
	free(full);
	rmtree(dir);
	return ret;
}
