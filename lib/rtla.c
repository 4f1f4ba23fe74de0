// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reader of rtla's histogram text (timerlat hist, osnoise hist, Linux
 * 6.1): rtla 6.1 writes no JSON, so its columns are read strictly -- every
 * line has one value per column of the "Index" line, the summary lines
 * must all be there (a cut-off output is refused), and each histogram
 * must add up (hist_check()) before it is handed back.  Sizes are checked
 * against run-limits.h before anything is allocated.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtla.h"
#include "run-limits.h"

#define MAX_COLS (2 * RTLAB_MAX_THREADS)

enum col_kind { COL_IRQ, COL_THREAD, COL_NOISE };

struct col {
	enum col_kind kind;
	int cpu;
	uint64_t over, count, min, max;
	double avg;
	bool have_over, have_count, have_min, have_avg, have_max;
};

struct line {
	const char *s;
	size_t len;
	unsigned int no;
};

/* Next line of @text from *@pos; false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, struct line *l)
{
	const char *nl;

	if (*pos >= len)
		return false;
	l->s = text + *pos;
	nl = memchr(l->s, '\n', len - *pos);
	l->len = nl ? (size_t)(nl - l->s) : len - *pos;
	*pos += l->len + (nl ? 1 : 0);
	l->no++;
	return true;
}

/* Split @l into at most @max whitespace-separated tokens (copied into
 * @buf); returns their number, or max + 1 when there are more. */
