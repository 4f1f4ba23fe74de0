// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Environment capture: kernel identity, CPU and clock facts, the kernel
 * config and the kernel log, for the manifest and the bundle.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "knob.h"
#include "proc.h"

#define ENV_CONFIG_MAX (16u << 20)
#define ENV_DMESG_MAX (8u << 20)

static char *env_path(const char *root, const char *path)
{
	char *p;

	if (asprintf(&p, "%s%s", root ? root : "", path) < 0)
		return NULL;
	return p;
}

/* The trimmed content of @root@path, or NULL. */
static char *env_read(const char *root, const char *path)
{
	char *p = env_path(root, path), *v;

	if (!p)
		return NULL;
	v = knob_read(p);
	free(p);
	return v;
}

/* A JSON string taking ownership of @s; JSON null when @s is NULL. */
static json_t *json_take(char *s)
{
	json_t *j = s ? json_string(s) : json_null();

	free(s);
	return j;
}

json_t *env_kernel_json(const char *root)
{
	struct utsname u;
	char *rt = env_read(root, "/sys/kernel/realtime");
	bool realtime;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	realtime = rt ? !strcmp(rt, "1") : !!strstr(u.version, "PREEMPT_RT");
	free(rt);
	return json_pack("{s:s, s:s, s:s, s:b}", "release", u.release,
			 "version", u.version, "machine", u.machine, "realtime",
			 realtime);
}

