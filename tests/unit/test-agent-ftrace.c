// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The agent's ftrace capture against a fake tracefs in a temporary
 * directory: prepare sets every file a capture needs, start and stop flip
 * tracing_on, restore puts every original back, missing events and files
 * are named; the hist triggers that keep the worst wakeup's trace in the
 * snapshot, the buffer's lost events; plus the repair of cyclictest's
 * "nan" JSON, and the testcase's optional_events.
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
			      .buffer_kb = 4096 };
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
	/* As something else on the board might. */
	scratch_put("t/tracing_on", "1\n");
	CHECK_INT(ftrace_start(root, &l, &e), 0, "start again");
	scratch_put("t/tracing_on", "0\n");
	CHECK_INT(ftrace_stop(root, &l, &was_on, &e), 0, "stop again");
	CHECK(!was_on, "stop saw tracing already off");

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

static void test_snapshot(void)
{
	/* The tail of sched_switch's hist file after a maximum. */
	static const char hist[] =
		"{ next_pid:        412 } hitcount:       2994  max:         61\n"
		"\nTotals:\n    Hits: 5988\n    Entries: 2\n    Dropped: 0\n"
		"\nSnapshot taken (see tracing/snapshot).  Details:\n"
		"\ttriggering value { onmax($rtlab_lat) }:         61\t"
		"triggered by event with key: { next_pid:        412 }\n";
	struct ftrace_snapshot s;
	struct rtlab_err e = { "" };
	struct knob_list l;
	char root[4096], *text;

	snprintf(root, sizeof(root), "%s", scratch_path("t"));
	fake_tracefs();
	knob_list_init(&l);
	CHECK(!ftrace_snapshot_supported(root),
	      "no snapshot file: no snapshot capture");
	CHECK(ftrace_snapshot_arm(root, 95, &s, &l, &e) == -EOPNOTSUPP &&
		      strstr(e.msg, "CONFIG_HIST_TRIGGERS"),
	      "arming without the files is refused, saying what is missing (%s)",
	      e.msg);
	mkdirs("t/events/sched/sched_waking");
	scratch_put("t/snapshot",
		    "# tracer: nop\n#\n# * Snapshot is freed *\n");
	scratch_put("t/events/sched/sched_waking/trigger",
		    "# Available triggers:\nboard's own\n");
	scratch_put("t/events/sched/sched_switch/trigger", "");
	scratch_put("t/events/sched/sched_switch/hist", hist);
	CHECK(ftrace_snapshot_supported(root),
	      "with sched_waking's trigger file, it is supported");
	CHECK_INT(ftrace_snapshot_arm(root, 95, &s, &l, &e), 0, "arm");
	CHECK(s.narmed == 2 && s.free_after,
	      "armed; the snapshot buffer was free, so it is freed after");
	CHECK(ftrace_snapshot_latency(&s) &&
		      !strcmp(ftrace_snapshot_latency(&s), "waking_to_switch"),
	      "without hrtimer_start and a mono clock: waking to switch-in");
	text = knob_read(scratch_path("t/events/sched/sched_waking/trigger"));
	CHECK(text && strstr(text, "board's own\nhist:keys=pid:rtlab_ts0=") &&
		      strstr(text, "comm==\"cyclictest\" && prio==4"),
	      "sched_waking's trigger appended, the board's own kept, only the measuring threads (-p 95: kernel prio 4)");
	free(text);
	text = knob_read(scratch_path("t/events/sched/sched_switch/trigger"));
	CHECK(text && strstr(text, "onmax($rtlab_lat).snapshot()") &&
		      strstr(text, "next_prio==4"),
	      "sched_switch's trigger snapshots at each new maximum");
	free(text);

	CHECK_INT(ftrace_snapshot_disarm(root, &s, &e), 0, "disarm");
	CHECK(s.taken && s.lat_us == 61 && s.pid == 412,
	      "the maximum and its thread read from the hist file (%llu us, pid %ld)",
	      s.lat_us, s.pid);
	CHECK(!s.narmed, "both triggers marked removed");
	text = knob_read(scratch_path("t/events/sched/sched_switch/trigger"));
	CHECK(text && strstr(text, "==4!hist:keys=next_pid:"),
	      "sched_switch's trigger removed with '!'");
	free(text);
	text = knob_read(scratch_path("t/events/sched/sched_waking/trigger"));
	CHECK(text && strstr(text, "==4!hist:keys=pid:"),
	      "sched_waking's trigger removed with '!'");
	free(text);
	CHECK_INT(ftrace_snapshot_disarm(root, &s, &e), 0,
		  "disarm twice is harmless");

	scratch_put("t/snapshot", "");
	CHECK_INT(ftrace_snapshot_restore(root, &s, &e), 0, "swap back");
	CHECK(s.swapped && scratch_holds("t/snapshot", "1"),
	      "the kept trace swapped back to the top level (1 > snapshot)");
	scratch_put("t/tracing_on", "");
	scratch_put("t/trace_marker", "");
	CHECK_INT(ftrace_snapshot_mark(root, &s, &e), 0, "mark");
	CHECK(scratch_holds(
		      "t/trace_marker",
		      "rtlab worst wakeup (61 us, pid 412, waking_to_switch)"),
	      "the kept trace is marked with the maximum, its thread, its latency");
	CHECK(scratch_holds("t/tracing_on", "10"),
	      "tracing on for the mark only");
	CHECK_INT(ftrace_snapshot_free(root, &s, &e), 0, "free");
	CHECK(scratch_holds("t/snapshot", "10") && !s.free_after,
	      "the snapshot buffer freed (0 > snapshot), once");
	CHECK_INT(ftrace_snapshot_free(root, &s, &e), 0, "free twice");
	CHECK(scratch_holds("t/snapshot", "10"), "... writes nothing more");

	memset(&s, 0, sizeof(s));
	CHECK(!ftrace_snapshot_parse("triggering value { onmax($rtlab_lat) "
				     "}: 18446744073709240000\t next_pid: 9",
				     &s) &&
		      s.taken && s.negative && !s.lat_us,
	      "a latency below zero (wrapped around) is no latency");
	memset(&s, 0, sizeof(s));
	CHECK(ftrace_snapshot_parse("{ next_pid: 4 } hitcount: 3\n", &s) ==
			      -ENOENT &&
		      !s.taken,
	      "a hist file without 'Snapshot taken': no snapshot");
	scratch_put("t/snapshot", "");
	CHECK_INT(ftrace_snapshot_restore(root, &s, &e), 0,
		  "nothing to swap back without a snapshot");
	CHECK(scratch_holds("t/snapshot", ""), "... and nothing written");

	scratch_put("t/snapshot", "# tracer: nop\nold snapshot\n");
	CHECK_INT(ftrace_snapshot_arm(root, 95, &s, &l, &e), 0, "arm again");
	CHECK(!s.free_after,
	      "a snapshot buffer the board had is not freed afterwards");
	CHECK_INT(ftrace_snapshot_disarm(root, &s, &e), 0, "disarm");
	CHECK_INT(knob_restore_all(&l, &e), 0, "restore");
	knob_list_cleanup(&l);
}

