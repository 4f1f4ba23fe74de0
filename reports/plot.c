// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency plots through gnuplot: builds the data files and the script in a
 * private temporary directory, runs the gnuplot binary there and reads the
 * image back, so the server can answer plot.png without touching disk
 * anywhere else.  Text from runs (kernel versions, board names) only ever
 * reaches gnuplot inside quoted strings with enhanced text off.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

extern char **environ;

/* Distinct colours, one per series (cycled beyond eight). */
static const char *const plot_colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
	"#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define NCOLOURS (sizeof(plot_colours) / sizeof(plot_colours[0]))

const char *plot_format_ext(enum plot_format fmt)
{
	return fmt == PLOT_SVG ? "svg" : "png";
}

int plot_format_parse(const char *name, enum plot_format *fmt)
{
	const char *dot = strrchr(name, '.');
	const char *ext = dot ? dot + 1 : name;

	if (!strcasecmp(ext, "png")) {
		*fmt = PLOT_PNG;
		return 0;
	}
	if (!strcasecmp(ext, "svg")) {
		*fmt = PLOT_SVG;
		return 0;
	}
	return -EINVAL;
}

/*
 * A gnuplot double-quoted string: '"' and '\' escaped with a backslash,
 * control characters made spaces.  Not single quotes: gnuplot mis-scans
 * two doubled quotes in a row there (a tree named "" gave "tree '''''",
 * a syntax error).
 */
