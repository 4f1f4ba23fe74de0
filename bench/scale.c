// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/scale: a year of a 100-board farm in one PostgreSQL, and how fast
 * the lab answers with it.  `fill` generates the year inside the server
 * (INSERT ... SELECT from a few dozen histogram templates, the bulk path
 * COPY also takes): runs over 100 boards x 10 testcases x a main tree of
 * kernels (3 runs per series and kernel), one long-term series of 1000
 * kernels, two CPUs per run with ~1000 non-empty 1 us buckets each, one
 * job per run, a verdict per series and kernel, and 10^4 queued jobs.
 * `measure` then times what users do against the real server and CLI and
 * prints a table: figure, value, target.  Asserts nothing.
 *
 *   scale fill --runs N                    (database: RTLAB_DB or embedded)
 *   scale schedule DIR                     (the farm's, for the tick)
 *   scale measure --url URL --rtlab PATH [--reps N]
 *                 [--ingest "UPLOAD_RUNS_S COPY_RUNS_S"]
 *                 [--schedule FARM.yaml]     (the farm's tick)
 */

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../db/db-jobs.h"
#include "../db/db.h"
#include "common/bench-util.h"
#include "../services/verdict.h"

#define BOARDS 100
#define TESTCASES 10
#define SERIES (BOARDS * TESTCASES)
#define RUNS_PER_KERNEL 3
#define LTS_KERNELS 1000
#define TEMPLATES 48
#define RANGE_US 2000
#define SAMPLES 600000 /* per CPU: 10 min at 1 kHz */
#define QUEUED_JOBS 10000
#define CHUNK 20000	    /* runs per INSERT, for progress */
#define FARM_TICK_KERNELS 3 /* the newest kernels bench/scale.sh schedules */

static int execf(PGconn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int execf(PGconn *c, const char *fmt, ...)
{
	char *sql = NULL;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&sql, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	ret = bench_exec(c, "scale", sql);
	free(sql);
	return ret;
}

/* One value of a single-row, single-column query, as a double. */
static double query_num(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	double v = NAN;

	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
	    !PQgetisnull(r, 0, 0))
		v = strtod(PQgetvalue(r, 0, 0), NULL);
	else
		fprintf(stderr, "scale: %s\n  in: %.300s\n", PQerrorMessage(c),
			sql);
	PQclear(r);
	return v;
}

/* Deterministic uniform in [0, 1). */
static double rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (*s >> 11) * (1.0 / 9007199254740992.0);
}

/* The sample quantile @q of @counts (RANGE_US buckets, @n samples). */
static int quantile(const uint64_t *counts, uint64_t n, double q)
{
	uint64_t want = (uint64_t)ceil(q * n), sum = 0;
	int i;

	for (i = 0; i < RANGE_US; i++) {
		sum += counts[i];
		if (sum >= want)
			return i;
	}
	return RANGE_US - 1;
}

/* One CPU's histogram as a loaded RT board gives it: a body around
 * 10-15 us that wanders from run to run, and a long tail thinning to
 * single samples over hundreds of microseconds, ~1000 non-empty buckets.
 * Written as an INSERT's VALUES row into @buf (malloc'd). */
static char *template_row(int t, int *nonempty)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL * (t + 1), counts[RANGE_US] = { 0 };
	double shift = (rnd(&s) - 0.5) * 3.0, sum = 0;
	size_t size = RANGE_US * 48 + 256, len;
	char *buf = malloc(size), *p;
	int i, max = 0, min = RANGE_US, n = 0;

	if (!buf)
		return NULL;
	for (i = 0; i < SAMPLES; i++) {
		double u = rnd(&s), v;

		if (u < 0.04) /* tail: Pareto from 20 us, alpha 1 */
			v = 20 / (1 - rnd(&s));
		else /* body: a rough lognormal from three uniforms */
			v = 7 + shift +
			    5 * exp(0.7 * (rnd(&s) + rnd(&s) + rnd(&s) - 1.5));
		if (v >= RANGE_US)
			v = RANGE_US - 1;
		counts[(int)v]++;
		sum += (int)v;
		if ((int)v > max)
			max = (int)v;
		if ((int)v < min)
			min = (int)v;
	}
	len = snprintf(buf, size, "(%d, '{", t);
	for (i = 0, p = buf + len; i < RANGE_US; i++)
		if (counts[i]) {
			p += snprintf(p, size - (p - buf), "%s%d",
				      p[-1] == '{' ? "" : ",", i);
			n++;
		}
	p += snprintf(p, size - (p - buf), "}', '{");
	for (i = 0; i < RANGE_US; i++)
		if (counts[i])
			p += snprintf(p, size - (p - buf), "%s%" PRIu64,
				      p[-1] == '{' ? "" : ",", counts[i]);
	snprintf(p, size - (p - buf), "}', %d, %d, %d, %.3f, %d, %d, %d, %d)",
		 SAMPLES, min, max, sum / SAMPLES,
		 quantile(counts, SAMPLES, 0.5),
		 quantile(counts, SAMPLES, 0.99),
		 quantile(counts, SAMPLES, 0.999),
		 quantile(counts, SAMPLES, 0.9999));
	*nonempty = n;
	return buf;
}

