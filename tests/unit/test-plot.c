// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of reports/plot.c: the gnuplot script builder (log scale,
 * series files, quoting of hostile titles, maxima marked) and a real
 * gnuplot render to PNG and SVG.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/plot.h"
#include "check.h"

static int make_hist(struct hist *h, int cpu, uint32_t base_us, uint32_t max_us)
{
	uint32_t i;
	int ret = hist_init(h, 200);

	if (ret)
		return ret;
	h->cpu = cpu;
	h->thread = cpu;
	for (i = 0; i < 30; i++)
		hist_add(h, base_us + i, 1000 >> (i / 3));
	hist_add(h, max_us, 1);
	h->avg_us = base_us + 3;
	return 0;
}

int main(void)
{
	struct hist h[2] = { 0 }, empty = { 0 };
	struct plot_series series[2];
	struct plot_run run = { 0 };
	struct strbuf s = { 0 };
	enum plot_format fmt;
	struct rtlab_err err = { "" };
	void *img = NULL;
	size_t size = 0;
	int ret;

	CHECK(!make_hist(&h[0], 0, 10, 94) && !make_hist(&h[1], 1, 12, 150),
	      "histograms built");
	series[0] = (struct plot_series){ "CPU 0", &h[0] };
	series[1] = (struct plot_series){ "CPU 1", &h[1] };
	run.title = "board 'qemu' / 6.1.0-rt / cyclictest-idle";
	run.subtitle = "#1 SMP PREEMPT_RT \"x\" \\n";
	run.nseries = 2;
	run.series = series;

	CHECK(!plot_format_parse("out.png", &fmt) && fmt == PLOT_PNG,
	      "format from .png");
	CHECK(!plot_format_parse("x.SVG", &fmt) && fmt == PLOT_SVG,
	      "format from .SVG");
	CHECK(plot_format_parse("x.jpg", &fmt) == -EINVAL,
	      "format .jpg refused");

	ret = plot_script_histogram(&run, PLOT_PNG, &s);
	CHECK_INT(ret, 0, "script built");
	CHECK(s.buf && strstr(s.buf, "set logscale y"), "log-scale counts");
	CHECK(s.buf && strstr(s.buf, "'series-0.dat'") &&
		      strstr(s.buf, "'series-1.dat'"),
	      "one data file per series");
	CHECK(s.buf && strstr(s.buf, "\"board 'qemu' / 6.1.0-rt"),
	      "single quote in title kept inside double quotes");
	CHECK(s.buf && strstr(s.buf, "\"#1 SMP PREEMPT_RT \\\"x\\\" \\\\n\""),
	      "subtitle stays a literal string");
	CHECK(s.buf && strstr(s.buf, "from 150, graph 0 to 150, graph 1"),
	      "maximum of CPU 1 marked");
	CHECK(s.buf && strstr(s.buf, "CPU 0 (max 94 µs)"),
	      "legend carries the maximum");
	CHECK(s.buf && strstr(s.buf, "pngcairo") &&
		      strstr(s.buf, "set output 'plot.png'"),
	      "png terminal, pngcairo preferred");
	strbuf_cleanup(&s);
	strbuf_cleanup(&s);

	/* A maximum among the overflows is named, not drawn off-range. */
	hist_add(&h[1], 250, 1);
	ret = plot_script_histogram(&run, PLOT_SVG, &s);
	CHECK(!ret && strstr(s.buf, "CPU 1 (max 250 µs, 1 beyond 200 µs)"),
	      "overflowed maximum in the legend");
	CHECK(!ret && !strstr(s.buf, "from 250, graph 0"),
	      "overflowed maximum not marked off-range");
	CHECK(!ret && strstr(s.buf, "set xrange [0:159]"),
	      "x range ends past the last counted bucket");
	CHECK(!ret && strstr(s.buf, "set terminal svg"), "svg terminal");
	strbuf_cleanup(&s);

	run.nseries = 0;
	CHECK_INT(plot_script_histogram(&run, PLOT_PNG, &s), -EINVAL,
		  "no series refused");
	strbuf_cleanup(&s);
	run.nseries = 2;

	ret = plot_run_histogram(&run, PLOT_PNG, &img, &size, &err);
	CHECK(ret == 0, "gnuplot renders a PNG (%s)", ret ? err.msg : "");
	CHECK(ret == 0 && size > 8 && !memcmp(img, "\x89PNG\r\n\x1a\n", 8),
	      "image has the PNG signature (%zu bytes)", size);
	free(img);
	img = NULL;

	ret = plot_run_histogram(&run, PLOT_SVG, &img, &size, &err);
	CHECK(ret == 0 && size > 5 && memmem(img, size, "<svg", 4),
	      "gnuplot renders an SVG (%s)", ret ? err.msg : "");
	free(img);
	img = NULL;

	/* A run whose threads saw nothing still gets a picture. */
	CHECK(!hist_init(&empty, 100), "empty histogram");
	series[0] = (struct plot_series){ "CPU 0", &empty };
	run.nseries = 1;
	ret = plot_run_histogram(&run, PLOT_PNG, &img, &size, &err);
	CHECK(ret == 0 && size > 8 && !memcmp(img, "\x89PNG", 4),
	      "empty histogram still plots (%s)", ret ? err.msg : "");
	free(img);

	hist_cleanup(&h[0]);
	hist_cleanup(&h[1]);
	hist_cleanup(&empty);
	return check_exit();
}
