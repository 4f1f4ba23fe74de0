// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checking a testcase's extras before they reach a board: a missing file
 * or a module for another kernel found after a boot costs a boot and
 * reads as the board's failure; found here it names the developer's file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extras-check.h"
#include "fsutil.h"
#include "modinfo.h"

/* @path is a regular file this process can read. */
static int readable_file(const char *path, struct rtlab_err *err)
{
	int ret = file_regular(path, NULL, err);

	if (!ret && access(path, R_OK) < 0)
		ret = rtlab_err_seterr(err, errno, "%s: %s", path,
				       strerror(errno));
	return ret;
}

int extras_check(const struct testcase *tc, const char *release,
		 struct rtlab_err *err)
{
	const struct tc_extras *x = &tc->extras;
	struct modinfo mi = { 0 };
	char *path = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < x->nmodules; i++) {
		free(path);
		path = testcase_extra_path(tc, x->modules[i].path);
		if (!path) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			break;
		}
		ret = readable_file(path, err);
		if (!ret)
			ret = modinfo_read(path, &mi, err);
		if (!ret && release &&
		    !modinfo_matches_release(mi.vermagic, release))
			ret = rtlab_err_seterr(
				err, EINVAL,
				"%s: built for another kernel: vermagic '%s', "
				"the board's kernel is %s (rebuild it against "
				"linux-headers-%s)",
				path, mi.vermagic, release, release);
		modinfo_cleanup(&mi);
		if (ret)
			rtlab_err_prefix(err,
					 "testcase %s: extras.modules[%zu]",
					 tc->path, i);
	}
	for (i = 0; !ret && i < x->nfiles; i++) {
		free(path);
		path = testcase_extra_path(tc, x->files[i].src);
		if (!path) {
			ret = rtlab_err_seterr(err, ENOMEM, "out of memory");
			break;
		}
		ret = readable_file(path, err);
		if (ret)
			rtlab_err_prefix(err, "testcase %s: extras.files[%zu]",
					 tc->path, i);
	}
	free(path);
	return ret;
}