/* What a board's manifest holds, about 1.5 kB of JSON. */
static const char manifest[] =
	"{\"format\": 1, \"agent\": \"rtlab-agent 0.1\", "
	"\"kernel\": {\"release\": \"6.1.0-rt-amd64\", \"version\": "
	"\"#1 SMP PREEMPT_RT Debian 6.1.0 (2026-01-01)\", \"realtime\": true}, "
	"\"environment\": {\"cmdline\": \"BOOT_IMAGE=/vmlinuz root=/dev/vda "
	"console=ttyS0 isolcpus=1 nohz_full=1 rcu_nocbs=1 quiet\", "
	"\"cpu_model\": \"QEMU TCG CPU version 2.5+\", \"cpus\": 2, "
	"\"clocksource\": \"tsc\", \"rt_tests\": \"2.5\", \"isolcpus\": \"1\"}, "
	"\"testcase\": {\"name\": \"cyclictest-hackbench\", \"measurement\": "
	"{\"tool\": \"cyclictest\", \"interval_us\": 1000, \"priority\": 95, "
	"\"duration_s\": 600, \"histogram_us\": 2000}, \"loads\": "
	"[{\"name\": \"hackbench\", \"args\": [\"-l\", \"100000\"]}], "
	"\"trace\": {\"events\": [\"sched:sched_switch\", "
	"\"sched:sched_waking\", \"irq:irq_handler_entry\", "
	"\"irq:irq_handler_exit\"], \"buffer_kb\": 8192}}, "
	"\"commands\": [\"cyclictest -m -p95 -i1000 -t -a -h2000 -D600 "
	"--json=cyclictest.json\", \"hackbench -l 100000\"], "
	"\"timings\": {\"boot_s\": 9.8, \"run_s\": 601.2, \"upload_s\": 0.4}, "
	"\"status\": \"complete\"}";

static int fill_templates(PGconn *c)
{
	int t, n = 0, total = 0;
	char *row;

	if (bench_exec(c, "scale",
		       "CREATE UNLOGGED TABLE scale_tpl (id int, bucket_us int[], "
		       "counts bigint[], samples bigint, min_us int, max_us int, "
		       "avg_us float8, p50_us int, p99_us int, p999_us int, "
		       "p9999_us int)"))
		return -EIO;
	for (t = 0; t < TEMPLATES; t++) {
		row = template_row(t, &n);
		if (!row)
			return -ENOMEM;
		total += n;
		if (execf(c, "INSERT INTO scale_tpl VALUES %s", row)) {
			free(row);
			return -EIO;
		}
		free(row);
	}
	printf("  %d histogram templates, %d non-empty buckets each on "
	       "average\n",
	       TEMPLATES, total / TEMPLATES);
	return 0;
}

