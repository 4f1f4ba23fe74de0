// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Testcase parsing: defaults, every shipped testcase, and the errors a
 * user can make (unknown key, bad value, bad YAML, missing tool), each
 * message naming the file and the key.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/proc.h"
#include "testcase.h"
#include "extras-check.h"
#include "fsutil.h"
#include "modinfo.h"
#include "check.h"

static int parse(const char *text, struct testcase *tc, struct rtlab_err *e)
{
	memset(e, 0, sizeof(*e));
	return testcase_parse("t.yaml", text, strlen(text), tc, e);
}

/* Parse must fail with a message containing every one of @want. */
static void expect_error(const char *what, const char *text, const char *want1,
			 const char *want2)
{
	struct testcase tc;
	struct rtlab_err e;
	int ret = parse(text, &tc, &e);

	CHECK(ret < 0, "%s: rejected (ret %d)", what, ret);
	CHECK(strstr(e.msg, "t.yaml") && strstr(e.msg, want1) &&
		      (!want2 || strstr(e.msg, want2)),
	      "%s: message names file and '%s' (%s)", what, want1, e.msg);
	testcase_cleanup(&tc);
}

static void test_defaults(void)
{
	struct testcase tc;
	struct rtlab_err e;

	CHECK_INT(parse("name: t1\n", &tc, &e), 0, "minimal testcase parses");
	CHECK_STR(tc.name, "t1", "name");
	CHECK_INT(tc.duration_s, 60, "default duration_s");
	CHECK_INT(tc.measurement.priority, 95, "default priority");
	CHECK_INT(tc.measurement.interval_us, 1000, "default interval_us");
	CHECK_INT(tc.measurement.histogram_us, 1000, "default histogram_us");
	CHECK_INT(tc.measurement.threads, 0, "default threads: all");
	CHECK(tc.measurement.mlockall, "default mlockall");
	CHECK(!tc.measurement.affinity, "no default affinity");
	CHECK_INT(tc.nloads, 0, "no loads");
	CHECK(!tc.trace.enabled, "no trace section, no trace");
	testcase_cleanup(&tc);
	testcase_cleanup(&tc);
	CHECK(1, "testcase_cleanup twice is harmless");
}

static void test_full(void)
{
	static const char text[] = "name: full\n"
				   "description: all keys\n"
				   "duration_s: 5\n"
				   "measurement:\n"
				   "  tool: cyclictest\n"
				   "  priority: 80\n"
				   "  interval_us: 500\n"
				   "  histogram_us: 2000\n"
				   "  threads: 2\n"
				   "  affinity: 0,1\n"
				   "  mlockall: false\n"
				   "  extra_args: [--smp]\n"
				   "loads:\n"
				   "  - name: hackbench\n"
				   "  - name: hackbench-churn\n"
				   "    loops: 50\n"
				   "  - name: stress-ng\n"
				   "    args: [--cpu, '1']\n"
				   "  - name: network\n"
				   "    mode: ping\n"
				   "trace:\n"
				   "  events: [sched:sched_switch, 'irq:*']\n"
				   "  buffer_kb: 1024\n"
				   "  capture: end_of_run\n";
	struct testcase tc;
	struct rtlab_err e;
	const char **tools;
	json_t *j;

	CHECK_INT(parse(text, &tc, &e), 0, "full testcase parses");
	CHECK_INT(tc.duration_s, 5, "duration_s");
	CHECK_INT(tc.measurement.priority, 80, "priority");
	CHECK_INT(tc.measurement.threads, 2, "threads");
	CHECK_STR(tc.measurement.affinity, "0,1", "affinity");
	CHECK(!tc.measurement.mlockall, "mlockall false");
	CHECK_INT(tc.measurement.nextra_args, 1, "extra_args");
	CHECK_INT(tc.nloads, 4, "four loads");
	CHECK_INT(tc.loads[0].kind, TC_LOAD_HACKBENCH, "load 0 is hackbench");
	CHECK(tc.loads[0].nargs > 0, "hackbench gets default args");
	CHECK_INT(tc.loads[1].loops, 50, "churn loops");
	CHECK_STR(tc.loads[2].args[1], "1", "stress-ng args kept");
	CHECK_INT(tc.loads[3].net_mode, TC_NET_PING, "network mode ping");
	CHECK(tc.trace.enabled, "trace enabled");
	CHECK_INT(tc.trace.nevents, 2, "two events");
	CHECK_INT(tc.trace.buffer_kb, 1024, "buffer_kb");
	CHECK_INT(tc.trace.capture, TC_CAPTURE_END_OF_RUN,
		  "trace.capture end_of_run");

	tools = testcase_tools(&tc);
	CHECK(tools && !strcmp(tools[0], "cyclictest") &&
		      !strcmp(tools[1], "hackbench") &&
		      !strcmp(tools[2], "stress-ng") &&
		      !strcmp(tools[3], "ping") && !tools[4],
	      "tools: cyclictest hackbench stress-ng ping, once each");
	free(tools);

	j = testcase_to_json(&tc);
	CHECK(j && json_integer_value(json_object_get(
			   json_object_get(j, "measurement"), "priority")) ==
			      80,
	      "definition JSON carries measurement.priority");
	CHECK(j && json_array_size(json_object_get(j, "loads")) == 4,
	      "definition JSON lists the loads");
	CHECK(j && json_is_object(json_object_get(j, "trace")),
	      "definition JSON has the trace");
	CHECK(j && !strcmp(json_string_value(json_object_get(json_object_get(j, "trace"), "capture")) ?:
				   "",
			   "end_of_run"),
	      "definition JSON has the trace's capture");
	json_decref(j);
	testcase_cleanup(&tc);
}

