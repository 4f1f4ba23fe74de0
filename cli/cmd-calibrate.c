// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtlab calibrate: measure a board's false-alarm rate (A/A comparisons of
 * one kernel and testcase) and its detection rate for known injected
 * latencies, run by run on the board (rtlab-agent directly on the local
 * host, board_run() on a virtual board), judged with the same verdicts
 * as everything else (verdict_compare_bundles()), printed and stored in
 * boards.calibration.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "../boards/board.h"
#include "fsutil.h"
#include "../kernels/kernel.h"
#include "../kernels/module.h"
#include "../services/calibrate.h"
#include "config.h"
#include "../db/db.h"
#include "../services/verdict.h"
#include "bundle.h"
#include "commands.h"
#include "common.h"
#include "log.h"
#include "progress.h"
#include "injectlog.h"
#include "regress.h"
#include "testcase.h"

#define CAL_MAX_SPINS 16
#define CAL_DEFAULT_SPINS "50,200,1000"

struct cal_opts {
	const char *board, *kernel, *testcase, *keep, *mode;
	unsigned int pairs, runs, duration_s, period_ms, jitter_pct;
	unsigned int spins[CAL_MAX_SPINS], nspins;
	bool json, store, quiet;
};

struct cal {
	struct cal_opts o;
	struct board *b; /* the board interface (boards/board.h) */
	bool boots;	 /* it boots the kernel: modules go in its initrd */
	char *tc_path, *module_cpio;
	char work[256];
	char *inj_tc[CAL_MAX_SPINS];
	char release[256];
	struct progress prog;
	unsigned int done, total;
};

static void cal_usage(FILE *f)
{
	fprintf(f,
		"usage: rtlab calibrate --board B [--kernel K] [--testcase T] [--pairs N]\n"
		"                       [--runs R] [--spins 50,200,1000] [--duration S]\n"
		"                       [--mode user|preempt|irq|tick] [--period-ms M]\n"
		"                       [--jitter-pct P] [--json] [--no-store] [--keep DIR]\n"
		"\n"
		"Measure how far the lab can be trusted on board B: N A/A comparisons (R\n"
		"clean runs against R clean runs of the same kernel and testcase) give the\n"
		"false-alarm rate; for each spin size, N comparisons of R injected runs\n"
		"against R clean ones give the detection rate.  Both with exact 95 %%\n"
		"intervals, and the smallest injection whose detection rate is shown to\n"
		"be >= 90 %% (the lower end of its interval; that takes 36 or more\n"
		"comparisons).  An A/A REGRESSION or IMPROVEMENT is a false alarm.\n"
		"The result is stored in boards.calibration (the board is registered if\n"
		"needed) unless --no-store or the database cannot be reached.\n"
		"\n"
		"  -b, --board B        'local' (rtlab-agent on this host) or a virtual\n"
		"                       board (qemu-icount, ...)\n"
		"  -k, --kernel K       kernel definition for a virtual board (debian-rt)\n"
		"  -t, --testcase T     name or file (default calibrate-idle)\n"
		"  -n, --pairs N        comparisons of each kind (default 2)\n"
		"  -r, --runs R         runs per side (default 5: the verdict's first look;\n"
		"                       fewer cannot decide and are refused)\n"
		"  -s, --spins LIST     injected spin sizes in us (default %s)\n"
		"  -d, --duration S     seconds per run (default 10)\n"
		"      --mode M         injector: user (SCHED_FIFO 99 spinner; the local\n"
		"                       board's default) or preempt/irq/tick (the\n"
		"                       rtlab_inject module, built for the kernel;\n"
		"                       virtual boards'; tick stalls the tick itself)\n"
		"      --period-ms M    mean time between spins (default 50 local, 100\n"
		"                       virtual)\n"
		"      --jitter-pct P   +/- on the period, 0..100 (default 50)\n"
		"      --json           print the result as JSON\n"
		"      --no-store       do not store it in the database\n"
		"      --keep DIR       keep the bundles and testcases in DIR\n"
		"  -q, --quiet          no progress line\n"
		"\n"
		"Exit status: 0 calibrated, 1 a run or comparison failed, 2 usage.\n",
		CAL_DEFAULT_SPINS);
}

