// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Readers for cyclictest's two result formats (rt-tests 2.x): the --json
 * file, parsed with jansson, and the -h/-H histogram text on stdout.  Each
 * yields one struct hist per measuring thread, checked with hist_check()
 * before it is handed back, so nothing inconsistent reaches the database.
 * The limits of run-limits.h (range, threads, cells, samples) are checked
 * before anything sized by the input is allocated, and sums are checked
 * for overflow.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cyclictest.h"
#include "run-limits.h"

#define CT_JSON "cyclictest.json"
#define CT_HIST "cyclictest histogram"

#define CT_MAX_THREADS ((int)RTLAB_MAX_THREADS)

void ct_result_cleanup(struct ct_result *res)
{
	unsigned int i;

	if (!res)
		return;
	free(res->cmdline);
	free(res->version);
	if (res->threads) {
		for (i = 0; i < res->nthreads; i++)
			hist_cleanup(&res->threads[i]);
		free(res->threads);
	}
	memset(res, 0, sizeof(*res));
	res->realtime = -1;
}

static void ct_result_reset(struct ct_result *res)
{
	memset(res, 0, sizeof(*res));
	res->realtime = -1;
}

/* Parse a whole decimal string into an unsigned 64-bit value. */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && *end == '\0';
}

/* ---------------------------------------------------------------- JSON */

/* A non-negative JSON integer at most @max. */
static int json_uint(json_t *obj, const char *key, const char *path,
		     uint64_t max, bool required, uint64_t *v,
		     struct rtlab_err *err)
{
	json_t *j = json_object_get(obj, key);

	if (!j) {
		if (!required)
			return 1;
		return rtlab_err_set(err, CT_JSON ": missing key '%s%s'", path,
				     key);
	}
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    (uint64_t)json_integer_value(j) > max)
		return rtlab_err_set(
			err,
			CT_JSON
			": key '%s%s': expected an integer from 0 to %" PRIu64,
			path, key, max);
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

/* Both spellings: rt-tests 2.x writes "cmdline:" with a stray colon. */
static json_t *json_get_either(json_t *root, const char *key)
{
	char colon[64];
	json_t *j = json_object_get(root, key);

	if (j)
		return j;
	snprintf(colon, sizeof(colon), "%s:", key);
	return json_object_get(root, colon);
}

static int json_strdup(json_t *root, const char *key, char **out,
		       struct rtlab_err *err)
{
	json_t *j = json_get_either(root, key);

	if (!j || json_is_null(j))
		return 0;
	if (!json_is_string(j))
		return rtlab_err_set(err,
				     CT_JSON ": key '%s': expected a string",
				     key);
	*out = strdup(json_string_value(j));
	return *out ? 0 : -ENOMEM;
}

/* ------------------------------------------------- JSON: histograms */

/*
 * The histograms are nearly all of a cyclictest.json (two CPUs of 1000
 * buckets are 2000 members), and jansson's tree of them -- a hashed key
 * and an allocated integer a bucket -- cost most of an upload's CPU.  So
 * before jansson sees the document, a scanner reads every thread's
 * "histogram" object that is plain ("latency": count members, the latency
 * a canonical decimal within the range, the count a non-negative integer
 * of at most 18 digits, no latency twice) into pairs, and jansson parses
 * a copy of the document without those objects' members: an empty object
 * there.  A histogram that is not plain, a document whose shape the
 * scanner doubts, or a copy jansson refuses leaves the document as sent
 * to jansson alone, so whatever is wrong with it is reported exactly as
 * without the scanner.
 */
struct ct_pair {
	uint32_t bucket_us;
	uint64_t count;
};

struct ct_fast_hist {
	char key[16];	   /* the thread's key under "thread" */
	size_t first, n;   /* its pairs */
	size_t begin, end; /* its members in the text */
};

struct ct_fast {
	const char *s;
	size_t len, i;
	uint32_t range_us;
	uint8_t *seen; /* a bit a bucket, of the histogram being read */
	struct ct_pair *pairs;
	size_t npairs, cap_pairs;
	struct ct_fast_hist *hists;
	size_t nhists, cap_hists;
	char *text; /* the copy without the pairs, once the scan succeeded */
	size_t text_len;
};