static void ps_quoted(struct strbuf *s, const char *text)
{
	const char *p;

	strbuf_addf(s, "\"");
	for (p = text ? text : ""; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(s, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			strbuf_addf(s, " ");
		else
			strbuf_addf(s, "%c", *p);
	}
	strbuf_addf(s, "\"");
}

/*
 * The opening every script shares: its comment, the terminal for @fmt at
 * @w x @h pixels (pngcairo where gnuplot has it), the output file and the
 * title, left open for the caller's " noenhanced" and what follows.
 */
static void plot_preamble(struct strbuf *s, const char *kind,
			  enum plot_format fmt, unsigned int w, unsigned int h,
			  const char *title, const char *subtitle)
{
	strbuf_addf(s, "# rtlab latency %s\nset encoding utf8\n", kind);
	if (fmt == PLOT_SVG) {
		strbuf_addf(s,
			    "set terminal svg size %u,%u dynamic noenhanced "
			    "font 'sans,12'\n",
			    w, h);
	} else {
		strbuf_addf(s,
			    "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			    "\tset terminal pngcairo size %u,%u noenhanced "
			    "font 'sans,10'\n"
			    "} else {\n"
			    "\tset terminal png size %u,%u noenhanced\n"
			    "}\n",
			    w, h, w, h);
	}
	strbuf_addf(s, "set output 'plot.%s'\n", plot_format_ext(fmt));
	strbuf_addf(s, "set title ");
	ps_quoted(s, title);
	if (subtitle) {
		strbuf_addf(s, ".\"\\n\".");
		ps_quoted(s, subtitle);
	}
}

/* Highest latency to show: the last counted bucket, or the true maximum
 * when it lies within the tracked range.  A maximum among the overflows
 * would squash the histogram into the left edge; the legend names it. */
static uint32_t series_top_us(const struct hist *h)
{
	uint32_t top = 0, i;

	for (i = h->nbuckets; i > 0; i--)
		if (h->counts[i - 1]) {
			top = i - 1;
			break;
		}
	if (h->samples && h->max_us != UINT32_MAX && h->max_us > top &&
	    h->max_us < h->nbuckets)
		top = h->max_us;
	return top;
}

int plot_script_histogram(const struct plot_run *run, enum plot_format fmt,
			  struct strbuf *s)
{
	unsigned int w = run->width_px ? run->width_px : 1000;
	unsigned int h = run->height_px ? run->height_px : 600;
	uint32_t top_us = 0;
	uint64_t any = 0, most = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!run->nseries)
		return -EINVAL;
	for (i = 0; i < run->nseries; i++) {
		uint32_t t = series_top_us(run->series[i].hist);

		if (t > top_us)
			top_us = t;
		any += run->series[i].hist->samples;
		if (run->series[i].hist->samples > most)
			most = run->series[i].hist->samples;
	}

	plot_preamble(s, "histogram", fmt, w, h, run->title, run->subtitle);
	strbuf_addf(s,
		    " noenhanced\n"
		    "set xlabel 'Latency (µs)'\n"
		    "set ylabel '%s'\n"
		    "set logscale y\n"
		    "set format y '%s'\n"
		    "set grid xtics ytics mytics lc rgb '#d0d0d0'\n"
		    "set key top right box opaque noenhanced\n"
		    "set xrange [0:%u]\n",
		    run->normalize ?
			    "Fraction of its own samples per 1 µs bucket "
			    "(log)" :
			    "Number of samples (log)",
		    run->normalize ? "%.0e" : "%.0s%c",
		    top_us + top_us / 20 + 2);
	if (any && run->normalize)
		strbuf_addf(s, "set yrange [%.3g:*]\n", 0.8 / (double)most);
	else if (any)
		strbuf_addf(s, "set yrange [0.8:*]\n");
	else
		strbuf_addf(s,
			    "set yrange [0.8:10]\n"
			    "set label 1 'no samples' at graph 0.5, graph 0.5 "
			    "center\n");

	/* Mark each series' maximum with a dashed line in its colour. */
	for (i = 0; i < run->nseries; i++) {
		const struct hist *hi = run->series[i].hist;

		if (!hi->samples || hi->max_us == UINT32_MAX ||
		    hi->max_us > top_us)
			continue;
		strbuf_addf(s,
			    "set arrow %zu from %u, graph 0 to %u, graph 1 "
			    "nohead dt 2 lw 1.5 lc rgb '%s'\n",
			    i + 1, hi->max_us, hi->max_us,
			    plot_colours[i % NCOLOURS]);
	}

	strbuf_addf(s, "plot ");
	for (i = 0; i < run->nseries; i++) {
		const struct hist *hi = run->series[i].hist;
		char label[256];

		if (hi->samples && hi->max_us != UINT32_MAX && hi->overflows)
			snprintf(label, sizeof(label),
				 "%s (max %u µs, %llu beyond %u µs)",
				 run->series[i].label ? run->series[i].label :
							"",
				 hi->max_us, (unsigned long long)hi->overflows,
				 hi->nbuckets);
		else if (hi->samples && hi->max_us != UINT32_MAX)
			snprintf(label, sizeof(label), "%s (max %u µs)",
				 run->series[i].label ? run->series[i].label :
							"",
				 hi->max_us);
		else
			snprintf(label, sizeof(label), "%s (no samples)",
				 run->series[i].label ? run->series[i].label :
							"");
		/* Empty buckets drop below the axis so the steps reach it. */
		if (run->normalize && hi->samples)
			strbuf_addf(s,
				    "%s'series-%zu.dat' using 1:($2 > 0 ? "
				    "$2 / %llu.0 : %.3g) with histeps lw 1.5 "
				    "lc rgb '%s' title ",
				    i ? ", \\\n\t" : "", i,
				    (unsigned long long)hi->samples,
				    0.1 / (double)most,
				    plot_colours[i % NCOLOURS]);
		else
			strbuf_addf(s,
				    "%s'series-%zu.dat' using 1:($2 > 0 ? $2 : "
				    "0.1) with histeps lw 1.5 lc rgb '%s' "
				    "title ",
				    i ? ", \\\n\t" : "", i,
				    plot_colours[i % NCOLOURS]);
		ps_quoted(s, label);
	}
	if (!any)
		strbuf_addf(s, ", 1/0 notitle");
	strbuf_addf(s, "\nset output\n");
	return s->failed ? -ENOMEM : 0;
}

