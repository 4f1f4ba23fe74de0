// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The measuring tools a testcase can name, and the reader of the --json
 * results of the rt-tests tools that keep no histogram in rt-tests 2.4
 * (Debian 12): signaltest, pmqtest and cyclicdeadline report per thread
 * cycles/min/avg/max; pi_stress reports the inversions it performed and
 * fails (non-zero return code) when it detects a deadlock.
 */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rttests.h"
#include "run-limits.h"

static const struct {
	const char *name, *program, *output;
	bool hist;
} tools[RT_TOOL_COUNT] = {
	[RT_TOOL_CYCLICTEST] = { "cyclictest", "cyclictest", "cyclictest.json",
				 true },
	[RT_TOOL_TIMERLAT] = { "timerlat", "rtla", "timerlat.hist", true },
	[RT_TOOL_OSNOISE] = { "osnoise", "rtla", "osnoise.hist", true },
	[RT_TOOL_SIGNALTEST] = { "signaltest", "signaltest", "signaltest.json",
				 false },
	[RT_TOOL_PMQTEST] = { "pmqtest", "pmqtest", "pmqtest.json", false },
	[RT_TOOL_CYCLICDEADLINE] = { "cyclicdeadline", "cyclicdeadline",
				     "cyclicdeadline.json", false },
	[RT_TOOL_PI_STRESS] = { "pi_stress", "pi_stress", "pi_stress.json",
				false },
};

int rt_tool_lookup(const char *name, enum rt_tool *t)
{
	int i;

	for (i = 0; name && i < RT_TOOL_COUNT; i++)
		if (!strcmp(name, tools[i].name)) {
			*t = (enum rt_tool)i;
			return 0;
		}
	return -ENOENT;
}

const char *rt_tool_name(enum rt_tool t)
{
	return t < RT_TOOL_COUNT ? tools[t].name : "?";
}

const char *rt_tool_program(enum rt_tool t)
{
	return t < RT_TOOL_COUNT ? tools[t].program : "?";
}

const char *rt_tool_names(void)
{
	return "cyclictest, timerlat, osnoise, signaltest, pmqtest, "
	       "cyclicdeadline, pi_stress";
}

bool rt_tool_has_hist(enum rt_tool t)
{
	return t < RT_TOOL_COUNT && tools[t].hist;
}

const char *rt_tool_output(enum rt_tool t)
{
	return t < RT_TOOL_COUNT ? tools[t].output : "?";
}

void rt_summary_cleanup(struct rt_summary *res)
{
	if (!res)
		return;
	free(res->version);
	free(res->threads);
	memset(res, 0, sizeof(*res));
}

/* A non-negative integer at @key of @obj; @what names it in messages. */
static int get_count(json_t *obj, const char *key, const char *file,
		     const char *what, uint64_t max, uint64_t *v,
		     struct rtlab_err *err)
{
	json_t *j = json_object_get(obj, key);

	if (!j)
		return rtlab_err_set(err, "%s: %s: missing key '%s'", file,
				     what, key);
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    (uint64_t)json_integer_value(j) > max)
		return rtlab_err_set(err,
				     "%s: %s.%s: expected an integer 0..%llu",
				     file, what, key, (unsigned long long)max);
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

/* cycles/min/max/avg of one thread (pmqtest: the receiver's, the
 * sender's samples). */
static int parse_thread(enum rt_tool tool, json_t *tj, const char *file,
			const char *what, struct rt_summary_thread *t,
			struct rtlab_err *err)
{
	json_t *lat = tj, *cnt = tj, *a;
	uint64_t v;
	int ret;

	if (tool == RT_TOOL_PMQTEST) {
		cnt = json_object_get(tj, "sender");
		lat = json_object_get(tj, "receiver");
		if (!json_is_object(cnt) || !json_is_object(lat))
			return rtlab_err_set(err,
					     "%s: %s: expected objects "
					     "'sender' and 'receiver'",
					     file, what);
	}
	ret = get_count(cnt, tool == RT_TOOL_PMQTEST ? "samples" : "cycles",
			file, what, RTLAB_MAX_RUN_SAMPLES, &t->cycles, err);
	if (ret)
		return ret;
	if (tool == RT_TOOL_PMQTEST) {
		ret = get_count(lat, "timeoutcount", file, what,
				RTLAB_MAX_RUN_SAMPLES, &t->timeouts, err);
		if (ret)
			return ret;
	}
	ret = get_count(lat, "min", file, what, UINT32_MAX, &v, err);
	if (ret)
		return ret;
	t->min_us = (uint32_t)v;
	ret = get_count(lat, "max", file, what, UINT32_MAX, &v, err);
	if (ret)
		return ret;
	t->max_us = (uint32_t)v;
	if (t->cycles && t->min_us > t->max_us)
		return rtlab_err_set(err, "%s: %s: min %u > max %u", file, what,
				     t->min_us, t->max_us);
	/* A thread without a sample has no average (rt-tests writes
	 * -nan, which the agent drops). */
	a = json_object_get(lat, "avg");
	t->avg_us = NAN;
	if (a && !json_is_number(a))
		return rtlab_err_set(err, "%s: %s.avg: expected a number", file,
				     what);
	if (a)
		t->avg_us = json_number_value(a);
	/* min and max are whole microseconds, rounded from the tool's
	 * nanoseconds (cyclicdeadline: min 5 with avg 4.68), the average
	 * is not: it may lie up to 1 us beyond them. */
	if (a && t->cycles &&
	    (t->avg_us < (double)t->min_us - 1 ||
	     t->avg_us > (double)t->max_us + 1))
		return rtlab_err_set(err,
				     "%s: %s.avg: %g lies outside min %u .. "
				     "max %u",
				     file, what, t->avg_us, t->min_us,
				     t->max_us);
	t->cpu = -1;
	a = json_object_get(tool == RT_TOOL_PMQTEST ? lat : tj, "cpu");
	if (a) {
		if (!json_is_integer(a) || json_integer_value(a) < 0 ||
		    json_integer_value(a) >= (json_int_t)RTLAB_MAX_THREADS)
			return rtlab_err_set(err,
					     "%s: %s.cpu: expected an integer "
					     "0..%u",
					     file, what, RTLAB_MAX_THREADS - 1);
		t->cpu = (int)json_integer_value(a);
	}
	return 0;
}