static void ct_fast_cleanup(struct ct_fast *f)
{
	free(f->seen);
	free(f->pairs);
	free(f->hists);
	free(f->text);
	memset(f, 0, sizeof(*f));
}

static void fast_ws(struct ct_fast *f)
{
	while (f->i < f->len && (f->s[f->i] == ' ' || f->s[f->i] == '\t' ||
				 f->s[f->i] == '\n' || f->s[f->i] == '\r'))
		f->i++;
}

static bool fast_char(struct ct_fast *f, char c)
{
	fast_ws(f);
	if (f->i >= f->len || f->s[f->i] != c)
		return false;
	f->i++;
	fast_ws(f);
	return true;
}

/* A string at f->i: *@plain when it has no escape (then [*@start, +*@n)
 * is its value). */
static bool fast_string(struct ct_fast *f, size_t *start, size_t *n,
			bool *plain)
{
	if (f->i >= f->len || f->s[f->i] != '"')
		return false;
	*plain = true;
	*start = ++f->i;
	while (f->i < f->len && f->s[f->i] != '"') {
		if (f->s[f->i] == '\\') {
			*plain = false;
			f->i++;
		}
		f->i++;
	}
	if (f->i >= f->len)
		return false;
	*n = f->i++ - *start;
	return true;
}

/* Past any value, unchecked: jansson checks it. */
static bool fast_skip(struct ct_fast *f)
{
	size_t start, n, depth = 0;
	bool plain;

	if (f->i < f->len && f->s[f->i] == '"')
		return fast_string(f, &start, &n, &plain);
	if (f->i < f->len && f->s[f->i] != '{' && f->s[f->i] != '[') {
		/* A scalar: up to the next delimiter. */
		start = f->i;
		while (f->i < f->len && f->s[f->i] &&
		       !strchr(",}] \t\n\r", f->s[f->i]))
			f->i++;
		return f->i > start;
	}
	while (f->i < f->len) {
		switch (f->s[f->i]) {
		case '"':
			if (!fast_string(f, &start, &n, &plain))
				return false;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (!--depth) {
				f->i++;
				return true;
			}
			break;
		}
		f->i++;
	}
	return false;
}

/* Digits at f->i, canonical (no leading zero), at most @max of them. */
static bool fast_digits(struct ct_fast *f, size_t max, uint64_t *v)
{
	size_t start = f->i;

	*v = 0;
	while (f->i < f->len && f->s[f->i] >= '0' && f->s[f->i] <= '9') {
		*v = *v * 10 + (uint64_t)(f->s[f->i] - '0');
		f->i++;
		if (f->i - start > max)
			return false;
	}
	return f->i > start && (f->i - start == 1 || f->s[start] != '0');
}

static bool fast_hist(struct ct_fast *f, const char *key, size_t keylen)
{
	struct ct_fast_hist *h;
	uint64_t bucket, count;
	size_t k;

	if (f->nhists == f->cap_hists) {
		size_t cap = f->cap_hists ? 2 * f->cap_hists : 4;
		void *bigger = realloc(f->hists, cap * sizeof(*f->hists));

		if (!bigger)
			return false;
		f->hists = bigger;
		f->cap_hists = cap;
	}
	h = &f->hists[f->nhists];
	memcpy(h->key, key, keylen);
	h->key[keylen] = '\0';
	h->first = f->npairs;
	h->begin = ++f->i;
	fast_ws(f);
	while (f->i < f->len && f->s[f->i] != '}') {
		if (f->npairs > h->first && !fast_char(f, ','))
			return false;
		if (f->i >= f->len || f->s[f->i] != '"')
			return false;
		f->i++;
		if (!fast_digits(f, 6, &bucket) || bucket >= f->range_us ||
		    f->i >= f->len || f->s[f->i++] != '"')
			return false;
		if (f->seen[bucket / 8] & (1u << (bucket % 8)))
			return false;
		f->seen[bucket / 8] |= (uint8_t)(1u << (bucket % 8));
		if (!fast_char(f, ':') || !fast_digits(f, 18, &count) ||
		    f->i >= f->len || !f->s[f->i] ||
		    !strchr(",} \t\n\r", f->s[f->i]))
			return false;
		if (f->npairs == f->cap_pairs) {
			size_t cap = f->cap_pairs ? 2 * f->cap_pairs : 1024;
			void *bigger =
				realloc(f->pairs, cap * sizeof(*f->pairs));

			if (!bigger)
				return false;
			f->pairs = bigger;
			f->cap_pairs = cap;
		}
		f->pairs[f->npairs].bucket_us = (uint32_t)bucket;
		f->pairs[f->npairs].count = count;
		f->npairs++;
		fast_ws(f);
	}
	if (f->i >= f->len)
		return false;
	h->end = f->i++;
	h->n = f->npairs - h->first;
	for (k = h->first; k < f->npairs; k++)
		f->seen[f->pairs[k].bucket_us / 8] = 0;
	f->nhists++;
	return true;
}