static char *cpuinfo_model(const char *root, unsigned int *ncpus)
{
	static const char *const keys[] = { "model name", "Model", "Hardware",
					    "cpu model",  "cpu",   NULL };
	char *info = env_read(root, "/proc/cpuinfo"), *line, *save = NULL;
	char *model = NULL;
	int rank = 99;

	*ncpus = 0;
	if (!info)
		return NULL;
	for (line = strtok_r(info, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *val;
		size_t klen;
		int i;

		if (!colon)
			continue;
		klen = colon - line;
		while (klen &&
		       (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		if (klen == 9 && !strncmp(line, "processor", 9))
			(*ncpus)++;
		for (val = colon + 1; *val == ' ' || *val == '\t'; val++)
			;
		/* Prefer the most specific key any architecture offers. */
		for (i = 0; keys[i] && i < rank; i++) {
			if (strlen(keys[i]) != klen ||
			    strncmp(line, keys[i], klen) || !*val)
				continue;
			free(model);
			model = strdup(val);
			rank = i;
			break;
		}
	}
	free(info);
	return model;
}

char *env_rt_tests_version(void)
{
	char *argv[] = { "cyclictest", "--help", NULL };
	char *out = NULL, *v = NULL, *p, *end;
	size_t len;
	int status;

	if (proc_capture(argv, 4096, &out, &len, &status, NULL))
		return NULL;
	/* "cyclictest V 2.40" */
	p = strstr(out, " V ");
	end = p ? strchr(p + 3, '\n') : NULL;
	if (p && end && end - (p + 3) < 32 && (!memchr(out, '\n', p - out)))
		v = strndup(p + 3, end - (p + 3));
	free(out);
	return v;
}

json_t *env_environment_json(const char *root, const char *clock)
{
	unsigned int ncpus;
	char *model = cpuinfo_model(root, &ncpus);
	char *rt = env_read(root, "/sys/kernel/realtime");
	json_t *env;

	if (!ncpus) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		ncpus = n > 0 ? n : 0;
	}
	env = json_pack(
		"{s:o, s:o, s:I, s:o, s:o, s:o, s:s, s:o, s:s}", "cmdline",
		json_take(env_read(root, "/proc/cmdline")), "cpu_model",
		json_take(model), "cpus", (json_int_t)ncpus, "isolcpus",
		json_take(env_read(root, "/sys/devices/system/cpu/isolated")),
		"clocksource",
		json_take(env_read(
			root,
			"/sys/devices/system/clocksource/clocksource0/current_clocksource")),
		/* x86: the revision loaded; a board health check compares it */
		"microcode",
		json_take(env_read(
			root,
			"/sys/devices/system/cpu/cpu0/microcode/version")),
		"sys_kernel_realtime", rt ? rt : "absent", "rt_tests_version",
		json_take(env_rt_tests_version()), "clock",
		clock ? clock : "host");
	free(rt);
	return env;
}

/* Read a whole file (gunzipped when @gz) through libarchive's raw format. */
static int read_archive_raw(const char *path, bool gz, char **data, size_t *len,
			    size_t max, struct rtlab_err *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t cap = 65536, n = 0;
	char *buf = NULL;
	la_ssize_t r;
	int ret = 0;

	if (!a)
		return rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	if (gz)
		archive_read_support_filter_gzip(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		ret = rtlab_err_seterr(err,
				       archive_errno(a) > 0 ? archive_errno(a) :
							      EIO,
				       "%s: cannot read: %s", path,
				       archive_error_string(a));
		goto out;
	}
	buf = malloc(cap);
	for (;;) {
		if (!buf) {
			ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory",
					       path);
			goto out;
		}
		if (n + 1 == cap) {
			char *nb;

			if (cap > max) {
				ret = rtlab_err_set(err,
						    "%s: larger than %zu bytes",
						    path, max);
				goto out;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				continue;
			}
			buf = nb;
			cap *= 2;
		}
		r = archive_read_data(a, buf + n, cap - 1 - n);
		if (r < 0) {
			ret = rtlab_err_set(err, "%s: cannot read: %s", path,
					    archive_error_string(a));
			goto out;
		}
		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	archive_read_free(a);
	return ret;
}

int env_read_config(const char *root, char **data, size_t *len, char **source,
		    struct rtlab_err *err)
{
	char *gz = env_path(root, "/proc/config.gz"), *boot = NULL;
	struct utsname u;
	int ret;

	*data = NULL;
	*source = NULL;
	if (!gz)
		return rtlab_err_seterr(err, ENOMEM, "config: out of memory");
	if (!access(gz, R_OK)) {
		ret = read_archive_raw(gz, true, data, len, ENV_CONFIG_MAX,
				       err);
		if (!ret)
			*source = gz;
		else
			free(gz);
		return ret;
	}
	if (uname(&u)) {
		free(gz);
		return rtlab_err_seterr(err, errno, "uname: %s",
					strerror(errno));
	}
	if (asprintf(&boot, "%s/boot/config-%s", root ? root : "", u.release) <
	    0) {
		free(gz);
		return rtlab_err_seterr(err, ENOMEM, "config: out of memory");
	}
	if (access(boot, R_OK)) {
		ret = rtlab_err_seterr(
			err, ENOENT,
			"kernel config: neither %s nor %s is readable", gz,
			boot);
		free(boot);
		free(gz);
		return ret;
	}
	free(gz);
	ret = read_archive_raw(boot, false, data, len, ENV_CONFIG_MAX, err);
	if (!ret)
		*source = boot;
	else
		free(boot);
	return ret;
}

/* /dev/kmsg without blocking: one record per read until EAGAIN. */
static int read_kmsg(const char *root, char **data, size_t *len,
		     struct rtlab_err *err)
{
	char *path = env_path(root, "/dev/kmsg"), *buf;
	size_t cap = 1 << 16, n = 0;
	int fd, ret = 0;

	if (!path)
		return rtlab_err_seterr(err, ENOMEM, "dmesg: out of memory");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = rtlab_err_seterr(err, errno, "dmesg failed and %s: %s",
				       path, strerror(errno));
		free(path);
		return ret;
	}
	buf = malloc(cap);
	while (buf && n + 8192 < ENV_DMESG_MAX) {
		ssize_t r;

		if (n + 8192 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, 8191);
		if (r < 0 && (errno == EINTR || errno == EPIPE))
			continue; /* EPIPE: records were overwritten */
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (!buf) {
		ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	} else {
		buf[n] = '\0';
		*data = buf;
		*len = n;
	}
	free(path);
	return ret;
}

int env_read_dmesg(const char *root, char **data, size_t *len,
		   struct rtlab_err *err)
{
	char *argv[] = { "dmesg", NULL };
	int status;

	*data = NULL;
	if (!root || !*root) {
		if (!proc_capture(argv, ENV_DMESG_MAX, data, len, &status,
				  NULL) &&
		    WIFEXITED(status) && !WEXITSTATUS(status) && *len)
			return 0;
		free(*data);
		*data = NULL;
	}
	return read_kmsg(root, data, len, err);
}