static int fill(PGconn *c, long runs)
{
	long lts = runs / 100 > LTS_KERNELS ? runs / 100 : LTS_KERNELS;
	long main_kernels = (runs - lts) / (SERIES * RUNS_PER_KERNEL);
	long nmain = main_kernels * SERIES * RUNS_PER_KERNEL, g;
	double t0 = bench_now_ms(), year_s = 365.0 * 86400;

	if (main_kernels < 2) {
		fprintf(stderr,
			"scale: --runs must be at least %ld (2 kernels of "
			"every series and the long-term series)\n",
			2L * SERIES * RUNS_PER_KERNEL + LTS_KERNELS);
		return -EINVAL;
	}
	runs = nmain + lts;
	printf("filling %ld runs: %d series x %ld kernels x %d runs, and a "
	       "long-term series of %d kernels (%ld runs)\n",
	       runs, SERIES, main_kernels, RUNS_PER_KERNEL, LTS_KERNELS, lts);
	if (bench_exec(c, "scale", "SET synchronous_commit = off") ||
	    fill_templates(c))
		return -EIO;
	if (execf(c,
		  "INSERT INTO boards (name, kind, definition) SELECT "
		  "'scale-' || lpad(g::text, 3, '0'), 'qemu', "
		  "'{\"board\": \"qemu-icount\"}' "
		  "FROM generate_series(1, %d) g;"
		  /* the main tree's kernels as the farm's discovery
		   * records them (bench/scale.sh writes the tree) */
		  "INSERT INTO tree_kernels (tree, package, version, "
		  "position) SELECT 'scale-rt', 'linux-image-6.' || g || "
		  "'.0-scale-rt', '1', g - 1 FROM generate_series(1, %ld) g;"
		  "INSERT INTO testcases (name) SELECT 'scale-tc-' || g "
		  "FROM generate_series(1, %d) g;"
		  "INSERT INTO kernels (release, tree, name, realtime, "
		  "created_at) SELECT '6.' || g || '.0-scale-rt', 'scale-rt', "
		  "'scale-rt', true, now() - interval '1 year' + "
		  "interval '1 second' * (g - 1) * %f FROM "
		  "generate_series(1, %ld) g;"
		  "INSERT INTO kernels (release, tree, name, realtime, "
		  "created_at) SELECT '5.' || g || '.0-scale-lts', 'scale-lts', "
		  "'scale-lts', true, now() - interval '1 year' + "
		  "interval '1 second' * (g - 1) * %f FROM "
		  "generate_series(1, %d) g;"
		  /* dense lookups for the generator: index -> id */
		  "CREATE UNLOGGED TABLE scale_map (kind char, n int, id int, "
		  "PRIMARY KEY (kind, n));"
		  "INSERT INTO scale_map SELECT 'b', row_number() OVER "
		  "(ORDER BY name) - 1, id FROM boards WHERE name LIKE 'scale-%%';"
		  "INSERT INTO scale_map SELECT 't', row_number() OVER "
		  "(ORDER BY id) - 1, id FROM testcases "
		  "WHERE name LIKE 'scale-tc-%%';"
		  "INSERT INTO scale_map SELECT 'k', row_number() OVER "
		  "(ORDER BY id) - 1, id FROM kernels WHERE tree = 'scale-rt';"
		  "INSERT INTO scale_map SELECT 'l', row_number() OVER "
		  "(ORDER BY id) - 1, id FROM kernels WHERE tree = 'scale-lts';"
		  "ANALYZE scale_map",
		  BOARDS, main_kernels, TESTCASES, year_s / main_kernels,
		  main_kernels, year_s / LTS_KERNELS, LTS_KERNELS))
		return -EIO;
	/* Run g of the main tree: kernel g / 3000, series (g / 3) % 1000;
	 * of the long-term series: kernel (g - nmain) * 1000 / lts, on the
	 * first board and testcase.  The main tree spreads over the year,
	 * the long-term series over its first half, so that the newest
	 * kernels are the main tree's, on every series, as in a farm (the
	 * overview's heavy case).  Runs, their jobs and their histograms
	 * go in chunks so that the progress shows. */
	for (g = 0; g < runs; g += CHUNK) {
		long hi = g + CHUNK < runs ? g + CHUNK : runs;

		if (execf(c,
			  "BEGIN;"
			  "CREATE TEMP TABLE scale_g ON COMMIT DROP AS "
			  "SELECT g, gen_random_uuid() AS uuid, "
			  "CASE WHEN g < %ld THEN (g / %d) %% %d / %d ELSE 0 "
			  "END AS b, "
			  "CASE WHEN g < %ld THEN (g / %d) %% %d ELSE 0 "
			  "END AS t, "
			  "CASE WHEN g < %ld THEN g / %ld ELSE (g - %ld) * %d "
			  "/ %ld END AS k, g >= %ld AS lts, "
			  "now() - interval '1 year' + interval '1 second' * "
			  "CASE WHEN g < %ld THEN %f * g ELSE %f * (g - %ld) "
			  "END AS at FROM generate_series(%ld, %ld) g;"
			  "INSERT INTO jobs (id, kernel_id, board_id, "
			  "testcase_id, state, attempts, worker, kernel, "
			  "run_uuid, created_at, started_at, finished_at) "
			  "SELECT g + 1, k.id, b.id, t.id, 'done', 1, "
			  "'worker-' || (g %% 8), "
			  "CASE WHEN lts THEN 'scale-lts' ELSE "
			  "'linux-image-6.' || (scale_g.k + 1) || "
			  "'.0-scale-rt=1' END, "
			  "uuid, at - interval '11 minutes', "
			  "at - interval '10 minutes', at FROM scale_g "
			  "JOIN scale_map b ON b.kind = 'b' AND b.n = scale_g.b "
			  "JOIN scale_map t ON t.kind = 't' AND t.n = scale_g.t "
			  "JOIN scale_map k ON k.kind = "
			  "CASE WHEN lts THEN 'l' ELSE 'k' END "
			  "AND k.n = scale_g.k;"
			  "INSERT INTO runs (id, uuid, board_id, kernel_id, "
			  "testcase_id, job_id, status, clock, manifest, "
			  "commands, environment, started_at, finished_at, "
			  "created_at) "
			  "SELECT j.id, j.run_uuid, j.board_id, j.kernel_id, "
			  "j.testcase_id, j.id, CASE WHEN j.id %% 500 = 0 THEN "
			  "'hang' ELSE 'complete' END, 'icount:3', $m$%s$m$, "
			  "$m$%s$m$::jsonb->'commands', "
			  "$m$%s$m$::jsonb->'environment', j.started_at, "
			  "j.finished_at, j.finished_at FROM jobs j "
			  "WHERE j.id BETWEEN %ld AND %ld;"
			  "INSERT INTO histograms (run_id, thread, cpu, "
			  "range_us, bucket_us, counts, overflows, samples, "
			  "min_us, avg_us, max_us, p50_us, p99_us, p999_us, "
			  "p9999_us) SELECT r.id, c, c, %d, tpl.bucket_us, "
			  "tpl.counts, 0, tpl.samples, tpl.min_us, tpl.avg_us, "
			  "tpl.max_us, tpl.p50_us, tpl.p99_us, tpl.p999_us, "
			  "tpl.p9999_us FROM runs r CROSS JOIN "
			  "generate_series(0, 1) c JOIN scale_tpl tpl ON "
			  "tpl.id = (r.id * 7 + c * 13) %% %d "
			  "WHERE r.id BETWEEN %ld AND %ld AND r.status = "
			  "'complete';"
			  "COMMIT",
			  nmain, RUNS_PER_KERNEL, SERIES, TESTCASES, nmain,
			  RUNS_PER_KERNEL, TESTCASES, nmain,
			  (long)SERIES * RUNS_PER_KERNEL, nmain, LTS_KERNELS,
			  lts, nmain, nmain, year_s / nmain, year_s / 2 / lts,
			  nmain, g, hi - 1, manifest, manifest, manifest, g + 1,
			  hi, RANGE_US, TEMPLATES, g + 1, hi))
			return -EIO;
		if (isatty(STDOUT_FILENO) || hi == runs ||
		    (hi / CHUNK) % 10 == 0) {
			double el = (bench_now_ms() - t0) / 1e3;

			printf("  %ld / %ld runs, %.0f s, ~%.0f s left\n", hi,
			       runs, el, el * (runs - hi) / hi);
			fflush(stdout);
		}
	}
	if (execf(c,
		  "SELECT setval('jobs_id_seq', %ld); "
		  "SELECT setval('runs_id_seq', %ld);"
		  /* a verdict per series and kernel after the first, with
		   * the run ids of both sides; 1 in 50 a regression */
		  "INSERT INTO verdicts (board_id, testcase_id, "
		  "baseline_kernel_id, candidate_kernel_id, verdict, details, "
		  "baseline_runs, candidate_runs, created_at) "
		  "SELECT board_id, testcase_id, prev_k, kernel_id, "
		  "CASE WHEN (board_id * 31 + kernel_id * 7 + testcase_id) "
		  "%% 50 = 0 THEN 'REGRESSION' ELSE 'NO_CHANGE' END, "
		  "'{\"max_us\": {\"baseline\": 90, \"candidate\": 95}}', "
		  "prev_runs, runs, last_at + interval '1 second' FROM "
		  "(SELECT board_id, testcase_id, kernel_id, "
		  "array_agg(id ORDER BY id) AS runs, max(created_at) AS "
		  "last_at, lag(kernel_id) OVER w AS prev_k, "
		  "lag(array_agg(id ORDER BY id)) OVER w AS prev_runs "
		  "FROM runs GROUP BY 1, 2, 3 WINDOW w AS (PARTITION BY "
		  "board_id, testcase_id ORDER BY min(id))) s "
		  "WHERE prev_k IS NOT NULL ORDER BY last_at;"
		  /* what the farm has queued: 10^4 jobs */
		  "INSERT INTO jobs (kernel, board_id, testcase_id) "
		  "SELECT 'scale-rt', b.id, t.id FROM generate_series(0, %d) "
		  "g JOIN scale_map b ON b.kind = 'b' AND b.n = g %% %d "
		  "JOIN scale_map t ON t.kind = 't' AND t.n = (g / %d) %% %d;"
		  "DROP TABLE scale_map; DROP TABLE scale_tpl",
		  runs, runs, QUEUED_JOBS - 1, BOARDS, BOARDS, TESTCASES))
		return -EIO;
	if (bench_exec(c, "scale", "VACUUM ANALYZE"))
		return -EIO;
	printf("filled %ld runs in %.1f s\n", runs,
	       (bench_now_ms() - t0) / 1e3);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Measuring                                                          */

struct figure {
	const char *name;
	double value;	  /* NAN: not measured */
	const char *unit; /* "ms", "runs/s", "%", "kB" */
	const char *cmp;  /* "<=", ">=" or NULL: no target */
	double target;
	const char *why; /* when not measured */
};

static struct figure figures[48];
static int nfigures;

static void add(const char *name, double value, const char *unit,
		const char *cmp, double target, const char *why)
{
	if (nfigures < (int)(sizeof(figures) / sizeof(figures[0])))
		figures[nfigures++] =
			(struct figure){ name, value, unit, cmp, target, why };
}

static size_t discard(char *p, size_t s, size_t n, void *u)
{
	(void)p;
	(void)u;
	return s * n;
}

/* Median milliseconds of GET @base@path, @reps times after one warm-up;
 * NAN when an answer is not 200. */
static double get_ms(CURL *c, const char *base, const char *path, int reps)
{
	char url[1024];
	double *ms = calloc(reps, sizeof(*ms)), m = NAN, t0;
	long status = 0;
	int i;

	if (!ms)
		return NAN;
	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	for (i = -1; i < reps; i++) {
		t0 = bench_now_ms();
		if (curl_easy_perform(c) != CURLE_OK)
			goto out;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (status != 200) {
			fprintf(stderr, "scale: GET %s answered %ld\n", path,
				status);
			goto out;
		}
		if (i >= 0)
			ms[i] = bench_now_ms() - t0;
	}
	m = bench_median(ms, reps);
out:
	free(ms);
	return m;
}

/* Median milliseconds of the command line @cmd (output discarded). */
static double cmd_ms(const char *cmd, int reps)
{
	double *ms = calloc(reps, sizeof(*ms)), m = NAN, t0;
	int i;

	if (!ms)
		return NAN;
	for (i = 0; i < reps; i++) {
		t0 = bench_now_ms();
		if (system(cmd)) {
			fprintf(stderr, "scale: '%s' failed\n", cmd);
			goto out;
		}
		ms[i] = bench_now_ms() - t0;
	}
	m = bench_median(ms, reps);
out:
	free(ms);
	return m;
}

/* Median ms of a whole verdict; of its computing part (load both sides'
 * runs, compare) in *@compute_ms. */
static double verdict_ms(PGconn *conn, int reps, double *compute_ms)
{
	struct rtlab_err err = { "" };
	struct verdict_pair vp = { 0 };
	double *ms = calloc(reps, sizeof(*ms)), m = NAN, t0, t1;
	double *cms = calloc(reps, sizeof(*cms));
	int64_t b, t, kb, kc, id, before;
	json_t *v = NULL;
	char sql[128];
	int i;

	*compute_ms = NAN;
	if (!ms || !cms) {
		free(ms);
		free(cms);
		return NAN;
	}
	/* the two newest kernels of the main tree on a board midway */
	if (db_query_int64(conn, &err,
			   "SELECT id FROM boards WHERE name = 'scale-050'", 0,
			   NULL, &b) ||
	    db_query_int64(conn, &err,
			   "SELECT id FROM testcases WHERE name = 'scale-tc-5'",
			   0, NULL, &t) ||
	    db_query_int64(conn, &err,
			   "SELECT id FROM kernels WHERE tree = 'scale-rt' "
			   "ORDER BY id DESC OFFSET 1 LIMIT 1",
			   0, NULL, &kb) ||
	    db_query_int64(conn, &err,
			   "SELECT id FROM kernels WHERE tree = 'scale-rt' "
			   "ORDER BY id DESC LIMIT 1",
			   0, NULL, &kc))
		goto out;
	vp.board_id = (int)b;
	vp.testcase_id = (int)t;
	vp.base_kernel_id = (int)kb;
	vp.cand_kernel_id = (int)kc;
	vp.clock = "icount:3";
	vp.baseline_source = "default";
	if (db_query_int64(conn, &err,
			   "SELECT COALESCE(max(id), 0) FROM verdicts", 0, NULL,
			   &before))
		goto out;
	for (i = 0; i < reps; i++) {
		t0 = bench_now_ms();
		if (verdict_compute(conn, &vp, &v, &err))
			goto out;
		t1 = bench_now_ms();
		if (verdict_store(conn, &vp, v, &id, NULL, &err))
			goto out;
		ms[i] = bench_now_ms() - t0;
		cms[i] = t1 - t0;
		json_decref(v);
		v = NULL;
	}
	m = bench_median(ms, reps);
	*compute_ms = bench_median(cms, reps);
	/* the year as it was: these verdicts (INCONCLUSIVE at 3 runs a
	 * side) would ask the farm for more runs of their cell */
	snprintf(sql, sizeof(sql), "DELETE FROM verdicts WHERE id > %" PRId64,
		 before);
	if (bench_exec(conn, "scale", sql))
		m = NAN;
out:
	if (isnan(m))
		fprintf(stderr, "scale: verdict: %s\n", err.msg);
	json_decref(v);
	free(cms);
	free(ms);
	return m;
}

/* Claiming the next of the queued jobs, as a worker does, then putting
 * it back so the queue stays as it was. */
static double claim_ms(PGconn *conn, int reps)
{
	static const char *const kinds[] = { "qemu", NULL };
	struct rtlab_err err = { "" };
	double *ms = calloc(reps, sizeof(*ms)), m = NAN, t0;
	struct db_job job;
	char id[24];
	const char *p[1] = { id };
	int i;

	if (!ms)
		return NAN;
	for (i = 0; i < reps; i++) {
		memset(&job, 0, sizeof(job));
		t0 = bench_now_ms();
		if (db_job_claim(conn, "scale-worker", NULL, kinds, 600, &job,
				 &err)) {
			fprintf(stderr, "scale: claiming a job: %s\n", err.msg);
			goto out;
		}
		ms[i] = bench_now_ms() - t0;
		snprintf(id, sizeof(id), "%" PRId64, job.id);
		db_job_cleanup(&job);
		if (db_exec(conn, &err,
			    "UPDATE jobs SET state = 'queued', attempts = 0, "
			    "worker = NULL, lease_until = NULL, phase = NULL, "
			    "started_at = NULL WHERE id = $1::bigint",
			    1, p)) {
			fprintf(stderr, "scale: %s\n", err.msg);
			goto out;
		}
	}
	m = bench_median(ms, reps);
out:
	free(ms);
	return m;
}

/* The job list's query alone (a page of 100, like `rtlab jobs`), in
 * this process: what the command costs beyond starting a process. */
static double jobs_list_ms(PGconn *conn, const char *state, int reps)
{
	struct rtlab_err err = { "" };
	double *ms = calloc(reps, sizeof(*ms)), m = NAN, t0;
	struct db_job *jobs = NULL;
	size_t n = 0;
	int i;

	if (!ms)
		return NAN;
	for (i = 0; i < reps; i++) {
		t0 = bench_now_ms();
		struct db_job_filter f = { .state = state, .limit = 100 };

		if (db_job_list(conn, &f, &jobs, &n, &err)) {
			fprintf(stderr, "scale: listing jobs: %s\n", err.msg);
			goto out;
		}
		ms[i] = bench_now_ms() - t0;
		db_job_list_free(jobs, n);
	}
	m = bench_median(ms, reps);
out:
	free(ms);
	return m;
}

/* The farm's nightly tick over the year's 100 boards x 10 testcases with
 * 10^4 jobs queued: once with nothing new (every cell of the tree's
 * newest kernels already has its runs), once after the tree gained a
 * kernel (it queues that kernel's runs on every cell). */
static void farm_tick_figures(PGconn *conn, const char *rtlab,
			      const char *schedule)
{
	char cmd[1024];
	double ms, before, queued;
	long cells;

	if (!schedule) {
		add("farm tick, nothing new", NAN, "ms", NULL, 0,
		    "no --schedule given");
		return;
	}
	cells = (long)FARM_TICK_KERNELS * SERIES;
	snprintf(cmd, sizeof(cmd),
		 "'%s' farm tick --no-discover --no-notify --schedule '%s' "
		 ">/dev/null",
		 rtlab, schedule);
	before = query_num(conn, "SELECT count(*) FROM jobs");
	ms = cmd_ms(cmd, 3);
	if (query_num(conn, "SELECT count(*) FROM jobs") != before) {
		fprintf(stderr, "scale: the farm tick queued jobs where every "
				"cell had its runs\n");
		ms = NAN;
	}
	add("farm tick, nothing new (10^4 queued)", ms, "ms", "<=", 1000, NULL);
	add("  per cell (kernel x board x testcase)", ms / cells, "ms", NULL, 0,
	    NULL);
	if (bench_exec(conn, "scale",
		       "INSERT INTO tree_kernels (tree, package, version, "
		       "position) SELECT 'scale-rt', 'linux-image-6.' || "
		       "(max(position) + 2) || '.0-scale-rt', '1', "
		       "max(position) + 1 FROM tree_kernels "
		       "WHERE tree = 'scale-rt'")) {
		add("farm tick, a new kernel", NAN, "ms", NULL, 0,
		    "recording the tree's new kernel failed (above)");
		return;
	}
	ms = cmd_ms(cmd, 1);
	queued = query_num(conn, "SELECT count(*) FROM jobs") - before;
	add("farm tick, a new kernel (queues its runs)", ms, "ms", NULL, 0,
	    NULL);
	add("  jobs queued by it", queued, "jobs", NULL, 0, NULL);
	add("  per job queued", ms / queued, "ms", NULL, 0, NULL);
}

static void print_table(void)
{
	int i, met = 0, targets = 0;

	printf("\n%-44s %14s   %s\n", "figure", "value", "target");
	for (i = 0; i < nfigures; i++) {
		const struct figure *f = &figures[i];
		char val[64], tgt[64] = "";
		bool ok;

		if (isnan(f->value)) {
			printf("%-44s %14s   %s\n", f->name, "not measured:",
			       f->why ? f->why : "failed (above)");
			continue;
		}
		snprintf(val, sizeof(val), "%.*f %s",
			 f->value < 10	 ? 2 :
			 f->value < 1000 ? 1 :
					   0,
			 f->value, f->unit);
		if (f->cmp) {
			ok = !strcmp(f->cmp, "<=") ? f->value <= f->target :
						     f->value >= f->target;
			snprintf(tgt, sizeof(tgt), "%s %g %s  %s", f->cmp,
				 f->target, f->unit, ok ? "met" : "MISSED");
			targets++;
			met += ok;
		}
		printf("%-44s %14s   %s\n", f->name, val, tgt);
	}
	printf("%d of %d targets met\n", met, targets);
}

static int measure(const char *url, const char *rtlab, const char *ingest,
		   const char *schedule, int reps)
{
	struct rtlab_err err = { "" };
	double runs, v, cv, up = NAN, copy = NAN;
	char path[512], cmd[1024];
	PGconn *conn = db_connect(&err);
	CURL *c = curl_easy_init();
	int64_t last = 0;

	if (!conn || !c) {
		fprintf(stderr, "scale: %s\n", err.msg);
		db_disconnect(conn);
		if (c)
			curl_easy_cleanup(c);
		return -EIO;
	}
	runs = query_num(conn, "SELECT count(*) FROM runs");
	last = (int64_t)query_num(conn, "SELECT max(id) FROM runs");
	add("runs stored", runs, "runs", NULL, 0, NULL);

	if (ingest && sscanf(ingest, "%lf %lf", &up, &copy) == 2) {
		add("upload ingest over HTTP", up, "runs/s", NULL, 0, NULL);
		add("upload ingest / COPY of the same rows", 100 * up / copy,
		    "%", ">=", 75, NULL);
	} else {
		add("upload ingest / COPY of the same rows", NAN, "%", NULL, 0,
		    "no ingest figures given");
	}
	v = verdict_ms(conn, reps, &cv);
	add("verdict (load, compare, store), median", v, "ms", "<=", 10, NULL);
	add("  of which load and compare", cv, "ms", NULL, 0, NULL);
	add("GET /api/v1/runs (first page of 50)",
	    get_ms(c, url, "/api/v1/runs", reps), "ms", "<=", 100, NULL);
	snprintf(path, sizeof(path), "/api/v1/runs?before=%" PRId64, last / 2);
	add("GET /api/v1/runs?before= (a page mid-year)",
	    get_ms(c, url, path, reps), "ms", "<=", 100, NULL);
	add("GET /api/v1/runs?board= (one board's page)",
	    get_ms(c, url, "/api/v1/runs?board=scale-042", reps), "ms",
	    "<=", 100, NULL);
	add("GET /api/v1/runs?kernel=&testcase= (filtered)",
	    get_ms(c, url,
		   "/api/v1/runs?kernel=5.500.0-scale-lts&testcase=scale-tc-1",
		   reps),
	    "ms", "<=", 100, NULL);
	snprintf(path, sizeof(path), "/api/v1/runs/%" PRId64, last / 3);
	add("GET /api/v1/runs/{run}", get_ms(c, url, path, reps), "ms",
	    "<=", 100, NULL);
	snprintf(path, sizeof(path), "/runs/%" PRId64, last / 3);
	add("run page /runs/{run}", get_ms(c, url, path, reps), "ms", "<=", 100,
	    NULL);
	add("overview page /", get_ms(c, url, "/", reps), "ms", "<=", 100,
	    NULL);
	add("regressions page /regressions",
	    get_ms(c, url, "/regressions", reps), "ms", "<=", 100, NULL);
	add("GET /api/v1/verdicts (first page)",
	    get_ms(c, url, "/api/v1/verdicts", reps), "ms", "<=", 100, NULL);
	add("trend plot, main tree (PNG)",
	    get_ms(c, url,
		   "/api/v1/plots/trend.png?board=scale-050&"
		   "testcase=scale-tc-5&tree=scale-rt",
		   reps),
	    "ms", "<=", 1000, NULL);
	add("trend plot, 1000 kernels (PNG)",
	    get_ms(c, url,
		   "/api/v1/plots/trend.png?board=scale-001&"
		   "testcase=scale-tc-1&tree=scale-lts",
		   reps),
	    "ms", "<=", 1000, NULL);
	add("trend plot, 1000 kernels (SVG)",
	    get_ms(c, url,
		   "/api/v1/plots/trend.svg?board=scale-001&"
		   "testcase=scale-tc-1&tree=scale-lts",
		   reps),
	    "ms", "<=", 1000, NULL);
	add("claim the next of 10^4 queued jobs", claim_ms(conn, reps), "ms",
	    "<=", 100, NULL);
	add("jobs list query, newest 100", jobs_list_ms(conn, NULL, reps), "ms",
	    "<=", 100, NULL);
	add("jobs list query, 100 of the queued",
	    jobs_list_ms(conn, "queued", reps), "ms", "<=", 100, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' jobs >/dev/null", rtlab);
	add("rtlab jobs, whole command (process start)", cmd_ms(cmd, reps),
	    "ms", NULL, 0, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' --help >/dev/null", rtlab);
	add("  of which starting rtlab (rtlab --help)", cmd_ms(cmd, reps), "ms",
	    NULL, 0, NULL);
	add("GET /api/v1/jobs (first page of 50)",
	    get_ms(c, url, "/api/v1/jobs", reps), "ms", "<=", 100, NULL);
	snprintf(path, sizeof(path), "/api/v1/jobs?before=%" PRId64, last / 2);
	add("GET /api/v1/jobs?before= (a page mid-year)",
	    get_ms(c, url, path, reps), "ms", "<=", 100, NULL);
	add("GET /api/v1/jobs?state=queued",
	    get_ms(c, url, "/api/v1/jobs?state=queued", reps), "ms", "<=", 100,
	    NULL);
	add("GET /api/v1/jobs?board= (one board's)",
	    get_ms(c, url, "/api/v1/jobs?board=scale-042", reps), "ms",
	    "<=", 100, NULL);
	farm_tick_figures(conn, rtlab, schedule);
	v = query_num(conn, "SELECT pg_database_size(current_database())");
	add("database size per run", v / runs / 1024, "kB", "<=", 20, NULL);
	v = query_num(conn, "SELECT pg_total_relation_size('histograms')");
	add("  of which histograms (2 CPUs)", v / runs / 1024, "kB", NULL, 0,
	    NULL);
	v = query_num(conn, "SELECT pg_total_relation_size('runs')");
	add("  of which runs (row, manifest, indexes)", v / runs / 1024, "kB",
	    NULL, 0, NULL);
	print_table();
	curl_easy_cleanup(c);
	db_disconnect(conn);
	return 0;
}

/* The farm's schedule over the filled year, in @dir: the main tree
 * (scale-rt.yaml; its kernels are recorded by the fill) on every board
 * and testcase, its FARM_TICK_KERNELS newest kernels, RUNS_PER_KERNEL
 * runs each (farm.yaml), so that a tick over the year finds every cell
 * has its runs. */
static int write_schedule(const char *dir)
{
	char path[4096];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/scale-rt.yaml", dir);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "description: the main tree of bench/scale's year\n"
		   "kind: debian-series\n"
		   "packages: linux-image-6.*-scale-rt\n");
	if (fclose(f))
		goto fail;
	snprintf(path, sizeof(path), "%s/farm.yaml", dir);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "matrix:\n  - tree: %s/scale-rt.yaml\n    boards: [", dir);
	for (i = 1; i <= BOARDS; i++)
		fprintf(f, "%sscale-%03d", i > 1 ? ", " : "", i);
	fprintf(f, "]\n    testcases: [");
	for (i = 1; i <= TESTCASES; i++)
		fprintf(f, "%sscale-tc-%d", i > 1 ? ", " : "", i);
	fprintf(f, "]\n    kernels: %d\n    runs: %d\n", FARM_TICK_KERNELS,
		RUNS_PER_KERNEL);
	if (fclose(f))
		goto fail;
	printf("%s\n", path);
	return 0;
fail:
	fprintf(stderr, "scale: %s: %s\n", path, strerror(errno));
	return -errno;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: scale fill --runs N\n"
		   "       scale schedule DIR\n"
		   "       scale measure --url URL --rtlab PATH [--reps N] "
		   "[--ingest \"UPLOAD COPY\"]\n"
		   "                     [--schedule FARM.yaml]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "reps", required_argument, NULL, 'n' },
		{ "url", required_argument, NULL, 'u' },
		{ "rtlab", required_argument, NULL, 'x' },
		{ "ingest", required_argument, NULL, 'i' },
		{ "schedule", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *url = NULL, *rtlab = "rtlab", *ingest = NULL, *what;
	const char *schedule = NULL;
	struct rtlab_err err = { "" };
	long runs = 1000000;
	int reps = 20, c, ret;
	PGconn *conn;
	char *end;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	what = argv[1];
	if (!strcmp(what, "schedule") && argc == 3)
		return write_schedule(argv[2]) ? 1 : 0;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			runs = strtol(optarg, &end, 10);
			if (*end || runs <= 0) {
				fprintf(stderr,
					"scale: --runs '%s': expected "
					"a positive number\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			reps = atoi(optarg);
			if (reps < 1) {
				fprintf(stderr,
					"scale: --reps '%s': expected "
					"a positive number\n",
					optarg);
				return 2;
			}
			break;
		case 'u':
			url = optarg;
			break;
		case 'x':
			rtlab = optarg;
			break;
		case 'i':
			ingest = optarg;
			break;
		case 's':
			schedule = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!strcmp(what, "fill")) {
		conn = db_connect(&err);
		if (!conn) {
			fprintf(stderr, "scale: %s\n", err.msg);
			return 1;
		}
		ret = fill(conn, runs);
		db_disconnect(conn);
		return ret ? 1 : 0;
	}
	if (!strcmp(what, "measure") && url) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		ret = measure(url, rtlab, ingest, schedule, reps);
		curl_global_cleanup();
		return ret ? 1 : 0;
	}
	usage(stderr);
	return 2;
}