int plot_data_write(const struct hist *h, const char *path,
		    struct rtlab_err *err)
{
	uint32_t first = UINT32_MAX, last = 0, i;
	FILE *f;
	int ret = 0;

	for (i = 0; i < h->nbuckets; i++)
		if (h->counts[i]) {
			if (first == UINT32_MAX)
				first = i;
			last = i;
		}
	f = fopen(path, "w");
	if (!f)
		return rtlab_err_seterr(err, errno, "%s: cannot create: %s",
					path, strerror(errno));
	fprintf(f, "# lat_us count\n");
	if (first != UINT32_MAX) {
		/* One empty bucket each side so the outline closes. */
		if (first > 0)
			fprintf(f, "%u 0\n", first - 1);
		for (i = first; i <= last; i++)
			fprintf(f, "%u %llu\n", i,
				(unsigned long long)h->counts[i]);
		fprintf(f, "%u 0\n", last + 1);
	}
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	if (ret)
		rtlab_err_seterr(err, -ret, "%s: write failed", path);
	return ret;
}

static int read_whole(const char *path, void **data, size_t *size)
{
	struct stat st;
	void *buf = NULL;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	if (read(fd, buf, st.st_size) != st.st_size) {
		ret = -EIO;
		goto out;
	}
	*data = buf;
	*size = st.st_size;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return ret;
}

/* The last non-empty line gnuplot printed, for the error message. */
static void gnuplot_complaint(const char *log, char *out, size_t outsz)
{
	void *data = NULL;
	size_t size = 0;
	char *text, *line, *save = NULL;

	snprintf(out, outsz, "no message");
	if (read_whole(log, &data, &size) || !size) {
		free(data);
		return;
	}
	text = realloc(data, size + 1);
	if (!text) {
		free(data);
		return;
	}
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strspn(line, " \t^") != strlen(line))
			snprintf(out, outsz, "%s", line);
	free(text);
}

static int run_gnuplot(const char *dir, struct rtlab_err *err)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "gnuplot", "plot.gp", NULL };
	char log[PATH_MAX + 16], msg[256];
	pid_t pid;
	int ret, status;

	ret = posix_spawn_file_actions_init(&fa);
	if (ret)
		return rtlab_err_seterr(err, ret, "gnuplot: %s", strerror(ret));
	ret = posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						       O_RDONLY, 0);
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, 1, "gnuplot.log",
						       O_WRONLY | O_CREAT |
							       O_TRUNC,
						       0600);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (!ret)
		ret = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return rtlab_err_seterr(err, ret,
					"cannot run gnuplot: %s (install "
					"gnuplot-nox)",
					strerror(ret));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return rtlab_err_seterr(err, errno, "gnuplot: wait: %s",
						strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	gnuplot_complaint(log, msg, sizeof(msg));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return rtlab_err_seterr(err, ENOENT,
					"cannot run gnuplot (install "
					"gnuplot-nox)");
	return rtlab_err_seterr(err, EIO, "gnuplot failed (%s %d): %s",
				WIFEXITED(status) ? "status" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) :
						    WTERMSIG(status),
				msg);
}

