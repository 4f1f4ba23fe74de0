// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * manifest.json, the bundle's identity and table of contents: parsing and
 * validation with jansson (every complaint names the field), checking the
 * listed files against the bundle by size and SHA-256 (OpenSSL EVP), and
 * building the "files" object for a bundle being written.
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "bundle.h"
#include "manifest.h"
#include "run-limits.h"

#define MAN "manifest.json"

static const char *const run_status_names[] = {
	[RUN_STATUS_COMPLETE] = "complete",
	[RUN_STATUS_AGENT_ERROR] = "agent_error",
	[RUN_STATUS_BOOT_FAILED] = "boot_failed",
	[RUN_STATUS_PANIC] = "panic",
	[RUN_STATUS_HANG] = "hang",
};

#define RUN_STATUS_COUNT \
	(sizeof(run_status_names) / sizeof(run_status_names[0]))

const char *run_status_name(enum run_status s)
{
	if ((unsigned int)s >= RUN_STATUS_COUNT)
		return "unknown";
	return run_status_names[s];
}

int run_status_parse(const char *name, enum run_status *s)
{
	unsigned int i;

	for (i = 0; name && i < RUN_STATUS_COUNT; i++) {
		if (!strcmp(name, run_status_names[i])) {
			*s = (enum run_status)i;
			return 0;
		}
	}
	return -EINVAL;
}

void sha256_hex(const void *data, size_t size, char out[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	if (!EVP_Digest(data, size, md, &len, EVP_sha256(), NULL) ||
	    len != 32) {
		out[0] = '\0'; /* cannot happen with a working libcrypto */
		return;
	}
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

void manifest_cleanup(struct manifest *m)
{
	size_t i;

	if (!m)
		return;
	free(m->board);
	free(m->error);
	free(m->testcase);
	free(m->kernel_release);
	free(m->kernel_version);
	free(m->kernel_config_sha256);
	free(m->clock);
	free(m->started_at);
	free(m->finished_at);
	for (i = 0; m->files && i < m->nfiles; i++)
		free(m->files[i].name);
	free(m->files);
	free(m->json);
	json_decref(m->doc);
	memset(m, 0, sizeof(*m));
	m->kernel_realtime = -1;
	m->job_id = -1;
}

/* 8-4-4-4-12 hex digits; @out gets the lower-case form. */
static int uuid_normalize(const char *s, char out[37])
{
	unsigned int i;

	if (strlen(s) != 36)
		return -EINVAL;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
		} else if (!isxdigit((unsigned char)s[i])) {
			return -EINVAL;
		}
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[36] = '\0';
	return 0;
}

static int hex64_normalize(const char *s, char out[65])
{
	unsigned int i;

	if (strlen(s) != 64)
		return -EINVAL;
	for (i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[64] = '\0';
	return 0;
}

/* YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM) */
static int iso8601_check(const char *s)
{
	static const char pat[] = "dddd-dd-ddTdd:dd:dd";
	unsigned int i;

	for (i = 0; pat[i]; i++) {
		if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) :
				    s[i] != pat[i])
			return -EINVAL;
	}
	s += i;
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (!strcmp(s, "Z"))
		return 0;
	if ((s[0] == '+' || s[0] == '-') && isdigit((unsigned char)s[1]) &&
	    isdigit((unsigned char)s[2]) && s[3] == ':' &&
	    isdigit((unsigned char)s[4]) && isdigit((unsigned char)s[5]) &&
	    !s[6])
		return 0;
	return -EINVAL;
}

/* At most @max bytes, so a name cannot be refused later by an index. */
static int check_len(json_t *j, const char *path, size_t max,
		     struct rtlab_err *err)
{
	if (json_string_length(j) > max)
		return rtlab_err_set(
			err,
			MAN
			": field '%s': %zu bytes, more than the limit of %zu",
			path, json_string_length(j), max);
	return 0;
}

/*
 * A string field of at most RTLAB_MAX_TEXT_LEN bytes.  @path is the dotted
 * name used in messages.  Return 0 with *@out set (malloc'd) or left NULL
 * when absent/null and optional.
 */
static int get_str(json_t *obj, const char *key, const char *path,
		   bool required, char **out, struct rtlab_err *err)
{
	json_t *j = obj ? json_object_get(obj, key) : NULL;

	if (!j || json_is_null(j)) {
		if (required)
			return rtlab_err_set(err, MAN ": missing field '%s'",
					     path);
		return 0;
	}
	if (!json_is_string(j))
		return rtlab_err_set(err, MAN ": field '%s': expected a string",
				     path);
	if (required && !json_string_length(j))
		return rtlab_err_set(err,
				     MAN
				     ": field '%s': expected a non-empty string",
				     path);
	if (strcmp(path, "error") &&
	    check_len(j, path, RTLAB_MAX_TEXT_LEN, err))
		return -EINVAL;
	*out = strdup(json_string_value(j));
	return *out ? 0 : -ENOMEM;
}

