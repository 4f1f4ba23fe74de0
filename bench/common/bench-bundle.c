// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bundles the benchmarks upload: a realistic run (NCPUS CPUs x NBUCKETS
 * non-empty 1 us buckets, shaped like a long-tailed latency distribution)
 * under a fresh run id each time.
 */

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "bundle.h"
#include "manifest.h"
#include "bench-bundle.h"

#define NCPUS BENCH_BUNDLE_CPUS
#define NBUCKETS BENCH_BUNDLE_BUCKETS

/* A cyclictest --json document whose threads have NBUCKETS non-empty
 * buckets each, shaped like a long-tailed latency distribution. */
char *bench_cyclictest_json(void)
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

int bench_bundle_make(const char *board, const char *testcase,
		      const char *ct_json, char run_id[37], void **data,
		      size_t *size)
{
	struct rtlab_err err = { "" };
	struct bundle *b = bundle_alloc();
	json_t *m = json_object(), *files = json_object(), *f = json_object();
	char sha[65];
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
			    json_pack("{s:s, s:i, s:i}", "name", testcase,
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
		fprintf(stderr, "bench: building a bundle: %s\n", err.msg);
out:
	free(text);
	json_decref(m);
	bundle_free(b);
	return ret;
}