static void test_shipped(void)
{
	static const char *const names[] = {
		"cyclictest-idle",    "cyclictest-hackbench",
		"cyclictest-network", "cyclictest-stress",
		"cyclictest-churn",   "cyclictest-network-nic"
	};
	const char *top = getenv("RTLAB_TOP");
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct testcase tc;
		struct rtlab_err e = { "" };
		int ret;

		snprintf(path, sizeof(path), "%s/testcases/%s.yaml",
			 top ? top : ".", names[i]);
		ret = testcase_load(path, &tc, &e);
		CHECK(ret == 0, "shipped %s parses (%s)", names[i], e.msg);
		CHECK_STR(tc.name, names[i],
			  "shipped testcase's name matches its file");
		CHECK_INT(tc.duration_s, 60,
			  "shipped testcases default to 60 s");
		CHECK(!strcmp(names[i], "cyclictest-network-nic") ==
			      (testcase_nic_load(&tc) != NULL),
		      "%s: a load from outside only in the NIC testcase",
		      names[i]);
		testcase_cleanup(&tc);
	}
}

static void test_errors(void)
{
	struct testcase tc;
	struct rtlab_err e;

	expect_error("two loads from outside the board",
		     "name: x\nloads:\n  - name: network\n    mode: iperf3-nic\n"
		     "  - name: network\n    mode: iperf3-nic\n    port: 5300\n",
		     "loads[1]", "only one network load");
	expect_error("unknown network mode",
		     "name: x\nloads:\n  - name: network\n    mode: nic\n",
		     "mode", "iperf3-nic");
	expect_error("unknown top-level key", "name: x\nfoo: 1\n", "foo",
		     "unknown key");
	expect_error("unknown measurement key",
		     "name: x\nmeasurement:\n  prio: 3\n", "measurement.prio",
		     "unknown key");
	expect_error("unknown trace key", "name: x\ntrace:\n  size: 3\n",
		     "trace.size", NULL);
	expect_error("key not allowed for this load",
		     "name: x\nloads:\n  - name: hackbench\n    port: 1\n",
		     "loads[0].port", "hackbench");
	expect_error("unknown load", "name: x\nloads:\n  - name: fio\n",
		     "loads[0].name", "fio");
	expect_error("load without name", "name: x\nloads:\n  - args: []\n",
		     "loads[0]", "name");
	expect_error("priority 0", "name: x\nmeasurement:\n  priority: 0\n",
		     "measurement.priority", "1..99");
	expect_error("priority not a number",
		     "name: x\nmeasurement:\n  priority: high\n",
		     "measurement.priority", "high");
	expect_error("negative duration", "name: x\nduration_s: -5\n",
		     "duration_s", "-5");
	expect_error("threads neither all nor a number",
		     "name: x\nmeasurement:\n  threads: many\n",
		     "measurement.threads", "all");
	expect_error("bad affinity", "name: x\nmeasurement:\n  affinity: 3-1\n",
		     "measurement.affinity", "cpuset");
	expect_error("tool other than cyclictest",
		     "name: x\nmeasurement:\n  tool: oslat\n",
		     "measurement.tool", "oslat");
	expect_error("mlockall not a boolean",
		     "name: x\nmeasurement:\n  mlockall: maybe\n",
		     "measurement.mlockall", "true or false");
	expect_error("extra_args not a list",
		     "name: x\nmeasurement:\n  extra_args: --smp\n",
		     "measurement.extra_args", "list");
	expect_error("trace.capture neither worst_wakeup nor end_of_run",
		     "name: x\ntrace:\n  capture: at_max\n", "trace.capture",
		     "worst_wakeup or end_of_run");
	expect_error("bad trace event", "name: x\ntrace:\n  events: [sched]\n",
		     "trace.events", "subsystem:event");
	expect_error("network mode",
		     "name: x\nloads:\n  - name: network\n"
		     "    mode: udp\n",
		     "loads[0].mode", "iperf3, ping or iperf3-nic");
	expect_error("missing name", "duration_s: 3\n", "name", "missing");
	expect_error("not a mapping", "- a\n- b\n", "top level", NULL);
	expect_error("invalid YAML", "name: [x\n", "not valid YAML", NULL);
	expect_error("line number", "name: x\n\n\nduration_s: soon\n",
		     "t.yaml:4", "duration_s");
	/* a key given twice: the first 'loads' used to leak under the
	 * second (valgrind: sh tests/run.sh --unit --valgrind testcase) */
	expect_error("duplicate loads",
		     "name: x\nloads:\n  - name: hackbench\n    args: [-l, '1']\n"
		     "loads:\n  - name: stress-ng\n",
		     "t.yaml:5: duplicate key 'loads'", "first at line 2");
	expect_error("duplicate key in a load",
		     "name: x\nloads:\n  - name: hackbench\n    args: [a]\n"
		     "    args: [b]\n",
		     "t.yaml:5: duplicate key 'args'", "first at line 4");
	expect_error("histogram range beyond the server's limit",
		     "name: x\nmeasurement:\n  histogram_us: 100001\n",
		     "measurement.histogram_us", "100000");
	expect_error("duplicate measurement key",
		     "name: x\nmeasurement:\n  priority: 80\n  priority: 90\n",
		     "t.yaml:4: duplicate key 'priority'", NULL);

	memset(&e, 0, sizeof(e));
	CHECK(testcase_load("/nonexistent/t.yaml", &tc, &e) == -ENOENT &&
		      strstr(e.msg, "/nonexistent/t.yaml"),
	      "missing file: -ENOENT naming it (%s)", e.msg);
	testcase_cleanup(&tc);
}

