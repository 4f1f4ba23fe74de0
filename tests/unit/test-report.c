// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the report's pure parts: summary, text sections, bug
 * JSON, attachment bodies, base64, config delta, Bugzilla platform names,
 * fitting custom fields to what a server offers, and the KCIDB export and
 * its validator.  No database, no Bugzilla (one unreachable loopback call).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/bugzilla.h"
#include "../../reports/kcidb.h"
#include "../../reports/report.h"
#include "config.h"
#include "check.h"

/* A verdict context as db_report_verdict_get() returns it, trimmed. */
static const char ctx_text[] =
	"{\"id\": 7, \"verdict\": \"REGRESSION\","
	" \"board\": {\"name\": \"qemu-icount\", \"kind\": \"qemu\"},"
	" \"testcase\": {\"name\": \"cyclictest-hackbench\"},"
	" \"baseline\": {\"release\": \"6.1.0-57-rt-amd64\", \"tree\": \"debian\","
	"   \"name\": \"debian-rt\", \"realtime\": true},"
	" \"candidate\": {\"release\": \"6.1.0-57-amd64\", \"tree\": \"debian\","
	"   \"realtime\": false},"
	" \"details\": {\"reason\": \"max: REGRESSION\", \"alpha_metric\": 0.01,"
	"   \"sequential\": {\"look\": 1, \"text\": \"look 1 of 3 planned\"},"
	"   \"params\": {\"alpha\": 0.05, \"tail_q\": 0.999},"
	"   \"baseline\": {\"runs\": 5, \"samples\": 15000},"
	"   \"candidate\": {\"runs\": 5, \"samples\": 15000},"
	"   \"metrics\": {"
	"     \"max\": {\"verdict\": \"REGRESSION\", \"unit\": \"us\","
	"       \"baseline\": 55, \"candidate\": 4690, \"effect\": 4635,"
	"       \"effect_lo\": 4200, \"effect_hi\": 4900, \"p_value\": 0.00397,"
	"       \"test\": \"Mann-Whitney U\", \"runs_baseline\": [51, 56],"
	"       \"runs_candidate\": [4271, 4971], \"censored\": false,"
	"       \"interval\": \"HL\", \"reason\": \"rises\"},"
	"     \"p99\": {\"verdict\": \"NO_CHANGE\", \"unit\": \"us\","
	"       \"baseline\": 35, \"candidate\": 35, \"effect\": 0,"
	"       \"p_value\": null, \"test\": \"equivalence\"}}},"
	" \"baseline_runs\": [{\"id\": 1, \"uuid\": \"aaaaaaaa-1\","
	"   \"status\": \"complete\", \"max_us\": 56, \"samples\": 3000,"
	"   \"flags\": {\"testcase_mismatch\": [\"duration_s\"]},"
	"   \"artifacts\": [{\"name\": \"config\", \"size\": 10}]}],"
	" \"candidate_runs\": ["
	"   {\"id\": 2, \"uuid\": \"bbbbbbbb-2\", \"status\": \"complete\","
	"    \"max_us\": 4271, \"max_cpu\": 0, \"machine\": \"x86_64\","
	"    \"artifacts\": []},"
	"   {\"id\": 3, \"uuid\": \"cccccccc-3\", \"status\": \"complete\","
	"    \"max_us\": 4971, \"max_cpu\": 1, \"machine\": \"x86_64\","
	"    \"clock\": \"icount:3\","
	"    \"environment\": {\"cpu_model\": \"QEMU\", \"cpus\": 2,"
	"      \"cmdline\": \"console=ttyS0\"},"
	"    \"testcase\": {\"duration_s\": 3, \"definition\": {\"loads\": ["
	"      {\"name\": \"hackbench\", \"args\": [\"-g\", \"4\"]},"
	"      {\"name\": \"churn\", \"loops\": 200},"
	"      {\"name\": \"network\", \"mode\": \"iperf3-nic\","
	"       \"nic\": {\"interface\": \"eth0\", \"driver\": \"virtio_net\","
	"        \"rx_packets\": 42197, \"rx_bytes\": 63866857}}]}},"
	"    \"commands\": [\"cyclictest -m -p95\"],"
	"    \"measurement\": {\"interval_us\": 997,"
	"      \"interval_source\": \"board\", \"testcase_interval_us\": 1000},"
	"    \"artifacts\": [{\"name\": \"trace.dat\", \"size\": 4107}]}]}";

static json_t *load_ctx(void)
{
	json_error_t jerr;
	json_t *j = json_loads(ctx_text, 0, &jerr);

	if (!j)
		printf("# fixture JSON: %s at %d\n", jerr.text, jerr.position);
	return j;
}

static void test_platform(void)
{
	CHECK_STR(report_platform("x86_64"), "x86-64", "x86_64 is x86-64");
	CHECK_STR(report_platform("i686"), "IA-32", "i686 is IA-32");
	CHECK_STR(report_platform("aarch64"), "ARM", "aarch64 is ARM");
	CHECK_STR(report_platform("ppc64le"), "PPC-64", "ppc64le is PPC-64");
	CHECK_STR(report_platform("riscv64"), "Other", "riscv64 is Other");
	CHECK_STR(report_platform(NULL), "Other", "unknown machine is Other");
}

static void test_config_delta(void)
{
	static const char a[] =
		"# comment\nCONFIG_A=y\nCONFIG_HZ=1000\nCONFIG_PREEMPT_RT=y\n"
		"# CONFIG_B is not set\nCONFIG_GONE=m";
	static const char b[] =
		"CONFIG_A=y\nCONFIG_HZ=250\n# CONFIG_PREEMPT_RT is not set\n"
		"CONFIG_B=y\nCONFIG_NEW=\"x\"\n";
	char *d = report_config_delta(a, strlen(a), b, strlen(b));

	CHECK_STR(d,
		  "+CONFIG_B=y\n-CONFIG_GONE=m\n~CONFIG_HZ: 1000 -> 250\n"
		  "+CONFIG_NEW=\"x\"\n-CONFIG_PREEMPT_RT=y\n",
		  "config delta: added, removed, changed, 'is not set', "
		  "last line without newline");
	free(d);
	d = report_config_delta(a, strlen(a), a, strlen(a));
	CHECK_STR(d, "no CONFIG_ differences\n", "same config: no differences");
	free(d);
	d = report_config_delta("", 0, "CONFIG_X=y\n", 11);
	CHECK_STR(d, "+CONFIG_X=y\n", "empty base: everything added");
	free(d);
}

