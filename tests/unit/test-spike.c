// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Spike analysis on real trace.dat files captured on the icount virtual
 * board (tests/fixtures/traces/README.md says how): a hackbench spike,
 * the rtlab_inject module spinning with preemption off and with
 * interrupts off, an idle run without a spike (wakeup fallback), a trace
 * of a measurement's end (nothing to analyze); then
 * truncated copies, a missing file, a wrong CPU and a wrong kernel.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "check.h"
#include "../../reports/spike.h"

static char *fixture(const char *name)
{
	const char *top = getenv("RTLAB_TOP");
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/traces/%s",
		 top && *top ? top : ".", name);
	return path;
}

static const struct spike_item *
find_item(const struct spike_result *r, enum spike_kind kind, const char *comm)
{
	size_t i;

	for (i = 0; i < r->nitems; i++)
		if (r->items[i].kind == kind &&
		    (!comm || !strncmp(r->items[i].comm, comm, strlen(comm))))
			return &r->items[i];
	return NULL;
}

/* The parts add up to the window, and the window covers the latency. */
static void check_sums(const struct spike_result *r, const char *name)
{
	uint64_t window = r->end_ns - r->expiry_ns;

	CHECK(r->irq_ns + r->softirq_ns + r->thread_ns + r->self_ns == window,
	      "%s: IRQ + softirq + threads + measuring thread = window", name);
	CHECK(window >= r->lat_us * 1000 && window <= r->lat_us * 1000 + 100000,
	      "%s: window %.2f us covers the latency %llu us (+ < 100 us)",
	      name, window / 1000.0, (unsigned long long)r->lat_us);
	CHECK_STR(r->release, "6.1.0-57-rt-amd64",
		  "release from the trace's uname");
}

static void check_text_json(const struct spike_result *r, const char *name,
			    const char *blocking)
{
	char *text = spike_result_text(r), *js = spike_result_json(r);
	char want[128];
	json_error_t jerr;
	json_t *j = NULL;

	CHECK(text && strstr(text, "## CPU 0 hit stop tracing, analyzing "
				   "it ##\n") == text,
	      "%s: text starts like rtla's: ## CPU 0 hit stop tracing", name);
	snprintf(want, sizeof(want), "blocking thread: %s", blocking);
	CHECK(text && strstr(text, want), "%s: text names '%s'", name, want);
	CHECK(text && strstr(text, "IRQ handler delay:"),
	      "%s: text has the IRQ handler delay", name);
	if (js)
		j = json_loads(js, 0, &jerr);
	CHECK(j != NULL, "%s: JSON parses", name);
	CHECK_INT(json_integer_value(json_object_get(j, "lat_us")), r->lat_us,
		  "JSON lat_us");
	CHECK_STR(json_string_value(json_object_get(j, "source")), "tracemark",
		  "JSON source");
	snprintf(want, sizeof(want), "%s", blocking);
	if (strchr(want, ':'))
		*strchr(want, ':') = '\0';
	CHECK_STR(json_string_value(json_object_get(json_object_get(j,
								    "blocking"),
						    "comm")),
		  want, "JSON blocking.comm");
	CHECK(json_array_size(json_object_get(j, "items")) == r->nitems &&
		      r->nitems > 0,
	      "%s: JSON lists the %zu items", name, r->nitems);
	json_decref(j);
	free(text);
	free(js);
}

