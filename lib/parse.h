/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_PARSE_H
#define RTLAB_PARSE_H

/*
 * Numbers from text (options, query strings), one rule for all: decimal
 * digits only, no sign, no spaces, no trailing text.
 */

#include "error.h"

/**
 * parse_uint() - @s as a whole number from @min to @max.
 * Return: 0 with *@out set; -EINVAL (nothing written) when @s is empty,
 * signed, not all digits or out of range.
 */
int parse_uint(const char *s, unsigned int min, unsigned int max,
	       unsigned int *out) __must_check;

#endif