static void test_missing_tool(void)
{
	char dir[] = "/tmp/test-testcase.XXXXXX", *old, *p;
	struct testcase tc;
	struct rtlab_err e;
	const char **tools;

	CHECK_INT(parse("name: x\nloads:\n  - name: network\n", &tc, &e), 0,
		  "network testcase parses");
	tools = testcase_tools(&tc);
	CHECK(tools && !strcmp(tools[1], "iperf3"), "network needs iperf3");
	CHECK(mkdtemp(dir) != NULL, "temporary PATH directory");
	old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", dir, 1);
	p = path_which(tools ? tools[0] : "cyclictest");
	CHECK(!p, "cyclictest not found on a PATH without it");
	free(p);
	p = path_which("/bin/sh");
	CHECK(p && !strcmp(p, "/bin/sh"), "an absolute path is found as is");
	free(p);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	rmdir(dir);
	p = path_which("sh");
	CHECK(p != NULL, "sh found on the real PATH");
	free(p);
	free(tools);
	testcase_cleanup(&tc);
}

/* testcase_json_diff() of two JSON texts as one comma-joined string. */
static char *diff(const char *lab, const char *ran)
{
	json_t *l = json_loads(lab, 0, NULL), *r = json_loads(ran, 0, NULL);
	json_t *d = testcase_json_diff(l, r), *f;
	char *out = calloc(1, 512);
	size_t i;

	json_array_foreach(d, i, f) {
		if (i)
			strcat(out, ",");
		strncat(out, json_string_value(f), 100);
	}
	json_decref(d);
	json_decref(l);
	json_decref(r);
	return out;
}