/* The object at f->i, @level deep on the way to the histograms (0: the
 * document, 1: "thread", 2: a thread, whose key is @key). */
static bool fast_object(struct ct_fast *f, const char *key, size_t keylen,
			int level);

static bool fast_member(struct ct_fast *f, const char *parent, size_t parentlen,
			int level)
{
	size_t start, n;
	bool plain;

	if (!fast_string(f, &start, &n, &plain) || !fast_char(f, ':'))
		return false;
	if (f->i < f->len && f->s[f->i] == '{' && plain) {
		const char *k = f->s + start;

		if (level == 0 && n == 6 && !memcmp(k, "thread", 6))
			return fast_object(f, k, n, 1);
		if (level == 1 && n < sizeof(((struct ct_fast_hist *)0)->key))
			return fast_object(f, k, n, 2);
		if (level == 2 && n == 9 && !memcmp(k, "histogram", 9))
			return fast_hist(f, parent, parentlen);
	}
	return fast_skip(f);
}

static bool fast_object(struct ct_fast *f, const char *key, size_t keylen,
			int level)
{
	bool first = true;

	if (f->i >= f->len || f->s[f->i] != '{')
		return false;
	f->i++;
	fast_ws(f);
	while (f->i < f->len && f->s[f->i] != '}') {
		if (!first && !fast_char(f, ','))
			return false;
		first = false;
		if (!fast_member(f, key, keylen, level))
			return false;
		fast_ws(f);
	}
	if (f->i >= f->len)
		return false;
	f->i++;
	return true;
}

/*
 * Scan @text for plain histograms: @f gets their pairs and f->text the
 * copy without them, or holds nothing (f->text NULL) when jansson is to
 * read the original alone.
 */
static void ct_fast_scan(struct ct_fast *f, const char *text, size_t len,
			 uint32_t range_us)
{
	size_t h, from;

	memset(f, 0, sizeof(*f));
	f->s = text;
	f->len = len;
	f->range_us = range_us;
	if (!range_us || range_us > RTLAB_MAX_HIST_RANGE_US)
		return;
	f->seen = calloc(range_us / 8 + 1, 1);
	if (!f->seen)
		goto fail;
	fast_ws(f);
	if (!fast_object(f, NULL, 0, 0) || !f->nhists)
		goto fail;
	f->text = malloc(len);
	if (!f->text)
		goto fail;
	for (h = 0, from = 0; h < f->nhists; h++) {
		memcpy(f->text + f->text_len, text + from,
		       f->hists[h].begin - from);
		f->text_len += f->hists[h].begin - from;
		from = f->hists[h].end;
	}
	memcpy(f->text + f->text_len, text + from, len - from);
	f->text_len += len - from;
	return;
fail:
	ct_fast_cleanup(f);
}