/* A name that identifies something (indexed by the database). */
static int get_name(json_t *obj, const char *key, const char *path,
		    bool required, char **out, struct rtlab_err *err)
{
	json_t *j = obj ? json_object_get(obj, key) : NULL;

	if (json_is_string(j) && check_len(j, path, RTLAB_MAX_NAME_LEN, err))
		return -EINVAL;
	return get_str(obj, key, path, required, out, err);
}

static int get_uint(json_t *obj, const char *key, const char *path,
		    unsigned long long max, unsigned long long *out,
		    struct rtlab_err *err)
{
	json_t *j = obj ? json_object_get(obj, key) : NULL;

	if (!j || json_is_null(j))
		return 0;
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    (unsigned long long)json_integer_value(j) > max)
		return rtlab_err_set(
			err,
			MAN ": field '%s': expected an integer from 0 to %llu",
			path, max);
	*out = (unsigned long long)json_integer_value(j);
	return 0;
}

static int get_object(json_t *root, const char *key, bool required,
		      json_t **out, struct rtlab_err *err)
{
	json_t *j = json_object_get(root, key);

	*out = NULL;
	if (!j || json_is_null(j)) {
		if (required)
			return rtlab_err_set(err, MAN ": missing field '%s'",
					     key);
		return 0;
	}
	if (!json_is_object(j))
		return rtlab_err_set(err,
				     MAN ": field '%s': expected an object",
				     key);
	*out = j;
	return 0;
}

static int parse_identity(json_t *root, struct manifest *m,
			  struct rtlab_err *err)
{
	json_t *j;
	char *s = NULL;
	unsigned long long v = MANIFEST_FORMAT_VERSION;
	int ret;

	j = json_object_get(root, "format");
	if (j && (!json_is_string(j) ||
		  strcmp(json_string_value(j), MANIFEST_FORMAT)))
		return rtlab_err_set(err, MAN
				     ": field 'format': expected \"" MANIFEST_FORMAT
				     "\"");
	ret = get_uint(root, "format_version", "format_version", 1000, &v, err);
	if (ret)
		return ret;
	if (v != MANIFEST_FORMAT_VERSION)
		return rtlab_err_set(
			err,
			MAN
			": field 'format_version': expected %d, got %llu (a newer agent?)",
			MANIFEST_FORMAT_VERSION, v);

	ret = get_str(root, "run_id", "run_id", true, &s, err);
	if (ret)
		return ret;
	ret = uuid_normalize(s, m->run_id);
	free(s);
	if (ret)
		return rtlab_err_set(
			err, MAN
			": field 'run_id': expected a UUID (8-4-4-4-12 hex digits)");
	/* keep the stored document in agreement with the normalized id */
	if (json_object_set_new(root, "run_id", json_string(m->run_id)))
		return -ENOMEM;

	ret = get_name(root, "board", "board", true, &m->board, err);
	if (ret)
		return ret;
	ret = get_str(root, "status", "status", true, &s, err);
	if (ret)
		return ret;
	ret = run_status_parse(s, &m->status);
	free(s);
	if (ret)
		return rtlab_err_set(
			err, MAN
			": field 'status': expected one of complete, agent_error, boot_failed, panic, hang");
	j = json_object_get(root, "error");
	if (json_is_string(j) &&
	    check_len(j, "error", RTLAB_MAX_ERROR_LEN, err))
		return -EINVAL;
	return get_str(root, "error", "error", false, &m->error, err);
}

static int parse_testcase_kernel(json_t *root, struct manifest *m,
				 struct rtlab_err *err)
{
	static const char *const kfields[] = { "name", "tree" };
	unsigned long long v;
	unsigned int i;
	json_t *obj, *j;
	char *s = NULL;
	char hex[65];
	int ret;

	ret = get_object(root, "testcase", true, &obj, err);
	if (ret)
		return ret;
	ret = get_name(obj, "name", "testcase.name", true, &m->testcase, err);
	if (ret)
		return ret;
	v = 0;
	ret = get_uint(obj, "duration_s", "testcase.duration_s", UINT32_MAX, &v,
		       err);
	if (ret)
		return ret;
	m->duration_s = (unsigned int)v;
	v = 0;
	ret = get_uint(obj, "hist_range_us", "testcase.hist_range_us",
		       RTLAB_MAX_HIST_RANGE_US, &v, err);
	if (ret)
		return ret;
	m->hist_range_us = (unsigned int)v;
	m->tool = RT_TOOL_CYCLICTEST;
	j = json_object_get(obj, "tool");
	if (j && (!json_is_string(j) ||
		  rt_tool_lookup(json_string_value(j), &m->tool)))
		return rtlab_err_set(err,
				     MAN ": field 'testcase.tool': expected "
					 "one of %s",
				     rt_tool_names());

