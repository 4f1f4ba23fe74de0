// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The board kinds as the board-definition harness sees them: the kind
 * table by name, without the drivers behind it (QEMU, the local agent),
 * which a parser of YAML files never calls.
 */

#include <string.h>

#include "board.h"

const struct board_kind board_kind_qemu = { .name = "qemu" };
static const struct board_kind kind_local = { .name = "local" };
static const struct board_kind kind_ssh = { .name = "ssh" };
static const struct board_kind kind_lava = { .name = "lava" };

const struct board_kind *board_kind_find(const char *name)
{
	static const struct board_kind *const kinds[] = {
		&kind_local,
		&board_kind_qemu,
		&kind_ssh,
		&kind_lava,
	};
	size_t i;

	for (i = 0; name && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}