/* The scanned histogram of thread @key, NULL when jansson has it. */
static const struct ct_fast_hist *ct_fast_find(const struct ct_fast *f,
					       const char *key)
{
	size_t h;

	for (h = 0; f && h < f->nhists; h++)
		if (!strcmp(f->hists[h].key, key))
			return &f->hists[h];
	return NULL;
}

/* Bucket @bucket_us of @h gets @n more samples, which may not make the
 * counts add up to more than @cycles. */
static int hist_count(struct hist *h, uint64_t bucket_us, uint64_t n,
		      uint64_t cycles, uint64_t *sum, const char *path,
		      struct rtlab_err *err)
{
	h->counts[bucket_us] += n;
	*sum += n;
	if (*sum > cycles)
		return rtlab_err_set(
			err,
			CT_JSON
			": key '%shistogram': counts add up to more than %scycles (%" PRIu64
			")",
			path, path, cycles);
	return 0;
}

static int json_thread(json_t *t, const char *key, uint32_t range_us,
		       const struct ct_fast *fast, struct hist *h,
		       struct rtlab_err *err)
{
	const struct ct_fast_hist *fh = ct_fast_find(fast, key);
	char path[64];
	json_t *histo, *v, *avg;
	const char *bkey;
	uint64_t cycles, min_us, max_us, cpu, bucket, sum = 0;
	size_t k;
	int ret;

	snprintf(path, sizeof(path), "thread.%s.", key);
	if (!json_is_object(t))
		return rtlab_err_set(err,
				     CT_JSON
				     ": key 'thread.%s': expected an object",
				     key);
	ret = json_uint(t, "cycles", path, INT64_MAX, true, &cycles, err);
	if (ret)
		return ret;
	if (cycles > RTLAB_MAX_RUN_SAMPLES)
		return rtlab_err_set(err,
				     CT_JSON
				     ": key '%scycles': %" PRIu64
				     " samples, more than the limit of %llu per run",
				     path, cycles, RTLAB_MAX_RUN_SAMPLES);
	ret = json_uint(t, "min", path, UINT32_MAX, true, &min_us, err);
	if (ret)
		return ret;
	ret = json_uint(t, "max", path, UINT32_MAX, true, &max_us, err);
	if (ret)
		return ret;
	cpu = (uint64_t)-1;
	ret = json_uint(t, "cpu", path, INT_MAX, false, &cpu, err);
	if (ret < 0)
		return ret;
	avg = json_object_get(t, "avg");
	if (avg && !json_is_number(avg))
		return rtlab_err_set(err,
				     CT_JSON ": key '%savg': expected a number",
				     path);

	ret = hist_init(h, range_us);
	if (ret)
		return ret;
	h->thread = atoi(key);
	h->cpu = cpu == (uint64_t)-1 ? -1 : (int)cpu;

	histo = json_object_get(t, "histogram");
	if (histo && !json_is_object(histo))
		return rtlab_err_set(err,
				     CT_JSON
				     ": key '%shistogram': expected an object",
				     path);
	/* Scanned: "histogram" is an empty object in @t. */
	for (k = 0; fh && k < fh->n; k++) {
		ret = hist_count(h, fast->pairs[fh->first + k].bucket_us,
				 fast->pairs[fh->first + k].count, cycles, &sum,
				 path, err);
		if (ret)
			return ret;
	}
	json_object_foreach(histo, bkey, v) {
		if (!parse_u64(bkey, &bucket))
			return rtlab_err_set(
				err,
				CT_JSON
				": key '%shistogram.%s': expected a latency in us as the key",
				path, bkey);
		if (bucket >= range_us)
			return rtlab_err_set(
				err,
				CT_JSON
				": key '%shistogram.%s': beyond the histogram range of %u us",
				path, bkey, range_us);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return rtlab_err_set(
				err,
				CT_JSON
				": key '%shistogram.%s': expected a non-negative integer count",
				path, bkey);
		ret = hist_count(h, bucket, (uint64_t)json_integer_value(v),
				 cycles, &sum, path, err);
		if (ret)
			return ret;
	}
	h->samples = cycles;
	h->overflows = cycles - sum;
	if (cycles) {
		h->min_us = (uint32_t)min_us;
		h->max_us = (uint32_t)max_us;
		h->avg_us = avg ? json_number_value(avg) : NAN;
	}
	ret = hist_check(h, err);
	if (ret)
		rtlab_err_prefix(err, CT_JSON ": key 'thread.%s'", key);
	return ret;
}

