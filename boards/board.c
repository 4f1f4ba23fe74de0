// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The board kinds and the one interface the worker, job queueing and
 * rtlab calibrate call: a kind is looked up by name here, and nowhere
 * else; kinds that can be registered but have no driver yet fail every
 * job with a message saying so.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <uuid/uuid.h>

#include "board.h"
#include "bundle.h"
#include "extras-check.h"
#include "initramfs.h"
#include "manifest.h"
#include "testcase.h"

static const struct board_kind *const kinds[] = {
	&board_kind_local,
	&board_kind_qemu,
	&board_kind_ssh,
	&board_kind_lava,
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct board_kind *board_kind_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < NKINDS; i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}

bool board_kind_has_driver(const struct board_kind *kind)
{
	return kind && kind->check_job && kind->open && kind->prepare &&
	       kind->run;
}

const char *const *board_kind_names(bool with_driver)
{
	static const char *all[NKINDS + 1], *driven[NKINDS + 1];
	size_t i, n = 0;

	for (i = 0; i < NKINDS; i++) {
		all[i] = kinds[i]->name;
		if (board_kind_has_driver(kinds[i]))
			driven[n++] = kinds[i]->name;
	}
	all[NKINDS] = NULL;
	driven[n] = NULL;
	return with_driver ? driven : all;
}

/* The kind named @name, with a driver; NULL with @err saying which. */
static const struct board_kind *kind_driven(const char *name, const char *board,
					    struct rtlab_err *err)
{
	const struct board_kind *k = board_kind_find(name);

	if (!k)
		rtlab_err_set(err, "board %s: unknown board kind '%s'", board,
			      name ? name : "(none)");
	else if (!board_kind_has_driver(k))
		rtlab_err_seterr(err, ENOSYS,
				 "board %s: board kind %s has no driver in "
				 "this build (kinds with one: local, qemu, ssh, "
				 "lava)",
				 board, k->name);
	else
		return k;
	return NULL;
}

char *board_definition_name(const char *board, const char *definition_json,
			    struct rtlab_err *err)
{
	json_error_t jerr;
	json_t *root, *v;
	char *name = NULL;

	root = json_loads(definition_json ? definition_json : "{}", 0, &jerr);
	if (!root || !json_is_object(root)) {
		rtlab_err_set(err,
			      "board '%s': definition: expected a JSON "
			      "object",
			      board);
		goto out;
	}
	v = json_object_get(root, "board");
	if (v && !json_is_string(v)) {
		rtlab_err_set(err,
			      "board '%s': definition field 'board': "
			      "expected the name or path of a board "
			      "definition (boards/NAME.yaml)",
			      board);
		goto out;
	}
	name = strdup(v ? json_string_value(v) : board);
	if (!name)
		rtlab_err_seterr(err, ENOMEM, "out of memory");
out:
	json_decref(root);
	return name;
}

int board_check_job(const char *kind, const char *board,
		    const char *definition_json, const char *kernel,
		    const char *testcase_path, char **stored_kernel,
		    struct rtlab_err *err)
{
	const struct board_kind *k = kind_driven(kind, board, err);
	int ret;

	*stored_kernel = NULL;
	if (!k)
		return -EINVAL;
	ret = k->check_job(board, definition_json, kernel, testcase_path,
			   stored_kernel, err);
	if (!ret && !k->host_nic) {
		ret = board_refuse_nic_load(k->name, board, testcase_path, err);
		if (ret) {
			free(*stored_kernel);
			*stored_kernel = NULL;
		}
	}
	return ret;
}

static struct board *open_kind(const struct board_kind *kind, const char *name,
			       const char *definition_json,
			       const char *def_name, const char *kernel,
			       struct rtlab_err *err)
{
	struct board *b = calloc(1, sizeof(*b));

	if (!b) {
		rtlab_err_seterr(err, ENOMEM, "out of memory");
		return NULL;
	}
	b->kind = kind;
	b->name = strdup(name);
	b->kernel = strdup(kernel	      ? kernel :
			   kind->boots_kernel ? "debian-rt" :
						BOARD_KERNEL_HOST);
	if (!b->name || !b->kernel) {
		rtlab_err_seterr(err, ENOMEM, "out of memory");
		goto fail;
	}
	if (kind->open(b, definition_json, def_name, err))
		goto fail;
	return b;
fail:
	board_close(b);
	return NULL;
}

struct board *board_open(const char *kind, const char *name,
			 const char *definition_json, const char *kernel,
			 struct rtlab_err *err)
{
	const struct board_kind *k = kind_driven(kind, name, err);

	return k ? open_kind(k, name, definition_json, NULL, kernel, err) :
		   NULL;
}

struct board *board_open_def(const char *name, const char *kernel,
			     struct rtlab_err *err)
{
	const struct board_kind *k;
	struct board_def *def;

