// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for lib/manifest.c: a valid manifest, every required field
 * missing in turn, bad values, run status names, SHA-256, and checking a
 * bundle's files against the manifest's list.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bundle.h"
#include "check.h"
#include "manifest.h"
#include "run-limits.h"

static const char valid[] =
	"{\"format\": \"rtlab-bundle\", \"format_version\": 1,"
	" \"run_id\": \"0F8FAD5B-D9CB-469F-A165-70867728950E\","
	" \"board\": \"qemu-icount\", \"status\": \"complete\","
	" \"testcase\": {\"name\": \"cyclictest-idle\", \"duration_s\": 5,"
	"   \"hist_range_us\": 1000, \"definition\": {\"loads\": []}},"
	" \"kernel\": {\"release\": \"6.1.0-57-rt-amd64\","
	"   \"version\": \"#1 SMP PREEMPT_RT Debian 6.1.192-3\","
	"   \"realtime\": true, \"config_sha256\":"
	"   \"E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855\"},"
	" \"environment\": {\"cpus\": 1, \"clock\": \"icount:3\"},"
	" \"commands\": [\"cyclictest -m -p95\"],"
	" \"started_at\": \"2026-12-03T03:14:08Z\","
	" \"finished_at\": \"2026-12-03T03:14:15.250+01:00\","
	" \"files\": {\"cyclictest.json\": {\"size\": 3, \"sha256\":"
	"   \"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"},"
	"   \"dmesg.txt\": {\"size\": 0}},"
	" \"extra\": {\"kept\": true}}";

static void test_valid(void)
{
	struct rtlab_err err = { "" };
	struct manifest m;
	int ret;

	ret = manifest_parse(valid, strlen(valid), &m, &err);
	CHECK(ret == 0, "valid manifest parses (%s)", err.msg);
	if (ret)
		return;
	CHECK_STR(m.run_id, "0f8fad5b-d9cb-469f-a165-70867728950e",
		  "run_id normalized to lower case");
	CHECK_STR(m.board, "qemu-icount", "board");
	CHECK_INT(m.status, RUN_STATUS_COMPLETE, "status");
	CHECK(m.error == NULL, "no error");
	CHECK_STR(m.testcase, "cyclictest-idle", "testcase.name");
	CHECK_INT(m.duration_s, 5, "testcase.duration_s");
	CHECK_INT(m.hist_range_us, 1000, "testcase.hist_range_us");
	CHECK_STR(m.kernel_release, "6.1.0-57-rt-amd64", "kernel.release");
	CHECK_STR(m.kernel_version, "#1 SMP PREEMPT_RT Debian 6.1.192-3",
		  "kernel.version");
	CHECK_INT(m.kernel_realtime, 1, "kernel.realtime");
	CHECK_STR(m.kernel_config_sha256,
		  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		  "kernel.config_sha256 lower-cased");
	CHECK_STR(m.clock, "icount:3", "environment.clock");
	CHECK_STR(m.started_at, "2026-12-03T03:14:08Z", "started_at");
	CHECK_INT(m.nfiles, 2, "two files listed");
	CHECK(m.nfiles == 2 && !strcmp(m.files[0].name, "cyclictest.json") &&
		      m.files[0].size == 3 && m.files[0].sha256[0] == 'b' &&
		      m.files[1].size == 0 && m.files[1].sha256[0] == '\0',
	      "files: names, sizes, sha256");
	CHECK(m.json && strstr(m.json, "\"kept\":true") &&
		      strstr(m.json, "0f8fad5b-d9cb") &&
		      !strstr(m.json, "0F8FAD5B"),
	      "json: compact, unknown keys kept, run_id normalized");
	manifest_cleanup(&m);
	manifest_cleanup(&m);
	CHECK(m.board == NULL && m.json == NULL, "cleanup twice is harmless");
}

/* Parse @valid with @path (a.b) removed or replaced by @value (JSON). */
static int parse_edited(const char *path, const char *value, struct manifest *m,
			struct rtlab_err *err)
{
	json_t *root = json_loads(valid, 0, NULL), *obj = root;
	char key[64], *dot, *text;
	int ret;

