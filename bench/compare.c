// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/compare: how long one verdict takes against a full database.
 * Fills the database rtlab is pointed at with synthetic runs (default
 * 10^5: 10 boards x 10 testcases x 50 kernels in 5 trees x 20 runs, two
 * CPUs each, histograms with realistic bucket arrays) through
 * generate_series in SQL, then times the whole verdict of one series many
 * times: load the baseline's 20 runs and the candidate's runs from
 * PostgreSQL, regress_compare(), store the verdict.  Prints the median and
 * p99 in ms and the plan of the run-loading query; asserts nothing.
 *
 *   compare [--runs N] [--reps N]     (database: RTLAB_DB or the embedded)
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../db/db-verdicts.h"
#include "../db/db.h"
#include "common/bench-util.h"
#include "../services/verdict.h"

#define BOARDS 10
#define TESTCASES 10
#define KERNELS 50
#define TREES 5
#define TEMPLATES 32
#define RANGE_US 1000
#define SAMPLES 60000 /* per CPU: 60 s at 1 kHz */
#define TARGET_MS 20.0

/* Deterministic uniform in [0, 1). */
static double rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (*s >> 11) * (1.0 / 9007199254740992.0);
}

/* One histogram like an idle RT board's: a body around 12 us with
 * run-to-run wander and a long thin tail; as "{us,...}" and "{n,...}". */
static int template_sql(int t, char *buf, size_t size)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL * (t + 1), counts[RANGE_US] = { 0 };
	double shift = (rnd(&s) - 0.5) * 1.0;
	size_t len;
	int i, max = 0;
	char *p;

	for (i = 0; i < SAMPLES; i++) {
		double u = rnd(&s), v;

		if (u < 0.002)
			v = 25 + rnd(&s) * 80; /* tail */
		else /* body: a rough lognormal from two uniforms */
			v = 8 + shift +
			    4 * exp(0.35 * (rnd(&s) + rnd(&s) + rnd(&s) - 1.5) *
				    2);
		if ((int)v > max)
			max = (int)v;
		counts[(int)v < RANGE_US ? (int)v : RANGE_US - 1]++;
	}
	len = snprintf(buf, size, "(%d, '{", t);
	for (i = 0, p = buf + len; i < RANGE_US; i++)
		if (counts[i])
			p += snprintf(p, size - (p - buf), "%s%d",
				      p[-1] == '{' ? "" : ",", i);
	p += snprintf(p, size - (p - buf), "}', '{");
	for (i = 0; i < RANGE_US; i++)
		if (counts[i])
			p += snprintf(p, size - (p - buf), "%s%" PRIu64,
				      p[-1] == '{' ? "" : ",", counts[i]);
	p += snprintf(p, size - (p - buf), "}', %d, %d)", SAMPLES, max);
	return 0;
}