static void test_diff(void)
{
	static const struct {
		const char *what, *lab, *ran, *want;
	} cases[] = {
		{ "same definition", "{\"duration_s\": 60}",
		  "{\"duration_s\": 60}", "" },
		{ "description is not compared", "{\"description\": \"a\"}",
		  "{\"description\": \"b\"}", "" },
		{ "a different top-level value", "{\"duration_s\": 60}",
		  "{\"duration_s\": 5}", "duration_s" },
		{ "a nested field, named by its path",
		  "{\"measurement\": {\"interval_us\": 1000, \"priority\": 95}}",
		  "{\"measurement\": {\"interval_us\": 200, \"priority\": 95}}",
		  "measurement.interval_us" },
		{ "a key only the board has (verdict)", "{\"duration_s\": 60}",
		  "{\"duration_s\": 60, \"verdict\": {\"alpha\": 0.5}}",
		  "verdict" },
		{ "a key only the lab has",
		  "{\"duration_s\": 60, \"loads\": []}", "{\"duration_s\": 60}",
		  "loads" },
		{ "arrays compare whole",
		  "{\"loads\": [{\"name\": \"hackbench\"}]}", "{\"loads\": []}",
		  "loads" },
		{ "null is the same as missing",
		  "{\"measurement\": {\"affinity\": null}}",
		  "{\"measurement\": {}, \"trace\": null}", "" },
		{ "no definition claimed: nothing differs",
		  "{\"duration_s\": 60}", "null", "" },
		{ "two differences, lab's order",
		  "{\"duration_s\": 60, \"measurement\": {\"histogram_us\": 1000}}",
		  "{\"measurement\": {\"histogram_us\": 100}, \"duration_s\": 1}",
		  "duration_s,measurement.histogram_us" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = diff(cases[i].lab, cases[i].ran);

		CHECK_STR(got, cases[i].want, cases[i].what);
		free(got);
	}
}

static void test_flags_text(void)
{
	json_t *f;
	char *t;

	f = json_loads("{}", 0, NULL);
	CHECK(!testcase_flags_text(f), "no flags: no text");
	json_decref(f);
	f = json_loads("{\"testcase_mismatch\": [\"duration_s\", "
		       "\"verdict\"]}",
		       0, NULL);
	t = testcase_flags_text(f);
	CHECK_STR(t,
		  "testcase differs from the lab's definition: duration_s, "
		  "verdict; verdicts use the lab's parameters",
		  "mismatch: the fields, in one line");
	free(t);
	json_decref(f);
	f = json_loads("{\"testcase_not_in_lab\": \"no lab definition\"}", 0,
		       NULL);
	t = testcase_flags_text(f);
	CHECK_STR(t,
		  "not a lab testcase (no lab definition); verdicts use the "
		  "lab's parameters",
		  "not in the lab: says so, with why");
	free(t);
	json_decref(f);
}

static void test_lab_load(void)
{
	struct rtlab_err e = { "" };
	json_t *j = NULL;

	CHECK_INT(testcase_lab_load("cyclictest-idle", &j, &e), 0,
		  "the lab's testcases/cyclictest-idle.yaml loads");
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(j, "measurement"), "interval_us")),
		  1000, "... as testcase_to_json() gives it");
	json_decref(j);
	CHECK_INT(testcase_lab_load("no-such-testcase", &j, &e), -ENOENT,
		  "a name the lab does not define: -ENOENT");
	CHECK_INT(testcase_lab_load("../schema/001_init", &j, &e), -ENOENT,
		  "a path is never a lab testcase name");
	CHECK(!j, "... and nothing is returned");
}

