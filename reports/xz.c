// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * xz compression of report attachments through the xz tool (a temporary
 * file in, a .xz out), for text that a bug tracker's limit would refuse.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "xz.h"

int xz_compress(const void *data, size_t size, void **out, size_t *out_size,
		struct rtlab_err *err)
{
	char tmpl[] = "/tmp/rtlab-xz.XXXXXX", *dir, *in = NULL, *xz = NULL;
	char *argv[] = { "xz", "-9", "-T1", "-f", "data", NULL }, *msg = NULL;
	int ret;

	*out = NULL;
	*out_size = 0;
	dir = mkdtemp(tmpl);
	if (!dir)
		return rtlab_err_seterr(err, errno,
					"xz: cannot create a temporary "
					"directory: %s",
					strerror(errno));
	in = path_join(dir, "data");
	xz = path_join(dir, "data.xz");
	if (!in || !xz) {
		ret = -ENOMEM;
		goto out;
	}
	ret = file_write_all(in, data, size, err);
	if (!ret)
		ret = spawn_capture(argv, dir, 1, &msg, err);
	if (ret > 0)
		ret = rtlab_err_seterr(err, EIO, "xz: exit status %d: %s", ret,
				       msg ? msg : "");
	if (!ret)
		ret = file_read_all(xz, (char **)out, out_size, err);
out:
	free(msg);
	free(in);
	free(xz);
	rmtree(dir);
	return ret;
}
