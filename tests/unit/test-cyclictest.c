// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/cyclictest.c against real cyclictest output captured
 * on a test machine (idle, under hackbench, with overflows, with -H) and
 * hand-garbled copies of it that must be rejected with a useful message.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cyclictest.h"
#include "run-limits.h"

/* Read tests/fixtures/cyclictest/@name from $RTLAB_TOP or the cwd. */
static char *fixture(const char *name, size_t *len)
{
	const char *top = getenv("RTLAB_TOP");
	char path[4096];
	char *buf = NULL;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/cyclictest/%s",
		 top && *top ? top : ".", name);
	f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s\n", path);
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc(n + 1);
	if (!buf)
		goto out;
	if (fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[n] = '\0';
	*len = n;
out:
	fclose(f);
	return buf;
}

static int parse_json(const char *name, uint32_t range_us,
		      struct ct_result *res, struct rtlab_err *err)
{
	size_t len = 0;
	char *text = fixture(name, &len);
	int ret;

	if (!text)
		return -ENOENT;
	ret = ct_json_parse(text, len, range_us, res, err);
	free(text);
	return ret;
}

static int parse_hist(const char *name, struct ct_result *res,
		      struct rtlab_err *err)
{
	size_t len = 0;
	char *text = fixture(name, &len);
	int ret;

	if (!text)
		return -ENOENT;
	ret = ct_hist_parse(text, len, res, err);
	free(text);
	return ret;
}

/* Both formats of one run must tell the same story. */
static void test_pair(const char *base, uint32_t range_us)
{
	struct rtlab_err err = { "" };
	struct ct_result js, tx;
	char name[64];
	unsigned int i, b, same;
	int ret;

	snprintf(name, sizeof(name), "%s.json", base);
	ret = parse_json(name, range_us, &js, &err);
	CHECK(ret == 0, "%s parses (%s)", name, err.msg);
	snprintf(name, sizeof(name), "%s.hist", base);
	ret = parse_hist(name, &tx, &err);
	CHECK(ret == 0, "%s parses (%s)", name, err.msg);
	if (!js.threads || !tx.threads)
		goto out;

	CHECK_INT(js.nthreads, 2, "json: two threads (-t on 2 CPUs)");
	CHECK_INT(tx.nthreads, js.nthreads, "text: same thread count");
	CHECK(js.version && !strcmp(js.version, "2.40"),
	      "%s: rt_test_version: read", base);
	CHECK(js.cmdline && strstr(js.cmdline, "cyclictest -m"),
	      "%s: cmdline: read", base);
	CHECK_INT(js.realtime, 0, "sysinfo.realtime: 0 on this kernel");
	CHECK_INT(tx.realtime, -1, "text: realtime unknown");
	for (i = 0; i < js.nthreads && i < tx.nthreads; i++) {
		const struct hist *a = &js.threads[i], *t = &tx.threads[i];

		CHECK_INT(a->nbuckets, range_us, "json thread range");
		CHECK_INT(t->nbuckets, range_us, "text thread range");
		CHECK(a->samples > 0 && a->samples == t->samples,
		      "%s thread %u: samples json %llu text %llu", base, i,
		      (unsigned long long)a->samples,
		      (unsigned long long)t->samples);
		CHECK_INT(t->overflows, a->overflows, "thread overflows equal");
		same = a->nbuckets == t->nbuckets;
		for (b = 0; same && b < a->nbuckets; b++)
			same = a->counts[b] == t->counts[b];
		CHECK(same, "%s thread %u: every bucket equal", base, i);
		CHECK_INT(t->min_us, a->min_us, "thread min equal");
		CHECK_INT(t->max_us, a->max_us, "thread max equal");
		CHECK(t->avg_us == floor(a->avg_us),
		      "%s thread %u: text avg %.0f = floor(json avg %.2f)",
		      base, i, t->avg_us, a->avg_us);
		CHECK_INT(a->cpu, i, "json: thread i ran on CPU i");
		CHECK_INT(a->thread, i, "json: thread number");
		CHECK_INT(t->thread, i, "text: thread number");
	}
out:
	ct_result_cleanup(&js);
	ct_result_cleanup(&tx);
	ct_result_cleanup(&tx);
}