static void test_base64(void)
{
	static const char *const in[] = { "", "f", "fo", "foo", "foobar" };
	static const char *const out[] = { "", "Zg==", "Zm8=", "Zm9v",
					   "Zm9vYmFy" };
	size_t i;

	for (i = 0; i < 5; i++) {
		char *b = report_base64(in[i], strlen(in[i]));

		CHECK_STR(b, out[i], "base64 of RFC 4648 vector");
		free(b);
	}
}

static void test_summary_text(void)
{
	json_t *ctx = load_ctx(), *bug, *att;
	struct report_attachment a = { "trace.dat", "application/octet-stream",
				       "ftrace", "\x01\x02\x03", 3 };
	char *s, *t, *h;

	CHECK(ctx != NULL, "fixture context parses");
	if (!ctx)
		return;
	s = report_summary(ctx);
	CHECK_STR(s,
		  "[PREEMPT_RT] max latency (median of per-run maxima) 55 -> "
		  "4690 us (x85), worst 4971 us on "
		  "qemu-icount/cyclictest-hackbench: 6.1.0-57-amd64 vs "
		  "6.1.0-57-rt-amd64",
		  "summary names metric (what it compares), figures, ratio, "
		  "the worst sample, board, testcase, candidate vs baseline");
	t = report_text(ctx, &a, 1, NULL);
	CHECK(t && !strncmp(t, s, 70), "report.txt starts with the summary");
	CHECK(t && strstr(t, "== What regressed ==\n  max latency, median of "
			     "per-run maxima  55 -> 4690 us "
			     "(x85.3) REGRESSION\n"),
	      "what regressed: one line per metric, naming what it compares");
	CHECK(t && strstr(t, "  worst sample                           "
			     "56 -> 4971 us (CPU 1, run 3)\n"),
	      "what regressed: the worst sample of each side");
	CHECK(t && strstr(t, "max latency                      55 us -> "
			     "4690 us  REGRESSION\n"),
	      "metric line: baseline -> candidate and verdict");
	CHECK(t && strstr(t, "interval [+4200, +4900] us"),
	      "the effect's interval");
	CHECK(t && strstr(t, "      Mann-Whitney U: p = 0.00397"),
	      "the deciding test and its p-value");
	CHECK(t && strstr(t, "  baseline  run 1 ") &&
		      strstr(t, "\n            flagged: testcase differs from "
				"the lab's definition: duration_s;"),
	      "runs: a flagged run says how its testcase differs");
	CHECK(t && !strstr(strstr(t, "candidate run 2") ?
				   strstr(t, "candidate run 2") :
				   "",
			   "flagged"),
	      "runs: runs without flags carry no such line");
	CHECK(t && strstr(t, "  look:     look 1 of 3 planned\n"),
	      "how sure: which look of the plan decided");
	CHECK(t && strstr(t, "== Statistics of the metrics that regressed ==") &&
		      strstr(t, "5 baseline (15000 samples), 5 candidate"),
	      "section: statistics, runs per side");
	CHECK(t &&
		      strstr(t, "== What regressed ==") <
			      strstr(t, "== Which kernels ==") &&
		      strstr(t, "== Which kernels ==") <
			      strstr(t, "== Where ==") &&
		      strstr(t, "== Where ==") <
			      strstr(t, "== Spike analysis ==") &&
		      strstr(t, "== Spike analysis ==") <
			      strstr(t, "== How to reproduce ==") &&
		      strstr(t, "== How to reproduce ==") <
			      strstr(t, "== Runs ==") &&
		      strstr(t, "== Runs ==") < strstr(t, "== Statistics "),
	      "sections: regressed, kernels, where, spike, reproduce, runs, "
	      "statistics");
	CHECK(t && strstr(t, "worst spike: 4971 us, CPU 1, run 3, "),
	      "where: the worst spike's run and CPU");
	/* (the line wraps at 80 columns) */
	CHECK(t &&
		      strstr(t,
			     "loads:      hackbench -g 4; churn (loops 200); "
			     "network (mode iperf3-nic),") &&
		      strstr(t, "NIC-driven: eth0 (virtio_net) received 42197 "
				"packets, 63866857 bytes from"),
	      "where: the loads, a NIC-driven one with what its NIC received");
	CHECK(t && strstr(t, "cyclictest-hackbench, 3 s per run, interval 997 "
			     "us (the board's,\n      not the testcase's "
			     "1000)\n"),
	      "where: the interval the runs measured at, whose it is and what "
	      "it replaced");
	CHECK(t && strstr(t, "== Runs ==") &&
		      strstr(strstr(t, "== Runs =="), "samples, interval"),
	      "runs: each run's interval");
	CHECK(t && strstr(t, "not available (a config is stored only for "
			     "the baseline)"),
	      "config delta: says which is "
	      "missing");
	CHECK(t && strstr(t, "rtlab job add --board qemu-icount --kernel "
			     "debian-rt --testcase \\\n"
			     "      cyclictest-hackbench --repeat 5\n"),
	      "reproduce: rtlab job add by kernel "
	      "definition name");
	CHECK(t && strstr(t, "--kernel 6.1.0-57-amd64 "),
	      "reproduce: release when the kernel has no name");
	CHECK(t && strstr(t, "  cyclictest -m -p95\n"),
	      "reproduce: the manifest's command lines");
	CHECK(t && strstr(t, "trace.dat of candidate run 3 captured (4107 "
			     "bytes)"),
	      "spike analysis: the trace of the worst run");
	CHECK(t && strstr(t, "attached; read it with"),
	      "spike analysis: the trace is attached when it is");
	CHECK(t && strstr(t, "01 trace.dat (3 bytes): ftrace"),
	      "attachments listed");

	/* Without the trace: said so. */
	json_array_clear(json_object_get(
		json_array_get(json_object_get(ctx, "candidate_runs"), 1),
		"artifacts"));
	free(t);
	t = report_text(ctx, NULL, 0, "+CONFIG_X=y\n");
	CHECK(t && strstr(t, "no trace captured"), "no trace: "
						   "\"no trace captured\"");
	CHECK(t && strstr(t, "    +CONFIG_X=y\n"), "config delta included");

	h = t ? report_html(ctx, t, &a, 1) : NULL;
	CHECK(h && strstr(h, "<h2>What regressed</h2>") &&
		      strstr(h, "<!DOCTYPE html>"),
	      "HTML with sections");
	CHECK(h && !strstr(h, "data:image/png"), "HTML: no image for a "
						 "non-PNG attachment");
	free(h);

	bug = report_bug_json(ctx, NULL, s, t);
	CHECK_STR(json_string_value(json_object_get(bug, "product")), "Linux",
		  "bug: default product");
	CHECK_STR(json_string_value(json_object_get(bug, "component")),
		  "Realtime", "bug: default component");
	CHECK_STR(json_string_value(json_object_get(bug, "platform")), "x86-64",
		  "bug: platform from the machine");
	CHECK_STR(json_string_value(json_object_get(bug, "op_sys")), "Linux",
		  "bug: op_sys");
	CHECK_STR(json_string_value(json_object_get(bug, "cf_tree")),
		  "PREEMPT_RT", "bug: cf_tree");
	CHECK_STR(json_string_value(json_object_get(bug, "cf_regression")),
		  "Yes", "bug: cf_regression");
	CHECK_STR(json_string_value(json_object_get(bug, "cf_kernel_version")),
		  "6.1.0-57-amd64", "bug: cf_kernel_version is the candidate");
	CHECK_STR(json_string_value(json_object_get(bug, "severity")), "high",
		  "bug: severity high for a max that grew x85");
	CHECK(t && !strcmp(json_string_value(json_object_get(bug,
							     "description")),
			   t),
	      "bug: description is report.txt");
	json_decref(bug);

	att = report_attachment_json(&a, 0);
	CHECK_STR(json_string_value(json_object_get(att, "data")), "AQID",
		  "attachment: data in base64");
	CHECK(json_integer_value(json_array_get(json_object_get(att, "ids"),
						0)) == 0,
	      "attachment: placeholder bug id 0");
	CHECK(json_is_false(json_object_get(att, "is_patch")),
	      "attachment: is_patch false");
	json_decref(att);
	free(s);
	free(t);
	json_decref(ctx);
}