static int fill(PGconn *c, long runs)
{
	char sql[4096], tpl[16384];
	double t0 = bench_now_ms();
	int t;

	if (bench_exec(c, "compare", "BEGIN") ||
	    bench_exec(c, "compare",
		       "CREATE TEMP TABLE tpl (id int, bucket_us int[], "
		       "counts bigint[], samples bigint, max_us int) "
		       "ON COMMIT DROP"))
		return -EIO;
	for (t = 0; t < TEMPLATES; t++) {
		template_sql(t, tpl, sizeof(tpl));
		snprintf(sql, sizeof(sql), "INSERT INTO tpl VALUES ");
		if (strlen(sql) + strlen(tpl) >= sizeof(sql)) {
			char *big = malloc(strlen(tpl) + 64);
			int ret;

			if (!big)
				return -ENOMEM;
			sprintf(big, "INSERT INTO tpl VALUES %s", tpl);
			ret = bench_exec(c, "compare", big);
			free(big);
			if (ret)
				return ret;
		} else {
			strcat(sql, tpl);
			if (bench_exec(c, "compare", sql))
				return -EIO;
		}
	}
	snprintf(sql, sizeof(sql),
		 "INSERT INTO boards (name, kind) SELECT 'bench-' || g, 'qemu' "
		 "FROM generate_series(1, %d) g;"
		 "INSERT INTO testcases (name) SELECT 'bench-tc-' || g "
		 "FROM generate_series(1, %d) g;"
		 "INSERT INTO kernels (release, tree) SELECT "
		 "'6.1.' || g || '-bench-rt', 'bench-tree-' || ((g - 1) / %d) "
		 "FROM generate_series(1, %d) g;",
		 BOARDS, TESTCASES, KERNELS / TREES, KERNELS);
	if (bench_exec(c, "compare", sql))
		return -EIO;
	/* g -> run r of kernel k on testcase tc of board b; a kernel's runs
	 * come after its predecessor's (first-run time = kernel order). */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO runs (uuid, board_id, kernel_id, testcase_id, "
		 "status, clock, manifest, created_at) "
		 "SELECT gen_random_uuid(), "
		 "(SELECT id FROM boards WHERE name = 'bench-' || "
		 "(1 + g / %d)), "
		 "(SELECT id FROM kernels WHERE release = '6.1.' || "
		 "(1 + (g / 20) %% %d) || '-bench-rt'), "
		 "(SELECT id FROM testcases WHERE name = 'bench-tc-' || "
		 "(1 + (g / %d) %% %d)), "
		 "'complete', 'icount:3', '{}', "
		 "now() - interval '1 hour' * (%d - (g / 20) %% %d) "
		 "+ interval '1 second' * (g %% 20) "
		 "FROM generate_series(0, %ld) g",
		 (int)(runs / BOARDS > 0 ? runs / BOARDS : 1), KERNELS,
		 KERNELS * 20, TESTCASES, KERNELS, KERNELS, runs - 1);
	if (bench_exec(c, "compare", sql))
		return -EIO;
	snprintf(sql, sizeof(sql),
		 "INSERT INTO histograms (run_id, thread, cpu, range_us, "
		 "bucket_us, counts, overflows, samples, min_us, avg_us, "
		 "max_us) SELECT r.id, t, t, %d, tpl.bucket_us, tpl.counts, 0, "
		 "tpl.samples, tpl.bucket_us[1], 12.5, tpl.max_us "
		 "FROM runs r CROSS JOIN generate_series(0, 1) t "
		 "JOIN tpl ON tpl.id = (r.id * 2 + t) %% %d",
		 RANGE_US, TEMPLATES);
	if (bench_exec(c, "compare", sql) ||
	    bench_exec(c, "compare", "COMMIT") ||
	    bench_exec(c, "compare", "ANALYZE"))
		return -EIO;
	printf("filled %ld runs (%d series, %d kernels in %d trees, 2 CPUs "
	       "each) in %.1f s\n",
	       runs, BOARDS * TESTCASES * TREES, KERNELS, TREES,
	       (bench_now_ms() - t0) / 1e3);
	return 0;
}