static int parse_spins(const char *s, struct cal_opts *o)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int ret = 0;

	o->nspins = 0;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nspins == CAL_MAX_SPINS) {
			fprintf(stderr,
				"rtlab calibrate: --spins: at most %d sizes\n",
				CAL_MAX_SPINS);
			ret = -EINVAL;
			break;
		}
		ret = opt_uint("calibrate", "--spins", tok, 1, 100000,
			       &o->spins[o->nspins++]);
	}
	if (!ret && !o->nspins) {
		fprintf(stderr,
			"rtlab calibrate: --spins '%s': expected sizes in us such as 50,200,1000\n",
			s);
		ret = -EINVAL;
	}
	free(copy);
	return ret;
}

static int cal_parse(int argc, char **argv, struct cal_opts *o)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "testcase", required_argument, NULL, 't' },
		{ "pairs", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
		{ "spins", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'M' },
		{ "period-ms", required_argument, NULL, 'P' },
		{ "jitter-pct", required_argument, NULL, 'J' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-store", no_argument, NULL, 'N' },
		{ "keep", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, bad = 0;

	memset(o, 0, sizeof(*o));
	o->testcase = "calibrate-idle";
	o->pairs = 2;
	o->runs = 5;
	o->duration_s = 10;
	o->jitter_pct = 50;
	o->store = true;
	if (parse_spins(CAL_DEFAULT_SPINS, o))
		return EXIT_USAGE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "b:k:t:n:r:s:d:qh", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'b':
			o->board = optarg;
			break;
		case 'k':
			o->kernel = optarg;
			break;
		case 't':
			o->testcase = optarg;
			break;
		case 'n':
			bad |= opt_uint("calibrate", "--pairs", optarg, 1, 1000,
					&o->pairs);
			break;
		case 'r':
			bad |= opt_uint("calibrate", "--runs", optarg, 2, 1000,
					&o->runs);
			break;
		case 's':
			bad |= parse_spins(optarg, o);
			break;
		case 'd':
			bad |= opt_uint("calibrate", "--duration", optarg, 1,
					86400, &o->duration_s);
			break;
		case 'M':
			o->mode = optarg;
			break;
		case 'P':
			bad |= opt_uint("calibrate", "--period-ms", optarg, 1,
					60000, &o->period_ms);
			break;
		case 'J':
			bad |= opt_uint("calibrate", "--jitter-pct", optarg, 0,
					100, &o->jitter_pct);
			break;
		case 'j':
			o->json = true;
			break;
		case 'N':
			o->store = false;
			break;
		case 'K':
			o->keep = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			cal_usage(stdout);
			return -1;
		default:
			cal_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (bad)
		return EXIT_USAGE;
	if (optind < argc || !o->board) {
		fprintf(stderr, "rtlab calibrate: %s\n",
			optind < argc ? "unexpected argument" :
					"--board is required");
		cal_usage(stderr);
		return EXIT_USAGE;
	}
	if (o->mode && strcmp(o->mode, "user") && strcmp(o->mode, "preempt") &&
	    strcmp(o->mode, "irq") && strcmp(o->mode, "tick")) {
		fprintf(stderr,
			"rtlab calibrate: --mode '%s': expected user, preempt, irq or tick\n",
			o->mode);
		return EXIT_USAGE;
	}
	return 0;
}

/* rtlab-agent beside this binary, else on PATH. */
static char *testcase_path(const char *t)
{
	char *rel = NULL, *p;
	size_t n = strlen(t);

	if (strchr(t, '/') || (n > 5 && !strcmp(t + n - 5, ".yaml")))
		return strdup(t);
	if (asprintf(&rel, "testcases/%s.yaml", t) < 0)
		return NULL;
	p = rtlab_data_path(rel);
	free(rel);
	return p;
}

/*
 * Comparisons of fewer runs than the verdict's first look decide nothing,
 * so they would report 0 % detection of anything: refuse them up front,
 * with the testcase's own verdict plan.  Return: exit status.
 */
static int check_design(const struct cal *c)
{
	struct regress_params p;
	struct rtlab_err err = { "" };
	struct regress_seq seq;
	struct testcase tc = { 0 };
	json_t *def = NULL;
	int ret = 0;

	if (testcase_load(c->tc_path, &tc, &err) ||
	    !(def = testcase_to_json(&tc)) ||
	    verdict_params_parse(def, c->o.testcase, &p, &err) ||
	    regress_plan(&p, 0, &seq, &err)) {
		fprintf(stderr, "rtlab calibrate: testcase %s: %s\n",
			c->o.testcase, err.msg[0] ? err.msg : "out of memory");
		ret = EXIT_USAGE;
	} else if (c->o.runs < seq.runs_at[0]) {
		fprintf(stderr,
			"rtlab calibrate: --runs %u: the verdict of testcase %s decides first at %u runs per side (min_runs), so %u per side cannot decide anything; use --runs %u or more\n",
			c->o.runs, c->o.testcase, seq.runs_at[0], c->o.runs,
			seq.runs_at[0]);
		ret = EXIT_USAGE;
	}
	json_decref(def);
	testcase_cleanup(&tc);
	return ret;
}

/* Set up the board, kernel, module and testcases.  Return: exit status. */
static int cal_prepare(struct cal *c)
{
	struct rtlab_err err = { "" };
	struct calib_inject inj = { 0 };
	char *name;
	unsigned int i;
	int ret;

	c->b = board_open_def(c->o.board, c->o.kernel, &err);
	if (!c->b) {
		fprintf(stderr, "rtlab calibrate: %s\n", err.msg);
		return EXIT_USAGE;
	}
	c->boots = c->b->kind->boots_kernel;
	if (!c->o.mode)
		c->o.mode = c->boots ? "preempt" : "user";
	if (!c->o.period_ms)
		c->o.period_ms = c->boots ? 100 : 50;
	for (i = 0; i < c->o.nspins; i++)
		if (c->o.spins[i] * 2ULL > c->o.period_ms * 1000ULL) {
			fprintf(stderr,
				"rtlab calibrate: --spins %u: expected at most half of the period (%u ms)\n",
				c->o.spins[i], c->o.period_ms);
			return EXIT_USAGE;
		}
	c->tc_path = testcase_path(c->o.testcase);
	if (!c->tc_path || access(c->tc_path, R_OK)) {
		fprintf(stderr,
			"rtlab calibrate: testcase %s: cannot read %s\n",
			c->o.testcase, c->tc_path ? c->tc_path : "?");
		return EXIT_USAGE;
	}
	ret = check_design(c);
	if (ret)
		return ret;
	if (board_prepare(c->b, &err)) {
		fprintf(stderr, "rtlab calibrate: %s\n", err.msg);
		return 1;
	}
	snprintf(c->release, sizeof(c->release), "%s", c->b->release);
	if (c->o.keep) {
		snprintf(c->work, sizeof(c->work), "%s", c->o.keep);
		if (mkdir_p(c->work, 0755, &err)) {
			fprintf(stderr, "rtlab calibrate: --keep: %s\n",
				err.msg);
			return 1;
		}
	} else {
		snprintf(c->work, sizeof(c->work),
			 "/tmp/rtlab-calibrate.XXXXXX");
		if (!mkdtemp(c->work)) {
			fprintf(stderr, "rtlab calibrate: %s: %s\n", c->work,
				strerror(errno));
			c->work[0] = '\0';
			return 1;
		}
	}
	if (strcmp(c->o.mode, "user") && c->boots) {
		/* The module goes into the board's initramfs. */
		if (!c->o.quiet)
			fprintf(stderr, "rtlab calibrate: building %s for %s\n",
				INJECT_MODULE, c->release);
		c->module_cpio = path_join(c->work, "inject.cpio.gz");
		ret = c->module_cpio ?
			      module_inject_archive(&c->b->id, c->module_cpio,
						    &err) :
			      -ENOMEM;
		if (ret) {
			fprintf(stderr, "rtlab calibrate: %s\n",
				err.msg[0] ? err.msg : strerror(-ret));
			return 1;
		}
	}
	inj.mode = c->o.mode;
	inj.period_ms = c->o.period_ms;
	inj.jitter_pct = c->o.jitter_pct;
	for (i = 0; i < c->o.nspins; i++) {
		inj.spin_us = c->o.spins[i];
		if (asprintf(&name, "%s/inject-%uus.yaml", c->work,
			     c->o.spins[i]) < 0) {
			fprintf(stderr, "rtlab calibrate: out of memory\n");
			return 1;
		}
		c->inj_tc[i] = name;
		if (calibrate_injected_testcase(c->tc_path, &inj, name, &err)) {
			fprintf(stderr, "rtlab calibrate: %s\n", err.msg);
			return 1;
		}
	}
	return 0;
}

/* The tail of a run's log, for the error message. */
static void show_log(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	struct rtlab_err err;

	if (file_read_all(path, &text, &len, &err))
		return;
	fprintf(stderr, "%s", len > 2000 ? text + len - 2000 : text);
	free(text);
}

/*
 * Did the injector of the run in @path really inject?  Its kernel log
 * (dmesg.txt), read for the seeds of the manifest's injector commands
 * (injectlog_parse()), must show the injector stopping with a count above
 * 0 and, for the module, the module's own report of that seed: an
 * injector that could not start (no module, no SCHED_FIFO) leaves the run
 * complete but clean, which would read as a missed detection, and another
 * module of the same name would inject with other code.
 * Return: 0 or -EINVAL with @err saying why.
 */
static int cal_check_injected(const char *path, struct rtlab_err *err)
{
	const struct bundle_file *m, *d;
	struct bundle *b = bundle_read(path, err);
	json_t *man = NULL, *inj = NULL, *o;
	const char *mode, *seed = "?";
	char want[32];
	int ret = -EINVAL;

	if (!b)
		return -EINVAL;
	m = bundle_get(b, "manifest.json");
	d = bundle_get(b, "dmesg.txt");
	man = m ? json_loadb((const char *)m->data, m->size, 0, NULL) : NULL;
	inj = d && man ? injectlog_parse((const char *)d->data, d->size,
					 json_object_get(man, "commands")) :
			 NULL;
	o = json_array_get(inj, 0);
	if (o) {
		seed = json_string_value(json_object_get(o, "seed"));
	} else {
		size_t i;
		json_t *c;

		/* Name the seed the run asked for. */
		json_array_foreach(json_object_get(man, "commands"), i, c) {
			const char *t = json_string_value(c), *p;

			p = t && strstr(t, " inject ") ? strstr(t, " --seed ") :
							 NULL;
			if (p && snprintf(want, sizeof(want), "%.*s",
					  (int)strcspn(p + 8, " "), p + 8) > 0)
				seed = want;
		}
	}
	mode = json_string_value(json_object_get(o, "mode"));
	if (!o || json_integer_value(json_object_get(o, "injections")) <= 0) {
		rtlab_err_set(
			err,
			"%s: the injector (seed %s) did not inject: no 'stop ... seed=S injections=N' line with N above 0 for the seed of manifest.json's injector command in dmesg.txt; agent.log in the bundle, and `rtlab-agent inject --help`, say more",
			path, seed);
		goto out;
	}
	if (mode && strcmp(mode, "user") &&
	    json_integer_value(json_object_get(o, "module_injections")) <= 0) {
		rtlab_err_set(
			err,
			"%s: the module loaded for seed %s did not report injecting ('rtlab_inject: stopped after N injections (seed=%s)' in dmesg.txt): it is not rtlab's module, or it did nothing",
			path, seed, seed);
		goto out;
	}
	ret = 0;
out:
	json_decref(inj);
	json_decref(man);
	bundle_free(b);
	return ret;
}

/* One run of @tc into @out.  Return: 0 for a complete bundle. */
static int cal_run(struct cal *c, const char *tc, bool injected,
		   const char *out, const char *what)
{
	struct rtlab_err err = { "" };
	struct board_job job = { 0 };
	struct board_run_info info = { 0 };
	char logp[512], phase[128];
	struct stat st;
	int ret;

	c->done++;
	snprintf(phase, sizeof(phase), "run %u/%u %s", c->done, c->total, what);
	progress_phase(&c->prog, phase);
	snprintf(logp, sizeof(logp), "%s.log", out);
	job.testcase_path = tc;
	job.duration_s = c->o.duration_s;
	job.extra_archive = injected ? c->module_cpio : NULL;
	job.log_path = logp;
	ret = board_job_run(c->b, &job, out, &info, &err);
	if (ret) {
		fprintf(stderr, "rtlab calibrate: board %s, run %u (%s): %s\n",
			c->b->name, c->done, what, err.msg);
		if (!stat(logp, &st) && st.st_size) {
			fprintf(stderr, "rtlab calibrate: its log:\n");
			show_log(logp);
		}
	} else if (strcmp(info.status, "complete")) {
		fprintf(stderr,
			"rtlab calibrate: board %s, run %u (%s): status %s; the bundle is %s\n",
			c->b->name, c->done, what, info.status, out);
		ret = -EIO;
	}
	board_run_info_cleanup(&info);
	if (!ret && injected && cal_check_injected(out, &err)) {
		fprintf(stderr, "rtlab calibrate: run %u (%s): %s\n", c->done,
			what, err.msg);
		ret = -EIO;
	}
	return ret;
}

static void cal_cleanup(struct cal *c)
{
	unsigned int i;

	for (i = 0; i < CAL_MAX_SPINS; i++)
		free(c->inj_tc[i]);
	free(c->tc_path);
	free(c->module_cpio);
	board_close(c->b);
	if (c->work[0] && !c->o.keep)
		rmtree(c->work);
}

/* bundles[set][run]: sets 0..2N-1 clean, then N per spin size. */
static int cal_measure(struct cal *c, char ***paths, unsigned int nsets)
{
	unsigned int N = c->o.pairs, R = c->o.runs, round, i, s, set;
	char what[64];
	int ret;

	/* Interleaved, round by round, so a drift of the board over the
	 * hours does not line up with one side. */
	for (round = 0; round < N; round++)
		for (i = 0; i < R; i++)
			for (set = 0; set < nsets; set++) {
				bool inj = set >= 2 * N;
				unsigned int r = inj ? (set - 2 * N) % N :
						       set / 2;

				if (r != round)
					continue;
				s = inj ? (set - 2 * N) / N : 0;
				if (inj)
					snprintf(what, sizeof(what),
						 "injected %u us",
						 c->o.spins[s]);
				else
					snprintf(what, sizeof(what), "clean");
				if (asprintf(&paths[set][i],
					     "%s/set%u-run%u.bundle", c->work,
					     set, i) < 0)
					return -ENOMEM;
				ret = cal_run(c,
					      inj ? c->inj_tc[s] : c->tc_path,
					      inj, paths[set][i], what);
				if (ret)
					return ret;
			}
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	struct rtlab_err err = { "" };
	struct cal c;
	struct calib_cmp *cmps = NULL;
	json_t **verdicts = NULL, *about = NULL, *result = NULL;
	char ***paths = NULL, *now = NULL;
	unsigned int nsets, ncmp = 0, set, r;
	PGconn *conn;
	int ret;

	memset(&c, 0, sizeof(c));
	ret = cal_parse(argc, argv, &c.o);
	if (ret)
		return ret < 0 ? 0 : ret;
	log_set_prog("rtlab calibrate");
	ret = cal_prepare(&c);
	if (ret)
		goto out;
	nsets = c.o.pairs * (2 + c.o.nspins);
	c.total = nsets * c.o.runs;
	paths = calloc(nsets, sizeof(*paths));
	verdicts = calloc(nsets, sizeof(*verdicts));
	cmps = calloc(nsets, sizeof(*cmps));
	for (set = 0; paths && set < nsets; set++)
		if (!(paths[set] = calloc(c.o.runs, sizeof(char *))))
			break;
	if (!paths || !verdicts || !cmps || set < nsets) {
		fprintf(stderr, "rtlab calibrate: out of memory\n");
		ret = 1;
		goto out;
	}
	progress_init(&c.prog, c.o.board, 0);
	if (c.o.quiet)
		c.prog.tty = false;
	ret = cal_measure(&c, paths, nsets);
	progress_done(&c.prog);
	if (ret) {
		ret = 1;
		goto out;
	}
	/* A/A: clean set 2r against 2r+1; injected: against clean set 2r. */
	for (set = 0; set < nsets; set++) {
		bool inj = set >= 2 * c.o.pairs;
		unsigned int base;

		if (!inj && set % 2)
			continue;
		r = inj ? (set - 2 * c.o.pairs) % c.o.pairs : set / 2;
		base = inj ? 2 * r : set;
		ret = verdict_compare_bundles((const char *const *)paths[base],
					      c.o.runs,
					      (const char *const *)
						      paths[inj ? set : set + 1],
					      c.o.runs, &verdicts[ncmp], &err);
		if (ret) {
			fprintf(stderr, "rtlab calibrate: comparing runs: %s\n",
				err.msg);
			ret = 1;
			goto out;
		}
		cmps[ncmp].injected = inj;
		cmps[ncmp].spin_us =
			inj ? c.o.spins[(set - 2 * c.o.pairs) / c.o.pairs] : 0;
		cmps[ncmp].verdict = verdicts[ncmp];
		ncmp++;
	}
	now = clock_iso_now();
	about = json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:s?, s:I, s:I, s:I, "
			  "s:{s:s, s:I, s:I}, s:s?}",
			  "board", c.b->name, "kind", c.b->kind->name, "clock",
			  json_string_value(json_object_get(verdicts[0],
							    "clock")),
			  "kernel", c.boots ? c.b->k->name : NULL,
			  "kernel_release", c.release, "testcase",
			  json_string_value(json_object_get(verdicts[0],
							    "testcase")),
			  "duration_s", (json_int_t)c.o.duration_s,
			  "runs_per_side", (json_int_t)c.o.runs, "pairs",
			  (json_int_t)c.o.pairs, "injector", "mode", c.o.mode,
			  "period_ms", (json_int_t)c.o.period_ms, "jitter_pct",
			  (json_int_t)c.o.jitter_pct, "created_at", now);
	result = about ? calibrate_result_json(about, cmps, ncmp) : NULL;
	if (!result) {
		fprintf(stderr, "rtlab calibrate: out of memory\n");
		ret = 1;
		goto out;
	}
	if (c.o.json) {
		json_dumpf(result, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("\n");
	} else {
		calibrate_print(stdout, result);
	}
	if (c.o.store) {
		conn = db_connect(&err);
		if (!conn || calibrate_store(conn, c.b->name, c.b->kind->name,
					     result, &err))
			fprintf(stderr,
				"rtlab calibrate: warning: not stored: %s\n",
				err.msg);
		else if (!c.o.quiet)
			fprintf(stderr,
				"rtlab calibrate: stored in boards.calibration of board %s\n",
				c.b->name);
		db_disconnect(conn);
	}
	ret = 0;
out:
	for (set = 0; paths && set < c.o.pairs * (2 + c.o.nspins); set++) {
		for (r = 0; paths[set] && r < c.o.runs; r++)
			free(paths[set][r]);
		free(paths[set]);
	}
	free(paths);
	for (r = 0; verdicts && r < ncmp; r++)
		json_decref(verdicts[r]);
	free(verdicts);
	free(cmps);
	json_decref(about);
	json_decref(result);
	free(now);
	cal_cleanup(&c);
	return ret;
}
