/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_CLI_OPT_H
#define RTLAB_CLI_OPT_H

/*
 * Option parsing shared by the commands of cli/ (one command per
 * cmd-NAME.c): values checked by one rule, errors worded one way.
 */

#include "error.h"

/**
 * opt_uint() - option @opt's value @s as a whole number from @min to @max.
 * On error prints "rtlab CMD: OPT 'S': expected a whole number from MIN
 * to MAX" to stderr.
 * Return: 0 with *@out set, or -EINVAL.
 */
int opt_uint(const char *cmd, const char *opt, const char *s,
	     unsigned int min, unsigned int max,
	     unsigned int *out) __must_check;

#endif
