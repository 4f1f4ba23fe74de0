// SPDX-License-Identifier: GPL-2.0-or-later
/* Option parsing shared by the rtlab commands. */

#include <errno.h>
#include <stdio.h>

#include "opt.h"
#include "parse.h"

int opt_uint(const char *cmd, const char *opt, const char *s,
	     unsigned int min, unsigned int max, unsigned int *out)
{
	if (!parse_uint(s, min, max, out))
		return 0;
	fprintf(stderr, "rtlab %s: %s '%s': expected a whole number from %u "
		"to %u\n", cmd, opt, s, min, max);
	return -EINVAL;
}