/* Lines of @t, and whether any is wider than @cols columns. */
static size_t lines_of(const char *t, size_t cols, size_t *wide)
{
	size_t n = 0, w = 0;

	*wide = 0;
	for (; t && *t; t++) {
		if (*t == '\n') {
			n++;
			if (w > cols)
				(*wide)++;
			w = 0;
		} else if (((unsigned char)*t & 0xc0) != 0x80) {
			w++;
		}
	}
	return n;
}

static const char large_run_text[] =
	"{\"clock\": \"icount:3\", \"max_cpu\": 0,"
	" \"environment\": {\"cpu_model\": \"QEMU TCG CPU version 2.5+\","
	"   \"cpus\": 1, \"clocksource\": \"tsc\","
	"   \"cmdline\": \"console=ttyS0 noirqdebug panic=-1 nowatchdog\"},"
	" \"testcase\": {\"duration_s\": 4, \"definition\": {\"loads\": ["
	"   {\"name\": \"hackbench\", \"args\": [\"-g\", \"4\", \"-l\","
	"    \"100000\"]}, {\"name\": \"hackbench-churn\", \"loops\": 200}]}},"
	" \"commands\": [\"hackbench -g 4 -l 100000\", \"hackbench -l 200\","
	"   \"trace-cmd extract -o trace.dat\","
	"   \"cyclictest -m -p 95 -i 997 -t -h 1000 -D 4 --json=cyclictest.json"
	" --priospread --laptop --mainaffinity=0\"],"
	" \"measurement\": {\"interval_us\": 997,"
	"   \"interval_source\": \"board\"},"
	" \"artifacts\": [{\"name\": \"trace.dat\", \"size\": 14213772},"
	"   {\"name\": \"config\", \"size\": 259360}]}";

static const char large_ctx_text[] =
	"{\"trace_window\": {\"file_name\": \"trace-window.dat\","
	"   \"size\": 973857, \"window_ms\": 55.1, \"margin_ms\": 50,"
	"   \"cpu\": 0, \"same_analysis\": true, \"xz\": false},"
	" \"linked\": [{\"file_name\": \"trace.dat\", \"size\": 14213772,"
	"   \"reason\": \"over the server's attachment limit of 1000 KB\","
	"   \"url\": \"https://lab.example/api/v1/runs/684/trace.dat\"}],"
	" \"spike_analysis\":"
	" \"## CPU 0 hit the run's worst wakeup, analyzing it ##\\n"
	"  trace: run 684 trace.dat (Linux (none) 6.1.0-57-rt-amd64 x86_64),"
	" 118915 events\\n"
	"  measuring thread: cyclictest:423 (prio 4), latency 4971 us, the run's"
	" worst (trace kept by snapshot)\\n"
	"  running when the timer fired: hackbench:257 (prio 120)\\n"
	"  IRQ handler delay:                            0.00 us ( 0.00 %)\\n"
	"  timer IRQ duration:                          38.57 us ( 0.78 %)\\n"
	"  wakeup to switch-in:                       4932.43 us (99.22 %)\\n"
	"  blocking thread: hackbench:257 (prio 120) 4892.39 us in the window,"
	" ran 4963.57 us (switch-in to switch-out)\\n"
	"  IRQ interference:\\n"
	"    local_timer:236                            38.57 us ( 0.78 %) in"
	" hackbench:257\\n"
	"  thread interference:\\n"
	"    hackbench:257 (prio 120)                 4892.39 us (98.42 %), ran"
	" 4963.57 us\\n"
	"  ------------------------------------------------------------------"
	"------\\n"
	"  window (expiry to switch-in):              4971.00 us = IRQ 78.61 +"
	" softirq 0.00 + threads 4892.39 + measuring thread 0.00\\n\"}";

/* A verdict of 1000 runs: comment 0 summarises them (golden file
 * tests/fixtures/report/report-1000runs.txt; RTLAB_UPDATE_GOLDEN=1
 * rewrites it), fits Bugzilla's comment limit and 80 columns, and
 * attaches the whole list as runs.txt. */