int plot_run_histogram(const struct plot_run *run, enum plot_format fmt,
		       void **img, size_t *size, struct rtlab_err *err)
{
	struct strbuf s;
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 32];
	size_t i, ndata = 0;
	bool have_dir = false;
	FILE *f;
	int ret;

	ret = plot_script_histogram(run, fmt, &s);
	if (ret) {
		rtlab_err_seterr(
			err, -ret,
			ret == -EINVAL ?
				"plot: nothing to plot (no histograms)" :
				"plot: out of memory building the script");
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s/rtlab-plot-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		ret = rtlab_err_seterr(err, errno, "%s: cannot create: %s", dir,
				       strerror(errno));
		goto out;
	}
	have_dir = true;
	for (i = 0; i < run->nseries; i++) {
		snprintf(path, sizeof(path), "%s/series-%zu.dat", dir, i);
		ndata = i + 1;
		ret = plot_data_write(run->series[i].hist, path, err);
		if (ret)
			goto out;
	}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	f = fopen(path, "w");
	if (!f) {
		ret = rtlab_err_seterr(err, errno, "%s: cannot create: %s",
				       path, strerror(errno));
		goto out;
	}
	fwrite(s.buf, 1, s.len, f);
	if (fclose(f)) {
		ret = rtlab_err_seterr(err, EIO, "%s: write failed", path);
		goto out;
	}
	ret = run_gnuplot(dir, err);
	if (ret)
		goto out;
	snprintf(path, sizeof(path), "%s/plot.%s", dir, plot_format_ext(fmt));
	ret = read_whole(path, img, size);
	if (!ret && !*size) {
		free(*img);
		*img = NULL;
		ret = -EIO;
	}
	if (ret)
		rtlab_err_seterr(err, -ret, "gnuplot wrote no image (%s)",
				 path);
out:
	if (have_dir) {
		static const char *const fixed[] = {
			"plot.gp",
			"gnuplot.log",
			"plot.png",
			"plot.svg",
		};

		for (i = 0; i < ndata; i++) {
			snprintf(path, sizeof(path), "%s/series-%zu.dat", dir,
				 i);
			unlink(path);
		}
		for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, fixed[i]);
			unlink(path);
		}
		rmdir(dir);
	}
	strbuf_cleanup(&s);
	return ret;
}

int plot_stored_run(const struct run_hists *rh, enum plot_format fmt,
		    void **img, size_t *size, struct rtlab_err *err)
{
	struct plot_series *series = NULL;
	char(*labels)[48] = NULL;
	char title[512], subtitle[512];
	struct plot_run pr = { 0 };
	size_t i;
	int ret;

	if (!rh->nhists)
		return rtlab_err_seterr(err, ENODATA,
					"run %lld has no histograms to plot "
					"(status %s)",
					(long long)rh->run_id,
					rh->status ? rh->status : "?");
	series = calloc(rh->nhists, sizeof(*series));
	labels = calloc(rh->nhists, sizeof(*labels));
	if (!series || !labels) {
		ret = rtlab_err_seterr(err, ENOMEM, "plot: out of memory");
		goto out;
	}
	for (i = 0; i < rh->nhists; i++) {
		if (rh->hists[i].cpu >= 0 && rh->hists[i].metric[0])
			/* timerlat: the IRQ and the thread of one CPU */
			snprintf(labels[i], sizeof(labels[i]), "CPU %d %.20s",
				 rh->hists[i].cpu, rh->hists[i].metric);
		else if (rh->hists[i].cpu >= 0)
			snprintf(labels[i], sizeof(labels[i]), "CPU %d",
				 rh->hists[i].cpu);
		else
			snprintf(labels[i], sizeof(labels[i]), "thread %d",
				 rh->hists[i].thread);
		series[i].label = labels[i];
		series[i].hist = &rh->hists[i];
	}
	snprintf(title, sizeof(title), "%s / %s / %s", rh->board, rh->kernel,
		 rh->testcase);
	snprintf(subtitle, sizeof(subtitle), "run %lld (%.8s), clock %s%s%s",
		 (long long)rh->run_id, rh->uuid, rh->clock,
		 rh->kernel_version && *rh->kernel_version ? ", " : "",
		 rh->kernel_version ? rh->kernel_version : "");
	pr.title = title;
	pr.subtitle = subtitle;
	pr.nseries = rh->nhists;
	pr.series = series;
	ret = plot_run_histogram(&pr, fmt, img, size, err);
out:
	free(series);
	free(labels);
	return ret;
}