static void explain(PGconn *c, int b, int t, int k)
{
	char sql[1024];
	PGresult *r;
	int i;

	snprintf(sql, sizeof(sql),
		 "EXPLAIN SELECT id, uuid FROM runs WHERE board_id = %d AND "
		 "testcase_id = %d AND kernel_id = %d AND status = 'complete' "
		 "AND clock = 'icount:3' ORDER BY id DESC LIMIT %d",
		 b, t, k, SERIES_MAX_RUNS);
	r = PQexec(c, sql);
	printf("plan of the run-loading query:\n");
	for (i = 0; i < PQntuples(r); i++)
		printf("  %s\n", PQgetvalue(r, i, 0));
	PQclear(r);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "reps", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct rtlab_err err = { "" };
	struct verdict_pair vp = { 0 };
	long runs = 100000;
	int reps = 200, i, c, ret = 1;
	double *ms = NULL, *load_ms = NULL, *comp_ms = NULL, t0;
	int64_t b, t, kb, kc, id;
	json_t *v = NULL;
	PGconn *conn;

	while ((c = getopt_long(argc, argv, "r:n:", opts, NULL)) != -1) {
		if (c == 'r')
			runs = strtol(optarg, NULL, 10);
		else if (c == 'n')
			reps = atoi(optarg);
		else
			return 2;
	}
	if (runs < BOARDS * TESTCASES * KERNELS * 2 || reps < 1) {
		fprintf(stderr, "compare: --runs must be >= %d, --reps >= 1\n",
			BOARDS * TESTCASES * KERNELS * 2);
		return 2;
	}
	ms = calloc(reps, sizeof(*ms));
	load_ms = calloc(reps, sizeof(*load_ms));
	comp_ms = calloc(reps, sizeof(*comp_ms));
	conn = db_connect(&err);
	if (!conn || !ms || !load_ms || !comp_ms) {
		fprintf(stderr, "compare: %s\n", err.msg);
		goto out;
	}
	if (fill(conn, runs))
		goto out;
	/* The series of board 3, testcase 4, the last two kernels of tree 2. */
	if (db_query_int64(conn, &err,
			   "SELECT id FROM boards WHERE name = "
			   "'bench-3'",
			   0, NULL, &b) ||
	    db_query_int64(conn, &err,
			   "SELECT id FROM testcases WHERE name = "
			   "'bench-tc-4'",
			   0, NULL, &t) ||
	    db_query_int64(conn, &err,
			   "SELECT id FROM kernels WHERE release "
			   "= '6.1.29-bench-rt'",
			   0, NULL, &kb) ||
	    db_query_int64(conn, &err,
			   "SELECT id FROM kernels WHERE release "
			   "= '6.1.30-bench-rt'",
			   0, NULL, &kc)) {
		fprintf(stderr, "compare: %s\n", err.msg);
		goto out;
	}
	vp.board_id = (int)b;
	vp.testcase_id = (int)t;
	vp.base_kernel_id = (int)kb;
	vp.cand_kernel_id = (int)kc;
	vp.clock = "icount:3";
	vp.baseline_source = "default";
	explain(conn, vp.board_id, vp.testcase_id, vp.cand_kernel_id);
	for (i = 0; i < reps; i++) {
		t0 = bench_now_ms();
		if (verdict_compute(conn, &vp, &v, &err) ||
		    verdict_store(conn, &vp, v, &id, NULL, &err)) {
			fprintf(stderr, "compare: %s\n", err.msg);
			goto out;
		}
		ms[i] = bench_now_ms() - t0;
		if (!i)
			printf("verdict %" PRId64 ": %s, %zu + %zu runs\n", id,
			       json_string_value(json_object_get(v, "verdict")),
			       json_array_size(json_object_get(
				       json_object_get(v, "baseline"), "runs")),
			       json_array_size(json_object_get(
				       json_object_get(v, "candidate"),
				       "runs")));
		json_decref(v);
		v = NULL;
	}
	bench_sort(ms, reps);
	/* Where the time goes: loading both sides alone. */
	for (i = 0; i < reps; i++) {
		struct series_runs sb, sc;

		t0 = bench_now_ms();
		if (db_series_runs_load(conn, vp.board_id, vp.testcase_id,
					vp.base_kernel_id, vp.clock, &sb,
					&err) ||
		    db_series_runs_load(conn, vp.board_id, vp.testcase_id,
					vp.cand_kernel_id, vp.clock, &sc,
					&err)) {
			fprintf(stderr, "compare: %s\n", err.msg);
			series_runs_cleanup(&sb);
			goto out;
		}
		load_ms[i] = bench_now_ms() - t0;
		series_runs_cleanup(&sb);
		series_runs_cleanup(&sc);
	}
	bench_sort(load_ms, reps);
	/* ... and everything but the store. */
	for (i = 0; i < reps; i++) {
		t0 = bench_now_ms();
		if (verdict_compute(conn, &vp, &v, &err)) {
			fprintf(stderr, "compare: %s\n", err.msg);
			goto out;
		}
		comp_ms[i] = bench_now_ms() - t0;
		json_decref(v);
		v = NULL;
	}
	bench_sort(comp_ms, reps);
	printf("load and compare, without the store: median %.2f ms, p99 "
	       "%.2f ms\n",
	       comp_ms[reps / 2], comp_ms[(int)ceil(reps * 0.99) - 1]);
	printf("loading the 20 + 20 runs alone: median %.2f ms, p99 %.2f "
	       "ms\n",
	       load_ms[reps / 2], load_ms[(int)ceil(reps * 0.99) - 1]);
	printf("one verdict (load 20 + 20 runs, regress_compare, store), "
	       "%d times:\n  median %.2f ms, p99 %.2f ms, max %.2f ms "
	       "(target <= %.0f ms: %s)\n",
	       reps, ms[reps / 2], ms[(int)ceil(reps * 0.99) - 1], ms[reps - 1],
	       TARGET_MS,
	       ms[(int)ceil(reps * 0.99) - 1] <= TARGET_MS ? "met" : "missed");
	ret = 0;
out:
	json_decref(v);
	free(ms);
	free(load_ms);
	free(comp_ms);
	db_disconnect(conn);
	return ret;
}
