// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/ingest: how fast the server stores runs.  Uploads a realistic run
 * (2 CPUs x ~1,000 non-empty 1 us buckets, summary, manifest) over loopback
 * with fresh run ids, and compares the rate with a plain COPY of the same
 * rows (one row per bucket) into the same PostgreSQL, in alternating
 * blocks of 10 runs, and with one INSERT per bucket.  Prints figures;
 * asserts nothing.
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

#include "common/bench-bundle.h"

#define NCPUS BENCH_BUNDLE_CPUS
#define NBUCKETS BENCH_BUNDLE_BUCKETS
#define BLOCK_RUNS 10 /* uploads, then as many COPYs, in turn */

static size_t discard(char *p, size_t s, size_t n, void *u)
{
	return s * n;
}

/* The uploading side: one connection, as an agent keeps. */
struct uploader {
	CURL *curl;
	struct curl_slist *hdrs;
	const char *ct_json, *board;
	int ok;
};

static int uploader_init(struct uploader *u, const char *url, const char *token,
			 const char *ct_json, const char *board)
{
	char auth[512];

	memset(u, 0, sizeof(*u));
	u->ct_json = ct_json;
	u->board = board;
	u->curl = curl_easy_init();
	if (!u->curl)
		return -ENOMEM;
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	u->hdrs = curl_slist_append(u->hdrs, auth);
	u->hdrs = curl_slist_append(u->hdrs,
				    "Content-Type: application/x-rtlab-bundle");
	curl_easy_setopt(u->curl, CURLOPT_URL, url);
	curl_easy_setopt(u->curl, CURLOPT_HTTPHEADER, u->hdrs);
	curl_easy_setopt(u->curl, CURLOPT_WRITEFUNCTION, discard);
	return 0;
}

static void uploader_cleanup(struct uploader *u)
{
	curl_slist_free_all(u->hdrs);
	if (u->curl)
		curl_easy_cleanup(u->curl);
	memset(u, 0, sizeof(*u));
}

/* Seconds spent uploading @nruns runs; u->ok counts the stored ones. */
static double upload_runs(struct uploader *u, int nruns)
{
	double t0, total = 0;
	int i;

	for (i = 0; i < nruns; i++) {
		void *data = NULL;
		size_t size = 0;
		long status = 0;
		char run_id[37];

		/* Bundles are built outside the timed section: the benchmark
		 * measures the server, not the agent. */
		if (bench_bundle_make(u->board, "bench-ingest", u->ct_json,
				      run_id, &data, &size))
			break;
		curl_easy_setopt(u->curl, CURLOPT_POSTFIELDS, data);
		curl_easy_setopt(u->curl, CURLOPT_POSTFIELDSIZE, (long)size);
		t0 = clock_mono_s();
		if (curl_easy_perform(u->curl) == CURLE_OK)
			curl_easy_getinfo(u->curl, CURLINFO_RESPONSE_CODE,
					  &status);
		total += clock_mono_s() - t0;
		free(data);
		if (status == 201)
			u->ok++;
		else
			fprintf(stderr, "ingest: upload answered %ld\n",
				status);
	}
	return total;
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

/* Each run's buckets go in as COPY rows, a run per transaction.  Into an
 * ordinary table: an upload is durable when it is answered, so the
 * yardstick is too (a temporary table's commit does not wait for the
 * disk, and that was measuring fsync, not storing). */
static int copy_setup(PGconn *db)
{
	return exec_ok(db, "SET client_min_messages = warning") &&
	       exec_ok(db, "DROP TABLE IF EXISTS bench_buckets") &&
	       exec_ok(db, "CREATE TABLE bench_buckets (run_id bigint, "
			   "cpu int, bucket_us int, count bigint)");
}

/* Seconds spent storing runs @first to @first + @nruns - 1 by COPY;
 * negative on failure. */
static double copy_runs(PGconn *db, int first, int nruns)
{
	char line[96];
	double t0 = clock_mono_s();
	int i, cpu, b, n;

	for (i = first; i < first + nruns; i++) {
		PGresult *r;

		if (!exec_ok(db, "BEGIN"))
			return -1;
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
			return -1;
	}
	return clock_mono_s() - t0;
}

/* Runs per second with one INSERT statement per bucket. */
static double bench_insert_each(PGconn *db, int nruns)
{
	char v[4][32];
	const char *params[4] = { v[0], v[1], v[2], v[3] };
	double t0, t;
	int i, cpu, b;

	if (!exec_ok(db, "DROP TABLE IF EXISTS bench_rows") ||
	    !exec_ok(db, "CREATE TABLE bench_rows (run_id bigint, "
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
	double upload, copy, each, up_s = 0, copy_s = 0;
	struct uploader up = { 0 };
	int done, n;
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
	ct_json = bench_cyclictest_json();
	db = PQconnectdb(conninfo);
	if (PQstatus(db) != CONNECTION_OK) {
		fprintf(stderr, "ingest: %s", PQerrorMessage(db));
		goto out;
	}
	/* Uploads and COPY alternate in blocks, so that a change in the
	 * host's load (other work on the machine) weighs on both alike. */
	if (uploader_init(&up, url, token, ct_json, board) || !copy_setup(db))
		goto out;
	for (done = 0; done < nruns; done += n) {
		double s;

		n = nruns - done < BLOCK_RUNS ? nruns - done : BLOCK_RUNS;
		up_s += upload_runs(&up, n);
		s = copy_runs(db, done, n);
		if (s < 0)
			goto out;
		copy_s += s;
	}
	exec_ok(db, "DROP TABLE bench_buckets");
	upload = up.ok ? up.ok / up_s : 0;
	copy = nruns / copy_s;
	each = bench_insert_each(db, nruns / 10 > 0 ? nruns / 10 : 1);
	printf("ingest benchmark: %d runs, %d CPUs x %d non-empty buckets each\n",
	       nruns, NCPUS, NBUCKETS);
	printf("  upload over HTTP, stored     %8.1f runs/s\n", upload);
	printf("  plain COPY of the same rows  %8.1f runs/s\n", copy);
	printf("  one INSERT per bucket        %8.1f runs/s\n", each);
	printf("  upload / COPY                %8.1f %%  (target >= 75 %%)\n",
	       copy > 0 ? 100 * upload / copy : 0);
	printf("  upload / INSERT per bucket   %8.1f x\n",
	       each > 0 ? upload / each : 0);
	ret = upload > 0 ? 0 : 1;
out:
	uploader_cleanup(&up);
	PQfinish(db);
	free(ct_json);
	curl_global_cleanup();
	return ret;
}
