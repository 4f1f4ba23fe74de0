// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A developer's modules, files and commands around a measurement.  The
 * modules go in with finit_module(2) and out with delete_module(2), as
 * the injector's do, so a board needs no insmod; a module the kernel
 * refuses, or a setup command that fails, fails the run: a measurement
 * without the code under test would be taken for one with it.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "extras.h"
#include "fsutil.h"
#include "manifest.h"
#include "modinfo.h"
#include "proc.h"

/* What a command's output keeps in the manifest (its end). */
#define EXTRAS_OUTPUT_MAX 1024

static void __printf(2, 3) note(struct extras_run *x, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!x->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	x->note(x->note_ctx, msg);
}

int extras_init(struct extras_run *x, const struct testcase *tc,
		const char *dir, void (*note_fn)(void *ctx, const char *msg),
		void *note_ctx)
{
	memset(x, 0, sizeof(*x));
	x->tc = tc;
	x->dir = dir;
	x->note = note_fn;
	x->note_ctx = note_ctx;
	x->modules = json_array();
	x->files = json_array();
	x->commands = json_array();
	x->loaded = calloc(tc->extras.nmodules + 1, sizeof(*x->loaded));
	x->created = calloc(tc->extras.nfiles + 1, sizeof(*x->created));
	if (!x->modules || !x->files || !x->commands || !x->loaded ||
	    !x->created) {
		extras_cleanup(x);
		return -ENOMEM;
	}
	return 0;
}

/* The module's file on this board. */
static char *module_path(const struct extras_run *x, const char *path)
{
	char *p;

	if (!x->dir)
		return testcase_extra_path(x->tc, path);
	if (asprintf(&p, "%s/%s", x->dir, testcase_module_file(path)) < 0)
		return NULL;
	return p;
}

/* Run @cmd with sh, its output (stdout and stderr) recorded. */
static int run_command(struct extras_run *x, const char *phase, const char *cmd,
		       struct rtlab_err *err)
{
	char *argv[] = { "sh", "-c",	    "exec 2>&1; eval \"$1\"",
			 "sh", (char *)cmd, NULL };
	char *out = NULL, sbuf[64];
	size_t len = 0;
	int status = 0, ret, code;

	note(x, "extras: %s: sh -c '%s'", phase, cmd);
	ret = proc_capture(argv, 1 << 16, &out, &len, &status, err);
	if (ret) {
		free(out);
		return ret;
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (len)
		note(x, "extras: %s output: %s", phase,
		     len > EXTRAS_OUTPUT_MAX ? out + len - EXTRAS_OUTPUT_MAX :
					       out);
	json_array_append_new(x->commands,
			      json_pack("{s:s, s:s, s:i, s:s}", "phase", phase,
					"command", cmd, "exit_status", code,
					"output",
					len > EXTRAS_OUTPUT_MAX ?
						out + len - EXTRAS_OUTPUT_MAX :
					out ? out :
					      ""));
	while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
		out[--len] = '\0';
	if (status)
		ret = rtlab_err_seterr(err, EIO, "'%s': %s%s%s", cmd,
				       proc_status_str(status, sbuf,
						       sizeof(sbuf)),
				       len ? ": " : "",
				       !len	 ? "" :
				       len > 200 ? out + len - 200 :
						   out);
	else
		note(x, "extras: %s: exit status 0", phase);
	free(out);
	return ret;
}

/* A file put in place (copied when no board did) and recorded. */
static int setup_file(struct extras_run *x, size_t i, struct rtlab_err *err)
{
	const struct tc_file *f = &x->tc->extras.files[i];
	char *src = NULL, *data = NULL, sha[65];
	size_t size = 0;
	struct stat st;
	int ret = 0;

	if (!x->dir) {
		/* A board's own file is never overwritten: nothing would
		 * put it back. */
		if (!lstat(f->dest, &st))
			return rtlab_err_seterr(err, EEXIST,
						"%s: exists on this board (the "
						"agent does not overwrite a "
						"board's files)",
						f->dest);
		src = testcase_extra_path(x->tc, f->src);
		if (!src)
			return -ENOMEM;
		ret = file_read_all(src, &data, &size, err);
		if (!ret)
			ret = file_write_all(f->dest, data, size, err);
		x->created[i] = !ret;
		free(data);
		data = NULL;
		free(src);
		if (ret)
			return ret;
	}
	ret = file_read_all(f->dest, &data, &size, err);
	if (ret) {
		rtlab_err_prefix(err, "not on the board");
		return ret;
	}
	sha256_hex(data, size, sha);
	free(data);
	note(x, "extras: file %s (%zu bytes, sha256 %s)", f->dest, size, sha);
	json_array_append_new(x->files,
			      json_pack("{s:s, s:s, s:s, s:I}", "src", f->src,
					"dest", f->dest, "sha256", sha, "size",
					(json_int_t)size));
	return 0;
}

/* A module checked against the running kernel, loaded and recorded. */
static int setup_module(struct extras_run *x, size_t i, const char *release,
			struct rtlab_err *err)
{
	const struct tc_module *m = &x->tc->extras.modules[i];
	const char *params = m->params ? m->params : "";
	struct modinfo mi = { 0 };
	char *path = module_path(x, m->path), sha[65] = "";
	json_t *rec;
	int fd = -1, ret;