static void test_large(void)
{
	json_t *ctx = load_ctx(), *runs[2], *run, *extra;
	struct report r = { 0 };
	struct rtlab_err err = { "" };
	const char *top = getenv("RTLAB_TOP");
	char path[4096], *golden = NULL;
	size_t i, wide, n, len;
	FILE *f;
	int ret;

	if (!ctx)
		return;
	runs[0] = json_object_get(ctx, "baseline_runs");
	runs[1] = json_object_get(ctx, "candidate_runs");
	json_array_clear(runs[0]);
	json_array_clear(runs[1]);
	for (i = 0; i < 1000; i++) {
		bool cand = i >= 500;

		run = json_pack("{s:I, s:s, s:s, s:I, s:I, s:i, s:s, s:[]}",
				"id", (json_int_t)(i + 1), "uuid",
				cand ? "cccccccc-c" : "bbbbbbbb-b", "status",
				"complete", "max_us",
				(json_int_t)(cand ? (i == 683 ?
							     4971 :
							     4271 + (i *
								     37) % 701) :
						    51 + (i * 13) % 6),
				"samples", (json_int_t)3000, "max_cpu",
				(int)(i % 4), "machine", "x86_64", "artifacts");
		json_array_append_new(runs[cand], run);
	}
	json_object_set_new(json_object_get(json_object_get(ctx, "details"),
					    "baseline"),
			    "runs", json_integer(500));
	json_object_set_new(json_object_get(json_object_get(ctx, "details"),
					    "candidate"),
			    "runs", json_integer(500));
	/* The worst candidate run as a board reports it: environment, the
	 * exact command lines, a 14 MB trace cut to its window. */
	json_array_foreach(runs[1], i, run)
		if (json_integer_value(json_object_get(run, "max_us")) == 4971)
			break;
	extra = json_loads(large_run_text, 0, NULL);
	CHECK(extra && !json_object_update(run, extra),
	      "1000 runs: the worst run's details");
	json_decref(extra);
	extra = json_loads(large_ctx_text, 0, NULL);
	CHECK(extra && !json_object_update(ctx, extra),
	      "1000 runs: the trace's window and link");
	json_decref(extra);
	for (i = 0; i < 2; i++)
		json_object_set_new(json_object_get(json_object_get(ctx,
								    "details"),
						    i ? "candidate" :
							"baseline"),
				    "samples", json_integer(1500000));
	r.ctx = ctx;
	r.verdict_id = 7;
	ret = report_render(&r, NULL,
			    "+CONFIG_DEBUG_PREEMPT=y\n~CONFIG_HZ: 1000 -> 250\n"
			    "-CONFIG_PREEMPT_RT=y\n+CONFIG_PREEMPT_VOLUNTARY=y\n",
			    &err);
	CHECK(ret == 0, "1000 runs: rendered (%s)", err.msg);
	if (ret) {
		report_cleanup(&r);
		return;
	}
	len = strlen(r.text);
	n = lines_of(r.text, 80, &wide);
	CHECK(len <= 65535,
	      "1000 runs: comment 0 is %zu characters, within "
	      "Bugzilla's 65,535",
	      len);
	CHECK(n <= 150, "1000 runs: comment 0 is %zu lines (at most 150)", n);
	CHECK(wide == 0, "1000 runs: no line wider than 80 columns (%zu are)",
	      wide);
	CHECK(strstr(r.text, "  candidate: 500 runs, 1500000 samples\n"
			     "    per-run maxima: lowest 4271, median 4625.50, "
			     "highest 4971 us\n"),
	      "1000 runs: each side summarised");
	CHECK(strstr(r.text, "  every run: runs.txt (attached)\n"),
	      "1000 runs: the whole list named as an attachment");
	CHECK(r.natt == 1 && !strcmp(r.att[0].file_name, "runs.txt") &&
		      lines_of(r.att[0].data, 1000, &wide) == 1001,
	      "1000 runs: runs.txt holds every run");
	snprintf(path, sizeof(path),
		 "%s/tests/fixtures/report/report-1000runs.txt",
		 top && *top ? top : ".");
	if (getenv("RTLAB_UPDATE_GOLDEN") &&
	    !strcmp(getenv("RTLAB_UPDATE_GOLDEN"), "1")) {
		f = fopen(path, "w");
		if (f) {
			fputs(r.text, f);
			fclose(f);
		}
	}
	f = fopen(path, "r");
	if (f) {
		golden = calloc(1, 70000);
		if (golden && fread(golden, 1, 69999, f) == 0)
			golden[0] = '\0';
		fclose(f);
	}
	CHECK(golden && !strcmp(golden, r.text),
	      "1000 runs: comment 0 equals %s", path);
	free(golden);
	report_cleanup(&r);
}

/* Neither kernel realtime: the tree's own tag, not PREEMPT_RT; a long
 * summary capped at Bugzilla's 255 with an ellipsis. */