static size_t tokens(const struct line *l, char *buf, size_t bufsz, char **tok,
		     size_t max)
{
	size_t n = 0, i = 0, o = 0;

	while (i < l->len) {
		while (i < l->len &&
		       (l->s[i] == ' ' || l->s[i] == '\t' || l->s[i] == '\r'))
			i++;
		if (i >= l->len)
			break;
		if (n == max)
			return max + 1;
		if (o >= bufsz)
			return max + 1;
		tok[n++] = buf + o;
		while (i < l->len && l->s[i] != ' ' && l->s[i] != '\t' &&
		       l->s[i] != '\r' && o + 1 < bufsz)
			buf[o++] = l->s[i++];
		if (i < l->len && l->s[i] != ' ' && l->s[i] != '\t' &&
		    l->s[i] != '\r')
			return max + 1;
		buf[o++] = '\0';
	}
	return n;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

static int parse_label(const char *tok, enum rt_tool tool, struct col *c)
{
	char kind[8];
	int cpu, n = 0;

	if (sscanf(tok, "%3[A-Za-z]-%d%n", kind, &cpu, &n) != 2 || tok[n] ||
	    cpu < 0 || cpu >= (int)RTLAB_MAX_THREADS)
		return -EINVAL;
	c->cpu = cpu;
	if (tool == RT_TOOL_TIMERLAT && !strcmp(kind, "IRQ"))
		c->kind = COL_IRQ;
	else if (tool == RT_TOOL_TIMERLAT && !strcmp(kind, "Thr"))
		c->kind = COL_THREAD;
	else if (tool == RT_TOOL_OSNOISE && !strcmp(kind, "CPU"))
		c->kind = COL_NOISE;
	else
		return -EINVAL;
	return 0;
}

struct parse {
	enum rt_tool tool;
	const char *file;
	size_t ncols;
	struct col *cols;
	uint32_t range;
	char *buf;
	size_t bufsz;
	char **tok;
	struct rtlab_err *err;
};

/* One summary line ("over:", "count:", ...) into the columns. */
static int summary_line(struct parse *p, const struct line *l, char **tok)
{
	const char *key = tok[0];
	size_t i;

	for (i = 0; i < p->ncols; i++) {
		struct col *c = &p->cols[i];
		const char *v = tok[i + 1];
		uint64_t u = 0;
		bool dash = !strcmp(v, "-");

		if (!strcmp(key, "avg:")) {
			char *end;

			c->avg = dash ? 0 : strtod(v, &end);
			if (!dash && (*v < '0' || *v > '9' || *end))
				goto bad;
			c->have_avg = true;
			continue;
		}
		if (!dash && !parse_u64(v, &u))
			goto bad;
		if (dash && (!strcmp(key, "over:") || !strcmp(key, "count:")))
			goto bad;
		if (!strcmp(key, "over:")) {
			c->over = u;
			c->have_over = true;
		} else if (!strcmp(key, "count:")) {
			c->count = u;
			c->have_count = true;
		} else if (!strcmp(key, "min:")) {
			c->min = u;
			c->have_min = true;
		} else {
			c->max = u;
			c->have_max = true;
		}
		continue;
bad:
		return rtlab_err_set(p->err,
				     "%s: line %u: '%s' column %zu: expected "
				     "a number, got '%s'",
				     p->file, l->no, key, i + 1, v);
	}
	return 0;
}

/* Pass 1: the columns, the range, the summary; every line checked. */
static int scan(struct parse *p, const char *text, size_t len)
{
	size_t pos = 0, n, i;
	struct line l = { 0 };
	bool index_seen = false;
	uint64_t idx;
	int ret;

	while (next_line(text, len, &pos, &l)) {
		if (!l.len || l.s[0] == '#') {
			if (l.len > 14 && !strncmp(l.s, "# Time unit is", 14) &&
			    !memmem(l.s, l.len, "(us)", 4))
				return rtlab_err_set(p->err,
						     "%s: line %u: expected "
						     "microseconds (no -n)",
						     p->file, l.no);
			continue;
		}
		n = tokens(&l, p->buf, p->bufsz, p->tok, MAX_COLS + 1);
		if (!n)
			continue;
		if (!index_seen) {
			if (strcmp(p->tok[0], "Index"))
				return rtlab_err_set(p->err,
						     "%s: line %u: expected the "
						     "'Index' header line, got "
						     "'%.40s'",
						     p->file, l.no, p->tok[0]);
			if (n < 2 || n > MAX_COLS + 1)
				return rtlab_err_set(p->err,
						     "%s: line %u: expected 1..%u "
						     "columns after 'Index'",
						     p->file, l.no, MAX_COLS);
			p->ncols = n - 1;
			p->cols = calloc(p->ncols, sizeof(*p->cols));
			if (!p->cols)
				return -ENOMEM;
			for (i = 0; i < p->ncols; i++)
				if (parse_label(p->tok[i + 1], p->tool,
						&p->cols[i]))
					return rtlab_err_set(
						p->err,
						"%s: line %u: column '%.20s' is "
						"not %s",
						p->file, l.no, p->tok[i + 1],
						p->tool == RT_TOOL_TIMERLAT ?
							"IRQ-NNN or Thr-NNN" :
							"CPU-NNN");
			index_seen = true;
			continue;
		}
		if (n != p->ncols + 1)
			return rtlab_err_set(p->err,
					     "%s: line %u: %zu values, expected "
					     "%zu (one per column)",
					     p->file, l.no, n - 1, p->ncols);
		if (parse_u64(p->tok[0], &idx)) {
			if (idx >= RTLAB_MAX_HIST_RANGE_US)
				return rtlab_err_set(p->err,
						     "%s: line %u: bucket %llu "
						     "beyond %u us",
						     p->file, l.no,
						     (unsigned long long)idx,
						     RTLAB_MAX_HIST_RANGE_US);
			if (p->cols[0].have_over)
				return rtlab_err_set(p->err,
						     "%s: line %u: bucket line "
						     "after 'over:'",
						     p->file, l.no);
			for (i = 1; i < n; i++)
				if (!parse_u64(p->tok[i], &idx))
					return rtlab_err_set(
						p->err,
						"%s: line %u: column %zu: "
						"expected a count, got '%.20s'",
						p->file, l.no, i, p->tok[i]);
			parse_u64(p->tok[0], &idx);
			if (idx + 1 > p->range)
				p->range = (uint32_t)idx + 1;
			continue;
		}
		if (strcmp(p->tok[0], "over:") && strcmp(p->tok[0], "count:") &&
		    strcmp(p->tok[0], "min:") && strcmp(p->tok[0], "avg:") &&
		    strcmp(p->tok[0], "max:"))
			return rtlab_err_set(p->err,
					     "%s: line %u: expected a bucket "
					     "index or over:/count:/min:/avg:/"
					     "max:, got '%.20s'",
					     p->file, l.no, p->tok[0]);
		ret = summary_line(p, &l, p->tok);
		if (ret)
			return ret;
	}
	if (!index_seen)
		return rtlab_err_set(p->err, "%s: no 'Index' header line",
				     p->file);
	for (i = 0; i < p->ncols; i++) {
		struct col *c = &p->cols[i];
		const char *miss = !c->have_over  ? "over:" :
				   !c->have_count ? "count:" :
				   !c->have_min	  ? "min:" :
				   !c->have_avg	  ? "avg:" :
				   !c->have_max	  ? "max:" :
						    NULL;

		if (miss)
			return rtlab_err_set(p->err,
					     "%s: no '%s' summary line (output "
					     "truncated?)",
					     p->file, miss);
	}
	if ((uint64_t)p->range * p->ncols > RTLAB_MAX_HIST_CELLS)
		return rtlab_err_set(p->err,
				     "%s: %zu columns x %u buckets: too "
				     "many",
				     p->file, p->ncols, p->range);
	return 0;
}

static const char *metric_of(enum col_kind k)
{
	return k == COL_IRQ    ? "timerlat-irq" :
	       k == COL_THREAD ? "timerlat-thread" :
				 "osnoise";
}

/* Pass 2: the bucket counts into the histograms (@slot maps a column
 * to its histogram). */
static int fill(struct parse *p, const char *text, size_t len,
		struct ct_result *res, const unsigned int *slot)
{
	size_t pos = 0, n, i;
	struct line l = { 0 };
	uint64_t idx, v = 0;

	while (next_line(text, len, &pos, &l)) {
		if (!l.len || l.s[0] == '#')
			continue;
		n = tokens(&l, p->buf, p->bufsz, p->tok, MAX_COLS + 1);
		if (!n || !parse_u64(p->tok[0], &idx))
			continue;
		for (i = 1; i < n; i++) {
			struct hist *h = &res->threads[slot[i - 1]];

			parse_u64(p->tok[i], &v);
			if (h->counts[idx] + v < v)
				return rtlab_err_set(p->err,
						     "%s: line %u: counts "
						     "overflow",
						     p->file, l.no);
			h->counts[idx] += v;
		}
	}
	return 0;
}

int rtla_hist_parse(enum rt_tool tool, const char *text, size_t len,
		    uint32_t range_us, struct ct_result *res,
		    struct rtlab_err *err)
{
	struct parse p = { .tool = tool, .err = err };
	unsigned int *slot = NULL, next = 0;
	size_t i;
	int pass, ret;

	memset(res, 0, sizeof(*res));
	res->realtime = -1;
	p.file = rt_tool_output(tool);
	if (tool != RT_TOOL_TIMERLAT && tool != RT_TOOL_OSNOISE)
		return rtlab_err_set(err, "%s is not an rtla tool",
				     rt_tool_name(tool));
	if (len > RTLAB_MAX_CT_JSON_BYTES)
		return rtlab_err_set(err, "%s: %zu bytes, more than %lu",
				     p.file, len, RTLAB_MAX_CT_JSON_BYTES);
	p.range = range_us;
	p.bufsz = 64 * 1024;
	p.buf = malloc(p.bufsz);
	p.tok = calloc(MAX_COLS + 2, sizeof(*p.tok));
	if (!p.buf || !p.tok) {
		ret = -ENOMEM;
		goto out;
	}
	ret = scan(&p, text, len);
	if (ret)
		goto out;
	res->threads = calloc(p.ncols, sizeof(*res->threads));
	slot = calloc(p.ncols, sizeof(*slot));
	if (!res->threads || !slot) {
		ret = -ENOMEM;
		goto out;
	}
	/* Thread latencies first: the verdicts use a run's first metric. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < p.ncols; i++) {
			bool first = p.cols[i].kind != COL_IRQ;

			if (first == !pass)
				slot[i] = next++;
		}
	for (i = 0; i < p.ncols; i++) {
		struct col *c = &p.cols[i];
		struct hist *h = &res->threads[slot[i]];

		ret = hist_init(h, p.range);
		if (ret)
			goto out;
		res->nthreads++;
		h->cpu = c->cpu;
		h->thread = (int)slot[i];
		snprintf(h->metric, sizeof(h->metric), "%s",
			 metric_of(c->kind));
		h->overflows = c->over;
		h->samples = c->count;
		if (c->count) {
			h->min_us = c->min > UINT32_MAX ? UINT32_MAX :
							  (uint32_t)c->min;
			h->max_us = c->max > UINT32_MAX ? UINT32_MAX :
							  (uint32_t)c->max;
			h->avg_us = c->avg;
		} else {
			h->max_us = 0;
		}
	}
	/* a column's sum of buckets is checked by hist_check() below */
	ret = fill(&p, text, len, res, slot);
	if (ret)
		goto out;
	for (i = 0; i < p.ncols; i++) {
		struct hist *h = &res->threads[i];

		ret = hist_check(h, err);
		if (ret) {
			rtlab_err_prefix(err, "%s: column %s-%03d", p.file,
					 h->metric, h->cpu);
			goto out;
		}
	}
	ret = 0;
out:
	free(slot);
	free(p.cols);
	free(p.buf);
	free(p.tok);
	return ret;
}