static void test_hackbench(void)
{
	struct rtlab_err err = { "" };
	struct spike_result r;
	const struct spike_item *it;
	int ret;

	ret = spike_analyze_file(fixture("hackbench-spike.dat"), &r, &err);
	CHECK(ret == 0, "hackbench-spike.dat analyzed (%s)", err.msg);
	if (ret)
		goto out;
	CHECK(r.source == SPIKE_SOURCE_TRACEMARK, "spike from the tracemark");
	CHECK_INT(r.cpu, 0, "spike CPU");
	CHECK_INT(r.lat_us, 65, "latency X of 'hit latency threshold (X > Y)'");
	CHECK_INT(r.threshold_us, 40, "threshold Y");
	CHECK_STR(r.thread.comm, "cyclictest", "measuring thread's comm");
	CHECK_INT(r.thread.prio, 4, "measuring thread's kernel prio (-p 95)");
	CHECK(r.thread.pid > 0, "measuring thread's pid %d", r.thread.pid);
	CHECK(r.has_blocking && !strcmp(r.blocking.comm, "hackbench"),
	      "blocking thread is a hackbench (%s:%d)", r.blocking.comm,
	      r.blocking.pid);
	CHECK(r.has_at_expiry && r.at_expiry.pid == r.blocking.pid,
	      "the same hackbench ran when the timer fired");
	CHECK(r.timer_ns >= r.expiry_ns && r.timer_ns < r.run_ns,
	      "the timer IRQ that woke the thread lies in the window");
	CHECK(r.timer_irq_ns > 1000 && r.timer_irq_ns < 65000,
	      "timer IRQ duration plausible (%.2f us)",
	      r.timer_irq_ns / 1000.0);
	CHECK(r.wakeup_ns > r.timer_ns && r.wakeup_ns < r.run_ns &&
		      r.run_ns < r.end_ns,
	      "timer entry < wakeup < switch-in < mark");
	it = find_item(&r, SPIKE_KIND_TIMER, NULL);
	CHECK(it && it->window_ns == r.timer_irq_ns && it->total_ns,
	      "the timer IRQ is listed with its duration");
	it = find_item(&r, SPIKE_KIND_THREAD, "hackbench");
	CHECK(it && it->window_ns == r.blocking_window_ns &&
		      it->window_ns > 1000,
	      "hackbench's time in the window listed "
	      "(%.2f us)",
	      it ? it->window_ns / 1000.0 : 0.0);
	CHECK(r.self_ns > 0 && r.self_ns < 65000,
	      "measuring thread's switch-in to mark (%.2f us)",
	      r.self_ns / 1000.0);
	check_sums(&r, "hackbench");
	check_text_json(&r, "hackbench", "hackbench:");
out:
	spike_result_cleanup(&r);
}

static void test_inject(const char *file, bool irq_off)
{
	struct rtlab_err err = { "" };
	struct spike_result r;
	const struct spike_item *it;
	int ret;

	ret = spike_analyze_file(fixture(file), &r, &err);
	CHECK(ret == 0, "%s analyzed (%s)", file, err.msg);
	if (ret)
		goto out;
	CHECK(r.source == SPIKE_SOURCE_TRACEMARK && r.cpu == 0 &&
		      r.threshold_us == 150,
	      "%s: tracemark on CPU 0, threshold 150", file);
	CHECK(r.lat_us >= 150 && r.lat_us <= 320,
	      "%s: latency %llu us, within the 300 us spin", file,
	      (unsigned long long)r.lat_us);
	CHECK(r.has_blocking && !strcmp(r.blocking.comm, "rtlab_inject/0"),
	      "%s: blocking thread is the injector kthread (%s)", file,
	      r.blocking.comm);
	CHECK(r.blocking_stint_ns >= 300000 && r.blocking_stint_ns <= 400000,
	      "%s: the injector ran %.2f us, close to the 300 us spin", file,
	      r.blocking_stint_ns / 1000.0);
	CHECK(r.blocking_window_ns * 2 > r.end_ns - r.expiry_ns,
	      "%s: the injector holds most of the window (%.2f us)", file,
	      r.blocking_window_ns / 1000.0);
	CHECK(!strcmp(r.silent_task.comm, "rtlab_inject/0") &&
		      r.silent_ns >= 150000,
	      "%s: a silent stretch of %.2f us while %s ran", file,
	      r.silent_ns / 1000.0, r.silent_task.comm);
	if (irq_off) {
		/* Interrupts off: the timer IRQ itself comes late, and the
		 * silence spans the whole spin. */
		CHECK(r.irq_delay_ns >= 100000,
		      "%s: IRQ handler delay %.2f us (interrupts were off)",
		      file, r.irq_delay_ns / 1000.0);
		CHECK(r.silent_ns >= 280000 && r.silent_ns <= 350000,
		      "%s: silence %.2f us close to the 300 us spin", file,
		      r.silent_ns / 1000.0);
	} else {
		/* Preemption off: the timer IRQ is on time, the switch to
		 * the woken thread waits. */
		CHECK(r.irq_delay_ns < 20000,
		      "%s: IRQ handler delay %.2f us (interrupts were on)",
		      file, r.irq_delay_ns / 1000.0);
		CHECK(r.wakeup_to_run_ns >= 150000,
		      "%s: wakeup to switch-in %.2f us (preemption was off)",
		      file, r.wakeup_to_run_ns / 1000.0);
	}
	it = find_item(&r, SPIKE_KIND_THREAD, "rtlab_inject/0");
	CHECK(it && it->total_ns == r.blocking_stint_ns,
	      "%s: injector listed among the threads", file);
	check_sums(&r, file);
	check_text_json(&r, file, "rtlab_inject/0:");
out:
	spike_result_cleanup(&r);
}