int ct_json_parse(const char *text, size_t len, uint32_t hist_range_us,
		  struct ct_result *res, struct rtlab_err *err)
{
	struct ct_fast fast = { 0 };
	json_error_t jerr;
	json_t *root, *threads, *j, *sysinfo;
	uint64_t num = 0, rc, total = 0;
	unsigned int i;
	size_t n;
	char key[16];
	int ret;

	ct_result_reset(res);
	if (len > RTLAB_MAX_CT_JSON_BYTES)
		return rtlab_err_set(err,
				     CT_JSON
				     ": %zu bytes, more than the limit of %lu",
				     len, RTLAB_MAX_CT_JSON_BYTES);
	ct_fast_scan(&fast, text, len, hist_range_us);
	root = fast.text ? json_loadb(fast.text, fast.text_len,
				      JSON_REJECT_DUPLICATES, &jerr) :
			   NULL;
	if (!root) {
		/* Errors are the document's as sent. */
		ct_fast_cleanup(&fast);
		root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	}
	if (!root)
		return rtlab_err_set(err, CT_JSON ": line %d column %d: %s",
				     jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		ret = rtlab_err_set(err,
				    CT_JSON ": expected an object at the top");
		goto out;
	}
	ret = json_strdup(root, "cmdline", &res->cmdline, err);
	if (ret)
		goto out;
	ret = json_strdup(root, "rt_test_version", &res->version, err);
	if (ret)
		goto out;
	ret = json_uint(root, "return_code", "", INT_MAX, false, &rc, err);
	if (ret < 0)
		goto out;
	res->return_code = ret ? 0 : (int)rc;
	sysinfo = json_object_get(root, "sysinfo");
	j = sysinfo ? json_object_get(sysinfo, "realtime") : NULL;
	if (j) {
		if (json_is_integer(j) &&
		    (json_integer_value(j) == 0 || json_integer_value(j) == 1))
			res->realtime = (int)json_integer_value(j);
		else if (json_is_boolean(j))
			res->realtime = json_is_true(j);
		else {
			ret = rtlab_err_set(
				err, CT_JSON
				": key 'sysinfo.realtime': expected 0 or 1");
			goto out;
		}
	}

	threads = json_object_get(root, "thread");
	if (!json_is_object(threads)) {
		ret = rtlab_err_set(err, CT_JSON ": %s key 'thread'",
				    threads ? "expected an object as" :
					      "missing");
		goto out;
	}
	n = json_object_size(threads);
	ret = json_uint(root, "num_threads", "", CT_MAX_THREADS, false, &num,
			err);
	if (ret < 0)
		goto out;
	if (ret == 0 && num != n) {
		ret = rtlab_err_set(err,
				    CT_JSON ": key 'num_threads' says %" PRIu64
					    " but 'thread' has %zu",
				    num, n);
		goto out;
	}
	if (n == 0 || n > CT_MAX_THREADS) {
		ret = rtlab_err_set(
			err,
			CT_JSON
			": key 'thread': expected 1 to %d threads, got %zu",
			CT_MAX_THREADS, n);
		goto out;
	}
	if (hist_range_us > RTLAB_MAX_HIST_RANGE_US) {
		ret = rtlab_err_set(
			err,
			CT_JSON
			": histogram range %u us is more than the limit of %u us",
			hist_range_us, RTLAB_MAX_HIST_RANGE_US);
		goto out;
	}
	if ((uint64_t)n * hist_range_us > RTLAB_MAX_HIST_CELLS) {
		ret = rtlab_err_set(err,
				    CT_JSON
				    ": %zu threads of %u us histograms are %" PRIu64
				    " histogram cells, more than the limit of %u",
				    n, hist_range_us,
				    (uint64_t)n * hist_range_us,
				    RTLAB_MAX_HIST_CELLS);
		goto out;
	}
	res->threads = calloc(n, sizeof(*res->threads));
	if (!res->threads) {
		ret = -ENOMEM;
		goto out;
	}
	res->nthreads = (unsigned int)n;
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "%u", i);
		j = json_object_get(threads, key);
		if (!j) {
			ret = rtlab_err_set(
				err,
				CT_JSON
				": missing key 'thread.%s' (threads must be numbered 0 to %zu)",
				key, n - 1);
			goto out;
		}
		ret = json_thread(j, key, hist_range_us, &fast,
				  &res->threads[i], err);
		if (ret)
			goto out;
		if (__builtin_add_overflow(total, res->threads[i].samples,
					   &total) ||
		    total > RTLAB_MAX_RUN_SAMPLES) {
			ret = rtlab_err_set(
				err,
				CT_JSON
				": threads 0 to %u have more samples than the limit of %llu per run",
				i, RTLAB_MAX_RUN_SAMPLES);
			goto out;
		}
	}
	ret = 0;