static int parse_threads(enum rt_tool tool, json_t *root, const char *file,
			 struct rt_summary *res, struct rtlab_err *err)
{
	json_t *th = json_object_get(root, "thread");
	uint64_t n;
	unsigned int i;
	char key[16], what[32];
	int ret;

	ret = get_count(root, "num_threads", file, "top level",
			RTLAB_MAX_THREADS, &n, err);
	if (ret)
		return ret;
	if (!n)
		return rtlab_err_set(err, "%s: num_threads: no thread measured",
				     file);
	if (!json_is_object(th))
		return rtlab_err_set(err, "%s: missing object 'thread'", file);
	if (json_object_size(th) != n)
		return rtlab_err_set(err,
				     "%s: 'thread' has %zu entries but "
				     "num_threads says %llu",
				     file, json_object_size(th),
				     (unsigned long long)n);
	res->threads = calloc(n, sizeof(*res->threads));
	if (!res->threads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		json_t *tj;

		snprintf(key, sizeof(key), "%u", i);
		snprintf(what, sizeof(what), "thread %u", i);
		tj = json_object_get(th, key);
		if (!json_is_object(tj))
			return rtlab_err_set(err,
					     "%s: thread \"%s\": missing or "
					     "not an object",
					     file, key);
		res->threads[i].thread = (int)i;
		ret = parse_thread(tool, tj, file, what, &res->threads[i], err);
		if (ret)
			return ret;
		res->nthreads = i + 1;
	}
	return 0;
}

int rt_summary_parse(enum rt_tool tool, const char *text, size_t len,
		     struct rt_summary *res, struct rtlab_err *err)
{
	const char *file = rt_tool_output(tool);
	json_error_t jerr;
	json_t *root, *j;
	unsigned int i;
	uint64_t v;
	int ret;

	memset(res, 0, sizeof(*res));
	res->tool = tool;
	if (rt_tool_has_hist(tool) || tool >= RT_TOOL_COUNT)
		return rtlab_err_set(err, "%s keeps a histogram, not a summary",
				     rt_tool_name(tool));
	if (len > RTLAB_MAX_CT_JSON_BYTES)
		return rtlab_err_set(err, "%s: %zu bytes, more than %lu", file,
				     len, RTLAB_MAX_CT_JSON_BYTES);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return rtlab_err_set(err, "%s: line %d: %s", file, jerr.line,
				     jerr.text);
	if (!json_is_object(root)) {
		ret = rtlab_err_set(err, "%s: expected a JSON object", file);
		goto out;
	}
	j = json_object_get(root, "return_code");
	if (!json_is_integer(j)) {
		ret = rtlab_err_set(err,
				    "%s: missing integer key 'return_code'",
				    file);
		goto out;
	}
	res->return_code = (int)json_integer_value(j);
	/* rt-tests writes this key with a stray colon. */
	j = json_object_get(root, "rt_test_version:");
	if (!j)
		j = json_object_get(root, "rt_test_version");
	if (json_is_string(j)) {
		res->version = strdup(json_string_value(j));
		if (!res->version) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (tool == RT_TOOL_PI_STRESS) {
		ret = get_count(root, "inversion", file, "top level",
				RTLAB_MAX_RUN_SAMPLES, &v, err);
		if (ret)
			goto out;
		res->inversions = v;
		res->passed = !res->return_code;
	} else {
		ret = parse_threads(tool, root, file, res, err);
		if (ret)
			goto out;
		res->passed = !res->return_code;
		for (i = 0; i < res->nthreads; i++)
			if (!res->threads[i].cycles)
				res->passed = false;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

json_t *rt_summary_to_json(const struct rt_summary *s)
{
	json_t *root, *th;
	unsigned int i;

	th = json_array();
	for (i = 0; th && i < s->nthreads; i++) {
		const struct rt_summary_thread *t = &s->threads[i];
		json_t *o = json_pack("{s:i, s:i, s:I, s:I, s:I, s:I}",
				      "thread", t->thread, "cpu", t->cpu,
				      "cycles", (json_int_t)t->cycles, "min_us",
				      (json_int_t)t->min_us, "max_us",
				      (json_int_t)t->max_us, "timeouts",
				      (json_int_t)t->timeouts);

		if (o && !isnan(t->avg_us) &&
		    json_object_set_new(o, "avg_us", json_real(t->avg_us))) {
			json_decref(o);
			o = NULL;
		}
		if (!o || json_array_append_new(th, o)) {
			json_decref(th);
			return NULL;
		}
	}
	if (!th)
		return NULL;
	root = json_pack("{s:s, s:b, s:i, s:o}", "tool", rt_tool_name(s->tool),
			 "passed", s->passed, "return_code", s->return_code,
			 "threads", th);
	if (root && s->tool == RT_TOOL_PI_STRESS &&
	    json_object_set_new(root, "inversions",
				json_integer((json_int_t)s->inversions))) {
		json_decref(root);
		return NULL;
	}
	return root;
}
