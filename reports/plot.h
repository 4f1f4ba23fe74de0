/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_PLOT_H
#define RTLAB_PLOT_H

/*
 * Plots drawn by gnuplot: a data file per series and a script are written
 * to a temporary directory, gnuplot renders the image, and the image comes
 * back in memory.  A plot is a list of series, each a label and a 1 µs
 * histogram, so the same code draws one run's CPUs (the OSADL-style
 * per-CPU latency plot) or a baseline over a candidate.
 */

#include <stdbool.h>
#include <stddef.h>
#include "error.h"
#include "hist.h"
#include "strbuf.h"

enum plot_format {
	PLOT_PNG,
	PLOT_SVG,
};

struct plot_series {
	const char *label;	 /* legend text, e.g. "CPU 0" */
	const struct hist *hist; /* not owned */
};

struct plot_run {
	const char *title;    /* e.g. "board / kernel / testcase" */
	const char *subtitle; /* second title line, may be NULL */
	size_t nseries;
	const struct plot_series *series;
	unsigned int width_px, height_px; /* 0: 1000 x 600 */
	bool normalize; /* each series as the fraction of its own samples per
			 * bucket, so sides of unequal size compare by eye */
};

/** plot_format_ext() - "png" or "svg". */
const char *plot_format_ext(enum plot_format fmt);

/** plot_format_parse() - from a file name or extension ("x.png", "svg").
 *  Return: 0 or -EINVAL. */
int plot_format_parse(const char *name, enum plot_format *fmt) __must_check;

/**
 * plot_script_histogram() - build the gnuplot script for @run: log-scale
 * counts over latency, one colour per series, each series' maximum marked.
 * The script reads "series-N.dat" (N from 0) from the current directory and
 * writes "plot.png" or "plot.svg"; plot_data_write() writes the data files.
 * Return: 0, -EINVAL (no series) or -ENOMEM.  @s is filled either way;
 * caller releases it with strbuf_cleanup().
 */
int plot_script_histogram(const struct plot_run *run, enum plot_format fmt,
			  struct strbuf *s) __must_check;

/**
 * plot_data_write() - write @h's non-empty buckets as "lat_us count" lines
 * to @path.  Return: 0 or a negative errno with @err naming @path.
 */
int plot_data_write(const struct hist *h, const char *path,
		    struct rtlab_err *err) __must_check;

/**
 * plot_run_histogram() - render @run's per-series latency histogram.
 * Return: 0 with *@img (malloc'd, caller frees) and *@size set, or a
 * negative errno with @err saying what failed (gnuplot missing, gnuplot's
 * own complaint, ...).
 */
int plot_run_histogram(const struct plot_run *run, enum plot_format fmt,
		       void **img, size_t *size,
		       struct rtlab_err *err) __must_check;

struct run_hists;

/**
 * plot_stored_run() - the OSADL-style plot of a stored run: one series per
 * CPU (or thread), titled board / kernel / testcase with the run id, uuid,
 * clock and kernel version beneath.
 * Return: as plot_run_histogram(); -ENODATA when the run has no
 * histograms (it did not complete).
 */
int plot_stored_run(const struct run_hists *rh, enum plot_format fmt,
		    void **img, size_t *size,
		    struct rtlab_err *err) __must_check;

/* One side of a baseline-over-candidate plot: a kernel's runs pooled. */
struct plot_compare_side {
	const char *release;	 /* kernel release, for the legend */
	unsigned int nruns;	 /* runs pooled into @hist */
	const struct hist *hist; /* not owned */
};

struct plot_compare {
	const char *title;
	const char *subtitle; /* may be NULL */
	struct plot_compare_side baseline, candidate;
	unsigned int width_px, height_px; /* 0: 1000 x 600 */
};

/**
 * plot_compare_render() - the baseline's pooled histogram over the
 * candidate's on one log-scale plot (1 µs buckets), each as the fraction
 * of its own samples per bucket (plot_run.normalize), both maxima marked,
 * the legend naming each side's release, run and sample counts.
 * Return: as plot_run_histogram() (*@img malloc'd, caller frees).
 */
int plot_compare_render(const struct plot_compare *c, enum plot_format fmt,
			void **img, size_t *size,
			struct rtlab_err *err) __must_check;

/* One kernel of a trend plot: its runs' figures (NAN: unknown). */
struct plot_trend_kernel {
	const char *release; /* x tick label */
	size_t nruns;
	const double *max_us;  /* nruns values */
	const double *p999_us; /* nruns values */
};

struct plot_trend {
	const char *title;
	const char *subtitle; /* may be NULL */
	size_t nkernels;
	const struct plot_trend_kernel *kernels; /* x order */
	unsigned int width_px, height_px;	 /* 0: 1000 x 600 */
};

/**
 * plot_trend_median() - the median of the finite values among @v[0..@n),
 * NAN when there are none.
 */
double plot_trend_median(const double *v, size_t n);

/**
 * plot_script_trend() - the gnuplot script of @t: per-run max and p99.9
 * as points (spread a little around their kernel), their medians per
 * kernel as lines, kernels along x, µs on a log scale when the values
 * span more than a factor of 20.  It reads "runs.dat" and "medians.dat"
 * (written by plot_trend_render()) and writes "plot.png" or "plot.svg".
 * Return: 0, -EINVAL (no kernels) or -ENOMEM.  Caller releases @s with
 * strbuf_cleanup() either way.
 */
int plot_script_trend(const struct plot_trend *t, enum plot_format fmt,
		      struct strbuf *s) __must_check;

/**
 * plot_trend_render() - render the trend plot of @t.
 * Return: as plot_run_histogram() (*@img malloc'd, caller frees); -EINVAL
 * when @t has no kernels.
 */
int plot_trend_render(const struct plot_trend *t, enum plot_format fmt,
		      void **img, size_t *size,
		      struct rtlab_err *err) __must_check;

/* One kernel of a long-term plot: its runs pooled. */
struct plot_longterm_kernel {
	const char *release;	 /* y tick label */
	const struct hist *hist; /* all CPUs of all its runs; not owned */
	unsigned int nruns;
};

struct plot_longterm {
	const char *title;
	const char *subtitle; /* may be NULL */
	size_t nkernels;
	const struct plot_longterm_kernel *kernels; /* oldest first, upwards */
	unsigned int width_px, height_px; /* 0: 1000 x (by the kernels) */
};

/**
 * plot_script_longterm() - the gnuplot script of @l, the long-term view of
 * a series (OSADL's latency plot over time, drawn flat): one row per
 * kernel, oldest at the bottom, each 1 µs bucket a mark at its latency
 * (log scale) coloured by the fraction of that kernel's samples it holds
 * (log10), each kernel's maximum marked.  It reads "buckets.dat" and
 * "max.dat" (written by plot_longterm_render()).
 * Return: 0, -EINVAL (no kernels) or -ENOMEM.  Caller releases @s with
 * strbuf_cleanup() either way.
 */
int plot_script_longterm(const struct plot_longterm *l, enum plot_format fmt,
			 struct strbuf *s) __must_check;

/**
 * plot_longterm_render() - render the long-term plot of @l.
 * Return: as plot_run_histogram() (*@img malloc'd, caller frees); -EINVAL
 * when @l has no kernels.
 */
int plot_longterm_render(const struct plot_longterm *l, enum plot_format fmt,
			 void **img, size_t *size,
			 struct rtlab_err *err) __must_check;

#endif