/* The injector's modes, tick among them, as the YAML and JSON say them. */
static void test_inject_mode(void)
{
	struct testcase tc;
	struct rtlab_err e;
	json_t *j;

	CHECK_INT(parse("name: t\nloads:\n  - name: injector\n    mode: tick\n"
			"    spin_us: 300\n    period_ms: 4\n    jitter_pct: 0\n",
			&tc, &e),
		  0, "an injector in mode tick parses");
	CHECK(tc.nloads == 1 && tc.loads[0].inject_mode == TC_INJECT_TICK,
	      "mode tick");
	j = testcase_to_json(&tc);
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(j, "loads"), 0),
			  "mode")),
		  "tick", "... and its JSON says so");
	json_decref(j);
	testcase_cleanup(&tc);
	expect_error("unknown injector mode",
		     "name: t\nloads:\n  - name: injector\n    mode: kernel\n",
		     "loads[0].mode", "user, preempt, irq or tick");
}

/* -- extras ---------------------------------------------------------- */

static void test_extras_parse(void)
{
	struct testcase tc;
	struct rtlab_err e;
	json_t *j, *x;

	CHECK_INT(parse("name: t\n"
			"extras:\n"
			"  modules:\n"
			"    - path: drv/my_driver.ko\n"
			"      params: \"foo=1 bar=2\"\n"
			"    - other.ko\n"
			"  files: [{src: data/x.conf, dest: /etc/x.conf}]\n"
			"  setup: [\"echo 1 > /tmp/a\", \"true\"]\n"
			"  teardown: [\"rm -f /tmp/a\"]\n",
			&tc, &e),
		  0, "extras: a full block parses");
	CHECK_INT(tc.extras.nmodules, 2, "... two modules");
	CHECK_STR(tc.extras.modules[0].path, "drv/my_driver.ko",
		  "... the first's path");
	CHECK_STR(tc.extras.modules[0].params, "foo=1 bar=2", "... its params");
	CHECK_STR(tc.extras.modules[1].path, "other.ko",
		  "... a module given as a bare path");
	CHECK(!tc.extras.modules[1].params, "... has no params");
	CHECK_STR(testcase_module_file(tc.extras.modules[0].path),
		  "my_driver.ko", "... the file name on the board");
	CHECK_INT(tc.extras.nfiles, 1, "... one file");
	CHECK_STR(tc.extras.files[0].dest, "/etc/x.conf", "... its dest");
	CHECK_INT(tc.extras.nsetup, 2, "... two setup commands");
	CHECK_INT(tc.extras.nteardown, 1, "... one teardown command");
	CHECK(testcase_has_extras(&tc), "testcase_has_extras()");
	j = testcase_to_json(&tc);
	x = json_object_get(j, "extras");
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(x, "modules"), 0),
			  "params")),
		  "foo=1 bar=2", "definition: extras.modules[0].params");
	CHECK_STR(json_string_value(json_object_get(
			  json_array_get(json_object_get(x, "files"), 0),
			  "src")),
		  "data/x.conf", "definition: extras.files[0].src");
	CHECK_INT(json_array_size(json_object_get(x, "setup")), 2,
		  "definition: extras.setup");
	json_decref(j);
	testcase_cleanup(&tc);

	CHECK_INT(parse("name: t\n", &tc, &e), 0, "no extras");
	CHECK(!testcase_has_extras(&tc), "... testcase_has_extras() false");
	j = testcase_to_json(&tc);
	CHECK(!json_object_get(j, "extras"),
	      "... no extras key in the definition (older ones unchanged)");
	json_decref(j);
	testcase_cleanup(&tc);
}