	if (!path)
		return -ENOMEM;
	ret = modinfo_read(path, &mi, err);
	if (!ret)
		ret = file_sha256_hex(path, sha, err);
	if (!ret && !modinfo_matches_release(mi.vermagic, release))
		ret = rtlab_err_seterr(err, EINVAL,
				       "%s: built for another kernel: vermagic "
				       "'%s', this board runs %s",
				       path, mi.vermagic, release);
	rec = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:b}", "path",
			m->path, "file", testcase_module_file(m->path), "name",
			mi.name, "vermagic", mi.vermagic, "srcversion",
			mi.srcversion, "sha256", sha[0] ? sha : NULL, "params",
			params, "loaded", false);
	if (!ret) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			ret = rtlab_err_seterr(err, errno, "%s: %s", path,
					       strerror(errno));
	}
	if (!ret && syscall(SYS_finit_module, fd, params, 0)) {
		int e = errno;

		ret = rtlab_err_seterr(err, e, "insmod %s %s: %s%s", path,
				       params, strerror(e),
				       e == EEXIST ? " (already loaded)" :
				       e == EPERM  ? " (needs root; or modules "
						     "are locked down)" :
						     "");
	}
	if (fd >= 0)
		close(fd);
	if (!ret) {
		x->loaded[i] = true;
		note(x, "extras: insmod %s %s: loaded (name %s, vermagic %s)",
		     path, params, mi.name ? mi.name : "?", mi.vermagic);
	}
	if (rec) {
		json_object_set_new(rec, "loaded", json_boolean(!ret));
		if (ret)
			json_object_set_new(rec, "error",
					    json_string(err->msg));
		json_array_append_new(x->modules, rec);
	}
	modinfo_cleanup(&mi);
	free(path);
	return ret;
}

int extras_setup(struct extras_run *x, struct rtlab_err *err)
{
	const struct tc_extras *e = &x->tc->extras;
	struct utsname u;
	size_t i;
	int ret = 0;

	if (!testcase_has_extras(x->tc))
		return 0;
	x->set_up = true;
	uname(&u);
	for (i = 0; !ret && i < e->nfiles; i++) {
		ret = setup_file(x, i, err);
		if (ret)
			rtlab_err_prefix(err, "extras.files[%zu] %s", i,
					 e->files[i].dest);
	}
	for (i = 0; !ret && i < e->nmodules; i++) {
		ret = setup_module(x, i, u.release, err);
		if (ret)
			rtlab_err_prefix(err, "extras.modules[%zu] %s", i,
					 testcase_module_file(e->modules[i]
								      .path));
	}
	for (i = 0; !ret && i < e->nsetup; i++) {
		ret = run_command(x, "setup", e->setup[i], err);
		if (ret)
			rtlab_err_prefix(err, "extras.setup[%zu]", i);
	}
	return ret;
}

/* The module's name in the kernel: its .modinfo's, else its file's. */
static char *module_name(const struct extras_run *x, size_t i)
{
	json_t *rec = json_array_get(x->modules, i);
	const char *name = json_string_value(json_object_get(rec, "name"));
	const char *file = testcase_module_file(x->tc->extras.modules[i].path);
	char *s, *c;

	if (name)
		return strdup(name);
	s = strndup(file, strlen(file) - 3);
	for (c = s; c && *c; c++)
		if (*c == '-')
			*c = '_';
	return s;
}

int extras_teardown(struct extras_run *x, struct rtlab_err *err)
{
	const struct tc_extras *e = &x->tc->extras;
	struct rtlab_err e2 = { "" };
	int ret = 0, r, tries;
	size_t i;

	if (!x->set_up)
		return 0;
	x->set_up = false;
	for (i = 0; i < e->nteardown; i++) {
		r = run_command(x, "teardown", e->teardown[i], &e2);
		if (r && !ret) {
			rtlab_err_prefix(&e2, "extras.teardown[%zu]", i);
			*err = e2;
			ret = r;
		}
	}
	for (i = e->nmodules; i-- > 0;) {
		char *name;

		if (!x->loaded[i])
			continue;
		name = module_name(x, i);
		r = name ? 0 : -ENOMEM;
		for (tries = 0; !r && tries < 300; tries++) {
			if (!syscall(SYS_delete_module, name, O_NONBLOCK))
				break;
			if (errno != EAGAIN && errno != EBUSY) {
				r = -errno;
				break;
			}
			usleep(10000);
		}
		if (!r && tries == 300)
			r = -EBUSY;
		x->loaded[i] = false;
		json_object_set_new(json_array_get(x->modules, i), "removed",
				    json_boolean(!r));
		if (r && !ret)
			ret = rtlab_err_seterr(err, -r,
					       "extras.modules[%zu]: rmmod %s: %s",
					       i, name ? name : "?",
					       strerror(-r));
		else if (!r)
			note(x, "extras: rmmod %s", name);
		free(name);
	}
	for (i = 0; i < e->nfiles; i++) {
		if (!x->created[i])
			continue;
		x->created[i] = false;
		if (unlink(e->files[i].dest) < 0 && !ret)
			ret = rtlab_err_seterr(err, errno,
					       "extras.files[%zu]: %s: %s", i,
					       e->files[i].dest,
					       strerror(errno));
	}
	return ret;
}

json_t *extras_json(const struct extras_run *x)
{
	if (!x->tc || !testcase_has_extras(x->tc))
		return NULL;
	return json_pack("{s:O, s:O, s:O}", "modules", x->modules, "files",
			 x->files, "commands", x->commands);
}

void extras_cleanup(struct extras_run *x)
{
	if (!x)
		return;
	json_decref(x->modules);
	json_decref(x->files);
	json_decref(x->commands);
	free(x->loaded);
	free(x->created);
	memset(x, 0, sizeof(*x));
}