static void test_tags(void)
{
	json_t *ctx = load_ctx(), *bug;
	char *s, *tag1, *tag2, longname[300];

	if (!ctx)
		return;
	tag1 = report_regression_tag(ctx);
	json_object_set_new(json_object_get(ctx, "baseline"), "realtime",
			    json_false());
	CHECK(!report_realtime(ctx), "neither kernel realtime");
	s = report_summary(ctx);
	CHECK(s && !strncmp(s, "[debian] max latency", 20),
	      "a non-RT comparison is tagged with its tree (%s)", s);
	bug = report_bug_json(ctx, NULL, s, "text");
	CHECK_STR(json_string_value(json_object_get(bug, "cf_tree")), "debian",
		  "bug: cf_tree is the tree's own name");
	CHECK(!strstr(json_string_value(json_object_get(bug, "summary")),
		      "PREEMPT_RT"),
	      "bug: no [PREEMPT_RT] in the summary");
	tag2 = report_regression_tag(ctx);
	CHECK(tag1 && tag2 && !strcmp(tag1, tag2) && strlen(tag1) == 22 &&
		      !strncmp(tag1, "rtlab:", 6),
	      "the regression tag (%s) depends on board, testcase, tree and "
	      "kernels only",
	      tag1);
	CHECK_STR(json_string_value(json_object_get(bug, "whiteboard")), tag1,
		  "bug: whiteboard carries the regression tag");
	json_decref(bug);
	free(s);
	free(tag2);
	json_object_set_new(json_object_get(ctx, "candidate"), "release",
			    json_string("6.2.0-1-amd64"));
	tag2 = report_regression_tag(ctx);
	CHECK(tag2 && strcmp(tag1, tag2), "another candidate kernel: another "
					  "regression");
	free(tag1);
	free(tag2);
	memset(longname, 'b', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	json_object_set_new(json_object_get(ctx, "board"), "name",
			    json_string(longname));
	s = report_summary(ctx);
	CHECK(s && strlen(s) == 255 && !strcmp(s + 252, "..."),
	      "a long summary: capped at 255 with an ellipsis");
	free(s);
	json_decref(ctx);
}

/* Fitting to a server: field values, comment length, attachment size,
 * the width of the text. */
static void test_fit(void)
{
	static const char *const near[] = { "x86_64", "PC", "All", NULL };
	json_t *bug = json_pack("{s:s, s:s, s:s}", "platform", "x86-64",
				"severity", "high", "op_sys", "Linux");
	json_t *stock = json_pack("{s:[{s:s}, {s:s}, {s:s}]}", "values", "name",
				  "All", "name", "PC", "name", "Other");
	json_t *linux_os = json_pack("{s:[{s:s}]}", "values", "name", "Linux");
	json_t *product = json_pack("{s:[{s:s}], s:[{s:s}, {s:s}]}",
				    "components", "name", "Scheduler",
				    "versions", "name", "2.5", "name",
				    "unspecified");
	struct report r = { 0 };
	struct rtlab_err err = { "" };
	char note[512], *w, *big;
	int ret;

	CHECK(bz_bug_choose(bug, "platform", stock, near, note, sizeof(note)) ==
			      1 &&
		      !strcmp(json_string_value(json_object_get(bug,
								"platform")),
			      "PC") &&
		      strstr(note, "no platform 'x86-64': sent 'PC'"),
	      "platform: the closest value offered, said (%s)", note);
	CHECK(bz_bug_choose(bug, "op_sys", linux_os, NULL, note,
			    sizeof(note)) == 0 &&
		      !note[0],
	      "an offered value is kept, silently");
	CHECK(bz_bug_choose(bug, "severity", stock, NULL, note, sizeof(note)) ==
			      1 &&
		      !json_object_get(bug, "severity") &&
		      strstr(note, "server's default"),
	      "no close value: left to the server's default, said (%s)", note);
	json_object_set_new(bug, "component", json_string("scheduler"));
	json_object_set_new(bug, "version", json_string("9.9"));
	CHECK(bz_bug_fit_product(bug, product, note, sizeof(note)) == 1 &&
		      !strcmp(json_string_value(json_object_get(bug,
								"component")),
			      "Scheduler") &&
		      !strcmp(json_string_value(json_object_get(bug, "version")),
			      "unspecified"),
	      "component's case and an unoffered version fitted (%s)", note);
	json_decref(bug);
	json_decref(stock);
	json_decref(linux_os);
	json_decref(product);

	w = report_wrap("  short\n  a b c d e f g h i j k l m n o p q r s t u v "
			"w x y z 1 2 3 4 5 6 7 8 9 0\n",
			40);
	CHECK_STR(w,
		  "  short\n  a b c d e f g h i j k l m n o p q r s\n"
		  "      t u v w x y z 1 2 3 4 5 6 7 8 9 0\n",
		  "wrap: broken at a space, continued four columns in");
	free(w);

	/* Comment 0 over the limit: cut at a line, the whole attached. */
	r.text = strdup("line one\nline two\nline three\n");
	r.bug = json_object();
	ret = report_fit_comment(&r, 15);
	CHECK(ret == 0 && r.natt == 1 &&
		      !strcmp(r.att[0].file_name, "report.txt") &&
		      r.att[0].size == 29 &&
		      strstr(r.text, "[cut at 0 of 29") &&
		      !strcmp(json_string_value(json_object_get(r.bug,
								"description")),
			      r.text),
	      "a comment over the limit: cut, report.txt attached whole");
	report_cleanup(&r);

	/* An attachment over the limit: xz when that fits, else linked. */
	r.ctx = json_loads("{\"candidate_runs\": [{\"id\": 4}]}", 0, NULL);
	r.verdict_id = 9;
	big = calloc(1, 200000);
	ret = big ? report_attachment_add(&r, "histograms.csv", "text/csv",
					  "every run", big, 200000) :
		    -ENOMEM;
	big = malloc(300000);
	for (size_t i = 0, x = 88172645463325252ull; big && i < 300000; i++) {
		x ^= x << 13; /* xorshift: data xz cannot shrink */
		x ^= x >> 7;
		x ^= x << 17;
		big[i] = (char)(x >> 32);
	}
	if (!ret)
		ret = big ? report_attachment_add(&r, "console.log",
						  "text/plain", "console", big,
						  300000) :
			    -ENOMEM;
	if (!ret)
		ret = report_fit_attachments(&r, 100000, "https://lab.example",
					     &err);
	CHECK(ret == 0 && r.natt == 1 &&
		      !strcmp(r.att[0].file_name, "histograms.csv.xz") &&
		      r.att[0].size < 100000 &&
		      !strcmp(r.att[0].content_type, "application/x-xz"),
	      "over the limit: compressible text goes xz-compressed (%s)",
	      err.msg);
	CHECK(json_array_size(json_object_get(r.ctx, "linked")) == 1 &&
		      !strcmp(json_string_value(json_object_get(
				      json_array_get(json_object_get(r.ctx,
								     "linked"),
						     0),
				      "url")),
			      "https://lab.example/api/v1/runs/4/artifacts/"
			      "console.log"),
	      "over the limit even compressed: left out, linked on the lab");
	report_cleanup(&r);
}

static void test_adapt(void)
{
	json_t *bug = json_pack("{s:s, s:s, s:s, s:s}", "summary",
				"[PREEMPT_RT] x", "cf_tree", "PREEMPT_RT",
				"cf_kernel_version", "6.1", "cf_regression",
				"Yes");
	json_t *with = json_pack("{s:s, s:b, s:[{s:s}, {s:s}]}", "name",
				 "cf_tree", "is_on_bug_entry", 1, "values",
				 "name", "Mainline", "name", "PREEMPT_RT");
	json_t *without = json_pack("{s:s, s:[{s:s}, {s:s}]}", "name",
				    "cf_tree", "values", "name", "Mainline",
				    "name", "Fedora");
	json_t *inactive = json_pack("{s:s, s:[{s:s, s:b}]}", "name",
				     "cf_regression", "values", "name", "Yes",
				     "is_active", 0);
	json_t *hidden = json_pack("{s:s, s:b, s:[]}", "name",
				   "cf_kernel_version", "is_on_bug_entry", 0,
				   "values");
	json_t *text =
		json_pack("{s:s, s:[]}", "name", "cf_kernel_version", "values");
	char note[256];

	CHECK_INT(bz_bug_adapt(bug, "cf_tree", with, note, sizeof(note)), 0,
		  "cf_tree kept when PREEMPT_RT is offered");
	CHECK_INT(bz_bug_adapt(bug, "cf_kernel_version", text, note,
			       sizeof(note)),
		  0, "free-text field kept");
	CHECK_INT(bz_bug_adapt(bug, "cf_kernel_version", hidden, note,
			       sizeof(note)),
		  1, "field not on bug entry dropped");
	CHECK_INT(bz_bug_adapt(bug, "cf_tree", without, note, sizeof(note)), 1,
		  "cf_tree dropped when PREEMPT_RT is not offered");
	CHECK(strstr(note, "'PREEMPT_RT'") && strstr(note, "cf_tree"),
	      "note names value and field (%s)", note);
	CHECK(!json_object_get(bug, "cf_tree"), "cf_tree gone from the bug");
	CHECK_INT(bz_bug_adapt(bug, "cf_regression", inactive, note,
			       sizeof(note)),
		  1, "inactive value dropped");
	json_object_set_new(bug, "cf_bisect_commit", json_string("abc"));
	CHECK_INT(bz_bug_adapt(bug, "cf_bisect_commit", NULL, note,
			       sizeof(note)),
		  1, "unknown field dropped");
	CHECK_STR(json_string_value(json_object_get(bug, "summary")),
		  "[PREEMPT_RT] x", "summary keeps the tag");
	json_decref(bug);
	json_decref(with);
	json_decref(without);
	json_decref(inactive);
	json_decref(hidden);
	json_decref(text);
}

static void test_client(void)
{
	struct rtlab_err err = { "" };
	struct bz_client c;
	char *v = NULL, *u;
	int ret;

	CHECK_INT(bz_client_init(&c, "ftp://x", NULL, &err), -EINVAL,
		  "client: ftp:// URL refused");
	CHECK(strstr(err.msg, "ftp://x") != NULL, "... named (%s)", err.msg);
	ret = bz_client_init(&c, "https://bz.example/rest.cgi/", "k", &err);
	CHECK_INT(ret, 0, "client: rest.cgi base");
	u = ret ? NULL : bz_bug_url(&c, 42);
	CHECK_STR(u, "https://bz.example/show_bug.cgi?id=42",
		  "bug URL without rest.cgi");
	free(u);
	bz_client_cleanup(&c);
	bz_client_cleanup(&c);

	/* Port 1 on loopback: nothing listens there. */
	ret = bz_client_init(&c, "http://127.0.0.1:1", NULL, &err);
	if (!ret)
		ret = bz_version(&c, &v, &err);
	CHECK_INT(ret, -EHOSTUNREACH, "unreachable server: -EHOSTUNREACH");
	CHECK(strstr(err.msg, "unreachable") && strstr(err.msg, "127.0.0.1:1"),
	      "... message names the server (%s)", err.msg);
	free(v);
	bz_client_cleanup(&c);
}

static const char kcidb_data[] =
	"{\"kernels\": [{\"id\": 1, \"release\": \"6.1.0-57-rt-amd64\","
	"  \"tree\": \"debian\", \"realtime\": true,"
	"  \"created_at\": \"2026-12-03T03:00:00Z\"},"
	" {\"id\": 2, \"release\": \"6.1.0-58-rt-amd64\", \"tree\": \"debian\","
	"  \"commit\": \"0123456789abcdef0123456789abcdef01234567\"}],"
	" \"runs\": ["
	"  {\"id\": 1, \"uuid\": \"u1\", \"kernel_id\": 1, \"board\": \"b\","
	"   \"testcase\": \"cyclictest-idle\", \"status\": \"complete\","
	"   \"clock\": \"icount:3\", \"machine\": \"x86_64\", \"max_us\": 44,"
	"   \"started_at\": \"2026-12-03T03:00:00Z\","
	"   \"finished_at\": \"2026-12-03T03:00:12Z\"},"
	"  {\"id\": 2, \"uuid\": \"u2\", \"kernel_id\": 2, \"board\": \"b\","
	"   \"testcase\": \"cyclictest-idle\", \"status\": \"complete\","
	"   \"clock\": \"icount:3\", \"max_us\": 4971},"
	"  {\"id\": 3, \"uuid\": \"u3\", \"kernel_id\": 2, \"board\": \"b\","
	"   \"testcase\": \"cyclictest-idle\", \"status\": \"boot_failed\","
	"   \"clock\": \"icount:3\", \"max_us\": null},"
	"  {\"id\": 4, \"uuid\": \"u4\", \"kernel_id\": 2, \"board\": \"b\","
	"   \"testcase\": \"cyclictest-idle\", \"status\": \"panic\","
	"   \"clock\": \"icount:3\"}],"
	" \"regressions\": [{\"id\": 9, \"board\": \"b\","
	"  \"testcase\": \"cyclictest-idle\", \"baseline_kernel_id\": 1,"
	"  \"candidate_kernel_id\": 2, \"candidate_runs\": [2],"
	"  \"bug_url\": \"https://bz.example/show_bug.cgi?id=5\","
	"  \"details\": {\"metrics\": {\"max\": {\"verdict\": \"REGRESSION\","
	"   \"unit\": \"us\", \"baseline\": 44, \"candidate\": 4971}}}}]}";

static json_t *find_by_id(json_t *doc, const char *list, const char *id)
{
	json_t *o;
	size_t i;

	json_array_foreach(json_object_get(doc, list), i, o)
		if (!strcmp(json_string_value(json_object_get(o, "id")), id))
			return o;
	return NULL;
}

static void test_kcidb(void)
{
	struct rtlab_err err = { "" };
	json_t *data = json_loads(kcidb_data, 0, NULL), *doc, *t, *bad;
	char *p;

	p = kcidb_test_path("cyclictest-idle");
	CHECK_STR(p, "rtlab.cyclictest.idle", "test path from testcase name");
	free(p);
	p = kcidb_test_path("Cyclic-Net Load");
	CHECK_STR(p, "rtlab.cyclic.net_load", "test path sanitized");
	free(p);

	CHECK(kcidb_build(data, "Bad-Origin", &err) == NULL,
	      "origin with capitals refused");
	doc = kcidb_build(data, "rtlab", &err);
	CHECK(doc != NULL, "KCIDB document built (%s)", err.msg);
	if (!doc)
		goto out;
	CHECK_INT(kcidb_validate(doc, "rtlab", &err), 0,
		  "built document validates");
	CHECK_INT(json_integer_value(json_object_get(json_object_get(doc,
								     "version"),
						     "minor")),
		  3, "version 5.3");
	CHECK_INT(json_array_size(json_object_get(doc, "checkouts")), 2,
		  "a checkout per kernel");
	CHECK_INT(json_array_size(json_object_get(doc, "builds")), 2,
		  "a build per kernel");
	CHECK_INT(json_array_size(json_object_get(doc, "tests")), 4,
		  "a test per run");
	CHECK_INT(json_array_size(json_object_get(doc, "issues")), 1,
		  "an issue per regression");
	CHECK_INT(json_array_size(json_object_get(doc, "incidents")), 1,
		  "an incident per candidate run");
	t = find_by_id(doc, "tests", "rtlab:run-u1");
	CHECK_STR(json_string_value(json_object_get(t, "status")), "PASS",
		  "complete run: PASS");
	CHECK(json_real_value(json_object_get(json_object_get(t, "number"),
					      "value")) == 44e-6,
	      "number: max latency in seconds");
	CHECK(json_real_value(json_object_get(t, "duration")) == 12.0,
	      "duration from the run's times");
	CHECK_STR(json_string_value(json_object_get(find_by_id(doc, "tests",
							       "rtlab:run-u2"),
						    "status")),
		  "FAIL", "candidate run of a regression: FAIL");
	CHECK_STR(json_string_value(json_object_get(find_by_id(doc, "tests",
							       "rtlab:run-u3"),
						    "status")),
		  "MISS", "boot_failed: MISS");
	CHECK_STR(json_string_value(json_object_get(find_by_id(doc, "tests",
							       "rtlab:run-u4"),
						    "status")),
		  "FAIL", "panic: FAIL");
	CHECK(!json_object_get(find_by_id(doc, "tests", "rtlab:run-u3"),
			       "number"),
	      "no number for a run without "
	      "figures");
	CHECK_STR(json_string_value(json_object_get(find_by_id(doc, "checkouts",
							       "rtlab:kernel-2"),
						    "git_commit_hash")),
		  "0123456789abcdef0123456789abcdef01234567",
		  "commit hash carried over");
	CHECK_STR(json_string_value(json_object_get(find_by_id(doc, "issues",
							       "rtlab:verdict-9"),
						    "report_url")),
		  "https://bz.example/show_bug.cgi?id=5",
		  "issue links the filed bug");

	/* The validator refuses what the schema does. */
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(bad, "tests"), 0),
			    "id", json_string("other:run-u1"));
	CHECK_INT(kcidb_validate(bad, "rtlab", &err), -EINVAL,
		  "validator: id of another origin refused");
	CHECK(strstr(err.msg, "tests[0]") != NULL, "... named (%s)", err.msg);
	json_decref(bad);
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(bad, "tests"), 0),
			    "path", json_string("rtlab..idle"));
	CHECK_INT(kcidb_validate(bad, "rtlab", &err), -EINVAL,
		  "validator: empty path component refused");
	json_decref(bad);
	bad = json_deep_copy(doc);
	json_object_del(json_array_get(json_object_get(bad, "incidents"), 0),
			"issue_version");
	CHECK_INT(kcidb_validate(bad, "rtlab", &err), -EINVAL,
		  "validator: missing required field refused");
	json_decref(bad);
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(bad, "tests"), 0),
			    "build_id", json_string("rtlab:build-99"));
	CHECK_INT(kcidb_validate(bad, "rtlab", &err), -EINVAL,
		  "validator: dangling build reference refused");
	json_decref(bad);
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(bad, "tests"), 0),
			    "comment", json_null());
	CHECK_INT(kcidb_validate(bad, "rtlab", &err), -EINVAL,
		  "validator: null refused");
	json_decref(bad);
	bad = json_deep_copy(doc);
	json_object_set_new(json_object_get(bad, "version"), "minor",
			    json_integer(4));
	CHECK_INT(kcidb_validate(bad, "rtlab", &err), -EINVAL,
		  "validator: minor version beyond 3 refused");
	json_decref(bad);
	bad = json_deep_copy(doc);
	json_object_set_new(json_array_get(json_object_get(bad, "tests"), 0),
			    "status", json_string("OK"));
	CHECK_INT(kcidb_validate(bad, "rtlab", &err), -EINVAL,
		  "validator: unknown status refused");
	json_decref(bad);
	json_decref(doc);