static void test_extras_paths(void)
{
	struct testcase tc;
	struct rtlab_err e = { "" };
	char *p;

	static const char text[] = "name: t\nextras: {modules: [m.ko]}\n";

	CHECK_INT(testcase_parse("/lab/tc/t.yaml", text, strlen(text), &tc, &e),
		  0, "a testcase with a path");
	p = testcase_extra_path(&tc, "drv/m.ko");
	CHECK_STR(p, "/lab/tc/drv/m.ko",
		  "a relative extra resolves against the testcase's directory");
	free(p);
	p = testcase_extra_path(&tc, "/abs/m.ko");
	CHECK_STR(p, "/abs/m.ko", "an absolute one stays");
	free(p);
	testcase_cleanup(&tc);
}

static void test_extras_errors(void)
{
	expect_error("extras: unknown key", "name: t\nextras: {module: []}\n",
		     "extras.module", "unknown key");
	expect_error("extras: not a mapping", "name: t\nextras: [a]\n",
		     "extras", "a mapping");
	expect_error("extras.modules: not a .ko",
		     "name: t\nextras: {modules: [{path: drv.o}]}\n",
		     "extras.modules[0].path", "drv.o");
	expect_error("extras.modules: '..'",
		     "name: t\nextras: {modules: [../x/drv.ko]}\n",
		     "extras.modules[0]", "..");
	expect_error("extras.modules: missing path",
		     "name: t\nextras: {modules: [{params: a=1}]}\n",
		     "extras.modules[0]", "missing key 'path'");
	expect_error("extras.modules: shell in params",
		     "name: t\nextras: {modules: [{path: a.ko, params: "
		     "\"a=$(reboot)\"}]}\n",
		     "extras.modules[0].params", "insmod parameters");
	expect_error("extras.modules: two of one file name",
		     "name: t\nextras: {modules: [a/m.ko, b/m.ko]}\n",
		     "extras.modules[1]", "file name");
	expect_error("extras.files: relative dest",
		     "name: t\nextras: {files: [{src: a, dest: etc/a}]}\n",
		     "extras.files[0].dest", "absolute");
	expect_error("extras.files: dest in /proc",
		     "name: t\nextras: {files: [{src: a, dest: /proc/x}]}\n",
		     "extras.files[0].dest", "/proc/x");
	expect_error("extras.files: dest in /job",
		     "name: t\nextras: {files: [{src: a, dest: /job/x}]}\n",
		     "extras.files[0].dest", "/job/x");
	expect_error("extras.files: missing dest",
		     "name: t\nextras: {files: [{src: a}]}\n",
		     "extras.files[0]", "missing key 'dest'");
	expect_error("extras.files: one dest twice",
		     "name: t\nextras: {files: [{src: a, dest: /x}, "
		     "{src: b, dest: /x}]}\n",
		     "extras.files[1]", "/x");
	expect_error("extras.setup: not strings",
		     "name: t\nextras: {setup: [{a: b}]}\n", "extras.setup",
		     "a list of strings");
	expect_error("extras.teardown: not a list",
		     "name: t\nextras: {teardown: true}\n", "extras.teardown",
		     "a list");
}

/* A minimal ELF64 little-endian relocatable file with a .modinfo. */
static size_t fake_module(unsigned char *buf, size_t cap, const char *modinfo,
			  size_t modinfo_len)
{
	static const char shstr[] = "\0.shstrtab\0.modinfo";
	size_t off_str = 64, off_mi = off_str + sizeof(shstr);
	size_t off_sh = (off_mi + modinfo_len + 7) & ~(size_t)7;
	size_t total = off_sh + 3 * 64;
	unsigned char *sh;

	if (total > cap)
		return 0;
	memset(buf, 0, total);
	memcpy(buf, "\177ELF\2\1\1", 7);
	buf[16] = 1;  /* ET_REL */
	buf[18] = 62; /* EM_X86_64 */
	buf[20] = 1;
	memcpy(buf + 40, &off_sh, 8); /* little-endian host */
	buf[52] = 64;
	buf[58] = 64;
	buf[60] = 3;
	buf[62] = 1;
	memcpy(buf + off_str, shstr, sizeof(shstr));
	memcpy(buf + off_mi, modinfo, modinfo_len);
	sh = buf + off_sh + 64; /* [1] .shstrtab */
	sh[0] = 1;
	sh[4] = 3;
	memcpy(sh + 24, &off_str, 8);
	*(uint64_t *)(sh + 32) = sizeof(shstr);
	sh += 64; /* [2] .modinfo */
	sh[0] = 11;
	sh[4] = 1;
	memcpy(sh + 24, &off_mi, 8);
	*(uint64_t *)(sh + 32) = modinfo_len;
	return total;
}

