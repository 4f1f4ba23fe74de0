// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/bisect: what a bisection costs in board time, the lab's way (each
 * step measured look by look until the verdict engine decides it against
 * both ends) next to the naive way (a fixed N runs of every kernel
 * tested, N the plan's last look).  The oracle is simulated at the run
 * level and judged by the real engine: each run is a 1 µs histogram of
 * SAMPLES wakeups (body around 40 µs, a rare tail); a regressed kernel adds
 * a jittered 300 µs preemption-off spin every ~100 ms, as the rtlab_inject
 * module does; regress_compare() with the default parameters decides.
 * Seeded; prints runs, board-hours and wall time to the culprit (one
 * board, RUN_S seconds per run: boot + measurement + hand-over on the
 * icount board; BUILD_S seconds of building before the runs of each step,
 * for a git range: wall time, not board time) and how often each
 * strategy named the right kernel.  Asserts nothing.
 *
 *   bisect [--reps N] [--kernels N] [--run-s S] [--build-s S] [--boards B]
 *          [--hit P] [--min-runs N --looks L --alpha A]
 *
 * --min-runs, --looks, --alpha: the testcase's plan (default: the
 * engine's defaults); tests/integration/bisect-git.sh runs 4, 1, 0.15.
 *
 * --hit: the chance that a spin delays the wakeup it overlaps (default
 * 0.1: a regression the first look does not always settle; at 0.05 the
 * ends often do not reproduce within the plan).
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/bisect.h"
#include "../lib/hist.h"
#include "../lib/regress.h"

#define SAMPLES 3000 /* a 3 s run at 1 kHz */
#define MAX_RUNS 64  /* per kernel */
#define MAX_KERNELS 64
#define NBUCKETS 2000

struct sim {
	uint64_t s;
	size_t n, culprit;
	unsigned int looks, runs_at[REGRESS_MAX_LOOKS];
	struct regress_params params;
	struct hist h[MAX_KERNELS][MAX_RUNS];
	unsigned int have[MAX_KERNELS];
	unsigned int total; /* runs made */
	bool fixed;	    /* naive: every kernel gets the full N at once */
	double hit;	    /* P(a spin delays the wakeup it meets) */
};

static double rnd(struct sim *m)
{
	m->s ^= m->s << 13;
	m->s ^= m->s >> 7;
	m->s ^= m->s << 17;
	return (double)(m->s >> 11) / 9007199254740992.0;
}

static double gauss(struct sim *m)
{
	double u = rnd(m) + 1e-12, v = rnd(m);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int make_run(struct sim *m, size_t k, struct hist *h)
{
	bool bad = k >= m->culprit;
	double shift = gauss(m) * 0.8; /* run-to-run: boot to boot */
	double next_spin = rnd(m) * 100;
	unsigned int i;
	int ret = hist_init(h, NBUCKETS);

	if (ret)
		return ret;
	for (i = 0; i < SAMPLES; i++) {
		double lat = 40 + shift + gauss(m) * 2;

		if (rnd(m) < 0.002)
			lat += 5 + rnd(m) * 20; /* ordinary tail */
		if (bad && i >= next_spin) {
			/* a wakeup that fell into a 300 µs spin */
			if (rnd(m) < m->hit)
				lat += rnd(m) * 300;
			next_spin = i + 50 + rnd(m) * 100;
		}
		hist_add(h, lat < 1 ? 1 : (uint32_t)lat, 1);
	}
	h->avg_us = NAN;
	return 0;
}

/* Runs of kernel @k up to @want. */
static int runs_to(struct sim *m, size_t k, unsigned int want)
{
	int ret;

	while (m->have[k] < want && m->have[k] < MAX_RUNS) {
		ret = make_run(m, k, &m->h[k][m->have[k]]);
		if (ret)
			return ret;
		m->have[k]++;
		m->total++;
	}
	return 0;
}

static int oracle(void *ctx, size_t base, size_t cand, unsigned int look,
		  enum regress_verdict *v)
{
	struct sim *m = ctx;
	struct regress_run rb[MAX_RUNS], rc[MAX_RUNS];
	struct regress_result res;
	struct rtlab_err err = { "" };
	unsigned int want, i;
	int ret;

	if (m->fixed)
		look = m->looks; /* naive: everything at once */
	want = m->runs_at[look - 1];
	ret = runs_to(m, base, want);
	if (!ret)
		ret = runs_to(m, cand, want);
	if (ret)
		return ret;
	for (i = 0; i < want; i++) {
		rb[i] = (struct regress_run){ .board = "sim",
					      .testcase = "t",
					      .clock = "icount:3",
					      .cpus = &m->h[base][i],
					      .ncpus = 1 };
		rc[i] = rb[i];
		rc[i].cpus = &m->h[cand][i];
	}
	ret = regress_compare(rb, want, rc, want, &m->params, &res, &err);
	if (ret) {
		fprintf(stderr, "bisect: %s\n", err.msg);
		return ret;
	}
	*v = res.verdict;
	return 0;
}

static void sim_reset(struct sim *m)
{
	size_t k;
	unsigned int i;

	for (k = 0; k < MAX_KERNELS; k++) {
		for (i = 0; i < m->have[k]; i++)
			hist_cleanup(&m->h[k][i]);
		m->have[k] = 0;
	}
	m->total = 0;
}

struct tally {
	unsigned long runs, steps;
	unsigned int right, wrong, ranged;
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "kernels", required_argument, NULL, 'k' },
		{ "run-s", required_argument, NULL, 's' },
		{ "boards", required_argument, NULL, 'b' },
		{ "hit", required_argument, NULL, 'h' },
		{ "build-s", required_argument, NULL, 'B' },
		{ "min-runs", required_argument, NULL, 'm' },
		{ "looks", required_argument, NULL, 'l' },
		{ "alpha", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int reps = 40, nk = 16, boards = 1, r, f;
	unsigned int min_runs = 0, looks = 0;
	double run_s = 25, build_s = 0, alpha = 0;
	struct tally t[2] = { { 0 } };
	struct rtlab_err err = { "" };
	struct regress_seq seq;
	struct sim *m = calloc(1, sizeof(*m));
	int c;

	if (!m)
		return 1;
	m->hit = 0.1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			reps = (unsigned int)atoi(optarg);
		else if (c == 'k')
			nk = (unsigned int)atoi(optarg);
		else if (c == 's')
			run_s = atof(optarg);
		else if (c == 'b')
			boards = (unsigned int)atoi(optarg);
		else if (c == 'h')
			m->hit = atof(optarg);
		else if (c == 'B')
			build_s = atof(optarg);
		else if (c == 'm')
			min_runs = (unsigned int)atoi(optarg);
		else if (c == 'l')
			looks = (unsigned int)atoi(optarg);
		else if (c == 'a')
			alpha = atof(optarg);
		else {
			fprintf(stderr,
				"usage: bisect [--reps N] [--kernels N]"
				" [--run-s S] [--build-s S] [--boards B]"
				" [--hit P]\n"
				"              [--min-runs N --looks L "
				"--alpha A]\n");
			return 2;
		}
	}
	if (nk < 3 || nk > MAX_KERNELS || !reps || !boards || run_s <= 0 ||
	    build_s < 0) {
		fprintf(stderr,
			"bisect: --kernels 3..%d, --reps, --boards "
			"and --run-s above 0\n",
			MAX_KERNELS);
		return 2;
	}
	regress_params_init(&m->params);
	if (min_runs)
		m->params.min_runs = min_runs;
	if (looks)
		m->params.looks = looks;
	if (alpha > 0)
		m->params.alpha = alpha;
	if (regress_plan(&m->params, 0, &seq, &err)) {
		fprintf(stderr, "bisect: %s\n", err.msg);
		return 1;
	}
	m->looks = seq.looks;
	memcpy(m->runs_at, seq.runs_at, sizeof(m->runs_at));
	printf("bisect: %u bisections of %u kernels each, verdict "
	       "parameters (looks at %u",
	       reps, nk, m->runs_at[0]);
	for (r = 1; r < m->looks; r++)
		printf(", %u", m->runs_at[r]);
	printf(" runs per side, alpha %.2f), %u samples a run, %.0f s per "
	       "run, %.0f s to build a step, %u board(s), spin hit %.2f\n",
	       m->params.alpha, SAMPLES, run_s, build_s, boards, m->hit);
	for (f = 0; f < 2; f++) {
		for (r = 0; r < reps; r++) {
			struct bisect_outcome out;

			m->s = 0x9e3779b97f4a7c15ull * (r + 1);
			m->n = nk;
			m->culprit = 1 + (size_t)(rnd(m) * (nk - 1));
			m->fixed = f == 1;
			if (bisect_simulate(nk, m->looks, oracle, m, &out,
					    &err)) {
				fprintf(stderr, "bisect: %s\n", err.msg);
				return 1;
			}
			t[f].runs += m->total;
			t[f].steps += out.steps;
			t[f].right += out.found && out.hi == m->culprit;
			t[f].wrong += out.found && out.hi != m->culprit;
			t[f].ranged += !out.found;
			sim_reset(m);
		}
	}
	printf("%-28s %9s %12s %14s %11s %6s %6s %6s\n", "strategy",
	       "runs/bis.", "board-h/bis.", "board-h/culpr.", "wall-h/culpr.",
	       "right", "wrong", "range");
	for (f = 0; f < 2; f++) {
		double runs = (double)t[f].runs / reps;

		double per = t[f].right ? (double)t[f].runs / t[f].right *
						  run_s / 3600 :
					  NAN;
		/* builds take wall time, one step after another */
		double wall = t[f].right ?
				      per / boards + (double)t[f].steps /
							     t[f].right *
							     build_s / 3600 :
				      NAN;

		printf("%-28s %9.1f %12.2f %14.2f %11.2f %6u %6u %6u\n",
		       f ? "naive (fixed N per kernel)" :
			   "sequential looks (lab)",
		       runs, runs * run_s / 3600, per, wall, t[f].right,
		       t[f].wrong, t[f].ranged);
	}
	printf("sequential / naive board time: %.2f\n",
	       (double)t[0].runs / (double)t[1].runs);
	free(m);
	return 0;
}