out:
	json_decref(root);
	ct_fast_cleanup(&fast);
	if (ret)
		ct_result_cleanup(res);
	return ret;
}

/* ---------------------------------------------------------------- text */

#define CT_MAX_COLS (CT_MAX_THREADS + 1)

/* Split @s into unsigned decimal fields (each all digits).  Return the
 * count, or -1 with *@bad pointing at the offending field. */
static int split_u64(char *s, uint64_t *vals, int max, char **bad)
{
	char *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(s, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (n == max || !parse_u64(tok, &vals[n])) {
			*bad = tok;
			return -1;
		}
		n++;
	}
	return n;
}

enum ct_line { CT_TOTAL, CT_MIN, CT_AVG, CT_MAX, CT_OVERFLOWS, CT_NLINES };

static const char *const ct_line_name[CT_NLINES] = {
	"# Total:",	    "# Min Latencies:",	      "# Avg Latencies:",
	"# Max Latencies:", "# Histogram Overflows:",
};

struct ct_text {
	uint64_t *rows;	  /* nrows * ncols bucket counts */
	uint64_t *bucket; /* nrows bucket latencies */
	size_t nrows, cap;
	int ncols;
	uint64_t *sum[CT_NLINES];
	int nsum[CT_NLINES];
};

static void ct_text_cleanup(struct ct_text *t)
{
	int i;

	free(t->rows);
	free(t->bucket);
	for (i = 0; i < CT_NLINES; i++)
		free(t->sum[i]);
}

static int ct_text_row(struct ct_text *t, uint64_t *vals, int n,
		       unsigned int lineno, struct rtlab_err *err)
{
	void *p;

	if (n < 2)
		return rtlab_err_set(
			err,
			CT_HIST
			" line %u: expected a latency and at least one count",
			lineno);
	if (t->nrows && n - 1 != t->ncols)
		return rtlab_err_set(
			err,
			CT_HIST
			" line %u: expected %d counts like the lines before, got %d",
			lineno, t->ncols, n - 1);
	if (t->nrows && vals[0] <= t->bucket[t->nrows - 1])
		return rtlab_err_set(err,
				     CT_HIST " line %u: latency %" PRIu64
					     " us does not follow %" PRIu64
					     " us",
				     lineno, vals[0], t->bucket[t->nrows - 1]);
	if (vals[0] >= RTLAB_MAX_HIST_RANGE_US)
		return rtlab_err_set(
			err,
			CT_HIST
			" line %u: latency %" PRIu64
			" us is beyond the histogram range limit of %u us",
			lineno, vals[0], RTLAB_MAX_HIST_RANGE_US);
	/* the -H column comes on top of one cell per thread and bucket */
	if ((uint64_t)(t->nrows + 1) * (uint64_t)(n - 1) >
	    RTLAB_MAX_HIST_CELLS + RTLAB_MAX_HIST_RANGE_US)
		return rtlab_err_set(
			err,
			CT_HIST
			" line %u: more histogram cells than the limit of %u",
			lineno, RTLAB_MAX_HIST_CELLS);
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		p = realloc(t->bucket, t->cap * sizeof(*t->bucket));
		if (!p)
			return -ENOMEM;
		t->bucket = p;
		p = realloc(t->rows, t->cap * (n - 1) * sizeof(*t->rows));
		if (!p)
			return -ENOMEM;
		t->rows = p;
	}
	t->ncols = n - 1;
	t->bucket[t->nrows] = vals[0];
	memcpy(&t->rows[t->nrows * t->ncols], &vals[1],
	       (n - 1) * sizeof(*vals));
	t->nrows++;
	return 0;
}