/* @name in @dir: a fake module of @modinfo, cut @cut bytes short. */
static const char *write_module(const char *dir, const char *name,
				const char *modinfo, size_t modinfo_len,
				size_t cut)
{
	static char path[256];
	unsigned char buf[1024];
	size_t n = fake_module(buf, sizeof(buf), modinfo, modinfo_len);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fwrite(buf, 1, n > cut ? n - cut : 0, f);
		fclose(f);
	}
	return path;
}

static void test_modinfo(void)
{
	static const char mi_text[] =
		"license=GPL\0srcversion=ABC123\0name=my_driver\0"
		"vermagic=6.1.0-57-rt-amd64 SMP preempt_rt mod_unload modversions ";
	char dir[] = "/tmp/rtlab-modinfo.XXXXXX";
	struct rtlab_err e = { "" };
	struct modinfo mi;
	const char *path;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	path = write_module(dir, "m.ko", mi_text, sizeof(mi_text), 0);
	CHECK(modinfo_read(path, &mi, &e) == 0,
	      "modinfo: a module's .modinfo is read (%s)", e.msg);
	CHECK_STR(mi.name, "my_driver", "... name");
	CHECK_STR(mi.srcversion, "ABC123", "... srcversion");
	CHECK(mi.vermagic && !strncmp(mi.vermagic, "6.1.0-57-rt-amd64 SMP", 21),
	      "... vermagic");
	CHECK(modinfo_matches_release(mi.vermagic, "6.1.0-57-rt-amd64"),
	      "... matches its release");
	CHECK(!modinfo_matches_release(mi.vermagic, "6.1.0-57-rt"),
	      "... not a prefix of it");
	CHECK(!modinfo_matches_release(mi.vermagic, "6.1.0-58-rt-amd64"),
	      "... not another release");
	modinfo_cleanup(&mi);
	modinfo_cleanup(&mi);

	path = write_module(dir, "x.ko", "", 0, 0);
	f = fopen(path, "w");
	if (f) {
		fputs("not an elf at all, not at all, no; long enough to be "
		      "read as one if it were\n",
		      f);
		fclose(f);
	}
	CHECK_INT(modinfo_read(path, &mi, &e), -ENOEXEC,
		  "modinfo: not an ELF file");
	CHECK(strstr(e.msg, "x.ko") && strstr(e.msg, "not a kernel module"),
	      "... named (%s)", e.msg);
	path = write_module(dir, "y.ko", "license=GPL", 12, 0);
	CHECK_INT(modinfo_read(path, &mi, &e), -ENOEXEC,
		  "modinfo: no vermagic");
	CHECK(strstr(e.msg, "y.ko") && strstr(e.msg, "no vermagic"),
	      "... said (%s)", e.msg);
	path = write_module(dir, "z.ko", mi_text, sizeof(mi_text), 100);
	CHECK(modinfo_read(path, &mi, &e) == -ENOEXEC,
	      "modinfo: a truncated file is refused, not read past (%s)",
	      e.msg);
	CHECK(modinfo_read(dir, &mi, &e) == -EINVAL,
	      "modinfo: a directory is refused (%s)", e.msg);
	snprintf(e.msg, sizeof(e.msg), "%s/none.ko", dir);
	path = strdup(e.msg);
	CHECK(modinfo_read(path, &mi, &e) == -ENOENT,
	      "modinfo: a missing file: its errno (%s)", e.msg);
	free((char *)path);
	rmtree(dir);
}