	snprintf(key, sizeof(key), "%s", path);
	dot = strchr(key, '.');
	if (dot) {
		*dot = '\0';
		obj = json_object_get(root, key);
		memmove(key, dot + 1, strlen(dot + 1) + 1);
	}
	if (value)
		json_object_set_new(obj, key,
				    json_loads(value, JSON_DECODE_ANY, NULL));
	else
		json_object_del(obj, key);
	text = json_dumps(root, 0);
	json_decref(root);
	ret = manifest_parse(text, strlen(text), m, err);
	free(text);
	return ret;
}

static void expect(const char *path, const char *value, const char *msg)
{
	struct rtlab_err err = { "" };
	struct manifest m;
	int ret;

	ret = parse_edited(path, value, &m, &err);
	CHECK(ret == -EINVAL && !strcmp(err.msg, msg),
	      "%s = %s: \"%s\" (got %d, \"%s\")", path,
	      value ? value : "(removed)", msg, ret, err.msg);
	if (!ret)
		manifest_cleanup(&m);
}

static void test_job_id(void)
{
	struct rtlab_err err = { "" };
	struct manifest m;

	CHECK_INT(manifest_parse(valid, strlen(valid), &m, &err), 0,
		  "no job_id");
	CHECK_INT(m.job_id, -1, "... is -1");
	manifest_cleanup(&m);
	CHECK_INT(parse_edited("job_id", "42", &m, &err), 0, "job_id 42");
	CHECK_INT(m.job_id, 42, "... is 42");
	manifest_cleanup(&m);
	CHECK_INT(parse_edited("job_id", "\"7\"", &m, &err), 0,
		  "job_id \"7\" (digits)");
	CHECK_INT(m.job_id, 7, "... is 7");
	manifest_cleanup(&m);
}

static void test_required(void)
{
	static const char *const req[] = {
		"run_id",	 "board",  "status",	     "testcase",
		"testcase.name", "kernel", "kernel.release",
	};
	char msg[128];
	unsigned int i;

	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		snprintf(msg, sizeof(msg), "manifest.json: missing field '%s'",
			 req[i]);
		expect(req[i], NULL, msg);
	}
}