static void test_overflows(void)
{
	struct rtlab_err err = { "" };
	struct ct_result r;
	const struct hist *h;
	int ret;

	ret = parse_json("overflow.json", 20, &r, &err);
	CHECK(ret == 0, "overflow.json parses (%s)", err.msg);
	if (ret)
		return;
	h = &r.threads[0];
	CHECK_INT(h->samples, 1999, "overflow thread 0: cycles");
	CHECK_INT(h->overflows, 183, "overflow thread 0: cycles - sum");
	CHECK_INT(h->max_us, 1415, "overflow thread 0: true max kept");
	CHECK_INT(h->counts[13], 787, "overflow thread 0: bucket 13");
	CHECK_INT(hist_quantile(h, 0.5), 14,
		  "overflow thread 0: p50 (rank 1000)");
	CHECK_INT(hist_quantile(h, 0.99), HIST_Q_OVERFLOW,
		  "overflow thread 0: p99 among the overflows");
	CHECK_INT(r.threads[1].overflows, 377, "overflow thread 1: overflows");
	ct_result_cleanup(&r);

	ret = parse_hist("overflow.hist", &r, &err);
	CHECK(ret == 0, "overflow.hist parses (%s)", err.msg);
	if (ret)
		return;
	CHECK_INT(r.threads[0].overflows, 183, "text overflow thread 0");
	CHECK_INT(r.threads[1].samples, 1999, "text: total + overflows");
	ct_result_cleanup(&r);

	/* the -H sum column is not a thread */
	ret = parse_hist("histofall.hist", &r, &err);
	CHECK(ret == 0, "histofall.hist parses (%s)", err.msg);
	CHECK_INT(r.nthreads, 2, "histofall: the sum column is dropped");
	ct_result_cleanup(&r);
}

/*
 * Plain histograms are read by a scanner, anything else about them by
 * jansson: both give the same histogram, and a fault is reported from the
 * document as sent (line and column included).
 */
static void test_scanned(void)
{
	static const char *const same[] = {
		"{\"thread\": {\"0\": {\"cycles\": 6, \"min\": 3, \"max\": 9,"
		" \"histogram\": {\"3\": 2,\r\n\t\"4\": 1}}}}",
		/* a latency with a leading zero, an escaped one */
		"{\"thread\": {\"0\": {\"cycles\": 6, \"min\": 3, \"max\": 9,"
		" \"histogram\": {\"03\": 2, \"\\u0034\": 1}}}}",
		/* a count written -0, another "histogram" deeper in */
		"{\"thread\": {\"0\": {\"cycles\": 6, \"min\": 3, \"max\": 9,"
		" \"x\": {\"histogram\": {\"1\": 9}}, \"histogram\": {\"3\": 2,"
		" \"4\": 1, \"2\": -0}}}}",
	};
	static const struct {
		const char *doc, *msg;
	} bad[] = {
		{ "{\"thread\": {\"0\": {\"cycles\": 6, \"min\": 3, \"max\": 4,"
		  "\n \"histogram\": {\"3\": 2, \"4\": 1}}},\n \"x\": }",
		  "cyclictest.json: line 3 column 7: unexpected token near '}'" },
		{ "{\"thread\": {\"0\": {\"cycles\": 6, \"min\": 3, \"max\": 4,"
		  "\n \"histogram\": {\"3\": 2, \"3\": 1}}}}",
		  "cyclictest.json: line 2 column 26: duplicate object key near '\"3\"'" },
		{ "{\"thread\": {\"0\": {\"cycles\": 6, \"min\": 3, \"max\": 4,"
		  " \"histogram\": {\"3\": 2, \"4\": 5}}}}",
		  "cyclictest.json: key 'thread.0.histogram': counts add up to "
		  "more than thread.0.cycles (6)" },
		{ "{\"thread\": {\"0\": {\"cycles\": 6, \"min\": 3, \"max\": 4,"
		  " \"histogram\": {\"3\": 2, \"4\": 1.0}}}}",
		  "cyclictest.json: key 'thread.0.histogram.4': expected a "
		  "non-negative integer count" },
	};
	struct rtlab_err err = { "" };
	struct ct_result r;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		ret = ct_json_parse(same[i], strlen(same[i]), 5, &r, &err);
		CHECK(ret == 0, "histogram form %zu parses (%s)", i, err.msg);
		if (ret)
			continue;
		CHECK(r.threads[0].counts[3] == 2 &&
			      r.threads[0].counts[4] == 1 &&
			      r.threads[0].overflows == 3,
		      "histogram form %zu: buckets 3 and 4, 3 overflows", i);
		ct_result_cleanup(&r);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = ct_json_parse(bad[i].doc, strlen(bad[i].doc), 5, &r,
				    &err);
		CHECK(ret == -EINVAL && !strcmp(err.msg, bad[i].msg),
		      "bad histogram %zu refused as it says: %s", i, err.msg);
	}
}