out:
	json_decref(data);
}

static void test_config(void)
{
	struct rtlab_config cfg;
	struct rtlab_err err = { "" };
	int ret;

	ret = rtlab_config_init(&cfg);
	CHECK_INT(ret, 0, "config init");
	CHECK_STR(cfg.bugzilla_product, "Linux", "default product");
	CHECK_STR(cfg.bugzilla_component, "Realtime", "default component");
	CHECK_STR(cfg.bugzilla_version, "unspecified", "default version");
	CHECK(!cfg.bugzilla_url && !cfg.bugzilla_api_key,
	      "no default Bugzilla URL or key");
	ret = rtlab_config_parse(
		&cfg,
		"bugzilla_url = https://bz.example/rest.cgi\n"
		"bugzilla_product = \"Process Management\"\n"
		"bugzilla_component = Scheduler\nbugzilla_version = 2.5\n"
		"bugzilla_api_key = k3y\n",
		"rtlab.conf", &err);
	CHECK(ret == 0, "Bugzilla keys parse (%s)", err.msg);
	CHECK_STR(cfg.bugzilla_url, "https://bz.example/rest.cgi", "url");
	CHECK_STR(cfg.bugzilla_product, "Process Management", "product");
	CHECK_STR(cfg.bugzilla_api_key, "k3y", "api key");
	ret = rtlab_config_parse(&cfg, "bugzilla_url = bz.example\n",
				 "rtlab.conf", &err);
	CHECK_INT(ret, -EINVAL, "bugzilla_url without http(s):// refused");
	CHECK(strstr(err.msg, "rtlab.conf line 1: bugzilla_url") != NULL,
	      "... naming file, line and key (%s)", err.msg);
	rtlab_config_cleanup(&cfg);
}