	/* "local" is this host, which has no definition file */
	if (!strcmp(name, board_kind_local.name))
		return open_kind(&board_kind_local, name, NULL, NULL, kernel,
				 err);
	/* every definition file today is a virtual board's */
	def = board_def_find(name, err);
	if (!def)
		return NULL;
	k = def->kind; /* board_def_load() refuses kinds without a driver */
	board_def_free(def);
	return open_kind(k, name, NULL, name, kernel, err);
}

int board_prepare(struct board *b, struct rtlab_err *err)
{
	return b->kind->prepare(b, err);
}

int board_job_run(struct board *b, const struct board_job *job, const char *out,
		  struct board_run_info *info, struct rtlab_err *err)
{
	if (info)
		memset(info, 0, sizeof(*info));
	if (!job->duration_s)
		return rtlab_err_set(err,
				     "board %s: duration must be at least "
				     "1 s",
				     b->name);
	return b->kind->run(b, job, out, info, err);
}

void board_close(struct board *b)
{
	if (!b)
		return;
	if (b->kind && b->kind->release)
		b->kind->release(b);
	if (b->have_id)
		kernel_ident_cleanup(&b->id);
	kernel_def_free(b->k);
	board_def_free(b->def);
	free(b->agent);
	free(b->kernel);
	free(b->name);
	free(b);
}

/* @s names a kernel definition by its path, as kernel_def_find() takes
 * it. */
static bool is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".yaml"));
}

/*
 * A testcase's modules against @k's release when the kernel is in the
 * cache already: a module for another kernel is refused when the job is
 * queued, not only when a worker is about to boot it.  A kernel not
 * fetched yet is checked then.
 */
static int check_extras_release(const struct kernel_def *k,
				const char *testcase_path,
				struct rtlab_err *err)
{
	struct kernel_ident id;
	struct testcase tc;
	int ret;

	ret = testcase_load(testcase_path, &tc, err);
	if (ret || !tc.extras.nmodules)
		goto out;
	if (kernel_cached(k, NULL, &id, NULL))
		goto out;
	ret = extras_check(&tc, id.release, err);
	kernel_ident_cleanup(&id);
out:
	testcase_cleanup(&tc);
	return ret;
}

int board_check_kernel_job(const char *kernel, const char *testcase_path,
			   int (*check_kernel)(const struct kernel_def *k,
					       struct rtlab_err *err),
			   char **stored_kernel, struct rtlab_err *err)
{
	struct kernel_def *k;
	int ret;

	k = kernel_def_find(kernel, err);
	if (!k) {
		rtlab_err_prefix(err, "--kernel %s", kernel);
		return -EINVAL;
	}
	ret = check_kernel ? check_kernel(k, err) : 0;
	if (!ret)
		ret = initramfs_check_testcase(testcase_path, err);
	if (!ret)
		ret = check_extras_release(k, testcase_path, err);
	if (!ret) {
		/* a commit of a git tree is stored by its commit id, which
		 * a branch or tag given here named at queueing time */
		*stored_kernel = is_path(kernel) ? realpath(k->path, NULL) :
				 k->kind == KERNEL_KIND_BUILD ?
						   strdup(k->name) :
						   strdup(kernel);
		if (!*stored_kernel)
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
	}
	kernel_def_free(k);
	return ret;
}

int board_refuse_nic_load(const char *kind, const char *board,
			  const char *testcase_path, struct rtlab_err *err)
{
	struct testcase tc;
	int ret;

	ret = testcase_load(testcase_path, &tc, err);
	if (ret)
		return ret;
	if (testcase_nic_load(&tc))
		ret = rtlab_err_set(err,
				    "testcase %s: its network load (mode "
				    "iperf3-nic) is sent by the host into a "
				    "virtual board's NIC, which board '%s' "
				    "(kind %s) does not have: use mode iperf3 "
				    "there",
				    testcase_path, board, kind);
	testcase_cleanup(&tc);
	return ret;
}

int board_fetch_kernel(struct board *b, struct rtlab_err *err)
{
	int ret;

	if (b->have_id)
		return 0;
	ret = kernel_fetch(b->k, NULL, &b->id, err);
	if (ret)
		return ret;
	b->have_id = true;
	snprintf(b->release, sizeof(b->release), "%s", b->id.release);
	return 0;
}

void board_run_id(char run_id[37], const char *given)
{
	uuid_t u;

	if (given) {
		snprintf(run_id, 37, "%s", given);
		return;
	}
	uuid_generate(u);
	uuid_unparse_lower(u, run_id);
}

void board_bundle_status(const char *path, struct board_run_info *info)
{
	struct bundle *chk = bundle_read(path, NULL);
	const struct bundle_file *bf;
	struct manifest m;

	info->status[0] = '\0';
	bf = chk ? bundle_get(chk, BUNDLE_MANIFEST) : NULL;
	if (bf && !manifest_parse((const char *)bf->data, bf->size, &m, NULL)) {
		snprintf(info->status, sizeof(info->status), "%s",
			 run_status_name(m.status));
		manifest_cleanup(&m);
	}
	bundle_free(chk);
}
