// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/rtla.c and lib/rttests.c against real output of rtla
 * timerlat/osnoise hist, signaltest, pmqtest, cyclicdeadline and pi_stress
 * captured in the virtual board (Debian 12's rt-tests 2.4 and rtla 6.1 on
 * its 6.1 PREEMPT_RT kernel), and garbled or cut copies of it, which
 * must be refused with a message naming what was wrong.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rtla.h"
#include "rttests.h"

static char *fixture(const char *name, size_t *len)
{
	const char *top = getenv("RTLAB_TOP");
	char path[4096];
	char *buf = NULL;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/rttests/%s",
		 top && *top ? top : ".", name);
	f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s\n", path);
		return NULL;
	}
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) == (size_t)n) {
			buf[n] = '\0';
			*len = n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* Parse @text with one line replaced: the first line containing @find
 * has @find replaced by @repl; expect failure with @want in the message. */
static void garbled(enum rt_tool t, const char *text, const char *find,
		    const char *repl, const char *want, const char *what)
{
	struct rtlab_err err = { "" };
	struct ct_result r = { 0 };
	struct rt_summary s = { 0 };
	const char *at = strstr(text, find);
	size_t n = strlen(text) + strlen(repl) + 1;
	char *g = malloc(n);
	int ret;

	if (!g || !at) {
		CHECK(0, "%s: fixture lacks '%s'", what, find);
		free(g);
		return;
	}
	snprintf(g, n, "%.*s%s%s", (int)(at - text), text, repl,
		 at + strlen(find));
	if (rt_tool_has_hist(t))
		ret = rtla_hist_parse(t, g, strlen(g), 0, &r, &err);
	else
		ret = rt_summary_parse(t, g, strlen(g), &s, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, want), "%s: %s", what, err.msg);
	ct_result_cleanup(&r);
	rt_summary_cleanup(&s);
	free(g);
}

static void test_timerlat(void)
{
	struct rtlab_err err = { "" };
	struct ct_result r = { 0 };
	size_t len = 0;
	char *text = fixture("timerlat-qemu-icount.hist", &len);
	int ret;

	if (!text) {
		CHECK(0, "timerlat fixture");
		return;
	}
	ret = rtla_hist_parse(RT_TOOL_TIMERLAT, text, len, 1000, &r, &err);
	CHECK(!ret, "timerlat hist parses: %s", err.msg);
	CHECK_INT(r.nthreads, 2, "timerlat: two histograms for one CPU");
	if (r.nthreads == 2) {
		CHECK_STR(r.threads[0].metric, "timerlat-thread",
			  "thread latency first");
		CHECK_STR(r.threads[1].metric, "timerlat-irq", "then IRQ");
		CHECK_INT(r.threads[0].cpu, 0, "thread column's CPU");
		CHECK_INT(r.threads[0].samples, 3009, "thread count:");
		CHECK_INT(r.threads[0].max_us, 70, "thread max:");
		CHECK_INT(r.threads[0].min_us, 31, "thread min:");
		CHECK_INT(r.threads[1].max_us, 21, "irq max:");
		CHECK_INT(r.threads[1].counts[5], 2929, "irq bucket 5 us");
		CHECK_INT(r.threads[0].nbuckets, 1000, "range of -E 1000");
	}
	ct_result_cleanup(&r);
	ret = rtla_hist_parse(RT_TOOL_TIMERLAT, text, len / 2, 0, &r, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "timerlat.hist"),
	      "a cut timerlat output is refused: %s", err.msg);
	ct_result_cleanup(&r);
	ret = rtla_hist_parse(RT_TOOL_OSNOISE, text, len, 0, &r, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "CPU-NNN"),
	      "timerlat columns are not osnoise's: %s", err.msg);
	ct_result_cleanup(&r);
	garbled(RT_TOOL_TIMERLAT, text, "count:     3009      3009",
		"count:     3009      3010", "samples = 3010",
		"a count that the buckets do not add up to");
	garbled(RT_TOOL_TIMERLAT, text, "5          2929         0",
		"5          2929", "1 values, expected 2",
		"a bucket line short of a column");
	garbled(RT_TOOL_TIMERLAT, text, "5          2929         0",
		"5          29x9         0", "column 1: expected a count",
		"a count that is no number");
	garbled(RT_TOOL_TIMERLAT, text, "Index", "Indx",
		"expected the 'Index' header line", "no Index header");
	garbled(RT_TOOL_TIMERLAT, text,
		"max:", "# max:", "no 'max:' summary line", "missing max:");
	garbled(RT_TOOL_TIMERLAT, text, "(us)", "(ns)", "microseconds",
		"nanoseconds (-n) are refused");
	free(text);
}

static void test_osnoise(void)
{
	struct rtlab_err err = { "" };
	struct ct_result r = { 0 };
	size_t len = 0;
	char *text = fixture("osnoise-qemu-icount.hist", &len);
	int ret;

	if (!text) {
		CHECK(0, "osnoise fixture");
		return;
	}
	ret = rtla_hist_parse(RT_TOOL_OSNOISE, text, len, 1000, &r, &err);
	CHECK(!ret, "osnoise hist parses: %s", err.msg);
	CHECK_INT(r.nthreads, 1, "osnoise: one histogram per CPU");
	if (r.nthreads == 1) {
		CHECK_STR(r.threads[0].metric, "osnoise", "metric osnoise");
		CHECK_INT(r.threads[0].samples, 9280, "count:");
		CHECK_INT(r.threads[0].overflows, 1, "over: (a 4 ms noise)");
		CHECK_INT(r.threads[0].max_us, 4070, "max beyond the range");
	}
	ct_result_cleanup(&r);
	garbled(RT_TOOL_OSNOISE, text, "over:         1", "over:         x",
		"'over:' column 1: expected a number", "over: garbled");
	free(text);
}