/* A bisection of the regression: its section, and cf_bisect_commit only
 * when it named a culprit. */
static void test_bisect(void)
{
	json_t *ctx = load_ctx(), *bug, *field;
	char *t, note[256];

	bug = report_bug_json(ctx, NULL, "s", "t");
	CHECK(bug && !json_object_get(bug, "cf_bisect_commit"),
	      "no bisection: no cf_bisect_commit");
	json_decref(bug);
	t = report_text(ctx, NULL, 0, NULL);
	CHECK(t && !strstr(t, "== Bisection =="), "... and no section");
	free(t);
	json_object_set_new(
		ctx, "bisect",
		json_pack("{s:i, s:i, s:[s, s], s:{s:s, s:s, s:n}}", "id", 7,
			  "steps", 2, "range", "k-55", "k-56", "culprit", "id",
			  "linux-image-6.1.0-56-rt-amd64=6.1.192-2", "subject",
			  "linux-image-6.1.0-56-rt-amd64 version 6.1.192-2",
			  "author"));
	bug = report_bug_json(ctx, NULL, "s", "t");
	CHECK_STR(json_string_value(json_object_get(bug, "cf_bisect_commit")),
		  "linux-image-6.1.0-56-rt-amd64=6.1.192-2",
		  "a culprit: cf_bisect_commit");
	field = json_pack("{s:s, s:i, s:b, s:[]}", "name", "cf_bisect_commit",
			  "type", 1, "is_on_bug_entry", 1, "values");
	CHECK(bz_bug_adapt(bug, "cf_bisect_commit", field, note,
			   sizeof(note)) == 0 &&
		      json_object_get(bug, "cf_bisect_commit"),
	      "a Bugzilla offering cf_bisect_commit gets it");
	CHECK(bz_bug_adapt(bug, "cf_bisect_commit", NULL, note, sizeof(note)) ==
			      1 &&
		      !json_object_get(bug, "cf_bisect_commit"),
	      "one without it does not (%s)", note);
	json_decref(field);
	json_decref(bug);
	t = report_text(ctx, NULL, 0, NULL);
	CHECK(t &&
		      strstr(t, "== Bisection ==\n  culprit:    "
				"linux-image-6.1.0-56-rt-amd64=6.1.192-2\n") &&
		      strstr(t, "rtlab bisect log 7"),
	      "... and the section names it, and the bisection");
	free(t);
	json_object_del(json_object_get(ctx, "bisect"), "culprit");
	bug = report_bug_json(ctx, NULL, "s", "t");
	CHECK(bug && !json_object_get(bug, "cf_bisect_commit"),
	      "a range only: no cf_bisect_commit");
	json_decref(bug);
	t = report_text(ctx, NULL, 0, NULL);
	CHECK(t && strstr(t, "  range:      k-55 (good) .. k-56 (bad)\n"),
	      "... the section gives the range");
	free(t);
	json_decref(ctx);
}

