/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_EXTRAS_CHECK_H
#define RTLAB_EXTRAS_CHECK_H

/*
 * A testcase's extras (testcases/README.md, "Extras") checked where they
 * are: each module and file exists and is readable, each module is a
 * kernel module whose vermagic names the kernel it will be loaded into.
 * The host runs this before anything boots, the agent again on the board.
 */

#include "error.h"
#include "testcase.h"

/**
 * extras_check() - the extras of @tc are usable: every module (its path
 * resolved with testcase_extra_path()) is a readable kernel module and,
 * when @release is not NULL, built for that kernel release; every file's
 * src is a readable regular file.
 * Return: 0, or a negative errno with @err naming the testcase, the entry
 * ("extras.modules[0] my_driver.ko") and what is wrong -- for a vermagic
 * both the module's and the kernel's release.
 */
int extras_check(const struct testcase *tc, const char *release,
		 struct rtlab_err *err) __must_check;

#endif