	ret = get_object(root, "kernel", true, &obj, err);
	if (ret)
		return ret;
	ret = get_name(obj, "release", "kernel.release", true,
		       &m->kernel_release, err);
	if (ret)
		return ret;
	ret = get_str(obj, "version", "kernel.version", false,
		      &m->kernel_version, err);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		j = json_object_get(obj, kfields[i]);
		if (j && !json_is_null(j) && !json_is_string(j))
			return rtlab_err_set(
				err,
				MAN ": field 'kernel.%s': expected a string",
				kfields[i]);
		if (j && json_is_string(j) &&
		    check_len(j, i ? "kernel.tree" : "kernel.name",
			      RTLAB_MAX_NAME_LEN, err))
			return -EINVAL;
	}
	j = json_object_get(obj, "realtime");
	if (j && !json_is_null(j)) {
		if (!json_is_boolean(j))
			return rtlab_err_set(
				err, MAN
				": field 'kernel.realtime': expected true or false");
		m->kernel_realtime = json_is_true(j);
	}
	ret = get_str(obj, "config_sha256", "kernel.config_sha256", false, &s,
		      err);
	if (ret || !s)
		return ret;
	ret = hex64_normalize(s, hex);
	free(s);
	if (ret)
		return rtlab_err_set(
			err, MAN
			": field 'kernel.config_sha256': expected 64 hex digits");
	m->kernel_config_sha256 = strdup(hex);
	return m->kernel_config_sha256 ? 0 : -ENOMEM;
}

static int parse_rest(json_t *root, struct manifest *m, struct rtlab_err *err)
{
	static const char *const times[] = { "started_at", "finished_at" };
	char **out[] = { &m->started_at, &m->finished_at };
	json_t *obj, *j;
	size_t i;
	int ret;

	ret = get_object(root, "environment", false, &obj, err);
	if (ret)
		return ret;
	ret = get_name(obj, "clock", "environment.clock", false, &m->clock,
		       err);
	if (ret)
		return ret;
	if (!m->clock) {
		m->clock = strdup("host");
		if (!m->clock)
			return -ENOMEM;
	}

	/* The job the run was made for: a job of the uploading board. */
	m->job_id = -1;
	j = json_object_get(root, "job_id");
	if (j && !json_is_null(j)) {
		const char *s = json_string_value(j);
		size_t n = s ? strlen(s) : 0;

		if (json_is_integer(j) && json_integer_value(j) > 0)
			m->job_id = json_integer_value(j);
		else if (n && n <= 18 && strspn(s, "0123456789") == n &&
			 strtoll(s, NULL, 10) > 0)
			m->job_id = strtoll(s, NULL, 10);
		else
			return rtlab_err_set(err, MAN
					     ": field 'job_id': expected a job "
					     "id (a whole number > 0)");
	}

	j = json_object_get(root, "commands");
	if (j && !json_is_null(j)) {
		if (!json_is_array(j))
			return rtlab_err_set(
				err, MAN
				": field 'commands': expected an array of strings");
		for (i = 0; i < json_array_size(j); i++)
			if (!json_is_string(json_array_get(j, i)))
				return rtlab_err_set(
					err,
					MAN
					": field 'commands[%zu]': expected a string",
					i);
	}

	/* A complete run measured its whole duration: a run cut short
	 * (cyclictest -b did that) is biased toward its spike. */
	j = json_object_get(root, "measurement");
	if (j && !json_is_null(j) && !json_is_object(j))
		return rtlab_err_set(err, MAN
				     ": field 'measurement': expected an object");
	if (m->status == RUN_STATUS_COMPLETE &&
	    json_is_true(json_object_get(j, "stopped_early")))
		return rtlab_err_set(
			err, MAN
			": field 'measurement.stopped_early': true, but status is complete; a complete run measures its whole duration");

	for (i = 0; i < 2; i++) {
		ret = get_str(root, times[i], times[i], false, out[i], err);
		if (ret)
			return ret;
		if (*out[i] && iso8601_check(*out[i]))
			return rtlab_err_set(
				err,
				MAN
				": field '%s': expected an ISO 8601 time like 2026-12-03T03:14:08Z",
				times[i]);
	}
	return 0;
}