/* A developer's extras: listed under the testcase, as the run did them. */
static void test_extras(void)
{
	json_t *ctx = load_ctx(), *run, *x;
	char *t;
	size_t i;

	t = report_text(ctx, NULL, 0, NULL);
	CHECK(t && !strstr(t, "  extras:"), "no extras: no extras line");
	free(t);
	x = json_pack(
		"{s:[{s:s, s:s, s:s, s:s, s:s, s:s, s:b}], s:[{s:s, s:s, s:s}],"
		" s:[{s:s, s:s, s:i}]}",
		"modules", "name", "my_driver", "file", "my_driver.ko",
		"params", "foo=1", "vermagic",
		"6.1.0-57-rt-amd64 SMP preempt_rt", "srcversion", "ABC123",
		"sha256",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"loaded", 1, "files", "dest", "/etc/x.conf", "src",
		"data/x.conf", "sha256",
		"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
		"commands", "phase", "setup", "command", "echo 1 > /tmp/x",
		"exit_status", 0);
	json_array_foreach(json_object_get(ctx, "candidate_runs"), i, run)
		json_object_set(json_object_get(run, "testcase"), "extras", x);
	json_decref(x);
	t = report_text(ctx, NULL, 0, NULL);
	CHECK(t && strstr(t, "  extras:     the testcase brought its own code"),
	      "extras: a line under the testcase");
	CHECK(t && strstr(t, "    module my_driver (my_driver.ko foo=1): "
			     "loaded\n"
			     "      vermagic 6.1.0-57-rt-amd64 SMP preempt_rt\n"
			     "      srcversion ABC123, sha256 "
			     "0123456789abcdef\n"),
	      "... the module, its params, version and whether it loaded");
	CHECK(t && strstr(t, "    file /etc/x.conf (from data/x.conf): sha256 "
			     "fedcba9876543210\n"),
	      "... the file and its hash");
	CHECK(t && strstr(t, "    setup: echo 1 > /tmp/x: exit status 0\n"),
	      "... the command and its exit status");
	free(t);
	json_decref(ctx);
}

int main(void)
{
	test_extras();
	test_bisect();
	test_large();
	test_tags();
	test_fit();
	test_config();
	test_platform();
	test_config_delta();
	test_base64();
	test_summary_text();
	test_adapt();
	test_client();
	test_kcidb();
	return check_exit();
}