static void test_extras_check(void)
{
	static const char mi_text[] =
		"name=my_driver\0vermagic=6.1.0-57-rt-amd64 SMP preempt_rt ";
	char dir[] = "/tmp/rtlab-tc-extras.XXXXXX", path[128], yaml[512];
	unsigned char buf[1024];
	struct rtlab_err e = { "" };
	struct testcase tc;
	size_t n;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	n = fake_module(buf, sizeof(buf), mi_text, sizeof(mi_text));
	snprintf(path, sizeof(path), "%s/my_driver.ko", dir);
	f = fopen(path, "w");
	fwrite(buf, 1, n, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/x.conf", dir);
	f = fopen(path, "w");
	fputs("x=1\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/t.yaml", dir);
	snprintf(yaml, sizeof(yaml),
		 "name: t\nextras:\n  modules: [my_driver.ko]\n"
		 "  files: [{src: x.conf, dest: /etc/x.conf}]\n");
	CHECK_INT(testcase_parse(path, yaml, strlen(yaml), &tc, &e), 0,
		  "extras_check: testcase parses");
	CHECK_INT(extras_check(&tc, NULL, &e), 0,
		  "extras_check: module and file there");
	CHECK_INT(extras_check(&tc, "6.1.0-57-rt-amd64", &e), 0,
		  "extras_check: the module's release is the kernel's");
	CHECK_INT(extras_check(&tc, "6.1.0-99-rt-amd64", &e), -EINVAL,
		  "extras_check: another kernel's release is refused");
	CHECK(strstr(e.msg, "extras.modules[0]") &&
		      strstr(e.msg, "my_driver.ko") &&
		      strstr(e.msg, "6.1.0-57-rt-amd64 SMP") &&
		      strstr(e.msg, "6.1.0-99-rt-amd64"),
	      "... naming the module and both versions (%s)", e.msg);
	testcase_cleanup(&tc);

	snprintf(yaml, sizeof(yaml),
		 "name: t\nextras: {modules: [missing.ko]}\n");
	CHECK_INT(testcase_parse(path, yaml, strlen(yaml), &tc, &e), 0,
		  "a testcase naming a missing module parses");
	CHECK_INT(extras_check(&tc, NULL, &e), -ENOENT,
		  "extras_check: a missing module is refused");
	CHECK(strstr(e.msg, "missing.ko") && strstr(e.msg, "extras.modules[0]"),
	      "... named (%s)", e.msg);
	testcase_cleanup(&tc);

	snprintf(yaml, sizeof(yaml), "name: t\nextras: {modules: [x.ko]}\n");
	snprintf(path, sizeof(path), "%s/x.ko", dir);
	f = fopen(path, "w");
	fputs("not a module\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/t.yaml", dir);
	CHECK_INT(testcase_parse(path, yaml, strlen(yaml), &tc, &e), 0,
		  "a testcase naming a text file as module parses");
	CHECK_INT(extras_check(&tc, NULL, &e), -ENOEXEC,
		  "extras_check: a file that is no module is refused");
	testcase_cleanup(&tc);

	snprintf(yaml, sizeof(yaml),
		 "name: t\nextras: {files: [{src: nope, dest: /etc/nope}]}\n");
	CHECK_INT(testcase_parse(path, yaml, strlen(yaml), &tc, &e), 0,
		  "a testcase naming a missing file parses");
	CHECK_INT(extras_check(&tc, NULL, &e), -ENOENT,
		  "extras_check: a missing file is refused");
	CHECK(strstr(e.msg, "extras.files[0]") && strstr(e.msg, "nope"),
	      "... named (%s)", e.msg);
	testcase_cleanup(&tc);
	rmtree(dir);
}

int main(void)
{
	test_inject_mode();
	test_diff();
	test_flags_text();
	test_lab_load();
	test_defaults();
	test_full();
	test_shipped();
	test_errors();
	test_missing_tool();
	test_extras_parse();
	test_extras_paths();
	test_extras_errors();
	test_modinfo();
	test_extras_check();
	return check_exit();
}
