// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the module cache's trust (kernels/module.c): a cached .ko
 * is used only when its sha256 is the one recorded when rtlab built it;
 * another module at the same path is refused, and a cache from before the
 * record is rebuilt.  No kernel headers or compiler are needed: the cases
 * stop before kbuild or at its failure.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "../../kernels/module.h"
#include "manifest.h"
#include "scratch.h"

static void put(const char *path, const char *text)
{
	struct rtlab_err err = { "" };

	if (file_write_all(path, text, strlen(text), &err))
		printf("# %s\n", err.msg);
}

static void test_verify(void)
{
	struct rtlab_err err = { "" };
	char ko[512], rec[600];

	snprintf(ko, sizeof(ko), "%s/rtlab_inject.ko", scratch_dir);
	snprintf(rec, sizeof(rec), "%s.sha256", ko);
	put(ko, "\177ELF the module rtlab built");
	CHECK_INT(module_verify(ko, &err), -ENOENT,
		  "nothing recorded: -ENOENT");
	CHECK_INT(module_record(ko, &err), 0, "record the built module");
	CHECK_INT(module_verify(ko, &err), 0, "the same file verifies");
	put(ko, "\177ELF another rtlab_inject.ko, same name");
	CHECK_INT(module_verify(ko, &err), -EBADMSG,
		  "another module at the path: -EBADMSG");
	CHECK(strstr(err.msg, ko) &&
		      strstr(err.msg, "recorded when rtlab built it"),
	      "... the message names the file and why: %s", err.msg);
	remove(rec);
	remove(ko);
}

/*
 * module_build() of a "local" kernel whose build tree is an empty
 * directory: the cache directory name is derived like module_build()
 * does (sha256 over each source's name, a NUL, and its contents).
 */
static void test_build_cache(void)
{
	struct rtlab_err err = { "" };
	struct kernel_ident id = { 0 };
	char src[512], mods[512], build[600], cache[512], odir[1200];
	char ko[1300], rec[1400], hex[65], buf[64], *path = NULL;
	const char *code = "int x;\n";
	size_t n;

	snprintf(src, sizeof(src), "%s/src", scratch_dir);
	snprintf(mods, sizeof(mods), "%s/modules", scratch_dir);
	snprintf(build, sizeof(build), "%s/build", mods);
	snprintf(cache, sizeof(cache), "%s/cache", scratch_dir);
	CHECK(!mkdir_p(src, 0755, &err) && !mkdir_p(build, 0755, &err),
	      "fake kernel build tree and sources");
	snprintf(ko, sizeof(ko), "%s/rtlab_x.c", src);
	put(ko, code);
	n = strlen("rtlab_x.c") + 1;
	memcpy(buf, "rtlab_x.c", n);
	memcpy(buf + n, code, strlen(code));
	sha256_hex(buf, n + strlen(code), hex);
	snprintf(odir, sizeof(odir), "%s/modules/9.9.9-test/rtlab_x-%.16s",
		 cache, hex);
	snprintf(ko, sizeof(ko), "%s/rtlab_x.ko", odir);
	snprintf(rec, sizeof(rec), "%s.sha256", ko);
	id.name = "test";
	id.release = "9.9.9-test";
	id.modules_dir = mods;

	/* A foreign module with a record of what rtlab built. */
	CHECK(!mkdir_p(odir, 0755, &err), "cache directory");
	put(ko, "\177ELF what rtlab built");
	CHECK(!module_record(ko, &err), "record");
	put(ko, "\177ELF a different module of the same name");
	CHECK_INT(module_build(&id, src, "rtlab_x", cache, &path, &err),
		  -EBADMSG,
		  "a cached module that is not the one built is refused");
	CHECK(!path && strstr(err.msg, ko), "... no path, naming it: %s",
	      err.msg);

	/* A cache from before the record: rebuilt (kbuild fails here). */
	remove(rec);
	CHECK(module_build(&id, src, "rtlab_x", cache, &path, &err) == -EIO &&
		      !path,
	      "an unrecorded cached module is rebuilt, not used (%s)", err.msg);
	CHECK(access(ko, F_OK) != 0, "... the old file is gone");
	free(path);
}

int main(void)
{
	if (scratch_create("test-module")) {
		CHECK(0, "scratch directory");
		return check_exit();
	}
	test_verify();
	test_build_cache();
	scratch_destroy();
	return check_exit();
}
