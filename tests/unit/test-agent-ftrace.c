// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's ftrace capture against a fake tracefs in a temporary
 * directory: prepare sets every file a capture needs, start and stop flip
 * tracing_on, restore puts every original back, missing events and files
 * are named; plus the spike mark search, cyclictest's break lines, the
 * repair of its "nan" JSON, and the testcase's optional_events.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/ftrace.h"
#include "../../agent/knob.h"
#include "../../agent/measure.h"
#include "testcase.h"
#include "cyclictest.h"
#include "check.h"
#include "scratch.h"

static void mkdirs(const char *name)
{
	char buf[4096], *p;

	snprintf(buf, sizeof(buf), "%s", scratch_path(name));
	for (p = buf + strlen(scratch_dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(buf, 0700);
		*p = '/';
	}
	mkdir(buf, 0700);
}

/* A tracefs as a board has it before a run, with a few odd settings. */
static void fake_tracefs(void)
{
	static const char *const events[] = {
		"sched/sched_switch",	 "sched/sched_wakeup",
		"irq/softirq_entry",	 "irq/softirq_exit",
		"irq/irq_handler_entry", NULL
	};
	char name[256];
	size_t i;

	mkdirs("t/options");
	scratch_put("t/tracing_on", "1\n");
	scratch_put("t/buffer_size_kb", "7 (expanded: 1408)\n");
	scratch_put("t/current_tracer", "function\n");
	scratch_put("t/set_event", "irq:irq_handler_entry\n");
	scratch_put("t/options/overwrite", "0\n");
	scratch_put("t/trace", "# tracer: function\n old lines\n");
	scratch_put("t/trace_marker", "");
	for (i = 0; events[i]; i++) {
		snprintf(name, sizeof(name), "t/events/%s", events[i]);
		mkdirs(name);
		snprintf(name, sizeof(name), "t/events/%s/enable", events[i]);
		scratch_put(name, strstr(events[i], "handler") ? "1\n" : "0\n");
	}
	/* Subsystem-wide files beside the event directories. */
	scratch_put("t/events/irq/enable", "X\n");
	scratch_put("t/events/irq/filter", "none\n");
}

static void test_prepare_restore(void)
{
	char *events[] = { "sched:sched_switch", "irq:softirq_*", NULL };
	char *optional[] = { "irq_vectors:local_timer_entry",
			     "sched:sched_wakeup", NULL };
	struct tc_trace t = { .enabled = true,
			      .events = events,
			      .nevents = 2,
			      .optional_events = optional,
			      .noptional_events = 2,
			      .buffer_kb = 4096,
			      .break_us = 100 };
	struct rtlab_err e = { "" };
	struct knob_list l;
	bool was_on = false;
	char root[4096];

	snprintf(root, sizeof(root), "%s", scratch_path("t"));
	fake_tracefs();
	CHECK(ftrace_find_root(root, &e) == root,
	      "a given tracefs root is used");
	CHECK(!ftrace_find_root(scratch_dir, &e) && strstr(e.msg, scratch_dir),
	      "a directory without buffer_size_kb is refused, named (%s)",
	      e.msg);
	memset(&e, 0, sizeof(e));
	CHECK(ftrace_event_exists(root, "irq:softirq_*"),
	      "a wildcard matching event directories exists");
	CHECK(!ftrace_event_exists(root, "irq:enab*"),
	      "a wildcard matching only a subsystem file does not");
	CHECK(!ftrace_event_exists(root, "irq_vectors:local_timer_entry"),
	      "an event of an absent subsystem does not");
	CHECK(ftrace_event_exists(root, "sched:sched_wakeup"),
	      "a plain event exists");

	knob_list_init(&l);
	CHECK_INT(ftrace_prepare(root, &t, &l, &e), 0,
		  "prepare with a missing optional event");
	if (e.msg[0])
		printf("# %s\n", e.msg);
	CHECK(scratch_holds("t/tracing_on", "0"),
	      "tracing off while preparing");
	CHECK(scratch_holds("t/current_tracer", "nop"), "nop tracer");
	CHECK(scratch_holds("t/set_event", ""),
	      "set_event emptied (no other event)");
	CHECK(scratch_holds("t/options/overwrite", "1"), "overwrite mode on");
	CHECK(scratch_holds("t/buffer_size_kb", "4096"), "buffer sized");
	CHECK(scratch_holds("t/events/sched/sched_switch/enable", "1"),
	      "sched_switch enabled");
	CHECK(scratch_holds("t/events/irq/softirq_entry/enable", "1") &&
		      scratch_holds("t/events/irq/softirq_exit/enable", "1"),
	      "irq:softirq_* enabled event by event");
	CHECK(scratch_holds("t/events/sched/sched_wakeup/enable", "1"),
	      "an optional event that exists is enabled");
	CHECK(scratch_holds("t/events/irq/enable", "X"),
	      "the subsystem enable file is left alone");
	CHECK(scratch_holds("t/trace", "# tracer: function\n old lines"),
	      "the buffer is not cleared before the start");

	CHECK_INT(ftrace_start(root, &l, &e), 0, "start");
	CHECK(scratch_holds("t/trace", ""), "start clears the buffer");
	CHECK(scratch_holds("t/tracing_on", "1"), "start turns tracing on");

	CHECK_INT(ftrace_stop(root, &l, &was_on, &e), 0, "stop");
	CHECK(was_on, "stop saw tracing still on");
	CHECK(scratch_holds("t/tracing_on", "0"), "stop turns tracing off");
	/* As cyclictest does at a spike past -b. */
	scratch_put("t/tracing_on", "1\n");
	CHECK_INT(ftrace_start(root, &l, &e), 0, "start again");
	scratch_put("t/tracing_on", "0\n");
	CHECK_INT(ftrace_stop(root, &l, &was_on, &e), 0, "stop again");
	CHECK(!was_on, "stop saw tracing already off (stopped at a spike)");

	CHECK_INT(knob_restore_all(&l, &e), 0, "restore");
	CHECK(scratch_holds("t/tracing_on", "1"), "tracing_on restored");
	CHECK(scratch_holds("t/current_tracer", "function"),
	      "current_tracer restored");
	CHECK(scratch_holds("t/set_event", "irq:irq_handler_entry"),
	      "set_event restored (the board's own events)");
	CHECK(scratch_holds("t/options/overwrite", "0"), "overwrite restored");
	CHECK(scratch_holds("t/buffer_size_kb", "1408"),
	      "buffer_size_kb restored to the number it accepts");
	CHECK(scratch_holds("t/events/sched/sched_switch/enable", "0") &&
		      scratch_holds("t/events/sched/sched_wakeup/enable",
				    "0") &&
		      scratch_holds("t/events/irq/softirq_entry/enable", "0") &&
		      scratch_holds("t/events/irq/softirq_exit/enable", "0"),
	      "every event enable restored to 0");
	CHECK(scratch_holds("t/events/irq/irq_handler_entry/enable", "1"),
	      "an event the board had on stays on");
	CHECK_INT(l.n, 0, "knob list empty after restore");
	knob_list_cleanup(&l);
}

static void test_missing(void)
{
	char *bad[] = { "sched:sched_switch", "sched:sched_nothing", NULL };
	char *nomatch[] = { "irq:nomatch_*", NULL };
	char *nosys[] = { "irq_vectors:local_timer_entry", NULL };
	struct tc_trace t = {
		.enabled = true, .events = bad, .nevents = 2, .buffer_kb = 1024
	};
	struct rtlab_err e = { "" };
	struct knob_list l;
	char root[4096];

	snprintf(root, sizeof(root), "%s", scratch_path("t"));
	fake_tracefs();
	knob_list_init(&l);
	CHECK(ftrace_prepare(root, &t, &l, &e) == -ENOENT &&
		      strstr(e.msg, "sched:sched_nothing"),
	      "a missing event is an error naming it (%s)", e.msg);
	CHECK_INT(l.n, 0, "nothing changed for a testcase that cannot run");
	CHECK(scratch_holds("t/tracing_on", "1"), "tracing_on untouched");
	t.events = nomatch;
	t.nevents = 1;
	CHECK(ftrace_check(root, &t, &e) == -ENOENT &&
		      strstr(e.msg, "irq:nomatch_*"),
	      "a wildcard matching nothing is named (%s)", e.msg);
	t.events = nosys;
	CHECK(ftrace_check(root, &t, &e) == -ENOENT &&
		      strstr(e.msg, "irq_vectors:local_timer_entry"),
	      "an event of a missing subsystem is named (%s)", e.msg);
	t.events = NULL;
	t.nevents = 0;
	t.optional_events = nosys;
	t.noptional_events = 1;
	CHECK_INT(ftrace_check(root, &t, &e), 0,
		  "the same event marked optional is no error");
	unlink(scratch_path("t/trace_marker"));
	CHECK(ftrace_check(root, &t, &e) == -ENOENT &&
		      strstr(e.msg, "trace_marker"),
	      "a tracefs without trace_marker is named (%s)", e.msg);
	scratch_put("t/trace_marker", "");
	knob_list_cleanup(&l);
}

static void test_extract_refused(void)
{
	struct rtlab_err e = { "" };
	volatile sig_atomic_t stop = 0;
	char root[4096];

	snprintf(root, sizeof(root), "%s", scratch_path("t"));
	fake_tracefs();
	CHECK(ftrace_extract(root, scratch_dir, "trace.dat", &stop, &e) ==
			      -EXDEV &&
		      strstr(e.msg, root),
	      "extract from a directory that is not the mounted tracefs is refused, naming it (%s)",
	      e.msg);
	CHECK(access(scratch_path("trace.dat"), F_OK),
	      "and writes no trace.dat");
}

static void test_spike(void)
{
	static const char mark[] = "hit latency threshold (";
	char buf[512];
	unsigned long long lat = 0, thr = 0;
	size_t n = 0;

	memset(buf, 0xff, sizeof(buf));
	n += 40;
	n += sprintf(buf + n, "%s1234 > 100)", mark) + 1;
	n += 60;
	n += sprintf(buf + n, "%s4961 > 3000)", mark);
	buf[n++] = '\0';
	n += 30;
	CHECK(ftrace_find_spike(buf, n, &lat, &thr) && lat == 4961 &&
		      thr == 3000,
	      "the last mark in binary data is found (%llu > %llu)", lat, thr);
	CHECK(!ftrace_find_spike(buf, 40, &lat, &thr), "no mark, no spike");
	memcpy(buf, mark, strlen(mark));
	CHECK(!ftrace_find_spike(buf, strlen(mark) + 2, &lat, &thr),
	      "a mark cut short is no spike");
}

static void test_break(void)
{
	static const char hist[] = "000998\t000000\n# Thread Ids: 05572 05574\n"
				   "# Break thread: 5572\n# Break value: 42\n";
	static const char plain[] = "# Max Latencies: 00012\n";
	long tid = 0;
	unsigned long long lat = 0;

	CHECK(measure_break(hist, strlen(hist), &tid, &lat) && tid == 5572 &&
		      lat == 42,
	      "cyclictest's break lines are read (%ld, %llu)", tid, lat);
	CHECK(!measure_break(plain, strlen(plain), &tid, &lat),
	      "no break lines, no break");
}

static void test_json_repair(void)
{
	/* What cyclictest 2.40 wrote for a -b break on two CPUs. */
	static const char broken[] =
		"{\n  \"file_version\": 1,\n"
		"  \"cmdline:\": \"cyclictest -b 1 nan\",\n"
		"  \"rt_test_version:\": \"2.40\",\n  \"num_threads\": 2,\n"
		"  \"thread\": {\n"
		"    \"0\": {\n      \"histogram\": {\n        \"42\": 1\n      },\n"
		"      \"cycles\": 1,\n      \"min\": 42,\n      \"max\": 42,\n"
		"      \"avg\": 42.00,\n      \"cpu\": 0,\n      \"node\": 0\n    },\n"
		"    \"1\": {\n      \"histogram\": {      },\n"
		"      \"cycles\": 0,\n      \"min\": 1000000,\n      \"max\": 0,\n"
		"      \"avg\": -nan,\n      \"cpu\": 1,\n      \"node\": 0\n    }\n"
		"  }\n}\n";
	struct ct_result res = { 0 };
	struct rtlab_err e = { "" };
	char *text = strdup(broken);
	size_t len = strlen(broken);

	CHECK_INT(measure_json_repair(&text, &len), 1, "-nan JSON repaired");
	CHECK(text && !strstr(text, "nan\n") &&
		      strstr(text, "cyclictest -b 1 nan"),
	      "the nan value is gone, a nan inside a string stays");
	CHECK(text && ct_json_parse(text, len, 1000, &res, &e) == 0 &&
		      res.nthreads == 2,
	      "the repaired document parses as cyclictest JSON (%s)", e.msg);
	ct_result_cleanup(&res);
	CHECK_INT(measure_json_repair(&text, &len), 0,
		  "valid JSON is left alone");
	free(text);
	text = strdup("{ \"a\": ");
	len = strlen(text);
	CHECK_INT(measure_json_repair(&text, &len), 0,
		  "other damage is left for the parser to report");
	free(text);
}

static void test_testcase(void)
{
	static const char yaml[] =
		"name: t\ntrace:\n"
		"  events: [sched:sched_switch]\n"
		"  optional_events: [irq_vectors:local_timer_entry]\n"
		"  break_us: 50\n";
	static const char bad[] = "name: t\ntrace:\n"
				  "  optional_events: [local_timer_entry]\n";
	struct testcase tc;
	struct rtlab_err e = { "" };
	json_t *j;

	CHECK_INT(testcase_parse("t.yaml", yaml, strlen(yaml), &tc, &e), 0,
		  "testcase with optional_events parses");
	CHECK(tc.trace.noptional_events == 1 &&
		      !strcmp(tc.trace.optional_events[0],
			      "irq_vectors:local_timer_entry"),
	      "optional_events kept");
	j = testcase_to_json(&tc);
	CHECK(j && json_array_size(json_object_get(json_object_get(j, "trace"),
						   "optional_events")) == 1,
	      "optional_events in the manifest's definition");
	json_decref(j);
	testcase_cleanup(&tc);
	CHECK(testcase_parse("b.yaml", bad, strlen(bad), &tc, &e) < 0 &&
		      strstr(e.msg, "b.yaml:3: trace.optional_events"),
	      "a malformed optional event names file, line and key (%s)",
	      e.msg);
	testcase_cleanup(&tc);
}

int main(void)
{
	if (scratch_create("test-agent-ftrace")) {
		CHECK(0, "temporary directory: %s", strerror(errno));
		return check_exit();
	}
	test_prepare_restore();
	test_missing();
	test_extract_refused();
	test_spike();
	test_break();
	test_json_repair();
	test_testcase();
	scratch_destroy();
	return check_exit();
}
