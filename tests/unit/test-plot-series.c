// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the series plots' pure parts: the median of per-run
 * figures, the trend's gnuplot script (log or linear scale, clauses only
 * for metrics that have values, kernel labels quoted) and, when gnuplot is
 * installed, real renders of a trend and a baseline-over-candidate plot.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/plot.h"
#include "check.h"

static bool has(const struct strbuf *s, const char *text)
{
	return s->buf && strstr(s->buf, text);
}

static void test_median(void)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	double gaps[] = { NAN, 7, NAN, 9, 8 }, none[] = { NAN, NAN };

	CHECK(plot_trend_median(odd, 3) == 3, "median of 3 values");
	CHECK(plot_trend_median(even, 4) == 2.5, "median of 4 values");
	CHECK(plot_trend_median(gaps, 5) == 8, "median skips unknown values");
	CHECK(isnan(plot_trend_median(none, 2)), "median of none is NAN");
	CHECK(isnan(plot_trend_median(NULL, 0)), "median of nothing is NAN");
}

static void test_trend_script(void)
{
	double wide_max[] = { 40, 4000 }, wide_p[] = { 20, 30 };
	double narrow_max[] = { 40, 45 }, no_p[] = { NAN, NAN };
	struct plot_trend_kernel k[2] = {
		{ "6.1.0-1-rt", 2, wide_max, wide_p },
		{ "it's-rt", 2, wide_max, wide_p },
	};
	struct plot_trend t = { "b / t: trend", "clock icount:3", 2, k, 0, 0 };
	struct strbuf s;
	int ret;

	ret = plot_script_trend(&t, PLOT_SVG, &s);
	CHECK_INT(ret, 0, "trend script builds");
	CHECK(has(&s, "set logscale y"), "values over 20x apart: log scale");
	CHECK(has(&s, "\"6.1.0-1-rt\" 0, \"it's-rt\" 1"),
	      "kernel labels as quoted xtics in order");
	CHECK(has(&s, "title 'max, per run'") &&
		      has(&s, "title 'p99.9, median of runs'"),
	      "points and medians of both metrics");
	CHECK(has(&s, "set terminal svg") && has(&s, "set output 'plot.svg'"),
	      "SVG terminal and output");
	strbuf_cleanup(&s);

	k[0].max_us = k[1].max_us = narrow_max;
	k[0].p999_us = k[1].p999_us = no_p;
	ret = plot_script_trend(&t, PLOT_PNG, &s);
	CHECK_INT(ret, 0, "narrow trend script builds");
	CHECK(!has(&s, "set logscale y"), "values close together: linear");
	CHECK(!has(&s, "p99.9"), "no p99.9 values: no p99.9 clauses");
	strbuf_cleanup(&s);

	t.nkernels = 0;
	ret = plot_script_trend(&t, PLOT_PNG, &s);
	CHECK_INT(ret, -EINVAL, "no kernels: -EINVAL");
	strbuf_cleanup(&s);
}

static bool png_sig(const void *img, size_t size)
{
	return size > 1000 && !memcmp(img, "\x89PNG\r\n\x1a\n", 8);
}

static void test_render(void)
{
	double mx[] = { 50, 52, 49 }, p[] = { 30, NAN, 31 };
	struct plot_trend_kernel k[2] = {
		{ "6.1.0-1-rt", 3, mx, p },
		{ "6.1.0-2-rt", 1, mx, p },
	};
	struct plot_trend t = { "b / t", NULL, 2, k, 0, 0 };
	struct plot_compare c = { 0 };
	struct rtlab_err err = { "" };
	struct hist hb = { 0 }, hc = { 0 };
	void *img = NULL;
	size_t size = 0;
	int ret;

	if (system("command -v gnuplot >/dev/null 2>&1")) {
		CHECK(0, "gnuplot is installed (make deps)");
		return;
	}
	ret = plot_trend_render(&t, PLOT_PNG, &img, &size, &err);
	CHECK(!ret && png_sig(img, size), "trend renders a PNG (%s)", err.msg);
	free(img);
	img = NULL;

	if (hist_init(&hb, 100) || hist_init(&hc, 100)) {
		CHECK(0, "histograms allocated");
		goto out;
	}
	hist_add(&hb, 10, 1000);
	hist_add(&hb, 20, 3);
	hist_add(&hc, 12, 1000);
	hist_add(&hc, 250, 1);
	c.title = "b / t: baseline over candidate";
	c.baseline = (struct plot_compare_side){ "6.1.0-1-rt", 5, &hb };
	c.candidate = (struct plot_compare_side){ "6.1.0-2-rt", 4, &hc };
	ret = plot_compare_render(&c, PLOT_SVG, &img, &size, &err);
	CHECK(!ret && img && strstr(img, "<svg"),
	      "compare renders an SVG "
	      "(%s)",
	      err.msg);
	CHECK(!ret && img &&
		      strstr(img,
			     "baseline 6.1.0-1-rt, 5 runs, 1003 samples") &&
		      strstr(img, "candidate 6.1.0-2-rt, 4 runs, 1001 samples "
				  "(max 250 µs"),
	      "compare legend: releases, run and sample counts, maxima");
	CHECK(!ret && img && strstr(img, "Fraction of its own samples"),
	      "compare: each side normalised to its own samples");
	free(img);
out:
	hist_cleanup(&hb);
	hist_cleanup(&hc);
}

int main(void)
{
	test_median();
	test_trend_script();
	test_render();
	return check_exit();
}
