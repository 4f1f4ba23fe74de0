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
#include "scratch.h"

static void test_restore(void)
{
	struct knob_list l;
	struct rtlab_err e = { "" };

	scratch_put("a", "1\n");
	scratch_put("b", "performance\n");
	knob_list_init(&l);
	CHECK_INT(knob_set(&l, scratch_path("a"), "0", NULL, &e), 0, "set a");
	CHECK_INT(knob_set(&l, scratch_path("b"), "powersave", NULL, &e), 0,
		  "set b");
	CHECK_INT(knob_set(&l, scratch_path("a"), "5", NULL, &e), 0,
		  "set a again");
	CHECK(scratch_holds("a", "5") && scratch_holds("b", "powersave"),
	      "new values written");
	CHECK_INT(l.n, 2, "a saved once, b once");
	CHECK_INT(knob_restore_all(&l, &e), 0, "restore all");
	CHECK(scratch_holds("a", "1"),
	      "a restored to its first value, not the second");
	CHECK(scratch_holds("b", "performance"), "b restored");
	CHECK_INT(l.n, 0, "list empty after restore");
	CHECK_INT(knob_restore_all(&l, &e), 0, "second restore does nothing");
	CHECK(scratch_holds("a", "1"), "second restore leaves a alone");
	knob_list_cleanup(&l);
}

static void test_orig_override(void)
{
	struct knob_list l;
	struct rtlab_err e = { "" };

	scratch_put("c", "7 (expanded: 1408)\n");
	knob_list_init(&l);
	CHECK_INT(knob_set(&l, scratch_path("c"), "4096", "1408", &e), 0,
		  "set with an explicit original");
	CHECK(scratch_holds("c", "4096"), "c written");
	CHECK_INT(knob_restore_all(&l, &e), 0, "restore");
	CHECK(scratch_holds("c", "1408"), "c restored to the given original");
	knob_list_cleanup(&l);
}

static void test_errors(void)
{
	struct knob_list l;
	struct rtlab_err e = { "" };
	int ret;

	knob_list_init(&l);
	ret = knob_set(&l, scratch_path("missing"), "1", NULL, &e);
	CHECK(ret == -ENOENT && strstr(e.msg, "missing"),
	      "a missing knob is -ENOENT naming it (%s)", e.msg);
	CHECK_INT(l.n, 0, "nothing saved for it");

	scratch_put("d", "x\n");
	CHECK_INT(knob_set(&l, scratch_path("d"), "y", NULL, &e), 0, "set d");
	scratch_put("e", "on\n");
	CHECK_INT(knob_set(&l, scratch_path("e"), "off", NULL, &e), 0, "set e");
	/* d vanishes: its restore fails, e's must still happen. */
	unlink(scratch_path("d"));
	mkdir(scratch_path("d"), 0700);
	memset(&e, 0, sizeof(e));
	ret = knob_restore_all(&l, &e);
	CHECK(ret < 0 && strstr(e.msg, "/d"),
	      "a failed restore is reported naming the file (%s)", e.msg);
	CHECK(scratch_holds("e", "on"), "the other knobs are restored anyway");
	rmdir(scratch_path("d"));
	knob_list_cleanup(&l);
	knob_list_cleanup(&l);
	CHECK(1, "knob_list_cleanup twice is harmless");
}

int main(void)
{
	if (scratch_create("test-agent-knob")) {
		CHECK(0, "temporary directory: %s", strerror(errno));
		return check_exit();
	}
	test_restore();
	test_orig_override();
	test_errors();
	scratch_destroy();
	return check_exit();
}
