// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/ingest: how fast the server stores runs.  Uploads a realistic run
 * (2 CPUs x ~1,000 non-empty 1 us buckets, summary, manifest) over loopback
 * with fresh run ids, and compares the rate with a plain COPY of the same
 * rows (one row per bucket) into the same PostgreSQL, and with one INSERT
 * per bucket.  Prints figures; asserts nothing.
 *
 *   ingest --url URL --token TOKEN --conninfo CONNINFO [--runs N]
 */

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uuid/uuid.h>

#include "clock.h"
#include "bundle.h"
#include "manifest.h"

#define NCPUS 2
#define NBUCKETS 1000

/* A cyclictest --json document whose threads have NBUCKETS non-empty
 * buckets each, shaped like a long-tailed latency distribution. */
static char *make_cyclictest_json(void)
{
	json_t *doc = json_object(), *threads = json_object();
	char *text;
	int cpu, b;

	json_object_set_new(doc, "file_version", json_integer(1));
	json_object_set_new(doc, "cmdline:",
			    json_string("cyclictest -m -p95 -i200 -t -h 2000 -q"));
	json_object_set_new(doc, "rt_test_version:", json_string("2.40"));
	json_object_set_new(doc, "return_code", json_integer(0));
	json_object_set_new(doc, "num_threads", json_integer(NCPUS));
	for (cpu = 0; cpu < NCPUS; cpu++) {
		json_t *t = json_object(), *h = json_object();
		long long cycles = 0;
		char key[16];

		for (b = 0; b < NBUCKETS; b++) {
			long long n = (long long)(1e6 * exp(-b / 60.0)) + 1;

			snprintf(key, sizeof(key), "%d", b + 2);
			json_object_set_new(h, key, json_integer(n));
			cycles += n;
		}
		json_object_set_new(t, "histogram", h);
		json_object_set_new(t, "cycles", json_integer(cycles));
		json_object_set_new(t, "min", json_integer(2));
		json_object_set_new(t, "max", json_integer(NBUCKETS + 1));
		json_object_set_new(t, "avg", json_real(62.0));
		json_object_set_new(t, "cpu", json_integer(cpu));
		json_object_set_new(t, "node", json_integer(0));
		snprintf(key, sizeof(key), "%d", cpu);
		json_object_set_new(threads, key, t);
	}
	json_object_set_new(doc, "thread", threads);
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return text;
}

static int make_bundle(const char *board, const char *ct_json, void **data,
		       size_t *size)
{
	struct rtlab_err err = { "" };
	struct bundle *b = bundle_alloc();
	json_t *m = json_object(), *files = json_object(), *f = json_object();
	char run_id[37], sha[65];
	uuid_t u;
	char *text = NULL;
	int ret = -ENOMEM;

	if (!b)
		goto out;
	uuid_generate_random(u);
	uuid_unparse_lower(u, run_id);
	sha256_hex(ct_json, strlen(ct_json), sha);
	json_object_set_new(f, "size", json_integer(strlen(ct_json)));
	json_object_set_new(f, "sha256", json_string(sha));
	json_object_set_new(files, "cyclictest.json", f);
	json_object_set_new(m, "format", json_string(MANIFEST_FORMAT));
	json_object_set_new(m, "format_version",
			    json_integer(MANIFEST_FORMAT_VERSION));
	json_object_set_new(m, "run_id", json_string(run_id));
	json_object_set_new(m, "board", json_string(board));
	json_object_set_new(m, "status", json_string("complete"));
	json_object_set_new(m, "testcase",
			    json_pack("{s:s, s:i, s:i}", "name", "bench-ingest",
				      "duration_s", 60, "hist_range_us", 2000));
	json_object_set_new(m, "kernel",
			    json_pack("{s:s, s:s, s:b}", "release",
				      "6.1.0-bench-rt-amd64", "version",
				      "#1 SMP PREEMPT_RT", "realtime", 1));
	json_object_set_new(m, "environment",
			    json_pack("{s:s, s:i}", "clock", "host", "cpus",
				      NCPUS));
	json_object_set_new(m, "files", files);
	text = json_dumps(m, JSON_COMPACT);
	if (!text)
		goto out;
	ret = bundle_add(b, BUNDLE_MANIFEST, text, strlen(text));
	if (!ret)
		ret = bundle_add(b, "cyclictest.json", ct_json,
				 strlen(ct_json));
	if (!ret)
		ret = bundle_write_mem(b, data, size, &err);
	if (ret)
		fprintf(stderr, "ingest: building a bundle: %s\n", err.msg);
out:
	free(text);
	json_decref(m);
	bundle_free(b);
	return ret;
}

static size_t discard(char *p, size_t s, size_t n, void *u)
{
	return s * n;
}

static double bench_upload(const char *url, const char *token, int nruns,
			   const char *ct_json, const char *board)
{
	CURL *c = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	char auth[512];
	double t0, total = 0;
	int i, ok = 0;

	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	hdrs = curl_slist_append(hdrs, auth);
	hdrs = curl_slist_append(hdrs,
				 "Content-Type: application/x-rtlab-bundle");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	for (i = 0; i < nruns; i++) {
		void *data = NULL;
		size_t size = 0;
		long status = 0;

		/* Bundles are built outside the timed section: the benchmark
		 * measures the server, not the agent. */
		if (make_bundle(board, ct_json, &data, &size))
			break;
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)size);
		t0 = clock_mono_s();
		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		total += clock_mono_s() - t0;
		free(data);
		if (status == 201)
			ok++;
		else
			fprintf(stderr, "ingest: upload %d answered %ld\n", i,
				status);
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	return ok ? ok / total : 0;
}