int plot_compare_render(const struct plot_compare *c, enum plot_format fmt,
			void **img, size_t *size, struct rtlab_err *err)
{
	struct plot_series series[2];
	struct plot_run pr = { 0 };
	char lb[200], lc[200];

	snprintf(lb, sizeof(lb), "baseline %s, %u run%s, %llu samples",
		 c->baseline.release ? c->baseline.release : "?",
		 c->baseline.nruns, c->baseline.nruns == 1 ? "" : "s",
		 (unsigned long long)c->baseline.hist->samples);
	snprintf(lc, sizeof(lc), "candidate %s, %u run%s, %llu samples",
		 c->candidate.release ? c->candidate.release : "?",
		 c->candidate.nruns, c->candidate.nruns == 1 ? "" : "s",
		 (unsigned long long)c->candidate.hist->samples);
	series[0].label = lb;
	series[0].hist = c->baseline.hist;
	series[1].label = lc;
	series[1].hist = c->candidate.hist;
	pr.title = c->title;
	pr.subtitle = c->subtitle;
	pr.nseries = 2;
	pr.series = series;
	pr.width_px = c->width_px;
	pr.height_px = c->height_px;
	pr.normalize = true;
	return plot_run_histogram(&pr, fmt, img, size, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double plot_trend_median(const double *v, size_t n)
{
	double *s, m;
	size_t i, k = 0;

	s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return NAN;
	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[k++] = v[i];
	if (!k) {
		free(s);
		return NAN;
	}
	qsort(s, k, sizeof(*s), cmp_double);
	m = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
	free(s);
	return m;
}

/* A value for a trend data file: '?' (missing) when unknown or, on a log
 * scale, not positive. */
static void ps_value(struct strbuf *s, double v)
{
	if (isfinite(v) && v > 0)
		strbuf_addf(s, " %.6g", v);
	else
		strbuf_addf(s, " ?");
}

/* The defined values of a trend: how many, and their range. */
struct trend_range {
	size_t nmax, np999;
	double lo, hi;
};

static void trend_range(const struct plot_trend *t, struct trend_range *r)
{
	size_t i, j;

	memset(r, 0, sizeof(*r));
	r->lo = INFINITY;
	r->hi = -INFINITY;
	for (i = 0; i < t->nkernels; i++) {
		const struct plot_trend_kernel *k = &t->kernels[i];

		for (j = 0; j < k->nruns; j++) {
			double a = k->max_us[j], b = k->p999_us[j];

			if (isfinite(a) && a > 0) {
				r->nmax++;
				r->lo = fmin(r->lo, a);
				r->hi = fmax(r->hi, a);
			}
			if (isfinite(b) && b > 0) {
				r->np999++;
				r->lo = fmin(r->lo, b);
				r->hi = fmax(r->hi, b);
			}
		}
	}
}

int plot_script_trend(const struct plot_trend *t, enum plot_format fmt,
		      struct strbuf *s)
{
	unsigned int w = t->width_px ? t->width_px : 1000;
	unsigned int h = t->height_px ? t->height_px : 600;
	struct trend_range r;
	const char *sep = "";
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!t->nkernels)
		return -EINVAL;
	trend_range(t, &r);

	plot_preamble(s, "trend", fmt, w, h, t->title, t->subtitle);
	strbuf_addf(s,
		    " noenhanced\n"
		    "set datafile missing '?'\n"
		    "set xlabel 'Kernel (in order of first run)'\n"
		    "set key outside top center horizontal box "
		    "noenhanced\n"
		    "set grid ytics mytics lc rgb '#d0d0d0'\n"
		    "set xrange [-0.5:%zu.5]\n",
		    t->nkernels - 1);
	strbuf_addf(s, "set xtics rotate by -25 noenhanced (");
	for (i = 0; i < t->nkernels; i++) {
		strbuf_addf(s, "%s", i ? ", " : "");
		ps_quoted(s, t->kernels[i].release);
		strbuf_addf(s, " %zu", i);
	}
	strbuf_addf(s, ")\n");
	if (!r.nmax && !r.np999) {
		strbuf_addf(s,
			    "set ylabel 'Latency (µs)'\n"
			    "set yrange [1:10]\n"
			    "set label 1 'no figures' at graph 0.5, graph 0.5 "
			    "center\n"
			    "plot 1/0 notitle\nset output\n");
		return s->failed ? -ENOMEM : 0;
	}
	if (r.hi / r.lo > 20)
		strbuf_addf(s,
			    "set ylabel 'Latency (µs, log)'\n"
			    "set logscale y\nset yrange [%g:%g]\n",
			    r.lo / 1.5, r.hi * 1.5);
	else
		strbuf_addf(s,
			    "set ylabel 'Latency (µs)'\n"
			    "set yrange [0:%g]\n",
			    r.hi * 1.1 + 1);

	strbuf_addf(s, "plot ");
	if (r.nmax) {
		strbuf_addf(s, "'runs.dat' using 1:2 with points pt 7 ps 0.8 "
			       "lc rgb '#d62728' title 'max, per run', \\\n"
			       "\t'medians.dat' using 1:2 with linespoints "
			       "pt 5 lw 2 lc rgb '#d62728' "
			       "title 'max, median of runs'");
		sep = ", \\\n\t";
	}
	if (r.np999)
		strbuf_addf(s,
			    "%s'runs.dat' using 1:3 with points pt 6 ps 0.8 "
			    "lc rgb '#1f77b4' title 'p99.9, per run', \\\n"
			    "\t'medians.dat' using 1:3 with linespoints "
			    "pt 4 lw 2 lc rgb '#1f77b4' "
			    "title 'p99.9, median of runs'",
			    sep);
	strbuf_addf(s, "\nset output\n");
	return s->failed ? -ENOMEM : 0;
}

/* runs.dat ("x max p999" per run, spread around the kernel's x) and
 * medians.dat ("x median_max median_p999" per kernel). */
static int trend_data(const struct plot_trend *t, struct strbuf *runs,
		      struct strbuf *medians)
{
	size_t i, j;

	memset(runs, 0, sizeof(*runs));
	memset(medians, 0, sizeof(*medians));
	strbuf_addf(runs, "# x max_us p999_us\n");
	strbuf_addf(medians, "# x median_max_us median_p999_us\n");
	for (i = 0; i < t->nkernels; i++) {
		const struct plot_trend_kernel *k = &t->kernels[i];
		double spread = k->nruns > 1 ? 0.3 / (k->nruns - 1) : 0;

		for (j = 0; j < k->nruns; j++) {
			strbuf_addf(runs, "%.4f",
				    (double)i - (k->nruns > 1 ? 0.15 : 0) +
					    spread * j);
			ps_value(runs, k->max_us[j]);
			ps_value(runs, k->p999_us[j]);
			strbuf_addf(runs, "\n");
		}
		strbuf_addf(medians, "%zu", i);
		ps_value(medians, plot_trend_median(k->max_us, k->nruns));
		ps_value(medians, plot_trend_median(k->p999_us, k->nruns));
		strbuf_addf(medians, "\n");
	}
	return runs->failed || medians->failed ? -ENOMEM : 0;
}

/* Write @files (name, text) and @script into a private temporary
 * directory, run gnuplot there and read the image back. */
static int render_files(const struct strbuf *script, const char *const *names,
			const struct strbuf *files, size_t nfiles,
			enum plot_format fmt, void **img, size_t *size,
			struct rtlab_err *err)
{
	static const char *const fixed[] = {
		"plot.gp",
		"gnuplot.log",
		"plot.png",
		"plot.svg",
	};
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 32];
	size_t i;
	FILE *f;
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s/rtlab-plot-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return rtlab_err_seterr(err, errno, "%s: cannot create: %s",
					dir, strerror(errno));
	for (i = 0; i <= nfiles && !ret; i++) {
		const struct strbuf *text = i < nfiles ? &files[i] : script;

		snprintf(path, sizeof(path), "%s/%s", dir,
			 i < nfiles ? names[i] : "plot.gp");
		f = fopen(path, "w");
		if (!f) {
			ret = rtlab_err_seterr(err, errno,
					       "%s: cannot create: "
					       "%s",
					       path, strerror(errno));
			break;
		}
		if (text->len)
			fwrite(text->buf, 1, text->len, f);
		if (ferror(f) | fclose(f))
			ret = rtlab_err_seterr(err, EIO, "%s: write failed",
					       path);
	}
	if (!ret)
		ret = run_gnuplot(dir, err);
	if (!ret) {
		snprintf(path, sizeof(path), "%s/plot.%s", dir,
			 plot_format_ext(fmt));
		ret = read_whole(path, img, size);
		if (!ret && !*size) {
			free(*img);
			*img = NULL;
			ret = -EIO;
		}
		if (ret)
			rtlab_err_seterr(err, -ret,
					 "gnuplot wrote no image "
					 "(%s)",
					 path);
	}
	for (i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fixed[i]);
		unlink(path);
	}
	rmdir(dir);
	return ret;
}