static void test_spellings(void)
{
	static const char doc[] =
		"{\"cmdline\": \"cyclictest -h 5\", \"rt_test_version\": \"2.5\","
		" \"sysinfo\": {\"realtime\": 1}, \"num_threads\": 1,"
		" \"thread\": {\"0\": {\"histogram\": {\"3\": 2, \"4\": 1},"
		" \"cycles\": 4, \"min\": 3, \"max\": 9, \"avg\": 4.75,"
		" \"cpu\": 1, \"node\": 0}}}";
	struct rtlab_err err = { "" };
	struct ct_result r;
	int ret;

	ret = ct_json_parse(doc, strlen(doc), 5, &r, &err);
	CHECK(ret == 0, "keys without the stray colon parse (%s)", err.msg);
	if (ret)
		return;
	CHECK_STR(r.cmdline, "cyclictest -h 5", "cmdline without colon");
	CHECK_STR(r.version, "2.5", "rt_test_version without colon");
	CHECK_INT(r.realtime, 1, "realtime 1");
	CHECK_INT(r.threads[0].overflows, 1, "overflow = 4 - 3");
	CHECK_INT(r.threads[0].cpu, 1, "cpu");
	ct_result_cleanup(&r);

	ret = ct_json_parse(doc, strlen(doc), 4, &r, &err);
	CHECK_INT(ret, -EINVAL, "a bucket beyond the given range is refused");
	CHECK(strstr(err.msg, "thread.0.histogram.4") != NULL,
	      "range message names the key: %s", err.msg);
	CHECK(r.threads == NULL, "failed parse leaves nothing to free");
}

static const struct {
	const char *file;
	const char *fragment;
} garbled[] = {
	{ "garbled-nonnumeric.json", "'thread.0.cycles'" },
	{ "garbled-missing-thread.json", "missing key 'thread.1'" },
	{ "garbled-negative.json", "'thread.0.histogram.13'" },
	{ "garbled-inconsistent.json", "add up to more than thread.0.cycles" },
	{ "garbled-truncated.json", "cyclictest.json: line" },
	{ "garbled-badkey.json", "'thread.0.histogram.1x4'" },
	{ "garbled-max.json",
	  "'thread.0': histogram of thread 0: 183 overflows but max 19 us" },
	{ "garbled-columns.hist", "line 16: expected 2 counts" },
	{ "garbled-nonnumeric.hist",
	  "line 17: expected numbers, got '0004x5'" },
	{ "garbled-truncated.hist", "missing line '# Max Latencies:'" },
	{ "garbled-negative.hist", "got '-0183'" },
	{ "garbled-total.hist", "thread 0: '# Total:' says 1817" },
	{ "garbled-missing-thread.hist", "bucket lines have 2 counts" },
};

static void test_garbled(void)
{
	struct rtlab_err err;
	struct ct_result r;
	unsigned int i;
	const char *f;
	int ret;

	for (i = 0; i < sizeof(garbled) / sizeof(garbled[0]); i++) {
		f = garbled[i].file;
		strcpy(err.msg, "(no message)");
		if (strstr(f, ".json"))
			ret = parse_json(f, 20, &r, &err);
		else
			ret = parse_hist(f, &r, &err);
		CHECK(ret == -EINVAL, "%s rejected (%d)", f, ret);
		CHECK(strstr(err.msg, garbled[i].fragment) != NULL,
		      "%s: message \"%s\" contains \"%s\"", f, err.msg,
		      garbled[i].fragment);
		CHECK(r.threads == NULL && r.nthreads == 0,
		      "%s: nothing left to free", f);
	}

	ret = ct_hist_parse("", 0, &r, &err);
	CHECK_INT(ret, -EINVAL, "empty text rejected");
	ret = ct_hist_parse("abc\0def", 7, &r, &err);
	CHECK_INT(ret, -EINVAL, "binary text rejected");
	ret = ct_json_parse("[]", 2, 20, &r, &err);
	CHECK_INT(ret, -EINVAL, "a JSON array rejected");
	ret = ct_json_parse("{}", 2, 20, &r, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "missing key 'thread'"),
	      "no 'thread' rejected: %s", err.msg);
}

/* What a hostile or broken board could send: refused before anything big
 * is allocated, each message naming the limit. */
static const struct {
	const char *file;
	const char *fragment;
} hostile[] = {
	{ "hostile-range.hist",
	  "line 5: latency 2147483645 us is beyond the histogram range limit of 100000 us" },
	{ "hostile-samples.hist",
	  "more samples than the limit of 1000000000000000 per run" },
	{ "hostile-wrap.hist",
	  "thread 0: the buckets add up to more than 64 bits hold" },
	{ "hostile-samples.json",
	  "key 'thread.0.cycles': 4611686018427387904 samples, more than the limit of 1000000000000000 per run" },
};

