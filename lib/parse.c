// SPDX-License-Identifier: GPL-2.0-or-later
/* Numbers from text, one rule for every option and query string. */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "parse.h"

int parse_uint(const char *s, unsigned int min, unsigned int max,
	       unsigned int *out)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}