static int exec_ok(PGconn *db, const char *sql)
{
	PGresult *r = PQexec(db, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK;

	if (!ok)
		fprintf(stderr, "ingest: %s: %s", sql, PQerrorMessage(db));
	PQclear(r);
	return ok;
}

/* Runs per second when each run's buckets go in as COPY rows. */
static double bench_copy(PGconn *db, int nruns)
{
	char line[96];
	double t0, t;
	int i, cpu, b, n;

	if (!exec_ok(db, "CREATE TEMP TABLE bench_buckets (run_id bigint, "
			 "cpu int, bucket_us int, count bigint)"))
		return 0;
	t0 = clock_mono_s();
	for (i = 0; i < nruns; i++) {
		PGresult *r;

		if (!exec_ok(db, "BEGIN"))
			return 0;
		r = PQexec(db, "COPY bench_buckets FROM STDIN");
		PQclear(r);
		for (cpu = 0; cpu < NCPUS; cpu++)
			for (b = 0; b < NBUCKETS; b++) {
				n = snprintf(line, sizeof(line),
					     "%d\t%d\t%d\t%lld\n", i, cpu,
					     b + 2,
					     (long long)(1e6 * exp(-b / 60.0)) +
						     1);
				PQputCopyData(db, line, n);
			}
		PQputCopyEnd(db, NULL);
		r = PQgetResult(db);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			fprintf(stderr, "ingest: COPY: %s", PQerrorMessage(db));
		PQclear(r);
		if (!exec_ok(db, "COMMIT"))
			return 0;
	}
	t = clock_mono_s() - t0;
	exec_ok(db, "DROP TABLE bench_buckets");
	return nruns / t;
}

/* Runs per second with one INSERT statement per bucket. */
static double bench_insert_each(PGconn *db, int nruns)
{
	char v[4][32];
	const char *params[4] = { v[0], v[1], v[2], v[3] };
	double t0, t;
	int i, cpu, b;

	if (!exec_ok(db, "CREATE TEMP TABLE bench_rows (run_id bigint, "
			 "cpu int, bucket_us int, count bigint)"))
		return 0;
	t0 = clock_mono_s();
	for (i = 0; i < nruns; i++) {
		if (!exec_ok(db, "BEGIN"))
			return 0;
		for (cpu = 0; cpu < NCPUS; cpu++)
			for (b = 0; b < NBUCKETS; b++) {
				PGresult *r;

				snprintf(v[0], 32, "%d", i);
				snprintf(v[1], 32, "%d", cpu);
				snprintf(v[2], 32, "%d", b + 2);
				snprintf(v[3], 32, "%lld",
					 (long long)(1e6 * exp(-b / 60.0)) + 1);
				r = PQexecParams(db,
						 "INSERT INTO bench_rows VALUES "
						 "($1, $2, $3, $4)",
						 4, NULL, params, NULL, NULL,
						 0);
				PQclear(r);
			}
		if (!exec_ok(db, "COMMIT"))
			return 0;
	}
	t = clock_mono_s() - t0;
	exec_ok(db, "DROP TABLE bench_rows");
	return nruns / t;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ingest --url URL --token TOKEN --conninfo CONNINFO "
		"[--board NAME] [--runs N]\n"
		"Uploads N synthetic runs (2 CPUs x %d buckets) to URL and "
		"compares with COPY\nand per-bucket INSERT into the "
		"database at CONNINFO.\n",
		NBUCKETS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "token", required_argument, NULL, 't' },
		{ "conninfo", required_argument, NULL, 'c' },
		{ "board", required_argument, NULL, 'b' },
		{ "runs", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *url = NULL, *token = NULL, *conninfo = NULL;
	const char *board = "bench";
	int nruns = 200, c, ret = 1;
	double upload, copy, each;
	char *ct_json;
	PGconn *db;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			url = optarg;
			break;
		case 't':
			token = optarg;
			break;
		case 'c':
			conninfo = optarg;
			break;
		case 'b':
			board = optarg;
			break;
		case 'n':
			nruns = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!url || !token || !conninfo || nruns <= 0) {
		usage(stderr);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ct_json = make_cyclictest_json();
	db = PQconnectdb(conninfo);
	if (PQstatus(db) != CONNECTION_OK) {
		fprintf(stderr, "ingest: %s", PQerrorMessage(db));
		goto out;
	}
	upload = bench_upload(url, token, nruns, ct_json, board);
	copy = bench_copy(db, nruns);
	each = bench_insert_each(db, nruns / 10 > 0 ? nruns / 10 : 1);
	printf("ingest benchmark: %d runs, %d CPUs x %d non-empty buckets each\n",
	       nruns, NCPUS, NBUCKETS);
	printf("  upload over HTTP, stored     %8.1f runs/s\n", upload);
	printf("  plain COPY of the same rows  %8.1f runs/s\n", copy);
	printf("  one INSERT per bucket        %8.1f runs/s\n", each);
	printf("  upload / COPY                %8.1f %%  (target >= 50 %%)\n",
	       copy > 0 ? 100 * upload / copy : 0);
	printf("  upload / INSERT per bucket   %8.1f x\n",
	       each > 0 ? upload / each : 0);
	ret = upload > 0 ? 0 : 1;
out:
	PQfinish(db);
	free(ct_json);
	curl_global_cleanup();
	return ret;
}