static void test_bad_values(void)
{
	static const char uuid[] =
		"manifest.json: field 'run_id': expected a UUID (8-4-4-4-12 hex digits)";
	struct rtlab_err err = { "" };
	struct manifest m;
	int ret;

	expect("run_id", "\"not-a-uuid\"", uuid);
	expect("run_id", "\"0f8fad5b-d9cb-469f-a165-70867728950\"", uuid);
	expect("run_id", "\"0f8fad5bxd9cb-469f-a165-70867728950e\"", uuid);
	expect("run_id", "\"0f8fad5b-d9cb-469f-a165-70867728950g\"", uuid);
	expect("run_id", "\"{0f8fad5b-d9cb-469f-a165-70867728950e}\"", uuid);
	expect("run_id", "42",
	       "manifest.json: field 'run_id': expected a string");
	expect("status", "\"done\"",
	       "manifest.json: field 'status': expected one of complete, agent_error, boot_failed, panic, hang");
	expect("status", "\"Complete\"",
	       "manifest.json: field 'status': expected one of complete, agent_error, boot_failed, panic, hang");
	expect("measurement", "{\"stopped_early\": true}",
	       "manifest.json: field 'measurement.stopped_early': true, but status is complete; a complete run measures its whole duration");
	expect("measurement", "[]",
	       "manifest.json: field 'measurement': expected an object");
	expect("board", "\"\"",
	       "manifest.json: field 'board': expected a non-empty string");
	expect("testcase", "\"idle\"",
	       "manifest.json: field 'testcase': expected an object");
	expect("testcase.duration_s", "-1",
	       "manifest.json: field 'testcase.duration_s': expected an integer from 0 to 4294967295");
	expect("kernel.realtime", "\"yes\"",
	       "manifest.json: field 'kernel.realtime': expected true or false");
	expect("kernel.config_sha256", "\"abc\"",
	       "manifest.json: field 'kernel.config_sha256': expected 64 hex digits");
	expect("started_at", "\"yesterday\"",
	       "manifest.json: field 'started_at': expected an ISO 8601 time like 2026-12-03T03:14:08Z");
	expect("format_version", "2",
	       "manifest.json: field 'format_version': expected 1, got 2 (a newer agent?)");
	expect("job_id", "\"abc\"",
	       "manifest.json: field 'job_id': expected a job id (a whole number > 0)");
	expect("job_id", "0",
	       "manifest.json: field 'job_id': expected a job id (a whole number > 0)");
	expect("job_id", "-3",
	       "manifest.json: field 'job_id': expected a job id (a whole number > 0)");
	expect("job_id", "1.5",
	       "manifest.json: field 'job_id': expected a job id (a whole number > 0)");
	expect("format", "\"tarball\"",
	       "manifest.json: field 'format': expected \"rtlab-bundle\"");
	expect("commands", "[\"a\", 1]",
	       "manifest.json: field 'commands[1]': expected a string");
	expect("files", "{\"../x\": {\"size\": 1}}",
	       "manifest.json: field 'files': '../x' is not a valid file name");
	expect("files", "{\"a\": {\"sha256\": \"00\"}}",
	       "manifest.json: missing field 'files.a.size'");
	expect("files", "{\"a\": {\"size\": 1, \"sha256\": \"zz\"}}",
	       "manifest.json: field 'files.a.sha256': expected 64 hex digits");
	expect("files", "{\"a\": {\"size\": -5}}",
	       "manifest.json: field 'files.a.size': expected an integer from 0 to 67108864");

	/* limits (run-limits.h): names an index must hold, the range */
	{
		static const char *const names[] = {
			"testcase.name", "board",	"kernel.release",
			"kernel.tree",	 "kernel.name", "environment.clock",
		};
		static const unsigned int lens[] = { 3000, 129, 128 };
		char big[3100], want[160];
		unsigned int i, k;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			for (k = 0; k < 3; k++) {
				big[0] = '"';
				memset(big + 1, 'x', lens[k]);
				strcpy(big + 1 + lens[k], "\"");
				snprintf(want, sizeof(want),
					 "manifest.json: field '%s': %u bytes, more than the limit of 128",
					 names[i], lens[k]);
				ret = parse_edited(names[i], big, &m, &err);
				if (lens[k] > 128)
					CHECK(ret == -EINVAL &&
						      !strcmp(err.msg, want),
					      "%s of %u bytes refused: %s",
					      names[i], lens[k], err.msg);
				else
					CHECK(ret == 0,
					      "%s of %u bytes is fine (%s)",
					      names[i], lens[k],
					      ret ? err.msg : "");
				if (!ret)
					manifest_cleanup(&m);
			}
		}
	}
	{
		size_t n = RTLAB_MAX_MANIFEST_BYTES + 1;
		char *huge = malloc(n);

		if (huge)
			memset(huge, ' ', n);
		ret = huge ? manifest_parse(huge, n, &m, &err) : -ENOMEM;
		CHECK(ret == -EINVAL &&
			      strstr(err.msg,
				     "manifest.json: 1048577 bytes, more than the limit of 1048576"),
		      "a manifest.json over 1 MiB is refused unparsed: %s",
		      err.msg);
		free(huge);
	}
	expect("testcase.hist_range_us", "100000000",
	       "manifest.json: field 'testcase.hist_range_us': expected an integer from 0 to 100000");

	ret = manifest_parse("{\"run_id\": ", 11, &m, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "manifest.json: line 1"),
	      "truncated JSON names line and column: %s", err.msg);
	ret = manifest_parse("[1]", 3, &m, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "expected an object"),
	      "a JSON array is refused: %s", err.msg);
	ret = manifest_parse("{\"board\": \"a\", \"board\": \"b\"}", 28, &m,
			     &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "duplicate"),
	      "duplicate keys are refused: %s", err.msg);

	/* optional fields may go; clock defaults to host */
	ret = parse_edited("environment", NULL, &m, &err);
	CHECK(ret == 0, "no environment is fine (%s)", err.msg);
	if (!ret) {
		CHECK_STR(m.clock, "host", "clock defaults to host");
		manifest_cleanup(&m);
	}
	ret = parse_edited("status", "\"boot_failed\"", &m, &err);
	CHECK(ret == 0 && m.status == RUN_STATUS_BOOT_FAILED,
	      "status boot_failed (%s)", err.msg);
	if (!ret)
		manifest_cleanup(&m);
}