static void test_no_mark(void)
{
	struct rtlab_err err = { "" };
	struct spike_result r;
	char *text;
	int ret;

	ret = spike_analyze_file(fixture("idle-nospike.dat"), &r, &err);
	CHECK(ret == 0, "idle-nospike.dat analyzed (%s)", err.msg);
	if (ret)
		goto out;
	CHECK(r.source == SPIKE_SOURCE_WAKEUP,
	      "no tracemark: the worst wakeup-to-run is analyzed");
	CHECK(!strcmp(r.thread.comm, "cyclictest") && r.thread.prio < 100,
	      "... of a measuring thread (%s prio %d)", r.thread.comm,
	      r.thread.prio);
	CHECK(r.lat_us > 0 && r.lat_us * 1000 <= r.end_ns - r.expiry_ns + 500,
	      "wakeup-to-run %llu us within the window",
	      (unsigned long long)r.lat_us);
	CHECK_INT(r.irq_ns + r.softirq_ns + r.thread_ns + r.self_ns,
		  r.end_ns - r.expiry_ns, "parts = window (no mark)");
	text = spike_result_text(&r);
	CHECK(text && strstr(text, "worst wakeup-to-run"),
	      "text says it analyzed the worst wakeup-to-run");
	free(text);
out:
	spike_result_cleanup(&r);
}

/*
 * An overwritten buffer: the CPU's first page follows lost events and
 * starts with an event of a system the lean open leaves out
 * (raw_syscalls:sys_enter).  libtracecmd 3.1's iterator looks that event
 * up and gives up on the whole trace; the analysis must read on.
 */
static void test_overwritten(void)
{
	struct rtlab_err err = { "" };
	struct spike_result r;
	int ret;

	ret = spike_analyze_file(fixture("overwritten-first-page.dat"), &r,
				 &err);
	CHECK(ret == 0, "overwritten-first-page.dat analyzed (%s)", err.msg);
	if (ret)
		goto out;
	CHECK_INT(r.nevents, 311, "every record read, lost events or not");
	CHECK(r.source == SPIKE_SOURCE_WAKEUP && r.thread.pid == 376 &&
		      !strcmp(r.thread.comm, "cyclictest"),
	      "the worst wakeup-to-run of cyclictest:376 (%s:%d)",
	      r.thread.comm, r.thread.pid);
	CHECK_INT(r.lat_us, 67, "its latency, as trace-cmd report shows it");
out:
	spike_result_cleanup(&r);
}