/* A --json text of @n threads, each with @cycles samples of 1 us. */
static char *json_threads(unsigned int n, unsigned long long cycles)
{
	size_t cap = 128 + (size_t)n * 160, len;
	char *s = malloc(cap);
	unsigned int i;

	if (!s)
		return NULL;
	len = snprintf(s, cap, "{\"num_threads\": %u, \"thread\": {", n);
	for (i = 0; i < n; i++)
		len += snprintf(
			s + len, cap - len,
			"%s\"%u\": {\"histogram\": {\"1\": %llu}, \"cycles\": %llu, \"min\": 1, \"max\": 1}",
			i ? ", " : "", i, cycles, cycles);
	snprintf(s + len, cap - len, "}}");
	return s;
}

static void test_hostile(void)
{
	struct rtlab_err err;
	struct ct_result r;
	unsigned int i;
	const char *f;
	char *text;
	int ret;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		f = hostile[i].file;
		strcpy(err.msg, "(no message)");
		if (strstr(f, ".json"))
			ret = parse_json(f, 20, &r, &err);
		else
			ret = parse_hist(f, &r, &err);
		CHECK(ret == -EINVAL, "%s refused (%d)", f, ret);
		CHECK(strstr(err.msg, hostile[i].fragment) != NULL,
		      "%s: message \"%s\" contains \"%s\"", f, err.msg,
		      hostile[i].fragment);
		CHECK(r.threads == NULL && r.nthreads == 0,
		      "%s: nothing left to free", f);
	}

	/* each thread within the limit, the run beyond it */
	text = json_threads(2, 600000000000000ULL);
	ret = text ? ct_json_parse(text, strlen(text), 20, &r, &err) : -ENOMEM;
	CHECK(ret == -EINVAL &&
		      strstr(err.msg,
			     "threads 0 to 1 have more samples than the limit"),
	      "2 x 6e14 samples: the run total is refused: %s", err.msg);
	free(text);
	text = json_threads(2, 400000000000000ULL);
	ret = text ? ct_json_parse(text, strlen(text), 20, &r, &err) : -ENOMEM;
	CHECK_INT(ret, 0, "2 x 4e14 samples are within the limit");
	ct_result_cleanup(&r);
	free(text);

	text = json_threads(1, 5);
	ret = text ? ct_json_parse(text, strlen(text),
				   RTLAB_MAX_HIST_RANGE_US + 1, &r, &err) :
		     -ENOMEM;
	CHECK(ret == -EINVAL &&
		      strstr(err.msg,
			     "range 100001 us is more than the limit of 100000 us"),
	      "a range beyond the limit is refused: %s", err.msg);
	ret = text ? ct_json_parse(text, strlen(text), RTLAB_MAX_HIST_RANGE_US,
				   &r, &err) :
		     -ENOMEM;
	CHECK_INT(ret, 0, "a range at the limit is read");
	ct_result_cleanup(&r);
	free(text);

	text = json_threads(RTLAB_MAX_THREADS, 5);
	ret = text ? ct_json_parse(text, strlen(text), RTLAB_MAX_HIST_RANGE_US,
				   &r, &err) :
		     -ENOMEM;
	CHECK(ret == -EINVAL &&
		      strstr(err.msg,
			     "102400000 histogram cells, more than the limit of 8388608"),
	      "1024 threads x 100 ms: too many cells, refused before allocating: %s",
	      err.msg);
	ret = text ? ct_json_parse(text, strlen(text), 8192, &r, &err) :
		     -ENOMEM;
	CHECK(ret == 0 && r.nthreads == RTLAB_MAX_THREADS,
	      "1024 threads x 8192 us are read (%s)", ret ? err.msg : "");
	ct_result_cleanup(&r);
	free(text);
	/* jansson takes several times the text: refused before parsing */
	text = malloc(RTLAB_MAX_CT_JSON_BYTES + 1);
	if (text)
		memset(text, ' ', RTLAB_MAX_CT_JSON_BYTES + 1);
	ret = text ? ct_json_parse(text, RTLAB_MAX_CT_JSON_BYTES + 1, 20, &r,
				   &err) :
		     -ENOMEM;
	CHECK(ret == -EINVAL &&
		      strstr(err.msg,
			     "33554433 bytes, more than the limit of 33554432"),
	      "a cyclictest.json over 32 MiB is refused unparsed: %s", err.msg);
	free(text);
	text = json_threads(RTLAB_MAX_THREADS + 1, 5);
	ret = text ? ct_json_parse(text, strlen(text), 20, &r, &err) : -ENOMEM;
	CHECK(ret == -EINVAL &&
		      strstr(err.msg, "expected an integer from 0 to 1024"),
	      "1025 threads refused: %s", err.msg);
	free(text);
}

int main(void)
{
	test_pair("idle", 100);
	test_pair("hackbench", 200);
	test_pair("overflow", 20);
	test_pair("histofall", 40);
	test_overflows();
	test_spellings();
	test_scanned();
	test_garbled();
	test_hostile();
	return check_exit();
}