static void test_status_sha(void)
{
	enum run_status s = RUN_STATUS_COMPLETE;
	char hex[65];
	int i, ok = 1;

	for (i = RUN_STATUS_COMPLETE; i <= RUN_STATUS_HANG; i++)
		if (run_status_parse(run_status_name(i), &s) || (int)s != i)
			ok = 0;
	CHECK(ok, "run_status_name/parse round trip for every status");
	CHECK_STR(run_status_name(RUN_STATUS_AGENT_ERROR), "agent_error",
		  "agent_error name");
	CHECK_INT(run_status_parse("bogus", &s), -EINVAL, "bogus status");
	CHECK_INT(run_status_parse(NULL, &s), -EINVAL, "NULL status");
	CHECK_STR(run_status_name((enum run_status)99), "unknown",
		  "out-of-range status name");

	sha256_hex("abc", 3, hex);
	CHECK_STR(hex,
		  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		  "sha256(\"abc\")");
	sha256_hex("", 0, hex);
	CHECK_STR(hex,
		  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		  "sha256(\"\")");
}

/* A bundle with its manifest built by manifest_files_json(). */
static struct bundle *bundle_with_manifest(struct manifest *m,
					   struct rtlab_err *err)
{
	struct bundle *b = bundle_alloc();
	json_t *root = NULL, *files = NULL;
	char *ftext = NULL, *text = NULL;
	int ret = -1;

	if (!b || bundle_add(b, "cyclictest.json", "{\"a\": 1}", 8) ||
	    bundle_add(b, "dmesg.txt", "boot\n", 5) ||
	    bundle_add(b, "empty", "", 0))
		goto out;
	ftext = manifest_files_json(b);
	root = json_loads(valid, 0, NULL);
	files = ftext ? json_loads(ftext, 0, NULL) : NULL;
	if (!root || !files)
		goto out;
	json_object_set(root, "files", files);
	text = json_dumps(root, 0);
	if (!text || bundle_add(b, BUNDLE_MANIFEST, text, strlen(text)))
		goto out;
	ret = manifest_parse(text, strlen(text), m, err);
out:
	free(text);
	free(ftext);
	json_decref(files);
	json_decref(root);
	if (ret) {
		bundle_free(b);
		b = NULL;
	}
	return b;
}

static void test_verify(void)
{
	struct rtlab_err err = { "" };
	struct manifest m;
	struct bundle *b;
	char *ftext;
	int ret;

	b = bundle_with_manifest(&m, &err);
	CHECK(b != NULL, "manifest built with manifest_files_json parses (%s)",
	      err.msg);
	if (!b)
		return;
	CHECK_INT(m.nfiles, 3, "three files listed (manifest.json not)");
	ftext = manifest_files_json(b);
	CHECK(ftext && strstr(ftext, "\"dmesg.txt\":{\"sha256\":\"") &&
		      strstr(ftext, "\"size\":5") &&
		      !strstr(ftext, BUNDLE_MANIFEST),
	      "files JSON: %s", ftext ? ftext : "(null)");
	free(ftext);
	ret = manifest_verify_files(&m, b, &err);
	CHECK(ret == 0, "bundle matches its manifest (%s)", err.msg);

	ret = bundle_add(b, "dmesg.txt", "BOOT\n", 5);
	CHECK_INT(ret, 0, "same size, other content");
	ret = manifest_verify_files(&m, b, &err);
	CHECK(ret == -EINVAL && strstr(err.msg, "file 'dmesg.txt': sha256 "),
	      "sha256 mismatch named: %s", err.msg);

	ret = bundle_add(b, "dmesg.txt", "boot!\n", 6);
	CHECK_INT(ret, 0, "other size");
	ret = manifest_verify_files(&m, b, &err);
	CHECK(ret == -EINVAL &&
		      strstr(err.msg, "file 'dmesg.txt': size 5 listed but 6"),
	      "size mismatch named: %s", err.msg);
	manifest_cleanup(&m);
	bundle_free(b);

	b = bundle_with_manifest(&m, &err);
	if (!b)
		return;
	free(m.files[2].name);
	m.files[2].name = strdup("trace.dat");
	ret = manifest_verify_files(&m, b, &err);
	CHECK(ret == -EINVAL &&
		      strstr(err.msg,
			     "file 'trace.dat' is listed but not in the bundle"),
	      "listed but missing named: %s", err.msg);
	manifest_cleanup(&m);
	bundle_free(b);
}

int main(void)
{
	test_job_id();
	test_valid();
	test_required();
	test_bad_values();
	test_status_sha();
	test_verify();
	return check_exit();
}