static void summary(enum rt_tool t, const char *file, unsigned int nthreads,
		    bool passed)
{
	struct rtlab_err err = { "" };
	struct rt_summary s = { 0 };
	size_t len = 0;
	char *text = fixture(file, &len);
	json_t *j;
	int ret;

	if (!text) {
		CHECK(0, "%s fixture", file);
		return;
	}
	ret = rt_summary_parse(t, text, len, &s, &err);
	CHECK(!ret, "%s parses: %s", file, err.msg);
	CHECK_INT(s.nthreads, nthreads, file);
	CHECK(s.passed == passed, "%s: passed is %d", file, passed);
	CHECK_STR(s.version, "2.40", "rt-tests version");
	j = rt_summary_to_json(&s);
	CHECK(j && json_array_size(json_object_get(j, "threads")) == nthreads,
	      "%s as stored JSON", file);
	json_decref(j);
	rt_summary_cleanup(&s);
	ret = rt_summary_parse(t, text, len / 2, &s, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, rt_tool_output(t)),
	      "a cut %s is refused: %s", file, err.msg);
	rt_summary_cleanup(&s);
	free(text);
}

static void test_summaries(void)
{
	size_t len = 0;
	char *text;

	summary(RT_TOOL_SIGNALTEST, "signaltest.json", 2, true);
	summary(RT_TOOL_PMQTEST, "pmqtest.json", 1, true);
	summary(RT_TOOL_CYCLICDEADLINE, "cyclicdeadline.json", 1, true);
	summary(RT_TOOL_PI_STRESS, "pi_stress.json", 0, true);
	text = fixture("signaltest.json", &len);
	if (text) {
		garbled(RT_TOOL_SIGNALTEST, text, "\"cycles\"", "\"cyclez\"",
			"thread 0: missing key 'cycles'", "cycles missing");
		garbled(RT_TOOL_SIGNALTEST, text, "\"num_threads\": 2",
			"\"num_threads\": 3", "num_threads says 3",
			"num_threads disagrees");
		garbled(RT_TOOL_SIGNALTEST, text, "\"min\"",
			"\"min\": -1, \"x\"",
			"thread 0.min: expected an integer",
			"a negative minimum");
		garbled(RT_TOOL_SIGNALTEST, text, "\"return_code\": 0",
			"\"return_code\": \"0\"", "return_code",
			"a return code that is a string");
	}
	free(text);
	text = fixture("cyclicdeadline.json", &len);
	if (text) {
		struct rt_summary s = { 0 };
		struct rtlab_err err = { "" };
		char *f = strstr(text, "\"avg\": 7.91");

		/* min is rounded to whole microseconds, avg is not */
		if (f)
			memcpy(f, "\"avg\": 1.68", 11);
		CHECK(f && !rt_summary_parse(RT_TOOL_CYCLICDEADLINE, text, len,
					     &s, &err),
		      "cyclicdeadline: an avg under the rounded min parses: %s",
		      err.msg);
		rt_summary_cleanup(&s);
		garbled(RT_TOOL_CYCLICDEADLINE, text, "\"avg\": 1.68",
			"\"avg\": 0.5", "lies outside min 2",
			"an avg a whole microsecond under min");
	}
	free(text);
	text = fixture("pmqtest.json", &len);
	if (text)
		garbled(RT_TOOL_PMQTEST, text, "\"receiver\"", "\"recv\"",
			"'sender' and 'receiver'", "pmqtest without receiver");
	free(text);
	text = fixture("pi_stress.json", &len);
	if (text) {
		struct rt_summary s = { 0 };
		struct rtlab_err err = { "" };
		char *f = strstr(text, "\"return_code\": 0");

		/* pi_stress exits non-zero when it detects a deadlock. */
		if (f)
			f[strlen("\"return_code\": ")] = '1';
		CHECK(f &&
			      !rt_summary_parse(RT_TOOL_PI_STRESS, text, len,
						&s, &err) &&
			      !s.passed && s.return_code == 1,
		      "pi_stress with return code 1 fails: %s", err.msg);
		rt_summary_cleanup(&s);
	}
	free(text);
}

static void test_tools(void)
{
	enum rt_tool t;

	CHECK(!rt_tool_lookup("timerlat", &t) && t == RT_TOOL_TIMERLAT,
	      "timerlat is a tool");
	CHECK(rt_tool_lookup("hackbench", &t) == -ENOENT,
	      "hackbench is no measuring tool");
	CHECK_STR(rt_tool_program(RT_TOOL_OSNOISE), "rtla",
		  "osnoise runs rtla");
	CHECK(rt_tool_has_hist(RT_TOOL_TIMERLAT) &&
		      !rt_tool_has_hist(RT_TOOL_PI_STRESS),
	      "which tools keep histograms");
}

int main(void)
{
	test_tools();
	test_timerlat();
	test_osnoise();
	test_summaries();
	return check_exit();
}
