// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel module files, read with libkmod (the library behind modinfo(8)
 * and modprobe): the "key=value" strings of a module's .modinfo, of which
 * rtlab keeps name, vermagic and srcversion.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libkmod.h>

#include "fsutil.h"
#include "modinfo.h"

/* A module larger than this is not one a board's initramfs carries. */
#define MODINFO_MAX_SIZE (64u << 20)

/* libkmod's own complaints would go to stderr; the caller's @err says it. */
static void kmod_quiet(void *data, int priority, const char *file, int line,
		       const char *fn, const char *format, va_list args)
{
	(void)data;
	(void)priority;
	(void)file;
	(void)line;
	(void)fn;
	(void)format;
	(void)args;
}

static int keep(char **field, const char *value)
{
	free(*field);
	*field = strdup(value ? value : "");
	return *field ? 0 : -ENOMEM;
}

int modinfo_read(const char *path, struct modinfo *mi, struct rtlab_err *err)
{
	struct kmod_list *info = NULL, *l;
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	size_t size;
	int ret = 0, n;

	memset(mi, 0, sizeof(*mi));
	ret = file_regular(path, &size, err);
	if (ret)
		return ret;
	if (size > MODINFO_MAX_SIZE)
		return rtlab_err_seterr(err, EFBIG,
					"%s: %zu bytes, larger than a module "
					"can be here (%u MiB)",
					path, size, MODINFO_MAX_SIZE >> 20);
	/* no module directory: only this file is read */
	ctx = kmod_new("/nonexistent", NULL);
	if (!ctx)
		return rtlab_err_seterr(err, ENOMEM,
					"%s: libkmod: out of memory", path);
	kmod_set_log_fn(ctx, kmod_quiet, NULL);
	ret = kmod_module_new_from_path(ctx, path, &mod);
	if (ret < 0) {
		rtlab_err_seterr(err, -ret, "%s: %s", path, strerror(-ret));
		goto out;
	}
	n = kmod_module_get_info(mod, &info);
	if (n < 0) {
		ret = rtlab_err_seterr(err, ENOEXEC,
				       "%s: not a kernel module (no readable "
				       ".modinfo: %s)",
				       path, strerror(-n));
		goto out;
	}
	kmod_list_foreach(l, info)
	{
		const char *key = kmod_module_info_get_key(l);
		const char *value = kmod_module_info_get_value(l);

		if (!strcmp(key, "vermagic"))
			ret = keep(&mi->vermagic, value);
		else if (!strcmp(key, "name"))
			ret = keep(&mi->name, value);
		else if (!strcmp(key, "srcversion"))
			ret = keep(&mi->srcversion, value);
		if (ret)
			break;
	}
	if (ret)
		ret = rtlab_err_seterr(err, ENOMEM, "%s: out of memory", path);
	else if (!mi->vermagic || !*mi->vermagic)
		ret = rtlab_err_seterr(err, ENOEXEC,
				       "%s: no vermagic in its .modinfo (not a "
				       "kernel module)",
				       path);
out:
	if (ret)
		modinfo_cleanup(mi);
	kmod_module_info_free_list(info);
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret;
}

bool modinfo_matches_release(const char *vermagic, const char *release)
{
	size_t n = strlen(release);

	return n && !strncmp(vermagic, release, n) &&
	       (vermagic[n] == ' ' || !vermagic[n]);
}

void modinfo_cleanup(struct modinfo *mi)
{
	if (!mi)
		return;
	free(mi->name);
	free(mi->vermagic);
	free(mi->srcversion);
	memset(mi, 0, sizeof(*mi));
}
