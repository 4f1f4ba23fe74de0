// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bundles the host writes for the kinds that boot a kernel (qemu, ssh,
 * lava): what their fault bundles' manifests say, and how a bundle gets
 * the host's logs and its manifest before it is written.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "board-bundle.h"

json_t *board_fault_manifest(const struct board_fault_run *f)
{
	const struct kernel_ident *id = f->kernel;
	char fin[CLOCK_ISO_SIZE];
	json_t *kern;

	clock_iso_utc(fin, time(NULL));
	kern = json_pack("{s:s, s:s?, s:s, s:s?, s:s?}", "release", id->release,
			 "version", id->version, "name", id->name, "tree",
			 id->tree, "config_sha256",
			 id->config_sha256[0] ? id->config_sha256 : NULL);
	if (kern)
		json_object_set_new(kern, "realtime",
				    id->realtime < 0 ?
					    json_null() :
					    json_boolean(id->realtime));
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:{s:s, s:i}, s:o, "
			 "s:{s:s, s:s}, s:s, s:s, s:O}",
			 "format", MANIFEST_FORMAT, "format_version",
			 MANIFEST_FORMAT_VERSION, "run_id", f->run_id, "board",
			 f->board, "status", run_status_name(f->status),
			 "error", f->why, "testcase", "name", f->testcase,
			 "duration_s", (int)f->duration_s, "kernel", kern,
			 "environment", "clock", f->clock, "cmdline",
			 f->cmdline, "started_at", f->started_at, "finished_at",
			 fin, f->kind_key, f->kind_json);
}

char *board_testcase_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *name = strdup(slash ? slash + 1 : path);

	if (name && strstr(name, ".yaml"))
		*strstr(name, ".yaml") = '\0';
	return name;
}

int board_bundle_add_log(struct bundle *bd, json_t *m, const char *name,
			 const char *data, size_t len, size_t keep)
{
	const struct bundle_file *f;
	json_t *files = json_object_get(m, "files");
	char hex[65];
	int ret;

	ret = bundle_add_tail(bd, name, data ? data : "", data ? len : 0, keep,
			      NULL);
	f = ret ? NULL : bundle_get(bd, name);
	if (!f)
		return ret ? ret : -ENOMEM;
	if (!json_is_object(files)) {
		files = json_object();
		if (!files || json_object_set_new(m, "files", files))
			return -ENOMEM;
	}
	sha256_hex(f->data, f->size, hex);
	return json_object_set_new(files, name,
				   json_pack("{s:I, s:s}", "size",
					     (json_int_t)f->size, "sha256",
					     hex)) ?
		       -ENOMEM :
		       0;
}

json_t *board_bundle_manifest(const struct bundle *bd, json_error_t *jerr)
{
	const struct bundle_file *mf = bundle_get(bd, BUNDLE_MANIFEST);
	json_t *m;

	jerr->text[0] = '\0';
	if (!mf)
		return NULL;
	m = json_loadb((const char *)mf->data, mf->size, 0, jerr);
	if (m && !json_is_object(m)) {
		json_decref(m);
		return NULL;
	}
	return m;
}

int board_bundle_write(struct bundle *bd, json_t *m, const char *out,
		       struct rtlab_err *err)
{
	char *text = json_dumps(m, JSON_INDENT(2));
	int ret;

	if (!text)
		return rtlab_err_seterr(err, ENOMEM, "manifest: out of memory");
	ret = bundle_add(bd, BUNDLE_MANIFEST, text, strlen(text));
	free(text);
	if (ret)
		return rtlab_err_seterr(err, -ret, "bundle: %s",
					strerror(-ret));
	return bundle_write(bd, out, err);
}