static int ct_text_summary(struct ct_text *t, enum ct_line which, char *rest,
			   uint64_t *vals, unsigned int lineno,
			   struct rtlab_err *err)
{
	char *bad = NULL;
	int n;

	if (t->sum[which])
		return rtlab_err_set(err, CT_HIST " line %u: second '%s' line",
				     lineno, ct_line_name[which]);
	n = split_u64(rest, vals, CT_MAX_COLS, &bad);
	if (n < 0)
		return rtlab_err_set(
			err,
			CT_HIST
			" line %u: '%s': expected non-negative numbers, got '%s'",
			lineno, ct_line_name[which], bad);
	if (n == 0)
		return rtlab_err_set(err,
				     CT_HIST " line %u: '%s' has no values",
				     lineno, ct_line_name[which]);
	t->sum[which] = malloc(n * sizeof(*vals));
	if (!t->sum[which])
		return -ENOMEM;
	memcpy(t->sum[which], vals, n * sizeof(*vals));
	t->nsum[which] = n;
	return 0;
}

static int ct_text_lines(struct ct_text *t, char *buf, struct rtlab_err *err)
{
	uint64_t *vals;
	char *line, *next, *bad = NULL;
	unsigned int lineno = 0;
	size_t l;
	int i, n, ret = 0;

	vals = malloc(CT_MAX_COLS * sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (line = buf; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[--l] = '\0';
		if (!l)
			continue;
		if (line[0] != '#') {
			n = split_u64(line, vals, CT_MAX_COLS, &bad);
			if (n < 0)
				ret = rtlab_err_set(
					err,
					CT_HIST
					" line %u: expected numbers, got '%s'",
					lineno, bad);
			else
				ret = ct_text_row(t, vals, n, lineno, err);
			continue;
		}
		for (i = 0; i < CT_NLINES; i++) {
			l = strlen(ct_line_name[i]);
			if (!strncmp(line, ct_line_name[i], l)) {
				ret = ct_text_summary(t, i, line + l, vals,
						      lineno, err);
				break;
			}
		}
		/* other comments: "# Histogram", "# Thread N: ...",
		 * "# /dev/cpu_dma_latency set to 0us" */
	}
	free(vals);
	return ret;
}

int ct_hist_parse(const char *text, size_t len, struct ct_result *res,
		  struct rtlab_err *err)
{
	struct ct_text t = { 0 };
	uint64_t sum, total, ovf, run = 0;
	unsigned int nthreads, i, k;
	uint32_t nbuckets;
	struct hist *h;
	char *buf;
	size_t r;
	int ret;

	ct_result_reset(res);
	if (memchr(text, '\0', len))
		return rtlab_err_set(err,
				     CT_HIST
				     ": binary data (a NUL byte at offset %zu)",
				     (size_t)((const char *)memchr(text, '\0',
								   len) -
					      text));
	buf = strndup(text, len);
	if (!buf)
		return -ENOMEM;
	ret = ct_text_lines(&t, buf, err);
	if (ret)
		goto out;

	if (!t.nrows) {
		ret = rtlab_err_set(
			err, CT_HIST
			": no bucket lines (expected 'LATENCY COUNT...' lines; was cyclictest run with -h?)");
		goto out;
	}
	for (i = 0; i < CT_NLINES; i++) {
		if (!t.sum[i]) {
			ret = rtlab_err_set(
				err,
				CT_HIST
				": missing line '%s' (truncated output?)",
				ct_line_name[i]);
			goto out;
		}
	}
	/* -H adds a column summing all threads to the buckets, Total, Max
	 * and Overflows lines but not to Min and Avg. */
	nthreads = (unsigned int)t.nsum[CT_MIN];
	if (t.ncols != (int)nthreads &&
	    !(nthreads > 1 && t.ncols == (int)nthreads + 1)) {
		ret = rtlab_err_set(
			err,
			CT_HIST
			": bucket lines have %d counts but '%s' has %u threads",
			t.ncols, ct_line_name[CT_MIN], nthreads);
		goto out;
	}
	for (i = 0; i < CT_NLINES; i++) {
		if (t.nsum[i] != (int)nthreads && t.nsum[i] != t.ncols) {
			ret = rtlab_err_set(
				err,
				CT_HIST
				": '%s' has %d values, expected one per thread (%u)",
				ct_line_name[i], t.nsum[i], nthreads);
			goto out;
		}
	}

	nbuckets = (uint32_t)t.bucket[t.nrows - 1] + 1;
	if ((uint64_t)nthreads * nbuckets > RTLAB_MAX_HIST_CELLS) {
		ret = rtlab_err_set(err,
				    CT_HIST
				    ": %u threads of %u us histograms are %" PRIu64
				    " histogram cells, more than the limit of %u",
				    nthreads, nbuckets,
				    (uint64_t)nthreads * nbuckets,
				    RTLAB_MAX_HIST_CELLS);
		goto out;
	}
	res->threads = calloc(nthreads, sizeof(*res->threads));
	if (!res->threads) {
		ret = -ENOMEM;
		goto out;
	}
	res->nthreads = nthreads;
	for (k = 0; k < nthreads; k++) {
		h = &res->threads[k];
		ret = hist_init(h, nbuckets);
		if (ret)
			goto out;
		h->thread = (int)k;
		sum = 0;
		for (r = 0; r < t.nrows; r++) {
			h->counts[t.bucket[r]] = t.rows[r * t.ncols + k];
			if (__builtin_add_overflow(sum, t.rows[r * t.ncols + k],
						   &sum)) {
				ret = rtlab_err_set(
					err,
					CT_HIST
					": thread %u: the buckets add up to more than 64 bits hold",
					k);
				goto out;
			}
		}
		total = t.sum[CT_TOTAL][k];
		ovf = t.sum[CT_OVERFLOWS][k];
		if (sum != total) {
			ret = rtlab_err_set(err,
					    CT_HIST
					    ": thread %u: '# Total:' says %" PRIu64
					    " but the buckets add up to %" PRIu64,
					    k, total, sum);
			goto out;
		}
		if (t.sum[CT_MIN][k] > UINT32_MAX ||
		    t.sum[CT_MAX][k] > UINT32_MAX) {
			ret = rtlab_err_set(
				err,
				CT_HIST
				": thread %u: min or max latency out of range",
				k);
			goto out;
		}
		if (__builtin_add_overflow(total, ovf, &h->samples) ||
		    __builtin_add_overflow(run, h->samples, &run) ||
		    run > RTLAB_MAX_RUN_SAMPLES) {
			ret = rtlab_err_set(
				err,
				CT_HIST
				": threads 0 to %u have more samples than the limit of %llu per run",
				k, RTLAB_MAX_RUN_SAMPLES);
			goto out;
		}
		h->overflows = ovf;
		if (h->samples) {
			h->min_us = (uint32_t)t.sum[CT_MIN][k];
			h->max_us = (uint32_t)t.sum[CT_MAX][k];
			/* the text truncates the mean to whole µs */
			h->avg_us = (double)t.sum[CT_AVG][k];
		}
		ret = hist_check(h, err);
		if (ret) {
			rtlab_err_prefix(err, CT_HIST);
			goto out;
		}
	}
	ret = 0;
out:
	ct_text_cleanup(&t);
	free(buf);
	if (ret)
		ct_result_cleanup(res);
	return ret;
}