static int parse_files(json_t *root, struct manifest *m, struct rtlab_err *err)
{
	unsigned long long size;
	struct manifest_file *f;
	const char *name;
	json_t *obj, *v, *sha;
	int ret;

	ret = get_object(root, "files", false, &obj, err);
	if (ret || !obj)
		return ret;
	if (json_object_size(obj) > BUNDLE_MAX_FILES)
		return rtlab_err_set(err,
				     MAN ": field 'files': more than %d files",
				     BUNDLE_MAX_FILES);
	m->files = calloc(json_object_size(obj) + 1, sizeof(*m->files));
	if (!m->files)
		return -ENOMEM;
	json_object_foreach(obj, name, v) {
		if (bundle_check_name(name))
			return rtlab_err_set(
				err,
				MAN
				": field 'files': '%s' is not a valid file name",
				name);
		if (!json_is_object(v))
			return rtlab_err_set(
				err,
				MAN
				": field 'files.%s': expected an object with size and sha256",
				name);
		f = &m->files[m->nfiles];
		f->name = strdup(name);
		if (!f->name)
			return -ENOMEM;
		m->nfiles++;
		if (!json_object_get(v, "size"))
			return rtlab_err_set(err,
					     MAN
					     ": missing field 'files.%s.size'",
					     name);
		size = 0;
		ret = get_uint(v, "size", "files.<name>.size",
			       BUNDLE_MAX_FILE_BYTES, &size, err);
		if (ret)
			return rtlab_err_set(
				err,
				MAN
				": field 'files.%s.size': expected an integer from 0 to %lu",
				name, BUNDLE_MAX_FILE_BYTES);
		f->size = size;
		sha = json_object_get(v, "sha256");
		if (sha && !json_is_null(sha) &&
		    (!json_is_string(sha) ||
		     hex64_normalize(json_string_value(sha), f->sha256)))
			return rtlab_err_set(
				err,
				MAN
				": field 'files.%s.sha256': expected 64 hex digits",
				name);
	}
	return 0;
}

int manifest_parse(const char *text, size_t len, struct manifest *m,
		   struct rtlab_err *err)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	memset(m, 0, sizeof(*m));
	m->kernel_realtime = -1;
	if (len > RTLAB_MAX_MANIFEST_BYTES)
		return rtlab_err_set(err,
				     MAN
				     ": %zu bytes, more than the limit of %lu",
				     len, RTLAB_MAX_MANIFEST_BYTES);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return rtlab_err_set(err, MAN ": line %d column %d: %s",
				     jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		ret = rtlab_err_set(err, MAN ": expected an object at the top");
		goto out;
	}
	ret = parse_identity(root, m, err);
	if (!ret)
		ret = parse_testcase_kernel(root, m, err);
	if (!ret)
		ret = parse_rest(root, m, err);
	if (!ret)
		ret = parse_files(root, m, err);
	if (ret)
		goto out;
	m->json = json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!m->json)
		ret = -ENOMEM;
	else
		m->doc = json_incref(root);
out:
	json_decref(root);
	if (ret == -ENOMEM)
		rtlab_err_seterr(err, ENOMEM, MAN ": out of memory");
	if (ret)
		manifest_cleanup(m);
	return ret;
}

int manifest_verify_files(const struct manifest *m, const struct bundle *b,
			  struct rtlab_err *err)
{
	const struct bundle_file *f;
	char hex[65];
	size_t i;

	for (i = 0; i < m->nfiles; i++) {
		f = bundle_get(b, m->files[i].name);
		if (!f)
			return rtlab_err_set(
				err,
				MAN
				": file '%s' is listed but not in the bundle",
				m->files[i].name);
		if (f->size != m->files[i].size)
			return rtlab_err_set(
				err,
				MAN
				": file '%s': size %zu listed but %zu in the bundle",
				m->files[i].name, m->files[i].size, f->size);
		if (!m->files[i].sha256[0])
			continue;
		sha256_hex(f->data, f->size, hex);
		if (strcmp(hex, m->files[i].sha256))
			return rtlab_err_set(
				err,
				MAN
				": file '%s': sha256 %s listed but %s in the bundle",
				m->files[i].name, m->files[i].sha256, hex);
	}
	return 0;
}

char *manifest_files_json(const struct bundle *b)
{
	json_t *files = json_object(), *v;
	char hex[65];
	char *text = NULL;
	size_t i;

	if (!files)
		return NULL;
	for (i = 0; i < b->nfiles; i++) {
		if (!strcmp(b->files[i].name, BUNDLE_MANIFEST))
			continue;
		sha256_hex(b->files[i].data, b->files[i].size, hex);
		v = json_pack("{s:I,s:s}", "size", (json_int_t)b->files[i].size,
			      "sha256", hex);
		if (!v || json_object_set_new(files, b->files[i].name, v))
			goto out;
	}
	text = json_dumps(files, JSON_COMPACT | JSON_SORT_KEYS);
out:
	json_decref(files);
	return text;
}
