// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TEMPORARY placeholders for subcommands whose modules are not in the tree
 * yet, so the front end links.  They are weak: the real cmd_* in
 * cli/cmd-server.c, cli/cmd-runs.c, cli/cmd-kernel.c or cli/cmd-boot.c
 * takes over as soon as it exists; then delete its stub here.
 */

#include <stdio.h>

#include "commands.h"

#define STUB(fn, what)                                                     \
	int fn(int argc, char **argv);                                     \
	__attribute__((weak)) int fn(int argc, char **argv)               \
	{                                                                  \
		fprintf(stderr, "rtlab %s: not built yet\n", what);        \
		return 1;                                                  \
	}

STUB(cmd_kernel, "kernel")
STUB(cmd_boot, "boot")