/*
 * Render a series plot whose builders ran: @script_ret from its script
 * builder (-EINVAL: nothing to draw, said as @none), @data_ret from its
 * data builder.  Releases @s and the @n @data either way.
 */
static int render_built(int script_ret, const char *none, struct strbuf *s,
			int data_ret, const char *const *names,
			struct strbuf *data, size_t n, enum plot_format fmt,
			void **img, size_t *size, struct rtlab_err *err)
{
	int ret;
	size_t i;

	if (script_ret)
		ret = rtlab_err_seterr(err, -script_ret, "plot: %s",
				       script_ret == -EINVAL ?
					       none :
					       "out of memory building the "
					       "script");
	else if (data_ret)
		ret = rtlab_err_seterr(err, ENOMEM, "plot: out of memory");
	else
		ret = render_files(s, names, data, n, fmt, img, size, err);
	for (i = 0; i < n; i++)
		strbuf_cleanup(&data[i]);
	strbuf_cleanup(s);
	return ret;
}

int plot_trend_render(const struct plot_trend *t, enum plot_format fmt,
		      void **img, size_t *size, struct rtlab_err *err)
{
	static const char *const names[] = { "runs.dat", "medians.dat" };
	struct strbuf s, data[2];
	int ret;

	memset(data, 0, sizeof(data));
	ret = plot_script_trend(t, fmt, &s);
	return render_built(ret, "no kernels to draw a trend of", &s,
			    ret ? 0 : trend_data(t, &data[0], &data[1]), names,
			    data, 2, fmt, img, size, err);
}