static void test_stats(void)
{
	static const char cpu0[] =
		"entries: 1200\noverrun: 398476\ncommit overrun: 2\n"
		"bytes: 4096\noldest event ts:  2261.140236\n"
		"now ts:  2263.596413\ndropped events: 0\nread events: 0\n";
	static const char cpu1[] = "entries: 30\noverrun: 0\n"
				   "commit overrun: 0\ndropped events: 5\n";
	struct ftrace_stats st;
	char root[4096];

	snprintf(root, sizeof(root), "%s", scratch_path("t"));
	fake_tracefs();
	CHECK_INT(ftrace_stats_read(root, &st), -ENOENT,
		  "no per_cpu stats: unknown");
	mkdirs("t/per_cpu/cpu0");
	mkdirs("t/per_cpu/cpu1");
	scratch_put("t/per_cpu/cpu0/stats", cpu0);
	scratch_put("t/per_cpu/cpu1/stats", cpu1);
	CHECK_INT(ftrace_stats_read(root, &st), 0, "stats read");
	CHECK(st.ncpus == 2 && st.entries == 1230 && st.overrun == 398476 &&
		      st.commit_overrun == 2 && st.dropped == 5,
	      "summed over CPUs: %u CPUs, %llu entries, %llu overrun, %llu commit overrun, %llu dropped",
	      st.ncpus, st.entries, st.overrun, st.commit_overrun, st.dropped);
}

static void test_json_repair(void)
{
	/* What cyclictest 2.40 wrote for a thread without samples. */
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
		"  optional_events: [irq_vectors:local_timer_entry]\n";
	static const char brk[] = "name: t\ntrace:\n"
				  "  events: [sched:sched_switch]\n"
				  "  break_us: 50\n";
	static const char brkarg[] = "name: t\nmeasurement:\n"
				     "  extra_args: [--smi, --breaktrace=40]\n";
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
	CHECK(testcase_parse("c.yaml", brk, strlen(brk), &tc, &e) < 0 &&
		      strstr(e.msg, "c.yaml:4: trace.break_us") &&
		      strstr(e.msg, "whole duration"),
	      "break_us is refused: runs are never cut short (%s)", e.msg);
	testcase_cleanup(&tc);
	CHECK(testcase_parse("d.yaml", brkarg, strlen(brkarg), &tc, &e) < 0 &&
		      strstr(e.msg, "'--breaktrace=40'"),
	      "a breaktrace among extra_args is refused, named (%s)", e.msg);
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
	test_snapshot();
	test_stats();
	test_json_repair();
	test_testcase();
	scratch_destroy();
	return check_exit();
}