/* Traced past the measurement's end (no spike): nothing to analyze. */
static void test_nothing(void)
{
	struct rtlab_err err = { "" };
	struct spike_result r;
	int ret;

	ret = spike_analyze_file(fixture("hackbench-end.dat"), &r, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "no spike to analyze") &&
		      strstr(err.msg, "hackbench-end.dat"),
	      "no mark and no measuring thread: -EINVAL naming the file (%s)",
	      err.msg);
	spike_result_cleanup(&r);
}

static void test_errors(void)
{
	struct rtlab_err err = { "" };
	struct spike_result r;
	char tmp[] = "/tmp/rtlab-test-spike.XXXXXX";
	const char *src = fixture("hackbench-spike.dat");
	long sizes[6], size;
	char *buf;
	FILE *f;
	int fd, ret, i;

	f = fopen(src, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0) {
		CHECK(0, "read %s", src);
		if (f)
			fclose(f);
		return;
	}
	rewind(f);
	buf = malloc(size);
	if (!buf || fread(buf, 1, size, f) != (size_t)size) {
		CHECK(0, "read %s", src);
		fclose(f);
		free(buf);
		return;
	}
	fclose(f);
	sizes[0] = 0;
	sizes[1] = 4096;
	sizes[2] = size / 2;
	sizes[3] = size * 9 / 10;
	sizes[4] = size - 5000;
	sizes[5] = size - 1000;
	fd = mkstemp(tmp);
	if (fd < 0) {
		CHECK(0, "mkstemp");
		free(buf);
		return;
	}
	close(fd);
	for (i = 0; i < 6; i++) {
		f = fopen(tmp, "wb");
		if (!f || fwrite(buf, 1, sizes[i], f) != (size_t)sizes[i] ||
		    fclose(f)) {
			CHECK(0, "write %s", tmp);
			continue;
		}
		err.msg[0] = '\0';
		ret = spike_analyze_file(tmp, &r, &err);
		CHECK(ret == -EINVAL && strstr(err.msg, tmp) &&
			      strstr(err.msg, "truncated"),
		      "truncated to %ld of %ld bytes: error naming the file "
		      "(%d: %s)",
		      sizes[i], size, ret, err.msg);
		spike_result_cleanup(&r);
	}
	unlink(tmp);
	free(buf);

	ret = spike_analyze_file("/nonexistent/trace.dat", &r, &err);
	CHECK(ret == -ENOENT && strstr(err.msg, "/nonexistent/trace.dat"),
	      "missing file: -ENOENT naming it (%s)", err.msg);
	spike_result_cleanup(&r);

	ret = spike_analyze_cpu(src, 1, &r, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "CPUs 0..0"),
	      "a CPU the trace does not have: error (%s)", err.msg);
	spike_result_cleanup(&r);

	ret = spike_analyze_cpu(src, 0, &r, &err);
	CHECK(ret == 0 && r.lat_us == 65, "CPU 0 asked for: same spike");
	ret = spike_check_release(&r, "6.1.0-57-rt-amd64", &err);
	CHECK_INT(ret, 0, "the run's own kernel passes");
	ret = spike_check_release(&r, "6.1.0-57-amd64", &err);
	CHECK(ret == -EXDEV && strstr(err.msg, "6.1.0-57-rt-amd64") &&
		      strstr(err.msg, "6.1.0-57-amd64"),
	      "another kernel's trace: -EXDEV naming both (%s)", err.msg);
	spike_result_cleanup(&r);
	spike_result_cleanup(&r);
}

int main(void)
{
	CHECK_STR(spike_softirq_name(3), "NET_RX", "softirq vector 3");
	CHECK_STR(spike_softirq_name(9), "RCU", "softirq vector 9");
	CHECK_STR(spike_softirq_name(10), "?", "softirq vector out of range");
	test_hackbench();
	test_inject("inject-preempt.dat", false);
	test_inject("inject-irq.dat", true);
	test_no_mark();
	test_overwritten();
	test_nothing();
	test_errors();
	return check_exit();
}