/* ---- the long-term view of a series ------------------------------------ */

static unsigned int longterm_height(const struct plot_longterm *l)
{
	size_t h = 140 + 16 * l->nkernels;

	if (l->height_px)
		return l->height_px;
	return h < 500 ? 500 : h > 2400 ? 2400 : (unsigned int)h;
}

/* The x range: from the lowest non-empty bucket of any kernel to the
 * highest latency any kernel reached. */
static void longterm_range(const struct plot_longterm *l, uint32_t *lo,
			   uint32_t *hi)
{
	const struct hist *h;
	uint32_t i;
	size_t k;

	*lo = UINT32_MAX;
	*hi = 1;
	for (k = 0; k < l->nkernels; k++) {
		h = l->kernels[k].hist;
		if (!h || !h->samples)
			continue;
		if (h->max_us > *hi)
			*hi = h->max_us;
		for (i = 0; i < h->nbuckets && i < *lo; i++)
			if (h->counts[i]) {
				*lo = i;
				break;
			}
	}
	if (*lo == UINT32_MAX)
		*lo = 0;
}

int plot_script_longterm(const struct plot_longterm *l, enum plot_format fmt,
			 struct strbuf *s)
{
	unsigned int w = l->width_px ? l->width_px : 1000;
	uint32_t lo, hi;
	size_t k, every;

