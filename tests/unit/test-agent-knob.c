// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The knob save/restore list, against files in a temporary directory
 * standing in for /sys (the ftrace capture is in test-agent-ftrace.c).
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agent/knob.h"
#include "check.h"

static char dir[] = "/tmp/test-agent-knob.XXXXXX";

static char *path_of(const char *name)
{
	static char buf[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put(const char *name, const char *content)
{
	FILE *f = fopen(path_of(name), "w");

	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

static int same(const char *name, const char *want)
{
	char *v = knob_read(path_of(name));
	int ok = v && !strcmp(v, want);

	if (!ok)
		printf("# %s holds '%s', want '%s'\n", name,
		       v ? v : "(unreadable)", want);
	free(v);
	return ok;
}

static void test_restore(void)
{
	struct knob_list l;
	struct rtlab_err e = { "" };

	put("a", "1\n");
	put("b", "performance\n");
	knob_list_init(&l);
	CHECK_INT(knob_set(&l, path_of("a"), "0", NULL, &e), 0, "set a");
	CHECK_INT(knob_set(&l, path_of("b"), "powersave", NULL, &e), 0,
		  "set b");
	CHECK_INT(knob_set(&l, path_of("a"), "5", NULL, &e), 0, "set a again");
	CHECK(same("a", "5") && same("b", "powersave"), "new values written");
	CHECK_INT(l.n, 2, "a saved once, b once");
	CHECK_INT(knob_restore_all(&l, &e), 0, "restore all");
	CHECK(same("a", "1"), "a restored to its first value, not the second");
	CHECK(same("b", "performance"), "b restored");
	CHECK_INT(l.n, 0, "list empty after restore");
	CHECK_INT(knob_restore_all(&l, &e), 0, "second restore does nothing");
	CHECK(same("a", "1"), "second restore leaves a alone");
	knob_list_cleanup(&l);
}

static void test_orig_override(void)
{
	struct knob_list l;
	struct rtlab_err e = { "" };

	put("c", "7 (expanded: 1408)\n");
	knob_list_init(&l);
	CHECK_INT(knob_set(&l, path_of("c"), "4096", "1408", &e), 0,
		  "set with an explicit original");
	CHECK(same("c", "4096"), "c written");
	CHECK_INT(knob_restore_all(&l, &e), 0, "restore");
	CHECK(same("c", "1408"), "c restored to the given original");
	knob_list_cleanup(&l);
}

static void test_errors(void)
{
	struct knob_list l;
	struct rtlab_err e = { "" };
	int ret;

	knob_list_init(&l);
	ret = knob_set(&l, path_of("missing"), "1", NULL, &e);
	CHECK(ret == -ENOENT && strstr(e.msg, "missing"),
	      "a missing knob is -ENOENT naming it (%s)", e.msg);
	CHECK_INT(l.n, 0, "nothing saved for it");

	put("d", "x\n");
	CHECK_INT(knob_set(&l, path_of("d"), "y", NULL, &e), 0, "set d");
	put("e", "on\n");
	CHECK_INT(knob_set(&l, path_of("e"), "off", NULL, &e), 0, "set e");
	/* d vanishes: its restore fails, e's must still happen. */
	unlink(path_of("d"));
	mkdir(path_of("d"), 0700);
	memset(&e, 0, sizeof(e));
	ret = knob_restore_all(&l, &e);
	CHECK(ret < 0 && strstr(e.msg, "/d"),
	      "a failed restore is reported naming the file (%s)", e.msg);
	CHECK(same("e", "on"), "the other knobs are restored anyway");
	rmdir(path_of("d"));
	knob_list_cleanup(&l);
	knob_list_cleanup(&l);
	CHECK(1, "knob_list_cleanup twice is harmless");
}

static int rm_entry(const char *p, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(p);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		CHECK(0, "temporary directory: %s", strerror(errno));
		return check_exit();
	}
	test_restore();
	test_orig_override();
	test_errors();
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return check_exit();
}
