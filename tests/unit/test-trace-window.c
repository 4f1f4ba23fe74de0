// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reducing a real trace.dat (tests/fixtures/traces) to the window around
 * its worst spike: under a limit it fits, trace-cmd reads the result and
 * its spike analysis equals the full trace's; a tighter limit gets an
 * xz-compressed window or a narrower one; an impossible limit is -EFBIG
 * naming the sizes; a trace without a spike is -EINVAL.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "../../reports/trace-window.h"

static char *fixture(const char *name)
{
	const char *top = getenv("RTLAB_TOP");
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/traces/%s",
		 top && *top ? top : ".", name);
	return path;
}

/* Whether `trace-cmd report` reads @data and shows the spike's mark. */
static int reads_back(const struct trace_window *w, const char *mark)
{
	char tmpl[] = "/tmp/rtlab-twtest.XXXXXX", *dir = mkdtemp(tmpl);
	char path[256], *out = NULL;
	char *unxz[] = { "xz", "-d", "-f", "w.dat.xz", NULL };
	char *rep[] = { "trace-cmd", "report", "-i", "w.dat", NULL };
	struct rtlab_err err = { "" };
	int ok = 0, st;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir,
		 w->xz ? "w.dat.xz" : "w.dat");
	if (file_write_all(path, w->data, w->size, &err))
		goto out;
	if (w->xz && spawn_capture(unxz, dir, 2, &out, &err) != 0)
		goto out;
	free(out);
	out = NULL;
	st = spawn_capture(rep, dir, 2, &out, &err);
	ok = st == 0 && out && strstr(out, mark);
out:
	free(out);
	rmtree(dir);
	return ok;
}

static void test_fits(const char *name, const char *mark)
{
	struct rtlab_err err = { "" };
	struct trace_window w = { 0 };
	char *data = NULL;
	size_t size = 0;
	int ret;

	ret = file_read_all(fixture(name), &data, &size, &err);
	CHECK_INT(ret, 0, "fixture read");
	if (ret)
		return;
	ret = trace_window_reduce(data, size, 1000 * 1024, &w, &err);
	CHECK(ret == 0, "%s: reduced under 1000 KB (%s)", name, err.msg);
	CHECK(w.size > 0 && w.size <= 1000 * 1024,
	      "%s: %zu of %zu bytes, within the limit", name, w.size, size);
	CHECK(w.same_analysis,
	      "%s: the window's spike analysis equals the "
	      "full trace's",
	      name);
	CHECK(w.end_ns > w.start_ns && w.margin_ns > 0,
	      "%s: a window of %.3f ms", name, (w.end_ns - w.start_ns) / 1e6);
	CHECK(reads_back(&w, mark),
	      "%s: trace-cmd report reads it and shows "
	      "'%s'",
	      name, mark);
	trace_window_cleanup(&w);

	ret = trace_window_reduce(data, size, 700 * 1024, &w, &err);
	CHECK(ret == 0 && w.xz && w.size <= 700 * 1024,
	      "%s: under 700 KB it is xz-compressed (%zu bytes, %s)", name,
	      w.size, err.msg);
	CHECK(ret || reads_back(&w, mark),
	      "%s: the xz window decompresses into a readable trace", name);
	trace_window_cleanup(&w);

	ret = trace_window_reduce(data, size, 1000, &w, &err);
	CHECK(ret == -EFBIG && strstr(err.msg, "limit of 1000 bytes"),
	      "%s: a 1000-byte limit is -EFBIG naming it (%s)", name, err.msg);
	trace_window_cleanup(&w);
	trace_window_cleanup(&w);
	free(data);
}

static void test_no_spike(void)
{
	struct rtlab_err err = { "" };
	struct trace_window w = { 0 };
	char *data = NULL;
	size_t size = 0;
	int ret;

	if (file_read_all(fixture("hackbench-end.dat"), &data, &size, &err))
		return;
	ret = trace_window_reduce(data, size, 1000 * 1024, &w, &err);
	CHECK(ret == -EINVAL, "a trace without a spike: -EINVAL (%s)", err.msg);
	free(data);
}

int main(void)
{
	test_fits("hackbench-spike.dat", "hit latency threshold (65 > 40)");
	test_fits("inject-preempt.dat", "hit latency threshold (300 > 150)");
	test_no_spike();
	return check_exit();
}