	memset(s, 0, sizeof(*s));
	if (!l->nkernels)
		return -EINVAL;
	longterm_range(l, &lo, &hi);
	plot_preamble(s, "long-term", fmt, w, longterm_height(l), l->title,
		      l->subtitle);
	strbuf_addf(s,
		    " noenhanced\n"
		    "set xlabel 'Latency (µs, log)'\n"
		    "set logscale x\n"
		    "set xrange [%g:%g]\n"
		    "set yrange [-0.5:%zu.5]\n"
		    "set grid xtics mxtics lc rgb '#e0e0e0'\n"
		    "set cblabel 'log10 of the fraction of the kernel''s "
		    "samples'\n"
		    "set cbrange [-8:0]\n"
		    "set palette defined (-8 '#f0f0ff', -6 '#9ecae1', "
		    "-4 '#3182bd', -2 '#fd8d3c', 0 '#a50f15')\n"
		    "set key outside top center horizontal noenhanced\n",
		    lo > 1 ? (lo + 0.5) / 1.5 : 0.4, (double)hi * 1.5 + 2,
		    l->nkernels - 1);
	/* At most ~60 labels: every n-th kernel named when there are more. */
	every = l->nkernels / 60 + 1;
	strbuf_addf(s, "set ytics noenhanced (");
	for (k = 0; k < l->nkernels; k += every) {
		strbuf_addf(s, "%s", k ? ", " : "");
		ps_quoted(s, l->kernels[k].release);
		strbuf_addf(s, " %zu", k);
	}
	strbuf_addf(s, ")\n");
	strbuf_addf(s, "plot 'buckets.dat' using 1:2:3 with points pt 5 ps 0.5 "
		       "lc palette notitle, \\\n"
		       "\t'max.dat' using 1:2 with points pt 2 ps 1.2 "
		       "lc rgb 'black' title 'maximum of the kernel''s runs'\n"
		       "set output\n");
	return s->failed ? -ENOMEM : 0;
}

/* buckets.dat: "latency kernel log10(fraction)" per non-empty bucket, at
 * the bucket's middle; max.dat: "max kernel" per kernel with samples. */
static int longterm_data(const struct plot_longterm *l, struct strbuf *buckets,
			 struct strbuf *max)
{
	size_t k;
	uint32_t i;

	memset(buckets, 0, sizeof(*buckets));
	memset(max, 0, sizeof(*max));
	strbuf_addf(buckets, "# lat_us kernel log10_fraction\n");
	strbuf_addf(max, "# max_us kernel\n");
	for (k = 0; k < l->nkernels; k++) {
		const struct hist *h = l->kernels[k].hist;

		if (!h || !h->samples)
			continue;
		for (i = 0; i < h->nbuckets; i++)
			if (h->counts[i])
				strbuf_addf(buckets, "%.1f %zu %.4f\n", i + 0.5,
					    k,
					    log10((double)h->counts[i] /
						  (double)h->samples));
		strbuf_addf(max, "%.1f %zu\n", h->max_us + 0.5, k);
	}
	return buckets->failed || max->failed ? -ENOMEM : 0;
}

int plot_longterm_render(const struct plot_longterm *l, enum plot_format fmt,
			 void **img, size_t *size, struct rtlab_err *err)
{
	static const char *const names[] = { "buckets.dat", "max.dat" };
	struct strbuf s, data[2];
	int ret;

	memset(data, 0, sizeof(data));
	ret = plot_script_longterm(l, fmt, &s);
	return render_built(ret, "no kernels to draw", &s,
			    ret ? 0 : longterm_data(l, &data[0], &data[1]),
			    names, data, 2, fmt, img, size, err);
}
